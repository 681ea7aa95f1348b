"""gunicorn's threaded worker, stamping each request when it reaches the process (see config.arrivals).

The main thread stamps a connection the moment its bytes are readable, before
the request waits for a free thread; the serving thread hands that stamp to
Django. The main thread also publishes the oldest request still in flight,
so a clock is never flagged while a move that arrived in time waits here.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from gunicorn.workers.gthread import ThreadWorker

from config import arrivals, heap, heartbeat


class StampingThreadWorker(ThreadWorker):  # type: ignore[misc]  # gunicorn ships no type information
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

    def murder_keepalived(self) -> None:  # runs once per turn of the main loop
        super().murder_keepalived()
        if self.publisher is not None:
            self.publisher.flush()
