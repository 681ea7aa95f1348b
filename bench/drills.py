"""Fault drills against the whole stack, printing what they find.

Each drill starts games (some played by HTTP clients, some abandoned so their
clocks must be adjudicated), breaks one dependency, repairs it, and checks:

- no move or result lost or doubled: every move a client saw accepted is
  stored, once, at its ply; no game has more than one ending;
- no game stuck: every abandoned game ends on time at most the sweep interval
  plus the slack (and a margin) after its flag deadline (the turn's limit plus
  the lag allowance a move in flight may still use, ``games.clock.flag_deadline``),
  or after the repair if that fell during the outage;
- clear errors while a dependency was down: no 5xx other than a 503 with a
  JSON message, and no tracebacks.

Drills: the Celery worker killed during a burst of deadlines; Redis restarted
(without persistence: queued tasks are lost); the web processes restarted in
the middle of games; PostgreSQL stopped for a few seconds; and ``freeze``: the
whole server (every web, worker and beat process, Redis and PostgreSQL) stopped
with SIGSTOP for 15 s mid-round, longer than a turn, then continued, as a host
pausing its virtual machine does. Every clock must be credited the stop: no
game a client was playing is lost on time (``time_losses``), and the abandoned
games are flagged on time after their deadline moved on by the credited stop.
Run: ``.venv/bin/python bench/drills.py [--drill worker redis web postgres freeze]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from stack import Stack, descendants, make_players, process_tree, server_roots

MOVE_MS = 8000  # longer than any outage here, so the games being played survive it
ON_TIME = timedelta(seconds=1.0 + 0.3 + 0.5)  # sweep interval, slack, margin


@dataclass
class Tally:
    acknowledged: dict[int, set[int]] = field(default_factory=dict)  # game -> plies the client saw accepted
    statuses: dict[int, int] = field(default_factory=dict)
    bad_bodies: list[str] = field(default_factory=list)
    sockets: int = 0  # moves answered on a player's socket (the rest went by HTTP)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, status: int, body: Any) -> None:
        with self.lock:
            self.statuses[status] = self.statuses.get(status, 0) + 1
            if status >= 500 and not (status == 503 and isinstance(body, dict) and body.get("message")):
                self.bad_bodies.append(f"{status}: {str(body)[:120]}")


class Seat:
    """A player's socket on the game, as the game page sends its moves with ``LIVE_MOVES`` on (a thread's
    blocking client): ``act`` returns (status, body) as the HTTP API would, or None when the move is to go by
    HTTP (the socket would not open, closed before the reply, or answered busy), as the page does."""

    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token
        self.ws: Any = None
        self.ident = 0

    def act(self, body: dict[str, Any]) -> tuple[int, Any] | None:
        from websockets.sync.client import connect

        try:
            if self.ws is None:
                self.ws = connect(self.url, additional_headers={"Authorization": f"Token {self.token}"}, open_timeout=5)
            self.ident += 1
            self.ws.send(json.dumps({"act": "move", "id": self.ident, **body}))
            ends = time.monotonic() + 10  # the page's wait for a reply
            while True:
                raw = self.ws.recv(timeout=max(0.05, ends - time.monotonic()))
                if isinstance(raw, str) and raw.startswith('{"reply"'):
                    reply = json.loads(raw)
                    if reply.get("reply") == self.ident:
                        break
        except Exception:  # closed, refused or silent: by HTTP, the same ply
            self.close()
            return None
        if reply.get("code") == "busy":
            return None
        status = int(reply.get("status", 0))
        return status, reply.get("game") if status == 200 else reply

    def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                self.ws.close()
            self.ws = None


class Drill:
    def __init__(
        self, stack: Stack, name: str, active: int = 12, abandoned: int = 12, seed: int = 3, moves: str = "http"
    ) -> None:
        from django.utils import timezone

        from games.services import game_create

        self.stack, self.name, self.moves = stack, name, moves
        self.tally = Tally()
        self.stop = threading.Event()
        players = make_players(2 * (active + abandoned), f"drill-{name}-")
        self.started = timezone.now()
        self.games: list[tuple[int, str, str]] = []
        for n in range(active + abandoned):
            (one, t1), (two, t2) = players[2 * n], players[2 * n + 1]
            game = game_create(
                player_one=one,
                player_two=two,
                rules="freestyle",
                time_control={"preset": "quick", "move_ms": MOVE_MS},
                start_clock_at=self.started,
            )
            self.games.append((game.pk, t1, t2))
        self.active = self.games[:active]
        self.abandoned = [pk for pk, _a, _b in self.games[active:]]
        self.rng = random.Random(seed)
        self.threads = [threading.Thread(target=self.play, args=(g,), daemon=True) for g in self.active]

    def play(self, game: tuple[int, str, str]) -> None:
        """Play moves every ~0.3 s; on a lost connection or a 503, retry the same ply until it is answered."""
        pk, *tokens = game
        acknowledged = self.tally.acknowledged.setdefault(pk, set())
        points = [f"{c}{r}" for c in "abcdefghijklmno" for r in range(1, 16)]
        random.Random(pk).shuffle(points)
        ply, conn = 0, None
        url = f"ws://127.0.0.1:{self.stack.live_port}/ws/live/?topic=game:{pk}&lang=en"
        seats = [Seat(url, token) for token in tokens] if self.moves == "socket" else []
        while not self.stop.is_set() and points:
            answered = seats[ply % 2].act({"ply": ply, "point": points[-1]}) if seats else None
            if answered is not None:
                status, body = answered
                with self.tally.lock:
                    self.tally.sockets += 1
            else:
                try:
                    conn = conn or self.stack.connection()
                    status, body, _ms = self.stack.request(
                        conn, "POST", f"/api/games/{pk}/move/", tokens[ply % 2], {"ply": ply, "point": points[-1]}
                    )
                except OSError:
                    conn = None
                    time.sleep(0.2)
                    continue
            self.tally.count(status, body)
            if status == 200:
                acknowledged.add(ply + 1)
            elif status == 409 and body.get("code") == "stale_ply":
                acknowledged.add(ply + 1)  # our earlier attempt was stored before its answer was lost
            elif status == 503:
                time.sleep(0.5)
                continue
            else:
                break  # the game ended (a five, or the clock after a long outage)
            points.pop()
            ply += 1
            if status == 200 and body.get("status") == "finished":
                break
            time.sleep(0.3)
        for seat in seats:
            seat.close()

    def run(self, fault: Any, repair: Any, outage_s: float, excused: bool = True) -> dict[str, Any]:
        """``excused``: a deadline that fell during the outage may be settled after the repair (the only
        adjudicator was down); not where other processes stayed up (bench/nodes.py)."""
        for thread in self.threads:
            thread.start()
        time.sleep(1.0)
        fault()
        time.sleep(outage_s)
        repair()  # returns once the repaired part answers again
        repaired = datetime.now().astimezone() if excused else self.started
        time.sleep(4)
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=30)
        time.sleep(MOVE_MS / 1000 + 2)  # the abandoned games' deadlines must have passed, and been settled
        return self.verify(repaired)

    def verify(self, repaired: datetime) -> dict[str, Any]:
        from games.models import Game, GameEvent, Move, ServerFreeze
        from games.selectors import control_of

        lost = doubled = stuck = 0
        worst = 0.0
        for pk, _a, _b in self.games:
            stored = list(Move.objects.filter(game_id=pk).values_list("ply", flat=True))
            acknowledged = self.tally.acknowledged.get(pk, set())
            lost += len(acknowledged - set(stored))
            doubled += len(stored) - len(set(stored))
            if GameEvent.objects.filter(game_id=pk, kind="finished").count() > 1:
                doubled += 1
        credited = sum(
            f.until_ms - f.since_ms
            for f in ServerFreeze.objects.filter(since_ms__gte=int(self.started.timestamp() * 1000))
        )
        for game in Game.objects.filter(pk__in=self.abandoned):
            # Flagged after the turn, the lag allowance a move in flight may still use, and any stop credited.
            allowance = control_of(game).lag_quota_start_ms
            deadline = self.started + timedelta(milliseconds=MOVE_MS + allowance + credited)
            due = max(deadline, repaired)
            if game.finished_at is None or game.finished_at - due > ON_TIME or game.finished_at < deadline:
                stuck += 1
            if game.finished_at is not None:
                worst = max(worst, (game.finished_at - due).total_seconds())
        server_errors = sum(n for status, n in self.tally.statuses.items() if status >= 500 and status != 503)
        played = [pk for pk, _a, _b in self.active]
        time_losses = Game.objects.filter(pk__in=played, result_reason="time").count()
        acknowledged_total = sum(map(len, self.tally.acknowledged.values()))
        return {
            "drill": self.name,
            "games": len(self.games),
            "acknowledged": acknowledged_total,
            "lost": lost,
            "doubled": doubled,
            "stuck": stuck,
            "time_losses": time_losses,
            "credited_s": credited / 1000,
            "worst_s": worst,
            "server_errors": server_errors,
            "unavailable_503": self.tally.statuses.get(503, 0),
            "unclear": len(self.tally.bad_bodies),
            "samples": self.tally.bad_bodies[:2],
            "by_socket": self.tally.sockets,
        }


def drill_worker(stack: Stack) -> dict[str, Any]:
    """The worker is killed and stays down (no supervisor) while deadlines pass, then comes back."""
    drill = Drill(stack, "worker")
    assert stack.worker is not None

    def fault() -> None:
        stack.supervisor.paused.add("celery-worker")
        assert stack.worker is not None
        stack.worker.kill()

    def repair() -> None:
        stack.start_worker()
        stack.supervisor.paused.discard("celery-worker")

    return drill.run(fault, repair, outage_s=MOVE_MS / 1000)  # deadlines pass meanwhile


def drill_redis(stack: Stack) -> dict[str, Any]:
    drill = Drill(stack, "redis")
    assert stack.redis is not None
    redis = stack.redis

    def repair() -> None:
        stack.restart_redis()

    return drill.run(redis.stop, repair, outage_s=MOVE_MS / 1000)


def drill_web(stack: Stack) -> dict[str, Any]:
    drill = Drill(stack, "web")
    assert stack.web is not None
    return drill.run(stack.web.stop, stack.start_web, outage_s=1.0)


def drill_postgres(stack: Stack) -> dict[str, Any]:
    drill = Drill(stack, "postgres")

    def fault() -> None:
        from django.db import connections

        connections.close_all()
        stack.postgres.pause()

    return drill.run(fault, stack.postgres.resume, outage_s=4.0)


def drill_freeze(stack: Stack, stopped_s: float = 15.0) -> dict[str, Any]:
    """Every server process and Redis (and PostgreSQL) stopped with SIGSTOP at once, then continued."""
    drill = Drill(stack, "freeze")
    roots = list(server_roots(stack).values())
    frozen: list[int] = []

    def signal_all(sig: int) -> None:
        for pid in frozen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    def fault() -> None:
        stack.supervisor.paused.update({"celery-worker", "celery-beat"})
        tree = process_tree()
        frozen[:] = [pid for root in roots for pid in descendants(root, tree)]
        signal_all(signal.SIGSTOP)

    def repair() -> None:
        signal_all(signal.SIGCONT)
        stack.supervisor.paused.difference_update({"celery-worker", "celery-beat"})

    return drill.run(fault, repair, outage_s=stopped_s)


DRILLS = {
    "worker": drill_worker,
    "redis": drill_redis,
    "web": drill_web,
    "postgres": drill_postgres,
    "freeze": drill_freeze,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drill", nargs="+", choices=list(DRILLS), default=list(DRILLS))
    args = parser.parse_args()
    stack = Stack().start()
    failed = False
    try:
        for name in args.drill:
            r = DRILLS[name](stack)
            ok = r["lost"] == r["doubled"] == r["stuck"] == r["time_losses"] == r["server_errors"] == r["unclear"] == 0
            failed |= not ok
            print(
                f"drill={r['drill']} games={r['games']} moves_acknowledged={r['acknowledged']} lost={r['lost']} "
                f"doubled={r['doubled']} stuck={r['stuck']} worst_settle_after_due_s={r['worst_s']:.2f} "
                f"5xx={r['server_errors']} clear_503={r['unavailable_503']} unclear_errors={r['unclear']} "
                f"time_losses={r['time_losses']} credited_s={r['credited_s']:.1f} "
                f"{'ok' if ok else 'FAILED ' + str(r['samples'])}",
                flush=True,
            )
            print(
                f"drill: {name} lost={r['lost']} doubled={r['doubled']} missed={r['stuck']} "
                f"errors_5xx={r['server_errors']} time_losses={r['time_losses']}",
                flush=True,
            )
    finally:
        stack.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
