"""Numbers typed into addresses and forms, read without surprises.

``str.isdigit`` accepts ``²`` and other digits ``int`` refuses, and ``int`` refuses more than 4,300 digits:
both were a 500 where a stranger's odd input deserves a 404 or the form's own message.
"""

from __future__ import annotations


def whole(text: str, digits: int = 18) -> int | None:
    """``text`` as a non-negative whole number of at most ``digits`` ASCII digits (an id fits), else None."""
    if text.isascii() and text.isdigit() and len(text) <= digits:
        return int(text)
    return None
