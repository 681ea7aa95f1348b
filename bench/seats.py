"""A player's seat on the game's socket, as the game page uses it (static/js/push.js, config/live_acts.py).

The seat watches ``game:N`` with the player's token and sends its moves on that socket; each frame is answered
by a reply carrying its id. Pushes of the game's state reach the seat too, as they reach a player's page; they
are skipped unread (only replies are parsed). A socket that closes fails the moves it had not had answered
(the client then sends the same ply by HTTP, as the page does) and reconnects in the background. Like a
browser's socket, it sends no pings of its own (the server's are answered); so do the bench's spectators.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any


def pushed_ply(raw: str | bytes) -> int | None:
    """The ply a push on a game's socket shows: a whole state's (``game``) or a plain move's (``moved``)."""
    data = json.loads(raw)
    pushed = (data.get("game") or data.get("moved")) if isinstance(data, dict) else None
    ply = pushed.get("ply") if isinstance(pushed, dict) else None
    return ply if isinstance(ply, int) else None


class SeatClosed(ConnectionError):
    """The seat's socket is not open, or closed before the reply."""


class SocketSeat:
    def __init__(self, url: str, token: str, errors: list[str], reply_timeout: float = 30.0) -> None:
        self.url = url
        self.headers = {"Authorization": f"Token {token}"}
        self.errors = errors
        self.reply_timeout = reply_timeout
        self.ws: Any = None
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.next_id = 0
        self.stopped = False
        self.reader: asyncio.Task[None] | None = None

    @property
    def open(self) -> bool:
        return self.ws is not None

    async def connect(self) -> None:
        import websockets

        delay = 0.5
        while not self.stopped:
            try:
                self.ws = await websockets.connect(
                    self.url, additional_headers=self.headers, max_size=2**22, open_timeout=60, ping_interval=None
                )
            except Exception as exc:
                self.errors.append(f"seat: {type(exc).__name__}: {exc}")
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)
                continue
            self.reader = asyncio.create_task(self._read(self.ws))
            return

    async def _read(self, ws: Any) -> None:
        try:
            async for raw in ws:
                if isinstance(raw, str) and raw.startswith('{"reply"'):
                    reply = json.loads(raw)
                    waiting = self.waiting.pop(reply.get("reply"), None)
                    if waiting is not None and not waiting.done():
                        waiting.set_result(reply)
        except Exception:  # closed: what was not answered fails, and the seat connects again
            pass
        finally:
            if self.ws is ws:
                self.ws = None
            for waiting in self.waiting.values():
                if not waiting.done():
                    waiting.set_exception(SeatClosed("the socket closed before the reply"))
            self.waiting.clear()
            if not self.stopped:
                asyncio.get_running_loop().create_task(self.connect())

    async def act(self, kind: str, body: dict[str, Any]) -> tuple[int, Any]:
        """Send one act; (status, the game's state or the refusal), as the HTTP API answers it."""
        ws = self.ws
        if ws is None:
            raise SeatClosed("the socket is not open")
        self.next_id += 1
        ident = self.next_id
        waiting: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[ident] = waiting
        try:
            await ws.send(json.dumps({"act": kind, "id": ident, **body}))
            reply = await asyncio.wait_for(waiting, self.reply_timeout)
        except SeatClosed:
            raise
        except Exception as exc:
            raise SeatClosed(f"{type(exc).__name__}: {exc}") from None
        finally:
            self.waiting.pop(ident, None)
        status = int(reply.get("status", 0))
        return status, reply.get("game") if status == 200 else reply

    async def close(self) -> None:
        self.stopped = True
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)
