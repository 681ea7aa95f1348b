"""RenjuNet's game database (``.rif``, XML) as a rating base and player registry.

Read in two passes: the whole file is checked first (a malformed file is refused with its line, and
nothing is written); then players, tournaments and games are written by RenjuNet id, so importing the
same file again changes nothing and an import that was interrupted goes on where it stopped (games are
written in batches, each in its own transaction). Games are rated when their tournament is rated, the
game is not marked unrated, it has a result and two different players; each is dated at its
tournament's end (RenjuNet's start, or its year and month, when the end is missing)."""

from __future__ import annotations

import calendar
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import IO, Any
from xml.etree import ElementTree

from django.db import transaction

from games.models import Player
from ratings.models import Category, ImportedTournament, RatedGame

Progress = Callable[[int, int], None]
RESULTS = {"1": "B", "1.0": "B", "0": "W", "0.0": "W", "0.5": "D"}


class RifImportError(ValueError):
    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.message = message
        self.line = line


@dataclass
class Database:
    countries: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (name, abbr)
    cities: dict[str, str] = field(default_factory=dict)
    rules: dict[str, str] = field(default_factory=dict)  # id -> category (renju or gomoku, "" if neither)
    players: dict[str, dict[str, str]] = field(default_factory=dict)
    tournaments: dict[str, dict[str, Any]] = field(default_factory=dict)
    games: list[dict[str, str]] = field(default_factory=list)


def _category(value: str, name: str) -> str:
    value, name = value.strip().lower(), name.lower()
    if value in ("1", "renju") or (not value and "renju" in name):
        return Category.RENJU
    if value in ("2", "gomoku") or (not value and "gomoku" in name):
        return Category.GOMOKU
    return ""


def _day(text: str) -> date | None:
    try:
        year, month, day = (int(x) for x in text.split("-"))
        return date(year, month, max(day, 1)) if year and month else None
    except ValueError:
        return None


def _tournament_end(attrs: dict[str, str]) -> date | None:
    """The day a tournament's games are dated: its end, else its start, else the last day of its month."""
    end = _day(attrs.get("end", "")) or _day(attrs.get("start", ""))
    if end is None and attrs.get("year", "").isdigit() and attrs.get("month", "").isdigit():
        year, month = int(attrs["year"]), int(attrs["month"])
        if year and 1 <= month <= 12:
            end = date(year, month, calendar.monthrange(year, month)[1])
    return end


def read(source: str | IO[bytes]) -> Database:
    """The database checked and read (attributes only; the moves are skipped)."""
    db = Database()
    try:
        for _event, element in ElementTree.iterparse(source, events=("end",)):
            tag, a = element.tag, element.attrib
            if tag == "country":
                db.countries[a.get("id", "")] = (a.get("name", ""), a.get("abbr", ""))
            elif tag == "city":
                db.cities[a.get("id", "")] = a.get("name", "")
            elif tag == "rule":
                db.rules[a.get("id", "")] = _category(a.get("category", ""), a.get("name", ""))
            elif tag == "player":
                db.players[a.get("id", "")] = dict(a)
            elif tag == "tournament":
                db.tournaments[a.get("id", "")] = dict(a)
            elif tag == "game":
                db.games.append(dict(a))
                element.clear()
            elif tag == "move":
                element.text = None
    except ElementTree.ParseError as exc:
        line = exc.position[0] if exc.position else 0
        raise RifImportError(f"not well-formed XML ({exc.msg if hasattr(exc, 'msg') else exc})", line) from None
    for game in db.games:
        for side in ("black", "white"):
            if game.get(side) not in db.players:
                raise RifImportError(f"game {game.get('id')} names player {game.get(side)!r}, who is not in the file")
        if not game.get("id", "").isdigit():
            raise RifImportError(f"a game without a numeric id ({game.get('id')!r})")
    for pid in db.players:
        if not pid.isdigit():
            raise RifImportError(f"a player without a numeric id ({pid!r})")
    for tid in db.tournaments:
        if not tid.isdigit():
            raise RifImportError(f"a tournament without a numeric id ({tid!r})")
    return db


@dataclass
class Report:
    players: int = 0
    tournaments: int = 0
    games_new: int = 0
    games_known: int = 0
    games_unrated: int = 0


def _player_fields(db: Database, attrs: dict[str, str]) -> dict[str, Any]:
    name = " ".join(x for x in (attrs.get("name", "").strip(), attrs.get("surname", "").strip()) if x)
    return {
        "name": (name or attrs.get("native_name", "") or f"#{attrs.get('id')}")[:100],
        "native_name": attrs.get("native_name", "")[:100],
        "country": db.countries.get(attrs.get("country", ""), ("", ""))[0][:60],
        "city": db.cities.get(attrs.get("city", ""), "")[:100],
    }


@transaction.atomic
def _registry(db: Database, report: Report) -> tuple[dict[str, int], dict[str, ImportedTournament]]:
    known = dict(Player.objects.filter(renjunet_id__isnull=False).values_list("renjunet_id", "pk"))
    fresh = [
        Player(renjunet_id=int(pid), **_player_fields(db, a)) for pid, a in db.players.items() if int(pid) not in known
    ]
    Player.objects.bulk_create(fresh, batch_size=2000)
    report.players = len(db.players)
    players = dict(Player.objects.filter(renjunet_id__isnull=False).values_list("renjunet_id", "pk"))
    tournaments = {t.renjunet_id: t for t in ImportedTournament.objects.all()}
    new = []
    for tid, a in db.tournaments.items():
        if int(tid) in tournaments:
            continue
        new.append(
            ImportedTournament(
                renjunet_id=int(tid),
                name=a.get("name", "")[:200] or f"#{tid}",
                country=db.countries.get(a.get("country", ""), ("", ""))[0][:60],
                city=db.cities.get(a.get("city", ""), "")[:100],
                start=_day(a.get("start", "")),
                end=_tournament_end(a),
                rule=a.get("rule", ""),
                category=db.rules.get(a.get("rule", ""), ""),
                rated=a.get("rated", "1") not in ("0", ""),
            )
        )
    ImportedTournament.objects.bulk_create(new, batch_size=2000)
    report.tournaments = len(db.tournaments)
    by_id = {str(t.renjunet_id): t for t in ImportedTournament.objects.all()}
    return {str(k): v for k, v in players.items()}, by_id


def import_database(source: str | IO[bytes], *, batch: int = 5000, progress: Progress | None = None) -> Report:
    """Import (or go on importing) a RenjuNet database; returns what it found and wrote."""
    db = read(source)
    report = Report()
    players, tournaments = _registry(db, report)
    known = set(RatedGame.objects.filter(renjunet_id__isnull=False).values_list("renjunet_id", flat=True))
    pending: list[RatedGame] = []
    done = 0

    def flush() -> None:
        with transaction.atomic():
            RatedGame.objects.bulk_create(pending, batch_size=batch, ignore_conflicts=True)
        report.games_new += len(pending)
        pending.clear()

    for game in db.games:
        done += 1
        gid = int(game["id"])
        if gid in known:
            report.games_known += 1
            continue
        rated = _rated(game, db, tournaments)
        if rated is None:
            report.games_unrated += 1
            continue
        category, played_on, tournament = rated
        pending.append(
            RatedGame(
                renjunet_id=gid,
                category=category,
                black_id=players[game["black"]],
                white_id=players[game["white"]],
                result=RESULTS[game["bresult"].strip()],
                played_on=played_on,
                round=game.get("round", "")[:20],
                imported_tournament=tournament,
            )
        )
        if len(pending) >= batch:
            flush()
            if progress:
                progress(done, len(db.games))
    if pending:
        flush()
    if progress:
        progress(len(db.games), len(db.games))
    return report


def _rated(
    game: dict[str, str], db: Database, tournaments: dict[str, ImportedTournament]
) -> tuple[str, date, ImportedTournament] | None:
    tournament = tournaments.get(game.get("tournament", ""))
    if tournament is None or not tournament.rated or tournament.end is None:
        return None
    if game.get("unrated", "0") not in ("0", "") or game.get("black") == game.get("white"):
        return None
    if game.get("bresult", "").strip() not in RESULTS:
        return None
    category = db.rules.get(game.get("rule", ""), "") or tournament.category
    if not category:
        return None
    return category, tournament.end, tournament
