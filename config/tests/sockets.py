"""The live-push socket server in a thread of the test process, for the tests of config.live and
config.live_acts (the ``sockets`` fixture, config/tests/conftest.py)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

import redis
import uvicorn
from django.conf import settings

from devtools.processes import wait_until
from games.live import CHANNEL

T = TypeVar("T")


def shown_ply(message: dict[str, Any]) -> int | None:
    """The ply a push shows: a whole state's (``game``) or a plain move's (``moved``, config.live)."""
    pushed = message.get("game") or message.get("moved") or {}
    ply = pushed.get("ply")
    return ply if isinstance(ply, int) else None


def in_a_thread(work: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to its end in a thread of its own and return its result: after a browser test this
    thread's event loop is left running, and ``asyncio.run`` refuses to start inside it."""
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(asyncio.run(work))
        except BaseException as exc:
            failed.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    if failed:
        raise failed[0]
    if not done:
        raise TimeoutError("the coroutine did not finish within 60 s")
    return done[0]


async def _receive(url: str, count: int, timeout: float, out: list[Any]) -> None:
    import websockets

    async with websockets.connect(url) as ws:
        while len(out) < count:
            message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
            out.append((time.monotonic(), message))  # when it arrived, not when the wait for it began


def listen(url: str, count: int, timeout: float = 5.0) -> tuple[threading.Thread, list[Any]]:
    """Receive ``count`` messages in a thread; ``got`` fills as they arrive, as (arrival, message)."""
    got: list[Any] = []

    def run() -> None:
        asyncio.run(_receive(url, count, timeout, got))

    thread = threading.Thread(target=run)
    thread.start()
    return thread, got


class SocketServer:
    """uvicorn serving config.asgi in a thread of this process (so it reads the test database)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.server: uvicorn.Server | None = None
        self.thread: threading.Thread | None = None

    def start(self) -> SocketServer:
        config = uvicorn.Config(
            "config.asgi:application",
            host="127.0.0.1",
            port=self.port,
            lifespan="off",
            log_level="warning",
            ws_max_size=65536,
            ws_per_message_deflate=False,
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


def hub_listening() -> bool:
    """The socket server's hub has subscribed to the changes channel (it does so on its first watcher)."""
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        subscribed: list[tuple[bytes, int]] = client.pubsub_numsub(CHANNEL)  # type: ignore[assignment]  # sync client
        return bool(subscribed[0][1])
    finally:
        client.close()
