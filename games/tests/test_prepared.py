"""Queries compiled once (games.prepared): the same objects the ORM builds, each value its own row, and the
SQL compiled only the first time."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models.sql.compiler import SQLCompiler
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token

from games.models import Game, Player
from games.prepared import Prepared
from games.services import game_act, game_create
from games.services.base import lock_game
from games.tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)  # each test's reads in the transactions it opens


def fields(obj: Any) -> dict[str, Any]:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def tokens() -> Prepared[Token]:
    return Prepared(lambda key: Token.objects.select_related("user", "user__player").filter(key=key))


def test_a_token_is_read_with_its_user_and_player_as_the_orm_reads_it() -> None:
    with_player, without = UserFactory(username="ann"), UserFactory(username="bo")
    PlayerFactory(user=with_player, name="Ann")
    keys = [Token.objects.create(user=user).key for user in (with_player, without)]
    prepared = tokens()

    for key in keys * 2:  # the second time from the SQL compiled the first
        orm = Token.objects.select_related("user", "user__player").get(key=key)
        with CaptureQueriesContext(connection) as queries:
            token = prepared.first(key)
            assert token is not None
            player = getattr(token.user, "player", None)  # read with the token, or known to be absent
        assert len(queries) == 1
        assert (fields(token), fields(token.user)) == (fields(orm), fields(orm.user))
        assert token.created.tzinfo is not None
        assert (player and fields(player)) == (getattr(orm.user, "player", None) and fields(orm.user.player))
    assert prepared.first("no-such-key") is None


def test_the_sql_is_compiled_once_and_each_value_finds_its_own_row(monkeypatch: Any) -> None:
    one, two = Player.objects.create(name="One"), Player.objects.create(name="Two")
    games = [game_create(player_one=one, player_two=two, rules="renju", time_control="quick") for _ in range(3)]
    game_act(game_id=games[1].pk, player=one, action="place h8", expected_ply=0)
    compiled = []
    original = SQLCompiler.as_sql

    def counted(self: SQLCompiler, *args: Any, **kwargs: Any) -> Any:
        compiled.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SQLCompiler, "as_sql", counted)

    with transaction.atomic():
        locked = [lock_game(game.pk) for game in games * 2]
    compiled_for_locks = len(compiled)

    assert [game.pk for game in locked] == [game.pk for game in games] * 2
    assert [fields(game) for game in locked[:3]] == [fields(Game.objects.get(pk=game.pk)) for game in games]
    assert locked[1].ply == 1 and isinstance(locked[1].clock, dict)  # the JSON decoded, as the ORM does
    assert compiled_for_locks <= 1  # at most this thread's first lock; never once per read


def test_a_query_the_value_does_not_name_exactly_once_runs_through_the_orm() -> None:
    one, two = Player.objects.create(name="One"), Player.objects.create(name="Two")
    game = game_create(player_one=one, player_two=two)
    both = Prepared(lambda pk: Game.objects.filter(pk=pk) | Game.objects.filter(pk=pk))
    found = both.all(game.pk)
    assert [g.pk for g in found] == [game.pk] and both.all(game.pk + 1000) == []


def test_a_lock_outside_a_transaction_is_left_to_the_orm() -> None:
    one, two = Player.objects.create(name="One"), Player.objects.create(name="Two")
    game = game_create(player_one=one, player_two=two)
    locks = Prepared(lambda pk: Game.objects.select_for_update().filter(pk=pk), for_update=True)
    try:
        orm: Any = list(Game.objects.select_for_update().filter(pk=game.pk))
    except Exception as exc:  # PostgreSQL refuses a lock outside a transaction
        orm = type(exc)
    try:
        prepared: Any = locks.all(game.pk)
    except Exception as exc:
        prepared = type(exc)
    assert (prepared if isinstance(prepared, type) else [g.pk for g in prepared]) == (
        orm if isinstance(orm, type) else [g.pk for g in orm]
    )
