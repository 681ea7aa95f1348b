"""Refresh the README's pictures (``make screenshots``): run the browser test that opens every page of the
demo (in English and in Chinese), then crop the top of four of its full-page screenshots (var/test-artifacts/)
and shrink them into docs/images/, small enough to keep in the repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "var" / "test-artifacts"
IMAGES = ROOT / "docs" / "images"
TEST = (
    "tournament/tests/test_browser.py::"
    "test_every_page_renders_in_the_browser_in_every_language_with_nothing_left_in_english"
)
LANGUAGES = ("en", "zh-hans")
PAGES = {  # the README's picture -> the browser test's screenshot
    "tournament": "tournament-zh-hans",  # the demo as its players see it
    "control-room": "control-room-en",
    "game": "game-en",
    "team-event": "team-event-en",
    "double-elimination": "double-elimination-en",
    "player-console": "player-console-en",
}
WIDTH, CROP = 800, 1000 / 1200  # the top of each page, as tall as 5/6 of its width


def shrink(source: Path, target: Path) -> tuple[int, int]:
    with Image.open(source) as image:
        top = image.crop((0, 0, image.width, min(image.height, round(image.width * CROP))))
        small = top.resize((WIDTH, round(top.height * WIDTH / top.width)), Image.Resampling.LANCZOS)
        small.convert("RGB").save(target, optimize=True)
        return small.size


def main() -> int:
    tests = [f"{TEST}[{language}]" for language in LANGUAGES]
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *tests], cwd=ROOT)
    if ran.returncode != 0:
        return ran.returncode
    IMAGES.mkdir(parents=True, exist_ok=True)
    for name, shot in PAGES.items():
        width, height = shrink(ARTIFACTS / f"{shot}.png", IMAGES / f"{name}.png")
        print(f"docs/images/{name}.png {width}×{height}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
