"""The relay on the live sockets, end to end (a real Redis and the socket server): the public's multiboard and
game sockets are sent each entry when it comes of age after the stage's delay, not before, without anything
else being announced; after the first whole state a multiboard watcher is sent only the boards that changed.

The delay is real here (a minute): the entries are made as if entered some seconds short of a minute ago
(the services take the moment of entry), so they come of age during the test."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from config.tests.sockets import SocketServer, hub_listening, listen
from devtools.processes import wait_until
from games.models import Game
from relay.services import relay_enter, set_delay
from tournament.tests.browser import account
from tournament.tests.helpers import started

pytestmark = [pytest.mark.pg_django, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def board_game_pair() -> tuple[Any, Any, list[Game], Any]:
    tournament, stage = started(4, preset="seed")
    games = list(Game.objects.filter(match_game__match__group__stage=stage).order_by("pk"))[:2]
    boss = account("boss", "organizer")
    set_delay(stage=stage, minutes=1)
    return tournament, stage, games, boss


def ago(seconds: float) -> Any:
    return timezone.now() - timedelta(seconds=seconds)


def test_the_public_multiboard_socket_gets_each_entry_as_it_comes_of_age_and_only_what_changed(
    sockets: SocketServer,
) -> None:
    tournament, _stage, (one, two), boss = board_game_pair()
    relay_enter(game_id=one.pk, user=boss, expected_ply=0, action="place h8", at=ago(120))  # long of age
    relay_enter(game_id=two.pk, user=boss, expected_ply=0, action="place h8", at=ago(120))
    due_at = time.time() + 3.0
    relay_enter(game_id=two.pk, user=boss, expected_ply=1, action="place j10", at=ago(57))  # of age in 3 s

    url = f"ws://127.0.0.1:{sockets.port}/ws/live/?topic=relay:{tournament.pk}&lang=en"
    thread, got = listen(url, 2, timeout=15)
    wait_until(lambda: len(got) >= 1 or not thread.is_alive(), 10, "the first state")
    wait_until(hub_listening, 10, "the socket server's Redis subscription")
    first = got[0][1]
    assert "delta" not in first and [b["stones"] for b in first["boards"]] == [["h8"], ["h8"]]
    thread.join(15)

    arrived, delta = got[1]
    assert delta["delta"] is True and [b["game"] for b in delta["boards"]] == [two.pk]  # the board that changed
    assert delta["boards"][0]["stones"] == ["h8", "j10"] and "order" not in delta
    wall = time.time() - (time.monotonic() - arrived)  # the arrival on the wall clock
    # never before its time; soon after (the bench measures the p99 under load: bench/relay.py)
    assert due_at - 0.5 <= wall <= due_at + 2.0, f"came {wall - due_at:+.2f} s from its coming of age"


def test_the_public_game_socket_waits_for_the_delay_and_the_organizers_api_does_not(sockets: SocketServer) -> None:
    _tournament, _stage, (game, _two), boss = board_game_pair()
    relay_enter(game_id=game.pk, user=boss, expected_ply=0, action="place h8", at=ago(120))
    url = f"ws://127.0.0.1:{sockets.port}/ws/live/?topic=relaygame:{game.pk}&lang=en"
    thread, got = listen(url, 2, timeout=15)
    wait_until(lambda: len(got) >= 1 or not thread.is_alive(), 10, "the first state")
    wait_until(hub_listening, 10, "the socket server's Redis subscription")
    assert got[0][1]["relay"]["ply"] == 1

    due_at = time.time() + 2.0
    relay_enter(game_id=game.pk, user=boss, expected_ply=1, action="place h9", at=ago(58))  # announced now
    time.sleep(0.5)  # the announcement has come and gone: the public's view did not change, nothing was sent
    assert len(got) == 1
    thread.join(15)
    arrived, message = got[1]
    assert message["relay"]["ply"] == 2 and message["relay"]["delay_minutes"] == 1
    wall = time.time() - (time.monotonic() - arrived)
    assert due_at - 0.5 <= wall <= due_at + 2.0
