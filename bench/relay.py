"""The hall's relay under a championship's load: 100 boards recorded at the board, 2,000 spectators watching.

Starts ``make run``'s stack (bench/stack.py: SQLite, embedded Redis, gunicorn with the stamping worker, a
Celery worker and beat, the live-push server). In the bench process, through the real services: a
tournament played over the board with ``--boards`` boards in play, a recorder for each (a referee of that
game, with an API token), the stage's publish delay set to ``--delay`` minutes.

One asyncio process (uvloop) is the whole crowd:

- a recorder per board enters a stone through the API (``POST /api/relay/<game>/enter/``, naming the ply it
  expects) every 10–60 s (uniform), as a referee at the table would, for ``--seconds``;
- ``--spectators`` sockets on ``/ws/live/``: half on the multiboard (``relay:<tournament>``: the whole state
  first, then the boards that changed), half on the boards' own pages (``relaygame:<game>``, spread evenly),
  each noting when each entry reaches it.

Figures: ``entry_p99_ms`` (an entry's acknowledgement as the recorder sees it, from sending to the answer);
``push_p99_ms`` (from the moment the entry may be public, its sending plus the delay, to its arrival at each
spectator who watches its board: the multiboard's and the board's page's); ``early`` (arrivals before the
delay had passed: must be 0, the delay is the point); ``lost`` (an acknowledged entry that some watcher of
its board never received, counted once per watcher, after the delay and a grace of ``GRACE_S``);
``cpu_ms_per_entry`` (every server process's CPU in the window ÷ the entries), and beside it the same
figure of a quiet minute-long baseline measured first in the same run (the spectators connected, nobody
recording): ``idle_cpu_ms_per_s``.

Last line: ``relay: boards=100 spectators=2000 entry_p99_ms=… push_p99_ms=… lost=0``.
Run: ``.venv/bin/python bench/relay.py [--boards 100] [--spectators 2000] [--seconds 120] [--delay 1]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from open import Http, cpu_delta, server_cpu_ms  # noqa: E402
from stack import Stack, percentile, run_async  # noqa: E402

from devtools.processes import open_files_as_allowed  # noqa: E402

# Stones two points apart: never a five, never a forbidden move, so every board plays on.
QUIET = [f"{c}{r}" for c in "acegikmo" for r in (1, 3, 5, 7, 9, 11, 13, 15)]
GRACE_S = 5.0


@dataclass
class Tally:
    sent: dict[tuple[int, int], float] = field(default_factory=dict)  # (game, ply) -> when its entry was sent
    acked_ms: list[float] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    arrivals: dict[tuple[int, int], list[float]] = field(default_factory=dict)
    watchers: dict[int, int] = field(default_factory=dict)  # game -> sockets watching it (both kinds)
    connected: int = 0
    refused: list[str] = field(default_factory=list)
    cpu_ms: float = 0.0  # the server's, while the boards were recorded and until the last entry came of age
    idle_cpu_ms_per_s: float = 0.0  # the server's, the spectators connected and nobody recording


def make_event(boards: int, delay: int) -> tuple[Any, list[tuple[int, str]]]:
    """An over-the-board tournament with ``boards`` boards in play, each with its recorder (a referee of the
    game) and the recorder's token; the stage's publish delay set."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from rest_framework.authtoken.models import Token

    from games.models import Game, Player
    from relay.services import set_delay
    from tournament import services

    tournament = services.tournament_create(
        name="Relay bench", preset="seed", rules="freestyle", protocol="none", boards=boards
    )
    players = Player.objects.bulk_create([Player(name=f"R{n:04d}") for n in range(2 * boards)])
    for player in players:
        services.register(tournament=tournament, player=player)
    services.publish(tournament=tournament)
    stage = tournament.stages.get(order=1)
    services.draw_stage(stage=stage, seed=1)
    services.start_stage(stage=stage)
    set_delay(stage=stage, minutes=delay)
    games = list(Game.objects.filter(match_game__match__tournament=tournament).order_by("board_number", "pk"))
    games = [g for g in games if g.board_number is not None][:boards]
    users = get_user_model().objects
    recorders = users.bulk_create([users.model(username=f"recorder{n:03d}") for n in range(len(games))])
    recorders = list(users.filter(username__startswith="recorder").order_by("pk"))
    Group.objects.get(name="referee").user_set.add(*recorders)
    for game, user in zip(games, recorders, strict=True):
        game.referees.add(user)
    tokens = Token.objects.bulk_create([Token(user=u, key=Token.generate_key()) for u in recorders])
    return tournament, [(g.pk, t.key) for g, t in zip(games, tokens, strict=True)]


async def record(port: int, game: int, token: str, tally: Tally, end: float, rng: random.Random) -> None:
    """A recorder at one board: a stone every 10–60 s, each naming the ply it expects."""
    http = Http(port)
    ply = 0
    await asyncio.sleep(rng.uniform(0, 10))
    while time.time() < end and ply < len(QUIET):
        tally.sent[(game, ply + 1)] = sent = time.time()
        try:
            status, body = await http.request(
                "POST", f"/api/relay/{game}/enter/", token, {"ply": ply, "action": f"place {QUIET[ply]}"}
            )
        except ConnectionError as exc:
            tally.failed.append(f"{game}:{ply}: {exc}")
            continue  # the same ply again: an entry sent twice is harmless
        tally.acked_ms.append((time.time() - sent) * 1000)
        if status not in (200, 201):
            tally.failed.append(f"{game}:{ply}: {status} {str(body)[:200]}")
            del tally.sent[(game, ply + 1)]
            return
        ply += 1
        await asyncio.sleep(rng.uniform(10, 60))
    await http.close()


def seen(tally: Tally, shown: dict[int, int], game: int, ply: int, now: float) -> None:
    """A watcher was shown ``game`` at ``ply``: every ply it had not seen yet arrived now."""
    for n in range(shown.get(game, 0) + 1, ply + 1):
        tally.arrivals.setdefault((game, n), []).append(now)
    shown[game] = max(ply, shown.get(game, 0))


async def watch(url: str, topic: str, tally: Tally, stop: asyncio.Event) -> None:
    import websockets

    shown: dict[int, int] = {}
    first = True
    try:
        async with websockets.connect(
            f"{url}?topic={topic}&lang=en", max_size=2**22, open_timeout=120, ping_interval=None
        ) as ws:
            tally.connected += 1
            while not stop.is_set():
                try:
                    raw = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    continue
                now, message = time.time(), json.loads(raw)
                boards = [message["relay"]] if "relay" in message else message.get("boards", [])
                for board in boards:
                    if first:  # the state found on connecting: what it shows arrived before
                        shown[board["game"]] = board["ply"]
                    seen(tally, shown, board["game"], board["ply"], now)
                first = False
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        tally.refused.append(f"{topic}: {type(exc).__name__}: {exc}")


async def the_relay(stack: Stack, tournament: int, boards: list[tuple[int, str]], args: argparse.Namespace) -> Tally:
    tally = Tally()
    stop = asyncio.Event()
    url = f"ws://127.0.0.1:{stack.live_port}/ws/live/"
    games = [g for g, _t in boards]
    watchers = []
    for n in range(args.spectators):
        topic = f"relay:{tournament}" if n % 2 == 0 else f"relaygame:{games[(n // 2) % len(games)]}"
        watchers.append(asyncio.ensure_future(watch(url, topic, tally, stop)))
        if n % 50 == 49:
            await asyncio.sleep(0.05)  # a crowd arriving, not one burst
    deadline = time.time() + 120
    while tally.connected + len(tally.refused) < args.spectators and time.time() < deadline:
        await asyncio.sleep(0.2)
    multiboard = (args.spectators + 1) // 2
    for n, game in enumerate(games):
        tally.watchers[game] = multiboard + sum(1 for k in range(args.spectators // 2) if k % len(games) == n)
    await asyncio.sleep(3.0)  # the first states reach everyone

    before, idle_start = server_cpu_ms(stack), time.time()
    await asyncio.sleep(args.idle)
    tally_idle = cpu_delta(before, server_cpu_ms(stack))
    idle_s = time.time() - idle_start

    rng = random.Random(7)
    before, start = server_cpu_ms(stack), time.time()
    end = start + args.seconds
    recorders = [record(stack.port, g, token, tally, end, random.Random(rng.random())) for g, token in boards]
    await asyncio.gather(*recorders)
    await asyncio.sleep(max(0.0, end + args.delay * 60 + GRACE_S - time.time()))  # the last entries come of age
    used = cpu_delta(before, server_cpu_ms(stack))
    stop.set()
    await asyncio.gather(*watchers, return_exceptions=True)
    if args.verbose:
        print(f"  cpu ms by part: {json.dumps({k: round(v) for k, v in used.items()})}", file=sys.stderr)
    tally.cpu_ms = sum(used.values())
    tally.idle_cpu_ms_per_s = sum(tally_idle.values()) / idle_s
    return tally


def figures(tally: Tally, delay_s: float) -> dict[str, Any]:
    pushes, early, lost = [], 0, 0
    for key, sent in tally.sent.items():
        arrived = tally.arrivals.get(key, [])
        public_at = sent + delay_s
        for at in arrived:
            pushes.append(max(0.0, at - public_at) * 1000)
            early += at < public_at - 0.5  # the server's clock and ours agree within this
        lost += max(0, tally.watchers.get(key[0], 0) - len(arrived))
    entries = len(tally.sent)
    return {
        "entries": entries,
        "entry_p50_ms": percentile(tally.acked_ms, 50),
        "entry_p99_ms": percentile(tally.acked_ms, 99),
        "push_p50_ms": percentile(pushes, 50),
        "push_p99_ms": percentile(pushes, 99),
        "early": early,
        "lost": lost,
        "failed": len(tally.failed),
        "connected": tally.connected,
        "refused": len(tally.refused),
        "cpu_ms_per_entry": tally.cpu_ms / max(1, entries),
        "idle_cpu_ms_per_s": tally.idle_cpu_ms_per_s,
        "samples": (tally.failed + tally.refused)[:5],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=100)
    parser.add_argument("--spectators", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--delay", type=int, default=1, help="the stage's publish delay, minutes")
    parser.add_argument("--idle", type=float, default=20.0, help="seconds of the quiet baseline")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    open_files_as_allowed()
    stack = Stack(database="sqlite", nice_web=False).start()
    try:
        if stack.live is None:
            stack.start_live()
        tournament, boards = make_event(args.boards, args.delay)
        tally = run_async(the_relay(stack, tournament.pk, boards, args))
    finally:
        stack.stop()
    result = figures(tally, args.delay * 60.0)
    for key, value in result.items():
        print(f"  {key}: {value if not isinstance(value, float) else round(value, 1)}")
    print(
        f"relay: boards={len(boards)} spectators={result['connected']} entry_p99_ms={result['entry_p99_ms']:.0f} "
        f"push_p99_ms={result['push_p99_ms']:.0f} lost={result['lost']}"
    )
    return 0 if result["lost"] == 0 and result["early"] == 0 and result["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
