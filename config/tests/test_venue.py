"""LAN mode as `make venue` runs it: the whole system (scripts/run.py --venue) listening on every interface,
answering a request addressed to one of the machine's own network addresses and refusing a foreign Host.

The requests go to 127.0.0.1 (nothing leaves the machine); only the Host header names the LAN address, as
a phone on the venue's Wi-Fi would send it."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from devtools.processes import free_port, wait_until
from tournament.lan import addresses, host_of

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def status(port: int, host: str, path: str = "/") -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers={"Host": host})
        return connection.getresponse().status
    finally:
        connection.close()


def test_make_venue_answers_the_machines_lan_address_and_refuses_a_foreign_host(tmp_path: Path) -> None:
    lan = [a for a in addresses() if ":" not in a]  # the server listens on IPv4
    if not lan:
        pytest.skip(reason="this machine has no non-loopback IPv4 address for a phone to reach it by")
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL", "VENUE", "ALLOWED_HOSTS")},
        "VAR_DIR": str(tmp_path),
        "PORT": str(port),
        "LIVE_PORT": str(free_port()),
        "BACKUP_EVERY_S": "3600",
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v0"], cwd=ROOT, env=env, check=True)
    server = subprocess.Popen(
        [sys.executable, "scripts/run.py", "--venue"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:

        def up() -> bool:
            try:
                return status(port, "127.0.0.1") == 200
            except OSError:
                return False

        wait_until(up, 60, "the venue server")
        lan_host = f"{host_of(lan[0])}:{port}"

        assert status(port, lan_host) == 200  # a phone on the venue's network
        assert status(port, lan_host, "/t/1/") in (200, 404)  # served (no such tournament on an empty database)
        assert status(port, f"evil.example:{port}") == 400  # DNS rebinding and other hosts: refused
        assert status(port, f"10.255.255.1:{port}") == 400  # an address that is not the machine's
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            output, _ = server.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            output, _ = server.communicate()
    assert f"http://{lan[0]}:{port}/" in output  # the banner names the LAN URL …
    assert "█" in output or "▀" in output  # … with its QR code in the terminal
