"""``make run``: Redis (embedded unless REDIS_URL is set), a Celery worker,
Celery beat, the web server and the live-push socket server, until Ctrl-C stops them all.

``make venue`` (``--venue``): the same, listening on every interface for the phones on the venue's Wi-Fi
(the machine's own addresses accepted as hosts, any other refused), each LAN URL printed with a QR code,
and a backup of the database every BACKUP_EVERY_S seconds (600) into var/backups/, the newest 24 kept.

``--nodes N``: the deployment of docs/deployment.md on one machine: N web processes, N live-push servers and
N clock workers behind nginx (deploy/nginx.conf) on PORT, with exactly one beat (others would stand by). The
processes listen on loopback only (PORT+10… and PORT+20…); nginx stamps each request's arrival and the
client's address, which the settings then trust (TRUST_X_REQUEST_START, CLIENT_IP_HEADER)."""

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
    nginx_proxy,
    open_files_as_allowed,
    web_server,
)

VENUE = "--venue" in sys.argv[1:]
NODES = int(sys.argv[sys.argv.index("--nodes") + 1]) if "--nodes" in sys.argv[1:] else 0
HOST, PORT = ("0.0.0.0" if VENUE else "127.0.0.1"), int(os.environ.get("PORT", "8000"))
LIVE_PORT = int(os.environ.get("LIVE_PORT", str(PORT + 1)))
WEB_PORTS = [PORT + 10 + n for n in range(NODES)] if NODES else [PORT]
LIVE_PORTS = [PORT + 20 + n for n in range(NODES)] if NODES else [LIVE_PORT]


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
            f"  live push   ws://127.0.0.1:{PORT if NODES else LIVE_PORT}/ws/live/",
            *([f"  nodes       {NODES} web, {NODES} live-push, {NODES} clock workers behind nginx"] if NODES else []),
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


def servers(env: dict[str, str], var: Path, logs: Path) -> list[Service]:
    """Every server process but Redis, in the order they start: clock workers, the computer's and outside
    engines' workers, the beat, the web, the live push, and with ``--nodes`` nginx in front."""
    out: list[Service] = []
    for node in range(max(1, NODES)):
        name = f"worker{node}@%h" if NODES else "worker@%h"
        out.append(celery_worker(env, log=logs / f"celery-{name[:-3]}.log", hostname=name))
    # The computer opponent and game analysis: searches hold a CPU, so processes, apart from the clock's threads.
    # Outside Gomocup engines on a queue and worker of their own: a bad one never delays the built-in's turns.
    # Fair-play screening after each online game: the same, niced, so a game's move always comes first.
    for queue, workers, nice in (
        ("computer", "COMPUTER_WORKERS", 0),
        ("engines", "ENGINE_WORKERS", 0),
        ("fairplay", "FAIRPLAY_WORKERS", 15),
    ):
        concurrency = int(env.get(workers, "1"))
        out.append(
            celery_worker(
                env,
                log=logs / f"{queue}-worker.log",
                pool="prefork",
                concurrency=concurrency,
                hostname=f"{queue}@%h",
                queues=queue,
                nice=nice,
            )
        )
    out.append(celery_beat(env, var / "celerybeat-schedule", log=logs / "celery-beat.log"))
    inner = "127.0.0.1" if NODES else HOST  # behind nginx only nginx listens beyond this machine
    for node, port in enumerate(WEB_PORTS):
        log = logs / (f"web{node}.log" if NODES else "web.log")
        out.append(web_server(env, inner, port, log=log, extra=["--access-logfile", "-"]))
    # Pages receive changes over WebSockets from here (config/live.py); gunicorn serves the rest.
    for node, port in enumerate(LIVE_PORTS):
        log = logs / (f"live{node}.log" if NODES else "live.log")
        # One process per node behind nginx; alone, LIVE_WORKERS processes (1) share the port. Two on this
        # machine's two cores cost more per move than they gave (each reads every announcement): docs/reliability.md.
        workers = 1 if NODES else int(env.get("LIVE_WORKERS", "1"))
        out.append(live_push_server(env, inner, port, log=log, workers=workers))
    if NODES:
        web = [f"127.0.0.1:{p}" for p in WEB_PORTS]
        live = [f"127.0.0.1:{p}" for p in LIVE_PORTS]
        static = var / "staticfiles"  # settings.STATIC_ROOT
        out.append(nginx_proxy(f"{HOST}:{PORT}", web, live, var / "nginx", static, log=logs / "nginx.log"))
    return out


def main() -> int:
    open_files_as_allowed()
    var = Path(os.environ.get("VAR_DIR", str(ROOT / "var")))  # settings.VAR_DIR: logs, schedule, nginx
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
        if NODES:  # behind nginx: its arrival stamp and its client address are the ones to trust
            env.update(TRUST_X_REQUEST_START="true", CLIENT_IP_HEADER="X-Real-IP", LIVE_URL="/ws/live/")
        env.setdefault("LIVE_URL", f":{LIVE_PORT}/ws/live/")  # where pages open their socket
        env["PORT"] = str(PORT)
        if VENUE:
            env["VENUE"] = "1"  # settings accept the machine's own addresses as hosts
        for service in servers(env, var, logs):
            services.append(supervisor.watch(service.start()))
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
