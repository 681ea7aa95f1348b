"""gunicorn's threaded worker, stamping each request when it reaches the process (see config.arrivals).

The main thread stamps a connection the moment its bytes are readable, before
the request waits for a free thread; the serving thread hands that stamp to
Django. The main thread also publishes the oldest request still in flight,
so a clock is never flagged while a move that arrived in time waits here.

Two faults of gunicorn's own loop (23.0) are mended here, both met by an online round of 3,000 games
(bench/open.py: a kept-alive connection per game's client, 1,500 a process):

- **At its connection limit the loop spun and stopped reading** (gunicorn issue 3407). Once a process held
  ``worker_connections`` connections and no request was in flight, ``futures.wait`` on nothing returned at
  once, the loop never polled again, and every kept-alive connection's next request went unread while the
  process burned a core: moves waited until their connections timed out, and the clocks ran. Here the loop
  always polls its connections and, at the limit, only stops accepting new ones (the listener leaves the
  poller until a connection closes).
- **Each request walked every kept-alive connection** (``deque.remove``). The kept connections are here in an
  insertion-ordered dict: taken out in one step, the oldest still first for the keep-alive timeouts.
"""

from __future__ import annotations

import errno
import os
import selectors
import socket
import time
from collections.abc import Callable
from concurrent import futures
from functools import partial
from typing import Any

from gunicorn.workers.gthread import ThreadWorker

from config import arrivals, heap, heartbeat


class KeptConnections:
    """The kept-alive connections, oldest first, as gthread's deque is used, but removed in one step."""

    def __init__(self) -> None:
        self.conns: dict[Any, None] = {}

    def __len__(self) -> int:
        return len(self.conns)

    def append(self, conn: Any) -> None:
        self.conns[conn] = None

    def remove(self, conn: Any) -> None:
        if self.conns.pop(conn, self) is self:
            raise ValueError("not kept")  # as deque.remove: gthread takes it for a race it may ignore

    def oldest(self) -> Any:
        return next(iter(self.conns), None)


class StampingThreadWorker(ThreadWorker):  # type: ignore[misc]  # gunicorn ships no type information
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._keep = KeptConnections()

    def init_process(self) -> None:
        self.publisher: arrivals.Publisher | None = None
        if os.environ.get("REDIS_URL"):
            import redis

            client = redis.Redis.from_url(os.environ["REDIS_URL"], socket_connect_timeout=0.3, socket_timeout=0.3)
            self.publisher = arrivals.Publisher(client, f"{socket.gethostname()}:{os.getpid()}")
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        heartbeat.start("web")  # once Django is set up
        heap.after_startup()  # what is loaded now is never walked by the collector again

    def enqueue_req(self, conn: Any) -> None:
        conn.arrived_at = time.time()
        if self.publisher is not None:
            self.publisher.started(id(conn), conn.arrived_at)
        super().enqueue_req(conn)

    def handle(self, conn: Any) -> Any:
        arrivals.set_current(getattr(conn, "arrived_at", None))
        try:
            return super().handle(conn)
        finally:
            arrivals.set_current(None)

    def finish_request(self, fs: Any) -> None:
        if self.publisher is not None:
            self.publisher.finished(id(fs.conn))
        super().finish_request(fs)

    def run(self) -> None:
        """gthread's loop, polling its connections whatever their number (the module's docstring)."""
        acceptors: dict[Any, Callable[[Any], None]] = {}
        for sock in self.sockets:
            sock.setblocking(False)
            acceptors[sock] = partial(self.accept, sock.getsockname())
        accepting = False
        while self.alive:
            self.notify()
            room = self.nr_conns < self.worker_connections
            if room != accepting:  # at the limit new connections wait in the listen backlog, not the loop
                with self._lock:
                    for sock, acceptor in acceptors.items():
                        if room:
                            self.poller.register(sock, selectors.EVENT_READ, acceptor)
                        else:
                            self.poller.unregister(sock)
                accepting = room
            for key, _events in self.poller.select(1.0):
                key.data(key.fileobj)
            done = futures.wait(self.futures, timeout=0, return_when=futures.FIRST_COMPLETED).done
            for finished in done:
                self.futures.remove(finished)
            if not self.is_parent_alive():
                break
            self.murder_keepalived()
        self.tpool.shutdown(False)
        self.poller.close()
        for sock in self.sockets:
            sock.close()
        futures.wait(self.futures, timeout=self.cfg.graceful_timeout)

    def murder_keepalived(self) -> None:  # runs once per turn of the main loop
        now = time.time()
        while True:
            with self._lock:
                conn = self._keep.oldest()
                if conn is None or conn.timeout > now:
                    break
                self._keep.remove(conn)
                self.nr_conns -= 1
                try:
                    self.poller.unregister(conn.sock)
                except OSError as exc:
                    if exc.errno != errno.EBADF:
                        raise
                except (KeyError, ValueError):  # already removed by the system
                    pass
            conn.close()
        if self.publisher is not None:
            self.publisher.flush()
