"""The flag hold, in one place: a player's flag waits while the server is still serving a request that
reached it before the flag fell — that request may be the move that beats the flag (clocks.md §6.4).

Who is being served is known to the web processes, not to the games app: the site registers the source
(the oldest arrival any web process is still serving, epoch seconds, or None) with :func:`use_requests`
in its ``AppConfig.ready`` (``config.apps``: the ledger the web processes keep in Redis). Without a source
nothing is known to wait and no flag is held. A hold never lasts longer than ``CLOCK_HOLD_MAX_MS``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings

WaitingSince = Callable[[], float | None]


def _nothing_waits() -> float | None:
    return None


_source: list[WaitingSince] = [_nothing_waits]


def use_requests(source: WaitingSince) -> WaitingSince:
    """Set where the oldest request still being served is read from; returns the previous source."""
    previous, _source[0] = _source[0], source
    return previous


def hold_max() -> timedelta:
    return timedelta(milliseconds=settings.CLOCK_HOLD_MAX_MS)


class FlagHold:
    """One adjudicator's pass: the source is asked at most once, and only when a flag needs it."""

    def __init__(self) -> None:
        self._asked = False
        self._since: float | None = None

    def waiting(self) -> bool:
        """Is any request still being served, so that some flag may wait?"""
        if not self._asked:
            self._since, self._asked = _source[0](), True
        return self._since is not None

    def holds(self, flag_at: datetime, now: datetime) -> bool:
        """Does a flag that fell at ``flag_at`` wait at ``now``? Yes while a request that arrived by then is
        still served, for at most ``hold_max``."""
        if now - flag_at > hold_max():
            return False
        if not self._asked:
            self._since, self._asked = _source[0](), True
        return self._since is not None and self._since <= flag_at.timestamp()
