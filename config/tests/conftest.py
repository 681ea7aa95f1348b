from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from config.tests.sockets import SocketServer, serve_sockets


@pytest.fixture
def sockets(redis_server: Any, settings: Any) -> Iterator[SocketServer]:
    """The live-push socket server (config.asgi under uvicorn) on a free port, publishing to a real Redis."""
    yield from serve_sockets(redis_server, settings)
