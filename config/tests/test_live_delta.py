"""A plain move pushed as what it changed (games.live.game_moved, config.live.with_move): the state a watcher
was last sent, with the move added, is exactly the game read again; anything else is read again."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction

import games.live
from config.live import with_move
from config.live_reads import _render
from config.tests.sockets import shown_ply
from games.models import Game, Player
from games.services import game_act, game_create, game_offer_draw
from games.services.arbiter import game_call_arbiter

pytestmark = pytest.mark.django_db(transaction=True)  # each action commits, as on the server

# Renju: black's g8 h8 and i9 i10 make i8 a double-three, so the pushed position carries a forbidden point.
RENJU = ["g8", "a1", "h8", "a3", "i10", "a5", "i9", "a7"]


@pytest.fixture
def announced(settings: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[str], dict[str, Any]]]:
    """What games.live would publish, as the socket server reads it back from Redis (through JSON)."""
    settings.LIVE_PUSH = True
    sent: list[tuple[list[str], dict[str, Any]]] = []

    def publish(topics: list[str], moves: dict[str, Any] | None = None) -> None:
        sent.append((topics, json.loads(json.dumps(moves or {}, cls=DjangoJSONEncoder))))

    monkeypatch.setattr(games.live, "publish", publish)
    return sent


def new_game(rules: str = "renju") -> Game:
    one, two = Player.objects.create(name="Black"), Player.objects.create(name="White")
    return game_create(player_one=one, player_two=two, rules=rules, time_control="quick")


def shown(game: Game) -> dict[str, Any]:
    """The game as the socket server reads and sends it."""
    text = _render(f"game:{game.pk}", "en")
    assert text is not None
    return dict(json.loads(text)["game"])


def play(game: Game, ply: int, point: str) -> None:
    player = game.player_one if ply % 2 == 0 else game.player_two
    game_act(game_id=game.pk, player=player, action=f"place {point}", expected_ply=ply)


def test_each_move_added_to_the_last_state_is_the_game_read_again(announced: list[Any], time_machine: Any) -> None:
    time_machine.move_to(datetime(2026, 12, 4, 10, 0, tzinfo=UTC), tick=False)
    game = new_game()
    topic = f"game:{game.pk}"
    state = shown(game)

    for ply, point in enumerate(RENJU):
        time_machine.shift(timedelta(seconds=3 + ply))
        play(game, ply, point)
        topics, moves = announced[-1]
        assert topic in topics and topic in moves
        added = with_move(state, moves[topic])
        assert added is not None
        assert added == shown(game), f"after ply {ply + 1}"
        state = added

    assert state["position"]["forbidden"] == {"i8": "double-three"}
    assert with_move(state, moves[topic]) is None  # the same move again: not the state just before it


def test_a_move_that_ends_the_game_or_comes_with_other_changes_is_read_again(announced: list[Any]) -> None:
    game = new_game("freestyle")
    topic = f"game:{game.pk}"
    for ply, point in enumerate(["h8", "a1", "h9", "a3", "h10", "a5", "h11", "a7"]):
        play(game, ply, point)
    play(game, 8, "h12")  # five: the game ends
    assert topic in announced[-1][0] and topic not in announced[-1][1]

    other = new_game("freestyle")
    topic = f"game:{other.pk}"
    with transaction.atomic():  # two moves, one commit
        game_act(game_id=other.pk, player=other.player_one, action="place h8", expected_ply=0)
        game_act(game_id=other.pk, player=other.player_two, action="place a1", expected_ply=1)
    assert topic in announced[-1][0] and topic not in announced[-1][1]

    with transaction.atomic():  # a move, then a draw offer
        game_act(game_id=other.pk, player=other.player_one, action="place h9", expected_ply=2)
        game_offer_draw(game_id=other.pk, player=other.player_one)
    assert topic in announced[-1][0] and topic not in announced[-1][1]


def test_a_move_while_the_arbiter_is_called_is_read_again(announced: list[Any]) -> None:
    game = new_game("freestyle")
    play(game, 0, "h8")
    game_offer_draw(game_id=game.pk, player=game.player_one)  # the clocks stop: the call pauses nothing
    game_call_arbiter(game_id=game.pk, player=game.player_two, note="noise")
    from games.services import game_answer_draw

    game_answer_draw(game_id=game.pk, player=game.player_two, accept=False)
    play(game, 1, "h9")

    assert f"game:{game.pk}" not in announced[-1][1]


def test_a_state_sent_before_a_missed_move_is_not_patched() -> None:
    before = {"ply": 3, "status": "playing", "arbiter_call": None, "moves": [{}, {}, {}]}
    move = {"ply": 5, "status": "playing", "move": {"ply": 5}, **{k: None for k in ("black", "white", "clock")}}
    assert with_move(before, {**move, "position": {}}) is None  # ply 4 never reached this server
    assert with_move(before, {**move, "ply": 4, "move": {"ply": 4}, "status": "finished", "position": {}}) is None
    assert with_move(None, {**move, "position": {}}) is None  # nothing sent yet


def test_a_move_rolled_back_with_its_savepoint_is_never_pushed(announced: list[Any]) -> None:
    game = new_game("freestyle")
    topic = f"game:{game.pk}"
    with transaction.atomic():
        games.live.game_changed(game)  # the transaction announces the game before the savepoint
        try:
            with transaction.atomic():
                game_act(game_id=game.pk, player=game.player_one, action="place h8", expected_ply=0)
                raise RuntimeError("the caller gives up")
        except RuntimeError:
            pass

    assert Game.objects.get(pk=game.pk).ply == 0
    assert topic in announced[-1][0] and topic not in announced[-1][1]  # read again: no phantom move


# -- moves announced while the socket server reads the game --------------------------------------------------


def state_at(ply: int) -> dict[str, Any]:
    return {
        "ply": ply,
        "status": "playing",
        "arbiter_call": None,
        "moves": [{"ply": n} for n in range(1, ply + 1)],
        **{name: {"at": ply} for name in CHANGED},
    }


def delta(ply: int) -> dict[str, Any]:
    return {"ply": ply, "status": "playing", "move": {"ply": ply}, **{n: {"at": ply} for n in CHANGED}}


CHANGED = ("black", "white", "clock", "position")


def in_a_thread_of_its_own(scenario: Any) -> None:
    """Run the coroutine function ``scenario`` on a new event loop in a new thread: a browser test earlier in
    the same session may leave an event loop running in this one."""
    import asyncio
    import threading

    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(scenario())
        except BaseException as exc:  # re-raised in the test's own thread
            failed.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the scenario did not finish"
    if failed:
        raise failed[0]


def run_hub_read(monkeypatch: pytest.MonkeyPatch, read_ply: int, announced_during: list[int]) -> tuple[int, list[int]]:
    """A watched game is read (the read returns the game at ``read_ply``) while moves ``announced_during`` are
    announced; returns how many reads were made and the plies the watcher was sent."""
    import asyncio
    import threading

    import config.live as live

    reads: list[int] = []
    release = threading.Event()

    def render(topic: str, lang: str) -> str:
        release.wait(5)
        reads.append(1)
        ply = read_ply if len(reads) == 1 else read_ply + 10  # a second read: the game has moved on
        return json.dumps({"topic": topic, "game": state_at(ply)})

    monkeypatch.setattr(live, "render", render)
    sent: list[int] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(shown_ply(json.loads(message["text"])))

    async def scenario() -> None:
        hub = live.Hub()
        hub.add(live.Watcher(send, "game:1", "en"))
        hub.changed("game:1")  # the first watcher: read the game
        await asyncio.sleep(0.05)
        for ply in announced_during:
            hub.changed("game:1", delta(ply))
        release.set()
        for _ in range(200):
            await asyncio.sleep(0.01)
            if "game:1" not in hub.running:
                break
        await asyncio.sleep(0.05)

    in_a_thread_of_its_own(scenario)
    return len(reads), sent


def test_moves_announced_during_a_read_are_added_after_it_not_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # The read saw move 3 already; moves 4 and 5 came after it.
    assert run_hub_read(monkeypatch, 3, [3, 4, 5]) == (1, [3, 4, 5])


def test_a_move_that_does_not_follow_the_read_has_the_game_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # Move 4 was never announced here: move 5 cannot be added to the state at 3.
    assert run_hub_read(monkeypatch, 3, [5]) == (2, [3, 13])


def test_watchers_arriving_during_a_read_are_sent_it_without_another(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio
    import threading

    import config.live as live

    reads: list[str] = []
    release = threading.Event()

    def render(topic: str, lang: str) -> str:
        release.wait(5)
        reads.append(lang)
        return json.dumps({"topic": topic, "game": state_at(len(reads))})

    monkeypatch.setattr(live, "render", render)
    sent: dict[str, list[int]] = {}

    def watcher(name: str, lang: str) -> Any:
        async def send(message: dict[str, Any]) -> None:
            sent.setdefault(name, []).append(shown_ply(json.loads(message["text"])))

        return live.Watcher(send, "game:1", lang)

    async def scenario() -> None:
        hub = live.Hub()
        for name, lang in (("first", "en"), ("second", "en")):
            new = watcher(name, lang)
            hub.add(new)
            await hub.welcome(new)
            await asyncio.sleep(0.02)
        release.set()
        for _ in range(200):
            await asyncio.sleep(0.01)
            if "game:1" not in hub.running:
                break
        late = watcher("late", "en")
        hub.add(late)
        await hub.welcome(late)  # after the read: the state it sent

    in_a_thread_of_its_own(scenario)
    assert reads == ["en"]  # one read for the two watchers
    assert sent == {"first": [1], "second": [1], "late": [1]}


def test_what_an_act_commits_after_the_loop_stopped_waiting_for_it_is_still_told_here() -> None:
    """A socket's act is cancelled (the server stops) while its thread commits: the change reaches the loop."""
    import asyncio

    import config.live as live

    told: list[list[str]] = []

    async def scenario() -> None:
        hub = live.Hub()
        cast(Any, hub).deliver = lambda topics, moves: told.append(topics)
        committed = live.Committed(asyncio.get_running_loop(), hub)
        committed(["game:1"], {})  # while the loop waits for the act: kept for it
        assert committed.take() == [(["game:1"], {})] and told == []
        await asyncio.to_thread(committed, ["game:2"], {})  # after: handed to the loop from the thread
        await asyncio.sleep(0.05)
        assert told == [["game:2"]]

    in_a_thread_of_its_own(scenario)


def test_a_topic_whose_last_watcher_left_is_read_afresh_for_the_next() -> None:
    """The states kept for a topic go with its last watcher: a later one is never sent a stale state."""

    import config.live as live

    sent: list[str] = []

    async def scenario() -> None:
        hub = live.Hub()
        cast(Any, hub).changed = lambda topic, move=None: sent.append(f"read {topic}")

        async def send(message: dict[str, Any]) -> None:
            sent.append(message["text"])

        first = live.Watcher(send, "game:1", "en")
        hub.add(first)
        hub.shown[("game:1", "en")] = state_at(4)
        hub.latest[("game:1", "en")] = json.dumps({"topic": "game:1", "game": state_at(4)})
        hub.remove(first)
        assert ("game:1", "en") not in hub.shown and ("game:1", "en") not in hub.latest
        second = live.Watcher(send, "game:1", "en")
        hub.add(second)
        await hub.welcome(second)

    in_a_thread_of_its_own(scenario)
    assert sent == ["read game:1"]


def test_a_topics_first_state_is_read_while_new_sockets_wait_for_their_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """At a round's start thousands of sockets queue for their checks in the loop's default executor; a watched
    topic's state is read in a thread of its own, so its watcher is not kept waiting behind the others'."""
    import asyncio
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import config.live as live

    monkeypatch.setattr(live, "render", lambda topic, lang: json.dumps({"topic": topic, "game": state_at(2)}))
    checks_done = threading.Event()
    sent: list[int] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(shown_ply(json.loads(message["text"])))

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        loop.set_default_executor(ThreadPoolExecutor(max_workers=1))  # the checks' one thread, as hub() makes it
        checks = loop.run_in_executor(None, checks_done.wait, 5)  # the sockets still being checked
        hub = live.Hub()
        watcher = live.Watcher(send, "game:1", "en")
        hub.add(watcher)
        try:
            await hub.welcome(watcher)  # the topic's first watcher: its state is read
            for _ in range(100):
                if sent:
                    break
                await asyncio.sleep(0.01)
            assert sent == [2], "the state waited for the checks queued before it"
        finally:
            checks_done.set()
            await checks

    in_a_thread_of_its_own(scenario)
