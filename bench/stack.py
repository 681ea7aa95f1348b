"""The whole stack for benchmarks and fault drills: a throw-away PostgreSQL, an
embedded Redis, gunicorn with several workers, a Celery worker and Celery beat.

Every part can be stopped and started again while the others run, which is
what the fault drills do. The bench process itself talks to the same database
(Django set up in-process) to create fixtures and to check the results.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import kombu.exceptions
import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.postgres import ThrowawayPostgres  # noqa: E402
from devtools.processes import (  # noqa: E402
    EmbeddedRedis,
    Service,
    Supervisor,
    answers_tcp,
    celery_beat,
    celery_worker,
    free_port,
    live_push_server,
    nginx_proxy,
    wait_until,
    web_server,
)


class Stack:
    def __init__(
        self,
        web_workers: int = 2,
        web_threads: int = 8,
        throttle_moves: str = "100000/min",
        database: str = "postgres",
        nice_web: bool = True,
        worker_concurrency: int | None = None,
        nodes: int = 0,
    ) -> None:
        """``database="sqlite"`` is ``make run``'s default stack (a SQLite file); else a throw-away PostgreSQL.

        ``nodes=N`` (N >= 1): N web processes (gunicorn, ``web_workers`` each), N live-push servers and N
        Celery workers behind nginx (deploy/nginx.conf), with one beat; clients then use the proxy's port.
        """
        self.workdir = Path(tempfile.mkdtemp(prefix="gomoku-stack-"))
        self.web_workers, self.web_threads = web_workers, web_threads
        self.nodes = nodes
        count = max(1, nodes)
        self.web_ports = [free_port() for _ in range(count)]
        self.live_ports = [free_port() for _ in range(count)]
        self.port = free_port() if nodes else self.web_ports[0]  # where clients connect
        self.live_port = self.port if nodes else self.live_ports[0]
        self.database = database
        self.worker_concurrency = worker_concurrency
        self.nice_web = nice_web
        self.postgres = ThrowawayPostgres() if database == "postgres" else None
        self.redis: EmbeddedRedis | None = None
        self.webs: list[Service | None] = [None] * count
        self.lives: list[Service | None] = [None] * count
        self.workers: list[Service | None] = [None] * count
        self.beat: Service | None = None
        self.fairplay: Service | None = None  # the fair-play screening's worker, when a bench starts it
        self.beats: list[Service] = []  # beats started beyond the one (a mistake the lease makes harmless)
        self.proxy: Service | None = None
        self.throttle_moves = throttle_moves
        self.env: dict[str, str] = {}
        self.supervisor = Supervisor()
        self.restarted: list[str] = []
        self._watching = threading.Event()

    @property
    def web(self) -> Service | None:
        return self.webs[0]

    @property
    def worker(self) -> Service | None:
        return self.workers[0]

    @property
    def live(self) -> Service | None:
        return self.lives[0]

    # -- lifecycle ------------------------------------------------------------------

    def start(self) -> Stack:
        if self.postgres is not None:
            self.postgres.start()
            url = self.postgres.url
        else:
            url = f"sqlite:///{self.workdir / 'db.sqlite3'}"
        self.redis = EmbeddedRedis(log=self.workdir / "redis.log").start()
        self.env = dict(
            os.environ,
            DATABASE_URL=url,
            REDIS_URL=self.redis.url,
            DJANGO_SETTINGS_MODULE="config.settings",
            PYTHONPATH=str(ROOT),
            DEBUG="false",
            THROTTLE_MOVES=self.throttle_moves,
            THROTTLE_LOGIN="100000/min",
            LOGIN_FAILURES_ALLOWED="100000",
            LOGIN_FAILURES_PER_ADDRESS="100000",
            VAR_DIR=str(self.workdir / "var"),
            CLOCK_ETA_TASKS=os.environ.get("CLOCK_ETA_TASKS", "true"),
            LIVE_PUSH="true",
        )
        if self.nodes:  # behind nginx: its arrival stamp and its client address are the ones to trust
            self.env.update(TRUST_X_REQUEST_START="true", CLIENT_IP_HEADER="X-Real-IP", LIVE_URL="/ws/live/")
        os.environ.update(
            {
                k: self.env[k]
                for k in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "THROTTLE_MOVES", "VAR_DIR")
            }
        )
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        for node in range(max(1, self.nodes)):
            self.start_web(node)
            self.start_worker(node)
        self.start_beat()
        if self.nodes:
            for node in range(self.nodes):
                self.start_live(node)
            self.start_proxy()
        self._watching.set()
        threading.Thread(target=self._watch, daemon=True).start()
        return self

    def _watch(self) -> None:
        """Restart the worker or beat if they die (as systemd would), while the drills let it."""
        while self._watching.is_set():
            watched = [
                *self.workers,
                self.beat,
                *(self.webs if self.nodes else []),
                *(self.lives if self.nodes else []),
            ]
            self.supervisor.services = [s for s in watched if s is not None]
            self.restarted += self.supervisor.check()
            time.sleep(0.5)

    def stop(self) -> None:
        self._watching.clear()
        for service in (
            self.proxy,
            *self.lives,
            *self.webs,
            *self.workers,
            self.fairplay,
            self.beat,
            *self.beats,
            self.redis,
        ):
            if service is not None:
                service.stop()
        from django.db import connections

        connections.close_all()
        if self.postgres is not None:
            self.postgres.stop()

    def start_web(self, node: int = 0) -> None:
        # The web tier runs at a lower priority than the clock worker: under overload, adjudicating a
        # timeout on time matters more than answering a request a few milliseconds sooner.
        web = web_server(
            self.env,
            "127.0.0.1",
            self.web_ports[node],
            self.web_workers,
            self.web_threads,
            log=self.workdir / f"web{node}.log",
            # Idle connections kept longer than the longest think (30 s) plus the client's own lag: a
            # connection closed as the client sends is a broken move to retry, charged the retry.
            extra=["--keep-alive", "75", "--timeout", "60", "--log-level", "warning"],
        )
        if self.nice_web:
            web.argv = ["nice", "-n", "10", *web.argv]
        self.webs[node] = web.start()
        wait_until(lambda: self._web_answers(self.web_ports[node]), 60, "the web server")

    def start_live(self, node: int = 0) -> None:
        """The live-push socket server (uvicorn, config.asgi), as make run starts it."""
        port = self.live_ports[node]
        workers = 1 if self.nodes else int(os.environ.get("LIVE_WORKERS", "1"))  # as make run: scripts/run.py
        log = self.workdir / f"live{node}.log"
        self.lives[node] = live_push_server(self.env, "127.0.0.1", port, log=log, workers=workers).start()
        wait_until(lambda: answers_tcp(port), 60, "the live-push server")

    def start_proxy(self) -> None:
        from django.conf import settings

        self.proxy = nginx_proxy(
            f"127.0.0.1:{self.port}",
            [f"127.0.0.1:{p}" for p in self.web_ports],
            [f"127.0.0.1:{p}" for p in self.live_ports],
            self.workdir / "nginx",
            Path(settings.STATIC_ROOT),
            log=self.workdir / "nginx.log",
        ).start()
        wait_until(lambda: self._web_answers(self.port), 30, "nginx")

    def start_worker(self, node: int = 0) -> None:
        """Start a worker and wait until it answers (a restarted worker sweeps as soon as it is ready)."""
        from config.celery import app

        name = f"bench{node}-{time.monotonic_ns()}"
        extra = {} if self.worker_concurrency is None else {"concurrency": self.worker_concurrency}
        log = self.workdir / f"worker{node}.log"
        self.workers[node] = celery_worker(self.env, log=log, hostname=f"{name}@%h", **extra).start()

        def answers() -> bool:
            # A connection of its own for each ping: one kept from before a Redis restart (drill_redis) is dead.
            try:
                with app.connection() as connection:
                    replies = app.control.ping(timeout=0.5, connection=connection) or []
            except (OSError, redis.RedisError, kombu.exceptions.OperationalError):
                return False
            return any(name in next(iter(r)) for r in replies)

        wait_until(answers, 60, "the celery worker")

    def start_fairplay(self) -> None:
        """The fair-play screening's worker as ``make run`` starts it (scripts/run.py): its own queue, prefork,
        ``FAIRPLAY_WORKERS`` processes (1), niced 15."""
        concurrency = int(self.env.get("FAIRPLAY_WORKERS", "1"))
        log = self.workdir / "fairplay-worker.log"
        self.fairplay = celery_worker(
            self.env,
            log=log,
            pool="prefork",
            concurrency=concurrency,
            hostname="fairplay@%h",
            queues="fairplay",
            nice=15,
        ).start()

    def stop_fairplay(self) -> None:
        if self.fairplay is not None:
            self.fairplay.stop()
            self.fairplay = None

    def start_beat(self, extra: bool = False) -> Service:
        """The beat; ``extra``: one more, as if started by mistake (it must stand by: config.celery_consumer)."""
        n = len(self.beats) + 1 if extra else 0
        beat = celery_beat(self.env, self.workdir / f"beat-schedule{n}", log=self.workdir / f"beat{n}.log").start()
        if extra:
            self.beats.append(beat)
        else:
            self.beat = beat
        return beat

    def restart_redis(self) -> None:
        """Redis without persistence: every queued task is lost, as on a real crash."""
        assert self.redis is not None
        self.redis.stop()
        self.redis = EmbeddedRedis(port=self.redis.port, log=self.workdir / "redis.log").start()

    def _web_answers(self, port: int) -> bool:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            status, _body, _ms = self.request(conn, "GET", "/api/")
            conn.close()
            return status == 200
        except OSError:
            return False

    # -- HTTP -------------------------------------------------------------------------

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def request(
        self,
        conn: http.client.HTTPConnection | None,
        method: str,
        path: str,
        token: str | None = None,
        body: dict[str, Any] | None = None,
    ) -> tuple[int, Any, float]:
        """One request; returns (status, parsed body, milliseconds)."""
        own = conn is None
        conn = conn or self.connection()
        headers = {"Accept-Language": "en"}
        if token:
            headers["Authorization"] = f"Token {token}"
        data = None
        if body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            raw = response.read()
        finally:
            if own:
                conn.close()
        elapsed = (time.perf_counter() - started) * 1000
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors="replace")
        return response.status, parsed, elapsed


def make_players(count: int, prefix: str) -> list[tuple[Any, str]]:
    """``count`` player accounts with API tokens: [(Player, token key)]."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from rest_framework.authtoken.models import Token

    from games.models import Player

    user_model = get_user_model()
    users = user_model.objects.bulk_create([user_model(username=f"{prefix}{n}") for n in range(count)])
    users = list(user_model.objects.filter(username__startswith=prefix).order_by("id"))
    role = Group.objects.get(name="player")
    role.user_set.add(*users)
    players = Player.objects.bulk_create([Player(name=u.username, user=u) for u in users])
    tokens = Token.objects.bulk_create([Token(user=u, key=Token.generate_key()) for u in users])
    return list(zip(players, [t.key for t in tokens], strict=True))


def online_swiss(name: str, players: int, rounds: int, prefix: str) -> tuple[Any, dict[int, str]]:
    """A Swiss tournament played online at the seed's quick play (free-style, no opening rule), ``players``
    entrants with API tokens registered and the tournament published, ready to draw; their tokens."""
    from tournament import services

    tournament = services.tournament_create(
        name=name,
        preset="swiss",
        stage_options={"rounds": rounds},
        mode="online",
        time_control={"preset": "quick"},
        rules="freestyle",
        protocol="none",
        boards=players // 2 + 1,
    )
    entrants = make_players(players, prefix)
    for player, _token in entrants:
        services.register(tournament=tournament, player=player)
    services.publish(tournament=tournament)
    return tournament, {player.pk: token for player, token in entrants}


def process_tree() -> dict[int, list[int]]:
    """Every process's children, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    ppid = int(stat.read().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    return children


def descendants(root: int, tree: dict[int, list[int]] | None = None) -> list[int]:
    """``root`` and every process below it."""
    tree = process_tree() if tree is None else tree
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += tree.get(pid, [])
    return found


def server_roots(stack: Stack) -> dict[str, int]:
    """The top process of each part of the stack that runs: web, live, worker, beat, redis, and db (PostgreSQL)."""
    parts: dict[str, Service | None] = {
        "beat": stack.beat,
        "redis": stack.redis,
        "proxy": stack.proxy,
        "fairplay": stack.fairplay,
    }
    for kind, services in (("web", stack.webs), ("live", stack.lives), ("worker", stack.workers)):
        parts.update({kind if n == 0 else f"{kind}{n}": s for n, s in enumerate(services)})
    parts.update({f"beat{n + 1}": s for n, s in enumerate(stack.beats)})
    roots = {name: s.proc.pid for name, s in parts.items() if s is not None and s.proc is not None}
    if stack.postgres is not None:
        roots["db"] = int((stack.postgres.datadir / "postmaster.pid").read_text().split()[0])
    return roots


T = TypeVar("T")


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a crowd of clients on uvloop, as the live-push server runs (uvicorn picks it): the load generator
    shares the server's two cores, so the lighter it is, the more of them the server keeps."""
    import uvloop

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coroutine)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]
