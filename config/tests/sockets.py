"""The socket server in a test: uvicorn serving config.asgi in a thread of the test's process (so it reads the
test database), with a real Redis. Used by the live-push and socket-move tests (the fixture is in conftest)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import redis
import uvicorn
from django.conf import settings

from devtools.processes import free_port, wait_until
from games.live import CHANNEL
from games.models import Game, Player
from games.services import game_create


class SocketServer:
    """uvicorn serving config.asgi in a thread of this process (so it reads the test database)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.server: uvicorn.Server | None = None
        self.thread: threading.Thread | None = None

    def start(self) -> SocketServer:
        config = uvicorn.Config(
            "config.asgi:application", host="127.0.0.1", port=self.port, lifespan="off", log_level="warning"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        wait_until(lambda: self.server is not None and self.server.started, 20, "the socket server")
        return self

    def stop(self) -> None:
        assert self.server is not None and self.thread is not None
        self.server.should_exit = True
        self.thread.join(20)


def serve_sockets(redis_server: Any, settings: Any) -> Iterator[SocketServer]:
    settings.LIVE_PUSH = True
    settings.REDIS_URL = redis_server.url
    settings.LIVE_KEEP_CONNECTIONS = False  # the server's threads outlive each test's database
    import config.arrivals
    import config.live_moves
    import games.live

    games.live._client = None  # publish to this test's Redis
    config.arrivals._client = config.live_moves._publisher = None  # and keep the moves' arrivals there
    server = SocketServer(free_port()).start()
    settings.LIVE_URL = f":{server.port}/ws/live/"
    yield server
    server.stop()
    games.live._client = None


def hub_listening() -> bool:
    """The socket server's hub has subscribed to the changes channel (it does so on its first watcher)."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        subscribed: list[tuple[bytes, int]] = client.pubsub_numsub(CHANNEL)  # type: ignore[assignment]  # sync client
        return bool(subscribed[0][1])
    finally:
        client.close()


def public_game() -> tuple[Game, Player, Player]:
    one, two = Player.objects.create(name="One"), Player.objects.create(name="Two")
    return game_create(player_one=one, player_two=two, rules="freestyle", time_control="quick"), one, two
