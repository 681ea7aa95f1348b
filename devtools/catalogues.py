"""The interface's catalogues (``locale/``): Traditional Chinese made from Simplified Chinese, and what a
catalogue may not have — an untranslated or fuzzy entry, a placeholder or a tag its source does not have.

``make messages`` (scripts/messages.py) brings them up to date; ``tournament/tests/test_catalogues.py`` holds
them complete."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import opencc
import polib

ROOT = Path(__file__).resolve().parents[1]
LOCALES = ("zh_Hans", "zh_Hant", "ja", "ru")
# Where OpenCC's phrase table would change the game's own terms.
HANT_WORDS = ("五子棋", "連珠")
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdf]|%[sd]|\{\w*\}")
TAG = re.compile(r"</?(a|b|br|code|em|i|kbd|small|span|strong)\b")  # markup, not "/p/<key>/"


def catalogue(locale: str) -> Path:
    return ROOT / "locale" / locale / "LC_MESSAGES" / "django.po"


def entries(locale: str) -> list[polib.POEntry]:
    return [e for e in polib.pofile(str(catalogue(locale))) if not e.obsolete]


class Hant:
    """Simplified to Traditional Chinese with Taiwan's characters and usual terms (OpenCC ``s2twp``)."""

    def __init__(self) -> None:
        self.converter = opencc.OpenCC("s2twp")
        self.kept = {self.converter.convert(word): word for word in HANT_WORDS}

    def __call__(self, text: str) -> str:
        converted: str = self.converter.convert(text)
        for wrong, right in self.kept.items():
            converted = converted.replace(wrong, right)
        return converted


def make_hant() -> None:
    """Every zh_Hant entry is the zh_Hans one converted (placeholders and markup are ASCII: kept as they are)."""
    hant = Hant()
    hans = {(e.msgctxt, e.msgid): e for e in entries("zh_Hans")}
    po = polib.pofile(str(catalogue("zh_Hant")))
    for entry in po:
        source = hans.get((entry.msgctxt, entry.msgid))
        if entry.obsolete or source is None:
            continue
        done = source.translated() and "fuzzy" not in source.flags  # a guess of makemessages is not a translation
        entry.msgstr = hant(source.msgstr) if done else ""
        entry.msgstr_plural = {k: hant(v) if done else "" for k, v in source.msgstr_plural.items()}
        if "fuzzy" in entry.flags:
            entry.flags.remove("fuzzy")
        entry.previous_msgid = entry.previous_msgid_plural = entry.previous_msgctxt = None
    po.metadata["Language"] = "zh_Hant"
    po.save()


def _marks(text: str) -> tuple[set[str], Counter[str]]:
    return {m.group(0) for m in PLACEHOLDER.finditer(text)}, Counter(TAG.findall(text))


def problems(entry: polib.POEntry) -> list[str]:
    """What is wrong with one entry: untranslated, fuzzy, or a translation whose placeholders or tags differ
    from its source's (a plural form may leave out the count, as a language with one form for "1" does)."""
    if "fuzzy" in entry.flags:
        return ["fuzzy"]
    if not entry.translated():
        return ["untranslated"]
    found = []
    if entry.msgid_plural:
        sources = _marks(entry.msgid)[0] | _marks(entry.msgid_plural)[0]
        for form in entry.msgstr_plural.values():
            if not _marks(form)[0] <= sources:
                found.append(f"placeholders {sorted(_marks(form)[0] - sources)} not in the source")
        return found
    source_marks, source_tags = _marks(entry.msgid)
    marks, tags = _marks(entry.msgstr)
    if marks != source_marks:
        found.append(f"placeholders {sorted(marks)} against {sorted(source_marks)}")
    if tags != source_tags:
        found.append(f"tags {sorted(tags.elements())} against {sorted(source_tags.elements())}")
    return found


def english_strings(locale: str) -> set[str]:
    """The source strings ``locale`` translates into something else: any of them on a page in that language is
    a string left untranslated (names of openings and codes the translation keeps, like "Elo", are not)."""
    found = set()
    for entry in entries(locale):
        translated = [entry.msgstr] if not entry.msgid_plural else list(entry.msgstr_plural.values())
        for source in filter(None, (entry.msgid, entry.msgid_plural)):
            words = PLACEHOLDER.sub("", source)
            if source not in translated and len(re.findall(r"[A-Za-z]", words)) >= 2:
                found.add(source.strip())
    return found
