"""Every language of the interface is complete: each catalogue translates every string of the source, with the
placeholders and markup of its source, compiled as it stands; Traditional Chinese is Simplified Chinese
converted (devtools/catalogues.py); and the pages, the API's errors and the settings' language list agree."""

from __future__ import annotations

import polib
import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from devtools.catalogues import LOCALES, Hant, catalogue, entries, problems


def test_every_language_of_the_settings_has_a_catalogue_and_every_catalogue_a_language() -> None:
    codes = {translation.to_locale(code) for code, _name in settings.LANGUAGES} - {"en"}
    assert codes == set(LOCALES)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_catalogue_translates_every_string_with_its_placeholders_and_markup(locale: str) -> None:
    wrong = {e.msgid: found for e in entries(locale) if (found := problems(e))}
    assert not wrong, f"{len(wrong)} entries of {locale}: {list(wrong.items())[:10]}"
    source = {e.msgid for e in entries("zh_Hans")}
    assert {e.msgid for e in entries(locale)} == source  # made from the same source


@pytest.mark.parametrize("locale", LOCALES)
def test_the_compiled_catalogue_is_the_catalogue(locale: str) -> None:
    po = {(e.msgctxt, e.msgid): (e.msgstr, e.msgstr_plural) for e in entries(locale)}
    mo_path = catalogue(locale).with_suffix(".mo")
    mo = {(e.msgctxt, e.msgid): (e.msgstr, e.msgstr_plural) for e in polib.mofile(str(mo_path)) if e.msgid}
    assert mo == po, "run make messages"


def test_traditional_chinese_is_simplified_chinese_converted() -> None:
    hant = Hant()
    made = {(e.msgctxt, e.msgid): e.msgstr for e in entries("zh_Hant") if not e.msgid_plural}
    for entry in entries("zh_Hans"):
        if not entry.msgid_plural:
            assert made[(entry.msgctxt, entry.msgid)] == hant(entry.msgstr), entry.msgid
    assert hant("连珠的禁手由裁判判定") == "連珠的禁手由裁判判定"
    assert hant("服务器已满") == "伺服器已滿"


def test_the_conversion_keeps_the_games_names() -> None:
    assert Hant()("五子棋和连珠") == "五子棋和連珠"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "words"),
    [("zh-hant", "登入"), ("ja", "ログイン"), ("ru", "Войти"), ("zh-hans", "登录"), ("en", "Log in")],
)
def test_the_login_page_speaks_the_language_the_browser_asks_for(language: str, words: str) -> None:
    page = Client(HTTP_ACCEPT_LANGUAGE=language).get("/accounts/login/").content.decode()
    assert f'lang="{language}"' in page
    assert words in page
