"""The interface's catalogues brought up to date in one step (``make messages``).

1. Every language's ``django.po`` is updated from the source (Django's makemessages).
2. Traditional Chinese is made from Simplified Chinese (devtools/catalogues.py), so the two never drift apart:
   a better word goes into the Simplified entry.
3. Every catalogue is compiled, and what is left to translate (new strings in ``ja`` and ``ru``) is listed;
   ``tournament/tests/test_catalogues.py`` fails until it is translated.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from devtools.catalogues import LOCALES, ROOT, entries, make_hant, problems  # noqa: E402

IGNORED = (".venv", "var", "bench", "*/tests/*")


def manage(*args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, check=True)


def main() -> int:
    locales = [f"-l={locale}" for locale in LOCALES]
    manage("makemessages", *locales, *(f"--ignore={pattern}" for pattern in IGNORED), "--verbosity=0")
    make_hant()
    manage("compilemessages", *locales, "--ignore=.venv", "--verbosity=0")
    left = [(locale, e.msgid, found) for locale in LOCALES for e in entries(locale) for found in problems(e)]
    for locale, msgid, found in left:
        print(f"{locale}: {found}: {msgid!r}")
    return 1 if left else 0


if __name__ == "__main__":
    raise SystemExit(main())
