"""Several nodes behind nginx, and nodes lost mid-round: ``bench/open.py --nodes N --drills``.

The stack of docs/deployment.md on this machine (bench/stack.py with ``nodes=N``): N gunicorn, N live-push
servers and N Celery workers behind nginx (deploy/nginx.conf), one beat, one PostgreSQL, one Redis. Every
client and spectator goes through nginx.

Each drill plays games through the proxy (clients posting moves every ~0.3 s, a move retried for the same
ply on a broken connection or a 503, as the game page does; ``--moves socket``: on each player's socket of the
game, by HTTP when it will not open, fails before the reply or answers busy), leaves others abandoned so their
clocks must be flagged, and watches each played game from two sockets; then, a second into the games:

- ``kill=web``: node 0's gunicorn (master and workers) is killed with SIGKILL and stays down 8 s;
- ``kill=live``: node 0's live-push server likewise: its sockets drop and reconnect through nginx;
- ``kill=worker``: node 0's Celery worker likewise, while the abandoned games' deadlines fall;
- ``beat=2``: a second beat is started by mistake and left running.

Then the killed process is started again (as systemd would), and the drill checks (bench/drills.py): no
move a client saw accepted lost, none doubled, no game with two endings; every abandoned game flagged on
time (not early, not late: ``missed``); every spectator's socket at the game's last ply at the end
(``missed`` too); no answer of 500 or more through the proxy (a 503 included). Line per drill:
``drill: kill=web lost=0 doubled=0 missed=0 errors_5xx=0``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

from drills import MOVE_MS, Drill
from seats import pushed_ply
from stack import Stack

OUTAGE_S = MOVE_MS / 1000  # the abandoned games' deadlines fall while the process is down


class Spectators:
    """Two sockets per game through the proxy, reconnecting whenever one drops; the last ply each has seen."""

    def __init__(self, url: str, games: list[int], per_game: int = 2) -> None:
        self.url, self.games, self.per_game = url, games, per_game
        self.seen: dict[tuple[int, int], int] = {}
        self.reconnects = 0
        self.loop = asyncio.new_event_loop()
        self.task: asyncio.Future[Any] | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        watchers = [self._watch(g, n) for g in self.games for n in range(self.per_game)]
        self.task = asyncio.gather(*watchers, return_exceptions=True)
        with contextlib.suppress(asyncio.CancelledError):
            self.loop.run_until_complete(self.task)

    async def _watch(self, game: int, n: int) -> None:
        import websockets

        while True:
            try:
                address = f"{self.url}?topic=game:{game}&lang=en"
                async with websockets.connect(address, open_timeout=10, max_size=2**22, ping_interval=None) as ws:
                    async for raw in ws:
                        ply = pushed_ply(raw)
                        if ply is not None:
                            self.seen[(game, n)] = max(self.seen.get((game, n), -1), int(ply))
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: S110 - a dropped socket: reconnect, as static/js/push.js does
                pass
            self.reconnects += 1
            await asyncio.sleep(0.3)

    def start(self) -> Spectators:
        self.thread.start()
        return self

    def stop(self) -> None:
        if self.task is not None:
            self.loop.call_soon_threadsafe(self.task.cancel)
        self.thread.join(timeout=10)

    def behind(self) -> int:
        """Sockets that did not end at their game's last ply."""
        from games.models import Game

        final = dict(Game.objects.filter(pk__in=self.games).values_list("pk", "ply"))
        return sum(1 for g in self.games for n in range(self.per_game) if self.seen.get((g, n), -1) != final[g])


def drill(stack: Stack, name: str, moves: str = "http") -> dict[str, Any]:
    kind, _sep, what = name.partition("=")
    run = Drill(stack, name.replace("=", "-"), active=16, abandoned=8, moves=moves)
    watching = Spectators(f"ws://127.0.0.1:{stack.live_port}/ws/live/", [pk for pk, _a, _b in run.active]).start()
    services = {"web": stack.webs, "live": stack.lives, "worker": stack.workers}
    starts = {"web": stack.start_web, "live": stack.start_live, "worker": stack.start_worker}
    supervised = {"web": "web", "live": "live", "worker": "celery-worker"}
    standby: list[Any] = []

    def fault() -> None:
        if kind == "beat":
            standby.append(stack.start_beat(extra=True))
            return
        stack.supervisor.paused.add(supervised[what])  # node 0 stays down for the outage; the others serve
        victim = services[what][0]
        assert victim is not None
        victim.kill()

    def repair() -> None:
        if kind == "kill":
            starts[what](0)
            stack.supervisor.paused.discard(supervised[what])

    result = run.run(fault, repair, outage_s=OUTAGE_S, excused=False)  # the other nodes flag on time
    watching.stop()
    result["sockets_behind"] = watching.behind()
    result["reconnects"] = watching.reconnects
    if standby:
        log = (stack.workdir / "beat1.log").read_text()
        result["second_beat_sent"] = "this process sends the schedule" in log
        result["second_beat_stood_by"] = "standing by" in log
        standby[0].stop()
        stack.beats.clear()
    return result


DRILLS = ["kill=web", "kill=live", "kill=worker", "beat=2"]


def run_drills(nodes: int, moves: str = "http") -> bool:
    """Each drill; ``moves``: how the clients send their moves (``socket``: on each player's socket of the game
    through the proxy, by HTTP when it is closed, fails or answers busy, as the page with ``LIVE_MOVES``)."""
    stack = Stack(database="postgres", nice_web=False, nodes=nodes)
    stack.start()
    ok = True
    try:
        for name in DRILLS:
            r = drill(stack, name, moves)
            missed = r["stuck"] + r["sockets_behind"]
            errors = r["server_errors"] + r["unavailable_503"]
            extra = ""
            if "second_beat_sent" in r:
                sent = r["second_beat_sent"]
                extra = f" second_beat_sent={int(sent)} second_beat_stood_by={int(r['second_beat_stood_by'])}"
                errors += int(sent)
            passed = r["lost"] == r["doubled"] == missed == errors == r["unclear"] == 0
            ok &= passed
            print(
                f"  {name}: games={r['games']} moves_acknowledged={r['acknowledged']} flags_late_or_early={r['stuck']} "
                f"worst_settle_after_due_s={r['worst_s']:.2f} sockets_behind={r['sockets_behind']} "
                f"reconnects={r['reconnects']} time_losses={r['time_losses']} moves_by_socket={r['by_socket']} "
                f"unclear={r['samples']}{extra}",
                flush=True,
            )
            print(
                f"drill: {name} lost={r['lost']} doubled={r['doubled']} missed={missed} errors_5xx={errors}"
                f"{'' if passed else ' FAILED'}",
                flush=True,
            )
    finally:
        stack.stop()
    return ok
