"""Shared by the browser tests: accounts with a known password and a fresh browser context signed in."""

from __future__ import annotations

import functools
import re
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group as Role
from playwright.sync_api import Page, expect

from games.models import Player

PASSWORD = "browser-pass-1"


def account(name: str, role: str) -> Any:
    user = get_user_model().objects.create_user(name, password=PASSWORD)
    user.groups.add(Role.objects.get(name=role))
    return user


def open_page(browser: Any, base: str, user: Any = None, language: str = "en", viewport: Any = None) -> Page:
    """A fresh browser context (a desktop window unless ``viewport``; a touch screen when it is a phone's)."""
    context = browser.new_context(
        locale=language,
        extra_http_headers={"Accept-Language": language},
        viewport=viewport or {"width": 1200, "height": 1000},
        has_touch=bool(viewport) and viewport["width"] < 600,
    )
    page: Page = context.new_page()
    if user is not None:
        page.goto(f"{base}/accounts/login/")
        page.fill("#id_username", user.username)
        page.fill("#id_password", PASSWORD)
        page.locator("main button[type=submit]").click()
        page.wait_for_url(re.compile(r".*/me/$"))
    return page


def page_for(browser: Any, base: str, user: Any = None, language: str = "en", viewport: Any = None) -> Page:
    """A page in a fresh context, signed in as ``user`` if given."""
    return open_page(browser, base, user, language, viewport)


def two_players(prefix: str) -> tuple[Any, Any, Player, Player]:
    """Two players with accounts (``<prefix>1`` and ``<prefix>2``)."""
    one_user, two_user = account(f"{prefix}1", "player"), account(f"{prefix}2", "player")
    one = Player.objects.create(name=f"{prefix.title()} One", user=one_user)
    two = Player.objects.create(name=f"{prefix.title()} Two", user=two_user)
    return one_user, two_user, one, two


def click_point(page: Page, point: str) -> None:
    """Click an intersection of the SVG board (a1 is the lower left)."""
    col, row = "abcdefghijklmno".index(point[0]), int(point[1:]) - 1
    box = page.locator("svg.board-svg").bounding_box()
    assert box is not None
    span = 36 * 2 + 40 * 14
    x = box["x"] + (36 + col * 40) * box["width"] / span
    y = box["y"] + (36 + (14 - row) * 40) * box["height"] / span
    page.mouse.click(x, y)


def tap_centre(page: Page) -> None:
    """Tap h8, the centre of the SVG board, once it says it is the viewer's turn (a phone: the first tap
    shows the stone, the second places it)."""
    expect(page.locator("#status")).to_contain_text("Your turn")
    board = page.locator("svg.board-svg")
    box = board.bounding_box()
    assert box is not None
    board.tap(position={"x": box["width"] / 2, "y": box["height"] / 2})


# Every text a person reads on the page: text nodes and the attributes read aloud or shown on hover, not the
# language menu (each language is named in its own words there).
_TEXTS_JS = """() => {
  const texts = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const parent = walk.currentNode.parentElement;
    if (parent && !parent.closest("script, style, form.lang")) texts.push(walk.currentNode.nodeValue);
  }
  for (const el of document.body.querySelectorAll("[title], [placeholder], [aria-label]")) {
    if (el.closest("form.lang")) continue;
    for (const name of ["title", "placeholder", "aria-label"]) {
      if (el.hasAttribute(name)) texts.push(el.getAttribute(name));
    }
  }
  return texts.map((t) => t.trim()).filter((t) => t);
}"""


def untranslated(page: Page, english: set[str]) -> list[str]:
    """The texts of the page that are a string of the interface left in English (``english``: the source
    strings that the page's language translates differently)."""
    texts: list[str] = page.evaluate(_TEXTS_JS)
    filled = _with_placeholders(frozenset(english))
    return sorted({t for t in texts if t in english or t.rstrip(":：.") in english or filled.fullmatch(t)})


@functools.cache
def _with_placeholders(english: frozenset[str]) -> re.Pattern[str]:
    """One pattern for every source string with placeholders, each placeholder standing for any text."""
    shapes = []
    for source in sorted(english):
        if "%(" in source or "%s" in source:
            parts = re.split(r"%\(\w+\)[sd]|%[sd]", source)
            shapes.append(".+?".join(re.escape(part) for part in parts))
    return re.compile("|".join(f"(?:{shape})" for shape in shapes) or "(?!)")
