"""Fair clocks under load: clients that think a known time before each move, on a server kept overloaded.

Starts the whole stack (bench/stack.py: ``make run``'s default SQLite, or ``--database postgres``; the
stamping gunicorn worker, a Celery worker and beat) and plays G online games of the seed's quick play (5 min
main time, 30 s a move, then 8 stones each at 30 s), short games of ``--moves`` stones (default 16). One
client per game plays both sides: after each answer it thinks a known time, 25–29 s (never over the limit),
then sends the other side's move with its measured think time, as the game page does. ``--scale`` shrinks
every time (0.1: 3 s a move, thinking 2.5–2.9 s); the lag quota shrinks with it, as lichess's does with the
game's length, while the load does not, so at 0.1 a loaded server's second of lag is a third of the limit —
a stress figure, not the seed's game. Meanwhile ``--watchers`` threads (default 150) fetch games as fast as
they are answered,
enough to keep request queueing above a second.

For every move after the first it compares what the server charged (the move's recorded think time, after
any lag credit) with what the client really thought. ``time_losses_by_load`` counts games lost on time:
every client moved within its limit, so any is the server's doing. A game flagged after its last scripted
move (the client stopped, as scripted) is counted apart (``abandoned``), as is a client's own overrun. A move
request that ends in a broken connection is counted (``connection_errors``) and sent again for the same ply,
as the game page does; a 409 ``stale_ply`` to that retry means the first attempt was stored. Each figure
is the median over ``--runs`` runs (default 3); queueing (``queued_ms`` of the move events) is printed to show the load.
Last line: ``fairness: games=… moves=… charged_minus_think_p99_ms=… time_losses_by_load=0 abandoned=…
connection_errors=0 credits_ms_p99=…``.
Run: ``.venv/bin/python bench/fairness.py [--games 10] [--moves 16] [--scale 1] [--watchers 150] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from stack import Stack, make_players, percentile  # noqa: E402

QUIET = [f"{c}{r}" for c in "acegikmo" for r in (1, 3, 5, 7, 9, 11, 13, 15)]  # never a five


def one_run(stack: Stack, games: int, moves: int, scale: float, watchers: int, run: int) -> dict[str, Any]:
    from games.models import Game, GameEvent, Move
    from games.services import game_create

    control = {
        "preset": "quick",
        "main_ms": round(300_000 * scale),
        "move_ms": round(30_000 * scale),
        "ot_move_ms": round(30_000 * scale),
    }
    players = make_players(games * 2, f"fair{run}-")
    created = [
        (
            game_create(
                player_one=players[2 * n][0], player_two=players[2 * n + 1][0], rules="freestyle", time_control=control
            ).pk,
            players[2 * n][1],
            players[2 * n + 1][1],
        )
        for n in range(games)
    ]
    thought: dict[tuple[int, int], float] = {}  # (game, ply) -> the client's real think time, ms
    connection_errors: list[int] = []  # a game's move request that ended in a broken connection (then retried)
    lock = threading.Lock()
    done = threading.Event()

    def play(game_id: int, tokens: tuple[str, str], rng: random.Random) -> None:
        conn = stack.connection()
        points = QUIET[:]
        rng.shuffle(points)
        seen = time.perf_counter()
        for ply, point in enumerate(points[:moves]):
            if ply:  # think a known time after seeing the last move (the first move starts the clock)
                time.sleep(rng.uniform(25, 29) * scale)
            think = (time.perf_counter() - seen) * 1000
            body = {"ply": ply, "point": point, "think_ms": round(think)}
            status, answer = 0, {}
            for _attempt in range(3):  # as a real client: the same ply again after a broken connection
                try:
                    status, answer, _ms = stack.request(
                        conn, "POST", f"/api/games/{game_id}/move/", tokens[ply % 2], body
                    )
                    break
                except OSError:
                    with lock:
                        connection_errors.append(game_id)
                    conn.close()
                    conn = stack.connection()
            if status == 409 and answer.get("code") == "stale_ply":
                status = 200  # the first attempt was stored before its answer was lost
            seen = time.perf_counter()
            with lock:
                thought[(game_id, ply + 1)] = think
            if status != 200 or answer.get("status") == "finished":
                break
        conn.close()

    def watch(rng: random.Random) -> None:
        conn = stack.connection()
        while not done.is_set():
            game_id = rng.choice(created)[0]
            try:
                stack.request(conn, "GET", f"/api/games/{game_id}/", None)
            except OSError:
                conn.close()
                conn = stack.connection()
        conn.close()

    crowd = [threading.Thread(target=watch, args=(random.Random(f"w{run}-{n}"),)) for n in range(watchers)]
    for thread in crowd:
        thread.start()
    time.sleep(3)  # the queue builds up before the games start
    clients = [threading.Thread(target=play, args=(pk, (a, b), random.Random(f"{run}-{pk}"))) for pk, a, b in created]
    for thread in clients:
        thread.start()
    for thread in clients:
        thread.join()
    done.set()
    for thread in crowd:
        thread.join()
    ids = [pk for pk, _a, _b in created]
    gaps, credits = [], []
    for game_id, ply, readings in Move.objects.filter(game_id__in=ids).values_list("game_id", "ply", "clock_ms"):
        credits.append(readings.get("lag_credit_ms", 0))
        if ply > 1 and (game_id, ply) in thought:
            gaps.append(readings["think_ms"] - thought[(game_id, ply)])
    queued = [
        e.get("queued_ms", 0)
        for e in GameEvent.objects.filter(game_id__in=ids, kind="move").values_list("data", flat=True)
    ]
    finished = Game.objects.filter(pk__in=ids)
    limit_ms = 30_000 * scale
    losses, client_late, abandoned = [], 0, 0
    for game in finished.filter(result_reason="time"):
        if game.ply >= moves:  # flagged after the client's last scripted move: it stopped, as scripted
            abandoned += 1
            continue
        pending = thought.get((game.pk, game.ply + 1))
        if pending is not None and pending > limit_ms:  # the client itself overran its limit (it woke late)
            client_late += 1
            continue
        last = Move.objects.filter(game=game).order_by("-ply").first()
        sent = thought.get((game.pk, game.ply + 1))  # the move the client sent that came too late, if it did
        losses.append(
            f"game {game.pk} ply {game.ply} by {game.adjudicated_by}: last move {last.clock_ms if last else {}}, "
            f"clock {dict((k, game.clock.get(k)) for k in ('in_overtime', 'ot_played', 'used', 'lag_quota'))}, "
            f"late move think {sent}"
        )
    return {
        "losses": losses,
        "moves": len(gaps) + games,
        "gap_p50": percentile(gaps, 50),
        "gap_p99": percentile(gaps, 99),
        "gap_max": max(gaps, default=0.0),
        "credit_p99": percentile(credits, 99),
        "queued_p50": percentile(queued, 50),
        "queued_p99": percentile(queued, 99),
        "time_losses": len(losses),
        "client_late": client_late,
        "abandoned": abandoned,
        "connection_errors": len(connection_errors),
        "reasons": sorted({g.result_reason or g.status for g in finished}),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--moves", type=int, default=16, help="stones per game")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--watchers", type=int, default=150)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    args = parser.parse_args()
    stack = Stack(database=args.database, nice_web=False).start()
    results = []
    try:
        for run in range(args.runs):
            r = one_run(stack, args.games, args.moves, args.scale, args.watchers, run)
            results.append(r)
            print(
                f"  run {run + 1}: moves={r['moves']} charged-think p50={r['gap_p50']:.0f} p99={r['gap_p99']:.0f} "
                f"max={r['gap_max']:.0f} ms; queued p50={r['queued_p50']:.0f} p99={r['queued_p99']:.0f} ms; "
                f"credits p99={r['credit_p99']:.0f} ms; time losses by load={r['time_losses']}, by a client over its "
                f"limit={r['client_late']}, abandoned after the script={r['abandoned']}; connection errors="
                f"{r['connection_errors']}; ends={r['reasons']}",
                flush=True,
            )
            for line in r["losses"][:10]:
                print(f"    time loss: {line}", flush=True)
    finally:
        stack.stop()
    p99s = [r["gap_p99"] for r in results]
    print(f"  {args.database}: charged-think p99 per run {[round(x) for x in p99s]} ms")
    print(
        f"fairness: games={args.games} moves={sum(r['moves'] for r in results)} "
        f"charged_minus_think_p99_ms={statistics.median(p99s):.0f} "
        f"time_losses_by_load={sum(r['time_losses'] for r in results)} "
        f"abandoned={sum(r['abandoned'] for r in results)} "
        f"connection_errors={sum(r['connection_errors'] for r in results)} "
        f"credits_ms_p99={statistics.median(r['credit_p99'] for r in results):.0f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
