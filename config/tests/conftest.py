"""Fixtures of the config tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from config.tests.sockets import SocketServer
from devtools.processes import free_port


@pytest.fixture
def sockets(redis_server: Any, settings: Any) -> Iterator[SocketServer]:
    settings.LIVE_PUSH = True
    settings.REDIS_URL = redis_server.url
    settings.LIVE_KEEP_CONNECTIONS = False  # the server's threads outlive each test's database
    import games.live

    games.live._client = None  # publish to this test's Redis
    server = SocketServer(free_port()).start()
    settings.LIVE_URL = f":{server.port}/ws/live/"
    yield server
    server.stop()
    games.live._client = None
