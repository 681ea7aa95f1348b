"""The deployment behind nginx (deploy/nginx.conf, docs/deployment.md), as a stranger in the hall meets it.

Every request gunicorn sees then comes from nginx on loopback: the client's own address travels in the
header nginx sets (CLIENT_IP_HEADER=X-Real-IP), and nginx, not the client, stamps the arrival the clocks
trust (X-Request-Start). A phone must not pass for the server's own keyboard, nor set either header
itself; and a move, but no other write, is sent on to the next process when one dies mid-request.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client

from devtools.processes import Service, answers_tcp, free_port, nginx_binary, nginx_config, nginx_proxy, wait_until
from tournament.roles import ORGANIZER, sync_roles

User = get_user_model()


# -- Django behind the proxy: the client's address comes from nginx's header ------------------------------


@pytest.fixture
def behind_nginx(settings: Any) -> Any:
    """The settings ``scripts/run.py --nodes`` sets, in the hall (venue mode)."""
    cache.clear()
    settings.CLIENT_IP_HEADER = "X-Real-IP"
    settings.TRUST_X_REQUEST_START = True
    settings.VENUE = True
    settings.ALLOWED_HOSTS = ["*"]
    return settings


def via_nginx(client_address: str, **extra: Any) -> Client:
    """A client as gunicorn sees it behind nginx: the peer is loopback, the header names the client."""
    return Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="127.0.0.1", HTTP_X_REAL_IP=client_address, **extra)


@pytest.mark.django_db
def test_a_phone_in_the_hall_is_not_the_servers_keyboard_behind_the_proxy(behind_nginx: Any) -> None:
    boss = User.objects.create_user("boss", password="pw-Strong-2026", is_staff=True)
    boss.groups.add(sync_roles()[ORGANIZER])
    User.objects.create_user("target", password="pw-Strong-2026")
    phone = via_nginx("192.168.1.40")

    assert phone.get("/admin/login/").status_code == 404
    phone.force_login(boss)
    assert phone.post("/organizer/backup/").status_code == 404  # an organizer's backup: at the keyboard only
    for _attempt in range(5):
        via_nginx("192.168.1.41").post("/accounts/login/", {"username": "target", "password": "wrong"})
    waiting = via_nginx("192.168.1.41").post("/accounts/login/", {"username": "target", "password": "pw-Strong-2026"})
    assert b"Too many failed attempts" in waiting.content

    keyboard = via_nginx("127.0.0.1")  # the organizer's browser on the server itself, through nginx
    assert keyboard.get("/admin/login/").status_code == 200


@pytest.mark.django_db
def test_a_phone_that_writes_the_proxys_header_itself_is_not_the_keyboard(behind_nginx: Any) -> None:
    """CLIENT_IP_HEADER set on a server the hall reaches directly: the header is the phone's own words."""
    forged = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="192.168.1.40", HTTP_X_REAL_IP="127.0.0.1")
    assert forged.get("/admin/login/").status_code == 404


# -- nginx itself: what it passes on, and when it tries the next process -----------------------------------


class Echo(BaseHTTPRequestHandler):
    """An upstream answering with the headers and path it received."""

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        body = json.dumps({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, *args: Any) -> None:
        pass


class Dying:
    """An upstream that reads each request and closes the connection unanswered: a process killed mid-request."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.requests: list[bytes] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = conn.recv(65536)
                if data:
                    self.requests.append(data.split(b"\r\n", 1)[0])

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def dying() -> Iterator[list[Dying]]:
    servers = [Dying(), Dying()]
    yield servers
    for server in servers:
        server.close()


@pytest.fixture
def echo() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def start_nginx(tmp_path: Path, web: list[int]) -> Iterator[int]:
    if nginx_binary() is None:
        pytest.fail("nginx is not installed (scripts/system_deps.sh installs it)")
    port = free_port()
    proxy: Service = nginx_proxy(
        f"127.0.0.1:{port}", [f"127.0.0.1:{p}" for p in web], [f"127.0.0.1:{web[-1]}"], tmp_path, tmp_path / "static"
    ).start()
    try:
        wait_until(lambda: answers_tcp(port), 20, "nginx")
        yield port
    finally:
        proxy.stop()


def request(port: int, method: str, path: str, headers: dict[str, str]) -> tuple[int, Any]:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, body=b"{}" if method == "POST" else None, headers=headers)
        answer = conn.getresponse()
        raw = answer.read()
    finally:
        conn.close()
    return answer.status, json.loads(raw) if answer.status == 200 else raw


def test_nginx_overwrites_the_headers_a_client_forges(tmp_path: Path, echo: int) -> None:
    for port in start_nginx(tmp_path, [echo]):
        before = time.time()
        forged = {"X-Request-Start": "t=1000000000.000", "X-Real-IP": "203.0.113.9", "Host": "hall.example"}
        status, seen = request(port, "POST", "/api/games/7/move/", forged)
        after = time.time()

        assert status == 200 and seen["path"] == "/api/games/7/move/"
        stamp = float(seen["headers"]["x-request-start"].removeprefix("t="))
        assert before - 0.01 <= stamp <= after + 0.01  # nginx's own reading, not the client's
        assert seen["headers"]["x-real-ip"] == "127.0.0.1"  # the peer nginx saw, not the forged one
        assert seen["headers"]["host"] == "hall.example"  # kept, so ALLOWED_HOSTS still applies


def test_a_move_goes_on_to_the_next_process_when_one_dies_and_no_other_write_does(
    tmp_path: Path, echo: int, dying: list[Dying]
) -> None:
    for port in start_nginx(tmp_path / "one", [d.port for d in dying]):
        status, _ = request(port, "POST", "/api/games/7/resign/", {})
        assert status == 502  # a resignation the dead process may have stored is not sent twice
        assert sum(len(d.requests) for d in dying) == 1
    first = dying[0]
    first.requests.clear()
    for port in start_nginx(tmp_path / "two", [first.port, echo]):
        answers = [request(port, "POST", "/api/games/7/move/", {}) for _ in range(4)]
        assert [status for status, _ in answers] == [200] * 4  # the move is named by its ply: safe to resend
        assert all(seen["path"] == "/api/games/7/move/" for _status, seen in answers)
        assert len(first.requests) == 1  # tried once, then left alone for fail_timeout


def test_the_proxy_takes_every_connection_of_a_round_of_1000_online_games(tmp_path: Path) -> None:
    """Two players' and two spectators' sockets a game and a keep-alive HTTP client, each two connections
    through nginx (the client's and the upstream's): at 8,192 a round's sockets were refused (README)."""
    conf = nginx_config("127.0.0.1:8000", ["127.0.0.1:8010"], ["127.0.0.1:8020"], tmp_path, tmp_path / "static")
    found = re.search(r"^\s*worker_connections (\d+);", conf, re.MULTILINE)
    assert found is not None
    games = 1000
    assert int(found[1]) >= 2 * (4 * games + games)
