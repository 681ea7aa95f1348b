"""The garbage collector paused while the engine computes.

The engine's caches (line analyses, point windows, leaf values) hold millions of small tuples, and a
search or a forbidden map allocates many more that die young; none of them form reference cycles. With
the collector running, its passes over young objects and the caches cost more than the work itself in the
compiled build (measured: forbidden maps of positions seen once ran 2–4× faster with it paused). So the
public entry points run under :func:`paused`: the collector is switched off for the call and on again
after it, and cycles made meanwhile (there should be none) are collected then as usual. Nested calls, or
a caller that has switched the collector off itself, leave it as they found it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
