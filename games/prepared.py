"""Queries compiled once: the two reads every move makes (its token, its game) and its three writes (the move,
the game's events, the game's turn) without compiling their SQL.

Compiling a query (its columns, joins and conditions into SQL) is most of what the ORM spends on a read by
primary or unique key: 0.58 ms against 0.06 ms for running the SQL it gives (the token with its user and
player, measured on SQLite). :class:`Prepared` compiles its query once per thread and database, with the
value it is first given, and then runs that SQL with each new value, building the objects from the rows as
the ORM's own :class:`~django.db.models.query.ModelIterable` does (``select_related`` included). A query
whose compiled parameters do not show the value exactly once is not prepared: it runs through the ORM.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import DatabaseError, connections, router, transaction
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators  # type: ignore[attr-defined]  # not in the stubs

M = TypeVar("M", bound=Model)


class _Compiled:
    def __init__(self, queryset: QuerySet[Any], value: Any) -> None:
        db = queryset.db
        compiler = queryset.query.get_compiler(using=db)
        sql, params = compiler.as_sql()  # also fills compiler.select and klass_info, as running it would
        places = [i for i, param in enumerate(params) if param == value]
        known = getattr(queryset, "_known_related_objects", None)
        self.usable = len(places) == 1 and not compiler.annotation_col_map and not known
        self.db, self.compiler, self.sql = db, compiler, sql
        self.params, self.place = list(params), places[0] if places else -1
        info = compiler.klass_info or {}
        fields = info.get("select_fields") or [0]
        self.model: Any = info.get("model")
        self.start, self.end = fields[0], fields[-1] + 1
        self.init_list = [f[0].target.attname for f in compiler.select[self.start : self.end]]
        self.populators = get_related_populators(info, compiler.select, db) if info else []
        # The fields' converters, found once: compiler.results_iter looks them up for every column of every
        # run (a fifth of a move's two reads).
        columns = [s[0] for s in compiler.select[0 : compiler.col_count]]
        self.converters = compiler.get_converters(columns)
        self.usable = self.usable and not compiler.has_composite_fields(columns)

    def run(self, value: Any) -> list[Any]:
        params = list(self.params)
        params[self.place] = value
        with connections[self.db].cursor() as cursor:
            cursor.execute(self.sql, params)
            rows = cursor.fetchall()
        found = []
        converted = self.compiler.apply_converters(rows, self.converters) if self.converters else rows
        for row in converted:  # the fields' converters, as the ORM's results_iter applies them
            obj = self.model.from_db(self.db, self.init_list, row[self.start : self.end])
            for populator in self.populators:
                populator.populate(row, obj)
            found.append(obj)
        return found


class Prepared(Generic[M]):
    """``query(value)`` — a queryset filtered on ``value`` — compiled once per thread (with database routers,
    never: each query then runs through the ORM).

    ``for_update``: the query locks its rows (``select_for_update``), so it must run inside a transaction,
    as the ORM requires.
    """

    def __init__(self, query: Callable[[Any], QuerySet[M]], *, for_update: bool = False) -> None:
        self.query = query
        self.for_update = for_update
        self.local = threading.local()

    def all(self, value: Any) -> list[M]:
        """The objects the query finds for ``value`` (given as the database takes it: an int for an id)."""
        entry: _Compiled | None = getattr(self.local, "compiled", None)
        if entry is None:
            queryset = self.query(value)
            if settings.DATABASE_ROUTERS or not self._may_run(queryset.db):
                return list(queryset)
            entry = self.local.compiled = _Compiled(queryset, value)
        if not entry.usable or not self._may_run(entry.db):
            return list(self.query(value))  # the ORM runs it, or refuses it with its own error
        return entry.run(value)

    def _may_run(self, db: str) -> bool:
        return not self.for_update or transaction.get_connection(db).in_atomic_block

    def first(self, value: Any) -> M | None:
        found = self.all(value)
        return found[0] if found else None


def _plain(fields: list[Any]) -> bool:
    """Fields whose placeholder is ``%s`` whatever their value (no backend-specific placeholder)."""
    return all(not hasattr(f, "get_placeholder") for f in fields)


class PreparedInsert(Generic[M]):
    """``insert(objs)``: new rows of one model, as ``bulk_create`` writes them (each field's ``pre_save`` and
    ``get_db_prep_save``; the new keys set on the objects), with the SQL built once per thread, database and
    number of rows. Where the database cannot return the keys of several rows, or with database routers,
    the ORM writes them. Like ``bulk_create``, no ``save()`` method and no signal runs."""

    def __init__(self, model: type[M]) -> None:
        self.model = model
        opts = model._meta
        self.fields = [f for f in opts.concrete_fields if not f.generated and f is not opts.auto_field]
        self.local = threading.local()

    def insert(self, objs: list[M]) -> None:
        db = router.db_for_write(self.model)
        connection = connections[db]
        usable = (
            not settings.DATABASE_ROUTERS
            and connection.features.can_return_rows_from_bulk_insert
            and _plain(self.fields)
            and all(obj.pk is None for obj in objs)
        )
        statements: dict[tuple[str, int], str | None] = self.local.__dict__.setdefault("statements", {})
        if usable and objs and (db, len(objs)) not in statements:
            statements[(db, len(objs))] = self._sql(connection, len(objs))
        sql = statements.get((db, len(objs))) if usable and objs else None
        if sql is None:
            self.model._default_manager.bulk_create(objs)
            return
        params = [f.get_db_prep_save(f.pre_save(obj, True), connection) for obj in objs for f in self.fields]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            keys = cursor.fetchall()
        for obj, (key,) in zip(objs, keys, strict=True):
            obj.pk = key
            obj._state.adding = False
            obj._state.db = db

    def _sql(self, connection: Any, rows: int) -> str | None:
        """The statement, or None where it cannot be prepared (the ORM writes those rows)."""
        opts = self.model._meta
        qn = connection.ops.quote_name
        placeholders = [["%s"] * len(self.fields) for _ in range(rows)]
        returning, extra = connection.ops.return_insert_columns([opts.pk])
        if extra or not returning:  # a backend that binds what it returns (Oracle), or returns nothing
            return None
        return " ".join(
            [
                connection.ops.insert_statement(on_conflict=None),
                qn(opts.db_table),
                "({})".format(", ".join(qn(f.column) for f in self.fields)),
                connection.ops.bulk_insert_sql(self.fields, placeholders),
                returning,
            ]
        )


class PreparedUpdate(Generic[M]):
    """``update(obj)``: writes ``fields`` of one object by its key, as ``save(update_fields=fields)`` does
    (``pre_save`` and ``get_db_prep_save``; an error if no row has the key), with the SQL built once per
    thread and database. No ``save()`` method and no signal runs."""

    def __init__(self, model: type[M], fields: list[str]) -> None:
        self.model = model
        opts = model._meta
        self.fields: list[Any] = [opts.get_field(name) for name in fields]
        self.local = threading.local()

    def update(self, obj: M) -> None:
        db = router.db_for_write(self.model)
        if settings.DATABASE_ROUTERS or not _plain(self.fields):
            obj.save(update_fields=[f.name for f in self.fields])
            return
        connection = connections[db]
        statements: dict[str, str] = self.local.__dict__.setdefault("statements", {})
        sql = statements.get(db)
        if sql is None:
            qn = connection.ops.quote_name
            opts = self.model._meta
            columns = ", ".join(f"{qn(f.column)} = %s" for f in self.fields)
            sql = statements[db] = f"UPDATE {qn(opts.db_table)} SET {columns} WHERE {qn(opts.pk.column)} = %s"
        params = [f.get_db_prep_save(f.pre_save(obj, False), connection) for f in self.fields]
        params.append(obj._meta.pk.get_db_prep_save(obj.pk, connection))
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            if cursor.rowcount == 0:
                raise DatabaseError("Save with update_fields did not affect any rows.")
        obj._state.db = db
