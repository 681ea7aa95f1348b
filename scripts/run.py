"""``make run``: Redis (embedded unless REDIS_URL is set), a Celery worker,
Celery beat, the web server and the live-push socket server, until Ctrl-C stops them all.

``make venue`` (``--venue``): the same, listening on every interface for the phones on the venue's Wi-Fi
(the machine's own addresses accepted as hosts, any other refused), each LAN URL printed with a QR code,
and a backup of the database every BACKUP_EVERY_S seconds (600) into var/backups/, the newest 24 kept."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.processes import (  # noqa: E402
    EmbeddedRedis,
    Service,
    Supervisor,
    celery_beat,
    celery_worker,
    live_push_server,
)

VENUE = "--venue" in sys.argv[1:]
HOST, PORT = ("0.0.0.0" if VENUE else "127.0.0.1"), int(os.environ.get("PORT", "8000"))
LIVE_PORT = int(os.environ.get("LIVE_PORT", str(PORT + 1)))


def venue_check(env: dict[str, str]) -> bool:
    """Before listening beyond this machine: no account may have the demo password (manage.py venue_check)."""
    done = subprocess.run([sys.executable, "manage.py", "venue_check"], cwd=ROOT, env=env)
    return done.returncode == 0


def banner(redis_url: str) -> str:
    from tournament.demo import DEMO_PASSWORD, PLAYER_COUNT

    base = f"http://127.0.0.1:{PORT}"
    if VENUE:  # no demo logins in the hall: the organizer's own account (manage.py createorganizer)
        return "\n".join(
            [
                "",
                "Gomoku & Renju tournaments is running for the hall:",
                f"  control room  {base}/organizer/   (sign in with your own organizer account)",
                f"  admin         {base}/admin/   (this machine only)",
                "Ctrl-C stops everything.",
                "",
            ]
        )
    return "\n".join(
        [
            "",
            "Gomoku & Renju tournaments is running:",
            f"  home        {base}/",
            f"  admin       {base}/admin/",
            f"  API docs    {base}/api/docs/   (schema: {base}/api/schema/)",
            f"  health      {base}/healthz",
            f"  live push   ws://127.0.0.1:{LIVE_PORT}/ws/live/",
            f"  redis       {redis_url}",
            f"Demo logins (password {DEMO_PASSWORD}):",
            "  organizer   organizer",
            "  referees    referee1, referee2",
            f"  players     player01 … player{PLAYER_COUNT:02d}",
            "Ctrl-C stops everything.",
            "",
        ]
    )


def venue_banner() -> str:
    from tournament.lan import addresses, qr_terminal

    urls = [f"http://{a}:{PORT}/" for a in addresses() if ":" not in a]  # the server listens on IPv4
    if not urls:
        return "LAN mode: no network address found; phones cannot reach this machine yet (join the Wi-Fi first).\n"
    lines = ["LAN mode: players and referees on the venue's network open", *(f"  {u}" for u in urls), ""]
    return "\n".join(lines) + qr_terminal(urls[0])


def backups(env: dict[str, str], stopped: threading.Event, logs: Path) -> None:
    """Every BACKUP_EVERY_S seconds a backup into var/backups/, keeping BACKUP_KEEP (LAN mode)."""
    every = int(env.get("BACKUP_EVERY_S", "600"))
    keep = env.get("BACKUP_KEEP", "24")
    while not stopped.wait(every):
        with open(logs / "backup.log", "a") as log:
            subprocess.run(
                [sys.executable, "manage.py", "backup", "--keep", keep], cwd=ROOT, env=env, stdout=log, stderr=log
            )


def main() -> int:
    var = ROOT / "var"
    logs = var / "log"
    logs.mkdir(parents=True, exist_ok=True)
    services: list[Service] = []
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    stopping = False

    def stop(*_args: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    if VENUE and not venue_check(env):
        print("not started: the hall would see the demo accounts (see above)", flush=True)
        return 1
    supervisor = Supervisor()
    try:
        if "REDIS_URL" not in env:
            port = int(env["REDIS_PORT"]) if "REDIS_PORT" in env else None
            redis_server = EmbeddedRedis(port=port, log=logs / "redis.log")
            services.append(supervisor.watch(redis_server.start()))
            env["REDIS_URL"] = redis_server.url
        env.setdefault("LIVE_URL", f":{LIVE_PORT}/ws/live/")  # where pages open their socket
        env["PORT"] = str(PORT)
        if VENUE:
            env["VENUE"] = "1"  # settings accept the machine's own addresses as hosts
        services.append(supervisor.watch(celery_worker(env, log=logs / "celery-worker.log").start()))
        # The computer opponent and game analysis: searches hold a CPU, so processes, apart from the clock's threads.
        # Outside Gomocup engines on a queue and worker of their own: a bad one never delays the built-in's turns.
        for queue, workers in (("computer", "COMPUTER_WORKERS"), ("engines", "ENGINE_WORKERS")):
            worker = celery_worker(
                env,
                log=logs / f"{queue}-worker.log",
                pool="prefork",
                concurrency=int(env.get(workers, "1")),
                hostname=f"{queue}@%h",
                queues=queue,
            )
            services.append(supervisor.watch(worker.start()))
        services.append(
            supervisor.watch(celery_beat(env, var / "celerybeat-schedule", log=logs / "celery-beat.log").start())
        )
        # One process per core, threads for requests that wait on the database (see bench/load.py).
        services.append(
            supervisor.watch(
                Service(
                    "web",
                    [
                        sys.executable,
                        "-m",
                        "gunicorn",
                        "config.wsgi:application",
                        "--bind",
                        f"{HOST}:{PORT}",
                        "--workers",
                        "2",
                        "--worker-class",
                        "config.gunicorn_worker.StampingThreadWorker",
                        "--threads",
                        "8",
                        "--access-logfile",
                        "-",
                    ],
                    env=env,
                    cwd=str(ROOT),
                    log=logs / "web.log",
                ).start()
            )
        )
        # Pages receive changes over WebSockets from here (config/live.py); gunicorn serves the rest.
        services.append(supervisor.watch(live_push_server(env, HOST, LIVE_PORT, log=logs / "live.log").start()))
        print(banner(env["REDIS_URL"]), flush=True)
        stopped = threading.Event()
        if VENUE:
            print(venue_banner(), flush=True)
            threading.Thread(target=backups, args=(env, stopped, logs), daemon=True).start()
        print(f"Logs: {logs}/", flush=True)
        while not stopping:
            try:
                for line in supervisor.check():
                    print(f"{line} (see {logs}/)", flush=True)
            except RuntimeError as exc:
                print(f"{exc}; stopping everything (see {logs}/)", flush=True)
                stopping = True
            time.sleep(0.5)
    finally:
        if "stopped" in locals():
            stopped.set()
        for service in reversed(services):
            service.stop()
        print("stopped: " + ", ".join(s.name for s in services), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
