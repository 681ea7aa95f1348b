"""A server process's heap, kept out of the garbage collector's long pauses (issue 43).

A full collection walks every container the process holds, and no request in that process moves
meanwhile. Most of them are loaded at start-up and never freed: Django, DRF, Celery, the apps, their
modules and settings. Measured alone on the 2-core machine, a web process's full collection took 54 ms
with those alone; in a round of 1,000 games, 200–475 ms of every thread waiting, every 7 s or so.

:func:`after_startup`, once a process has loaded them:

- moves them to the collector's permanent generation (CPython's ``gc.freeze``): they are never walked
  again, and a full collection covers only what was made since;
- raises the youngest generation's threshold (700 → :data:`YOUNG_THRESHOLD` allocations). Each young pass
  promotes whatever the requests in flight hold, and with the loaded objects frozen the old generation is
  small, so a full pass (which CPython runs once the promoted outnumber a quarter of the old) came every
  1.5–2 s. Rarer young passes promote less, so full passes come rarely.

Collection is not switched off: the cycles requests make (a few thousand objects a pass) are still found.
"""

from __future__ import annotations

import gc
import logging

logger = logging.getLogger(__name__)

YOUNG_THRESHOLD = 10_000


def after_startup() -> int:
    """Collect what start-up left, freeze the rest (the code and data loaded) and space the young passes;
    returns how many objects were frozen. Called once a server process has loaded Django: the web workers
    (``config.gunicorn_worker``), the live-push server (``config.asgi``), the Celery workers
    (``worker_ready``)."""
    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
    frozen = gc.get_freeze_count()
    logger.debug("froze %d objects loaded at start-up", frozen)
    return frozen
