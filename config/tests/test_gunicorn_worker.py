"""Our gunicorn worker's own loop (config.gunicorn_worker), in a real gunicorn process: at its connection limit
gunicorn 23's loop spun without polling (gunicorn issue 3407), so the kept-alive connections' next requests
were never read — what made 3,000 online games lose on time (bench/open.py, issue 64)."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools.processes import free_port, wait_until

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 4


def accepting(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


@pytest.fixture
def web(tmp_path: Path) -> Iterator[int]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", VAR_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "gunicorn", "config.tests.tiny_wsgi:application", "--bind", f"127.0.0.1:{port}"]
    command += ["--workers", "1", "--threads", "2", "--worker-connections", str(LIMIT), "--keep-alive", "30"]
    command += ["--worker-class", "config.gunicorn_worker.StampingThreadWorker", "--log-level", "warning"]
    server = subprocess.Popen(command, cwd=ROOT, env=env)
    try:
        wait_until(lambda: accepting(port), 30, "gunicorn")
        yield port
    finally:
        server.terminate()
        server.wait(10)


def get(conn: http.client.HTTPConnection) -> bytes:
    conn.request("GET", "/")
    return conn.getresponse().read()


def waiting_to_be_accepted(port: int) -> int:
    """The listening socket's accept queue (/proc/net/tcp: rx_queue of a socket in LISTEN, state 0A)."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state, queues = fields[1], fields[3], fields[4]
        if state == "0A" and int(local.split(":")[1], 16) == port:
            return int(queues.split(":")[1], 16)
    return 0


def test_a_process_at_its_connection_limit_still_serves_its_connections(web: int) -> None:
    """Players' devices connect before they move: LIMIT connections accepted and idle, none in flight, is the
    state in which gunicorn's own loop spun and never read the requests that came next on them."""
    idle = [http.client.HTTPConnection("127.0.0.1", web, timeout=5) for _ in range(LIMIT + 1)]
    try:
        for conn in idle[:LIMIT]:
            conn.connect()
        wait_until(lambda: waiting_to_be_accepted(web) == 0, 10, "the connections accepted")

        answers = [get(conn) for conn in idle[:LIMIT]]
        idle[0].close()
        newcomer = get(idle[LIMIT])  # the listener is polled again once a connection has gone
    finally:
        for conn in idle:
            conn.close()

    assert answers == [b"ok"] * LIMIT
    assert newcomer == b"ok"
