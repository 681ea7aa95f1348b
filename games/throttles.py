"""The API's per-user limit on game actions, kept with the games: ``games.api`` uses it, and the settings
name its rate (``THROTTLE_MOVES``). The socket server counts the same rate in its own memory
(config.live_acts.Window)."""

from __future__ import annotations

import logging
from typing import Any

from rest_framework.throttling import ScopedRateThrottle

logger = logging.getLogger(__name__)


class MoveThrottle(ScopedRateThrottle):
    """Per-user limit on game actions (``THROTTLE_MOVES``); fails open if the cache is down."""

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method in ("GET", "HEAD", "OPTIONS"):  # pages poll the game every second
            return True
        try:
            return bool(super().allow_request(request, view))
        except Exception:
            logger.warning("move rate limit unavailable", exc_info=True)
            return True
