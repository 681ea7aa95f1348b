"""Shared by the games tests: a human player for practice games, running the computer's queued tasks as the
worker would, finished games to analyse, and online games played through every protocol's script."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.tests.protocol_scripts import COMPLETE
from games.models import Game
from games.services import game_act, game_create, game_import, game_resign, game_state
from games.services.analysis import analysis_run
from games.services.practice import computer_turn
from games.tests.factories import PlayerFactory, UserFactory


def human() -> Any:
    return PlayerFactory(user=UserFactory(username="practiser", role="player"))


def run_computer(calls: list[tuple[str, tuple[Any, ...], str]]) -> list[str]:
    """Run the computer tasks sent so far (as the worker would), until none is left."""
    done = []
    while calls:
        name, args, queue = calls.pop(0)
        assert queue in ("computer", "engines")
        if name == "computer_move":
            done.append(computer_turn(*args))
        else:
            done.append(analysis_run(*args))
    return done


# Black makes the four h8..k8 closed by g8 ... a game where White (move 12) ignores Black's VCF
# k8 l8 k7 and Black (move 13) misses it, then White wins.
MISSED = "h8 g8 i8 a1 j8 a3 k9 a5 k10 o15 b2 n14"


def finished_game(moves: str) -> Game:
    """An imported game of ``moves`` that White won by resignation."""
    one, two = PlayerFactory(), PlayerFactory()
    text = f'[Black "{one.name}"]\n[White "{two.name}"]\n[Result "0-1"]\n[Reason "resignation"]\n\n{moves}\n'
    return game_import(text=text)


START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def played(protocol: str, options: Any, script: list[tuple[Any, str]]) -> Game:
    """An online game through the protocol's script, three more stones, then a resignation."""
    one, two = PlayerFactory(name="甲"), PlayerFactory(name="乙", unit="二中")
    game = game_create(
        player_one=one,
        player_two=two,
        protocol=protocol,
        protocol_options={k: v for k, v in asdict(options).items() if v != asdict(type(options)())[k]}
        if options
        else {},
        time_control="quick",
        start_clock_at=START,
        event="校际赛",
        round="1.2.1",
    )
    at = START
    for ply, (seat, text) in enumerate(script):
        at += timedelta(milliseconds=1300 + 100 * ply)  # think times known to the tenth of a second
        game = game_act(game_id=game.pk, player=one if int(seat) == 1 else two, action=text, expected_ply=ply, at=at)
    for extra in ("n2", "b14", "n13"):
        at += timedelta(milliseconds=2100)
        mover = one if _acts(game) == 1 else two
        game = game_act(game_id=game.pk, player=mover, action=f"place {extra}", expected_ply=game.ply, at=at)
    return game_resign(game_id=game.pk, player=game.black, at=at + timedelta(seconds=1))


def _acts(game: Game) -> int:
    return int(game_state(game).to_act)


CASES = [c for c in COMPLETE if c[2]]  # the protocols' scripts that have actions
