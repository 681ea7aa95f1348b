"""Queries compiled once (games.prepared): the same objects the ORM builds, each value its own row, and the
SQL compiled only the first time; rows written as the ORM writes them, the SQL built once. The writes' tests
run in both passes of make test (SQLite, and PostgreSQL: its JSON and RETURNING differ)."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models.sql.compiler import SQLCompiler
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.authtoken.models import Token

from games.models import Game, GameEvent, Move, Player
from games.prepared import Prepared, PreparedInsert, PreparedUpdate
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
    this_thread = threading.get_ident()

    def counted(self: SQLCompiler, *args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() == this_thread:  # a live server left by another test compiles its own
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


# -- writes --------------------------------------------------------------------------------------------------

ODD_DATA = {
    "op": "play",
    "at": 1796402662758,
    "args": {"next": 0, "lag_credit_ms": 145},
    "note": "黑 'x\" \\ %s",  # quotes, a backslash and a placeholder-like text inside the JSON
    "n": None,
}


def rows(model: Any, pks: list[int]) -> list[dict[str, Any]]:
    found = {obj.pk: fields(obj) for obj in model.objects.filter(pk__in=pks)}
    return [{k: v for k, v in found[pk].items() if k not in ("id", "created_at")} for pk in pks]


def check_rows_are_written_as_the_orm_writes_them(monkeypatch: Any) -> None:
    one, two = Player.objects.create(name="One"), Player.objects.create(name="Two")
    game, other = (game_create(player_one=one, player_two=two) for _ in range(2))
    built: list[int] = []
    original = PreparedInsert._sql

    def counted(self: Any, connection: Any, rows: int) -> str | None:
        built.append(rows)
        return original(self, connection, rows)

    monkeypatch.setattr(PreparedInsert, "_sql", counted)
    moves: PreparedInsert[Move] = PreparedInsert(Move)
    events: PreparedInsert[GameEvent] = PreparedInsert(GameEvent)

    def move(target: Game, ply: int, n: int) -> Move:
        return Move(
            game=target,
            ply=ply,
            kind="place",
            text=f"place h{n}",
            player_number=1 + n % 2,
            color="black",
            move_number=n,
            foul="",
            clock_ms={"think_ms": n * 7, "main_left": [1, None]},
        )

    def event(target: Game, n: int) -> GameEvent:
        return GameEvent(
            game=target, kind="clock", actor=one.user if n else None, interface="api", data={**ODD_DATA, "i": n}
        )

    for i, target in enumerate((game, other, game)):  # the second time for each row count, from the SQL built the first
        ply = target.moves.count() + 1
        with CaptureQueriesContext(connection) as queries, transaction.atomic():
            written = [move(target, ply, ply)]
            moves.insert(written)
            logged = [event(target, 0), event(target, 1), event(target, 2)]
            events.insert(logged)
        assert len(queries) == 2 + 2  # one statement each, within BEGIN and COMMIT
        assert all(obj.pk is not None and not obj._state.adding for obj in [*written, *logged])
        orm_moves = Move.objects.bulk_create([move(other, 100 * (i + 1), ply)])
        orm_events = GameEvent.objects.bulk_create([event(target, 0), event(target, 1), event(target, 2)])
        assert rows(Move, [written[0].pk]) == [{**rows(Move, [orm_moves[0].pk])[0], "game_id": target.pk, "ply": ply}]
        assert rows(GameEvent, [e.pk for e in logged]) == rows(GameEvent, [e.pk for e in orm_events])
        assert Move.objects.get(pk=written[0].pk).created_at == written[0].created_at  # auto_now_add, as saved
    assert sorted(built) == [1, 3]  # once per row count in this thread; never once per write

    with pytest.raises(IntegrityError), transaction.atomic():  # (game, ply) is unique: the ORM's own error
        moves.insert([move(game, 1, 1)])


def check_a_turn_is_updated_as_save_with_update_fields_does() -> None:
    one, two = Player.objects.create(name="One"), Player.objects.create(name="Two")
    game = game_create(player_one=one, player_two=two, time_control="quick")
    turn: PreparedUpdate[Game] = PreparedUpdate(Game, ["ply", "black", "white", "clock", "deadline"])
    game.ply, game.black, game.white = 7, two, one
    game.clock = {"status": "running", "used": [1, 2], "黑": None}
    game.deadline = timezone.now() + timedelta(seconds=33)
    game.result_detail = "not one of the fields: not written"
    with CaptureQueriesContext(connection) as queries:
        turn.update(game)
    assert len(queries) == 1
    stored = Game.objects.get(pk=game.pk)
    assert (stored.ply, stored.black_id, stored.white_id) == (7, two.pk, one.pk)
    assert (stored.clock, stored.deadline) == (game.clock, game.deadline)
    assert stored.result_detail == ""
    game.pk = game.pk + 1000
    with pytest.raises(DatabaseError):  # no such row: save(update_fields=...) refuses too
        turn.update(game)


def test_rows_are_written_as_the_orm_writes_them(monkeypatch: Any) -> None:
    check_rows_are_written_as_the_orm_writes_them(monkeypatch)


def test_a_turn_is_updated_as_save_with_update_fields_does() -> None:
    check_a_turn_is_updated_as_save_with_update_fields_does()


@pytest.mark.pg_django
def test_rows_are_written_as_the_orm_writes_them_on_postgresql(monkeypatch: Any) -> None:
    check_rows_are_written_as_the_orm_writes_them(monkeypatch)


@pytest.mark.pg_django
def test_a_turn_is_updated_as_save_with_update_fields_does_on_postgresql() -> None:
    check_a_turn_is_updated_as_save_with_update_fields_does()


def test_rows_it_cannot_prepare_are_written_by_the_orm(monkeypatch: Any) -> None:
    one, two = Player.objects.create(name="One"), Player.objects.create(name="Two")
    game = game_create(player_one=one, player_two=two)
    monkeypatch.setattr(PreparedInsert, "_sql", lambda self, connection, rows: None)  # as for Oracle
    events: PreparedInsert[GameEvent] = PreparedInsert(GameEvent)
    logged = [GameEvent(game=game, kind="clock", interface="api", data={"n": n}) for n in range(2)]

    events.insert(logged)

    assert all(e.pk is not None for e in logged)
    assert [e.data for e in GameEvent.objects.filter(pk__in=[e.pk for e in logged]).order_by("pk")] == [
        {"n": 0},
        {"n": 1},
    ]
