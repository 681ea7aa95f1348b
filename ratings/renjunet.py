"""RenjuNet's game database (``.rif``, XML) as a rating base and player registry, read the way the RIF's
own list (wind23/whr_renju) reads it.

Reading rules, each as the RIF list applies them:

- **Merged players**: a player whose ``disp_id`` names another is a duplicate RenjuNet merged into that one;
  their games are rated as the target's (followed through chains), no player of their own is made, and
  their id is kept on the target (``Player.renjunet_merged``) so an export can still name it.
- **Tournament types**: a tournament of ``type="1"`` is kept (with its games' players) but not rated.
- **Category**: the tournament's rule decides whether its games are renju or gomoku, whatever a game's own
  rule says (a game whose tournament has no rule of either category falls back to its own rule).
- **Results**: ``bresult`` is a number, ``1``, ``0.5`` or ``0`` written any way (``1.0``, ``0.50``, ``0.00``);
  empty means no result (the game is not rated); any other value is refused.

The whole file is checked first, and nothing is written if anything is wrong: malformed XML, a game naming a
player who is not there, an id that is not a number or does not fit the database's 64-bit key, a field
longer than its column (a name longer than 100 characters, a country over 60 …), a ``disp_id`` loop. Each
refusal names the element's id and its line. Then everything is written in one transaction (all or
nothing); importing the same file again changes nothing, so an interrupted import is simply run again.
Games are rated when their tournament is rated, the game is not marked unrated, it has a result and two
different players; each is dated at its tournament's end (RenjuNet's start, or its year and month, when
the end is missing)."""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import IO, Any
from xml.parsers import expat

from django.db import transaction

from games.models import Player
from ratings.models import Category, ImportedTournament, RatedGame

Progress = Callable[[int, int], None]
MAX_ID = 2**63 - 1  # PostgreSQL's bigint, SQLite's INTEGER
NUMBER = re.compile(r"^\s*\d+(\.\d*)?\s*$")
LIMITS = {  # the model's column sizes
    "player name": 100,
    "native name": 100,
    "country": 60,
    "city": 100,
    "tournament name": 200,
    "round": 20,
    "rule": 60,
    "type": 10,
}


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
    lines: dict[tuple[str, str], int] = field(default_factory=dict)  # (tag, id) -> line
    _canonical: dict[str, str] = field(default_factory=dict)

    def line(self, tag: str, key: str) -> int:
        return self.lines.get((tag, key), 0)

    def canonical(self, pid: str) -> str:
        """The player a RenjuNet id stands for: itself, or the player its ``disp_id`` chain ends at."""
        known = self._canonical.get(pid)
        if known is None:
            known = self._canonical[pid] = self._follow(pid)
        return known

    def _follow(self, pid: str) -> str:
        seen = [pid]
        while True:
            target = self.players[seen[-1]].get("disp_id", "").strip()
            if not target or target == seen[-1] or target not in self.players:
                return seen[-1]
            if target in seen:
                raise RifImportError(
                    f"players {' → '.join(seen + [target])} name each other as disp_id", self.line("player", pid)
                )
            seen.append(target)


def _category(value: str, name: str) -> str:
    value, name = value.strip().lower(), name.lower()
    if value in ("1", "renju") or (not value and "renju" in name):
        return Category.RENJU
    if value in ("2", "gomoku") or (not value and "gomoku" in name):
        return Category.GOMOKU
    return ""


def result_of(text: str) -> str | None:
    """``bresult`` as the RIF list reads it: a number 1, 0.5 or 0 (``B``, ``D``, ``W``); empty: None."""
    text = text.strip()
    if not text:
        return None
    if not NUMBER.match(text):
        raise ValueError(text)
    value = float(text)
    if value == 1:
        return "B"
    if value == 0.5:
        return "D"
    if value == 0:
        return "W"
    raise ValueError(text)


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
    parser = expat.ParserCreate()

    def start(tag: str, a: dict[str, str]) -> None:
        key = a.get("id", "")
        if tag in ("player", "tournament", "game"):
            db.lines[(tag, key)] = parser.CurrentLineNumber
        if tag == "country":
            db.countries[key] = (a.get("name", ""), a.get("abbr", ""))
        elif tag == "city":
            db.cities[key] = a.get("name", "")
        elif tag == "rule":
            db.rules[key] = _category(a.get("category", ""), a.get("name", ""))
        elif tag == "player":
            db.players[key] = dict(a)
        elif tag == "tournament":
            db.tournaments[key] = dict(a)
        elif tag == "game":
            db.games.append(dict(a))

    parser.StartElementHandler = start
    try:
        if isinstance(source, str):
            with open(source, "rb") as handle:
                parser.ParseFile(handle)
        else:
            parser.ParseFile(source)
    except expat.ExpatError as exc:
        raise RifImportError(f"not well-formed XML ({expat.ErrorString(exc.code)})", exc.lineno) from None
    _check(db)
    return db


def _id(db: Database, tag: str, key: str, what: str) -> None:
    line = db.line(tag, key)
    if not key.isdigit():
        raise RifImportError(f"a {what} without a numeric id ({key!r})", line)
    if int(key) > MAX_ID:
        raise RifImportError(f"{what} id {key} is too large (at most {MAX_ID})", line)


def _length(db: Database, tag: str, key: str, what: str, value: str) -> None:
    if len(value) > LIMITS[what]:
        raise RifImportError(
            f"{tag} {key}: the {what} is {len(value)} characters long; at most {LIMITS[what]} are kept",
            db.line(tag, key),
        )


def _check(db: Database) -> None:
    """Everything a write could trip over, found before anything is written."""
    for pid, a in db.players.items():
        _id(db, "player", pid, "player")
        _length(db, "player", pid, "player name", _name(a))
        _length(db, "player", pid, "native name", a.get("native_name", ""))
        _length(db, "player", pid, "country", db.countries.get(a.get("country", ""), ("", ""))[0])
        _length(db, "player", pid, "city", db.cities.get(a.get("city", ""), ""))
        target = a.get("disp_id", "").strip()
        if target and target != pid:
            _id(db, "player", target, "disp_id")
        db.canonical(pid)
    for tid, a in db.tournaments.items():
        _id(db, "tournament", tid, "tournament")
        _length(db, "tournament", tid, "tournament name", a.get("name", ""))
        _length(db, "tournament", tid, "country", db.countries.get(a.get("country", ""), ("", ""))[0])
        _length(db, "tournament", tid, "city", db.cities.get(a.get("city", ""), ""))
        _length(db, "tournament", tid, "rule", a.get("rule", ""))
        _length(db, "tournament", tid, "type", a.get("type", ""))
    seen: set[str] = set()
    for game in db.games:
        gid = game.get("id", "")
        _id(db, "game", gid, "game")
        line = db.line("game", gid)
        if gid in seen:
            raise RifImportError(f"game id {gid} is used twice", line)
        seen.add(gid)
        for side in ("black", "white"):
            if game.get(side) not in db.players:
                raise RifImportError(f"game {gid} names player {game.get(side)!r}, who is not in the file", line)
        _length(db, "game", gid, "round", game.get("round", ""))
        try:
            result_of(game.get("bresult", ""))
        except ValueError:
            raise RifImportError(f"game {gid}: the result {game.get('bresult')!r} is not 1, 0.5 or 0", line) from None


@dataclass
class Report:
    players: int = 0
    tournaments: int = 0
    games_new: int = 0
    games_known: int = 0
    games_unrated: int = 0
    merged: int = 0  # players whose disp_id names another: rated as that player


def _name(attrs: dict[str, str]) -> str:
    name = " ".join(x for x in (attrs.get("name", "").strip(), attrs.get("surname", "").strip()) if x)
    return name or attrs.get("native_name", "") or f"#{attrs.get('id')}"


def _player_fields(db: Database, attrs: dict[str, str]) -> dict[str, Any]:
    return {
        "name": _name(attrs),
        "native_name": attrs.get("native_name", ""),
        "country": db.countries.get(attrs.get("country", ""), ("", ""))[0],
        "city": db.cities.get(attrs.get("city", ""), ""),
    }


def _registry(db: Database, report: Report) -> tuple[dict[str, int], dict[str, ImportedTournament]]:
    """Players (merged ones as their targets) and tournaments by RenjuNet id; returns both maps."""
    merged: dict[str, list[int]] = {}
    for pid in db.players:
        target = db.canonical(pid)
        if target != pid:
            merged.setdefault(target, []).append(int(pid))
    known = {p.renjunet_id: p for p in Player.objects.filter(renjunet_id__isnull=False)}
    fresh = []
    for pid, a in db.players.items():
        if db.canonical(pid) != pid:
            continue
        aliases = sorted(merged.get(pid, []))
        player = known.get(int(pid))
        if player is None:
            fresh.append(Player(renjunet_id=int(pid), renjunet_merged=aliases, **_player_fields(db, a)))
        elif sorted(set(player.renjunet_merged) | set(aliases)) != sorted(player.renjunet_merged):
            player.renjunet_merged = sorted(set(player.renjunet_merged) | set(aliases))
            player.save(update_fields=["renjunet_merged"])
    Player.objects.bulk_create(fresh, batch_size=2000)
    report.players = len(db.players)
    report.merged = sum(len(v) for v in merged.values())
    ours = dict(Player.objects.filter(renjunet_id__isnull=False).values_list("renjunet_id", "pk"))
    players = {pid: ours[int(db.canonical(pid))] for pid in db.players}
    tournaments = {t.renjunet_id: t for t in ImportedTournament.objects.all()}
    new = []
    for tid, a in db.tournaments.items():
        if int(tid) in tournaments:
            continue
        kind = a.get("type", "").strip()
        new.append(
            ImportedTournament(
                renjunet_id=int(tid),
                name=a.get("name", "") or f"#{tid}",
                country=db.countries.get(a.get("country", ""), ("", ""))[0],
                city=db.cities.get(a.get("city", ""), ""),
                start=_day(a.get("start", "")),
                end=_tournament_end(a),
                rule=a.get("rule", ""),
                category=db.rules.get(a.get("rule", ""), ""),
                rated=a.get("rated", "1") not in ("0", "") and kind != "1",
                kind=kind,
            )
        )
    ImportedTournament.objects.bulk_create(new, batch_size=2000)
    report.tournaments = len(db.tournaments)
    by_id = {str(t.renjunet_id): t for t in ImportedTournament.objects.all()}
    return players, by_id


def import_database(source: str | IO[bytes], *, batch: int = 5000, progress: Progress | None = None) -> Report:
    """Import (or import again) a RenjuNet database, all or nothing; returns what it found and wrote."""
    db = read(source)
    report = Report()
    with transaction.atomic():
        players, tournaments = _registry(db, report)
        known = set(RatedGame.objects.filter(renjunet_id__isnull=False).values_list("renjunet_id", flat=True))
        pending: list[RatedGame] = []
        for done, game in enumerate(db.games, start=1):
            gid = int(game["id"])
            if gid in known:
                report.games_known += 1
                continue
            rated = _rated(game, db, tournaments)
            if rated is None:
                report.games_unrated += 1
                continue
            category, played_on, tournament, result = rated
            pending.append(
                RatedGame(
                    renjunet_id=gid,
                    category=category,
                    black_id=players[game["black"]],
                    white_id=players[game["white"]],
                    result=result,
                    played_on=played_on,
                    round=game.get("round", ""),
                    imported_tournament=tournament,
                )
            )
            if len(pending) >= batch:
                _write(pending, batch)
                report.games_new += len(pending)
                pending.clear()
                if progress:
                    progress(done, len(db.games))
        _write(pending, batch)
        report.games_new += len(pending)
    if progress:
        progress(len(db.games), len(db.games))
    return report


def _write(games: list[RatedGame], batch: int) -> None:
    # No conflict can happen (known ids are skipped, an id twice in the file is refused by the check);
    # ignore_conflicts spares SQLite's RETURNING of every new row's key, which nothing here reads.
    RatedGame.objects.bulk_create(games, batch_size=batch, ignore_conflicts=True)


def _rated(
    game: dict[str, str], db: Database, tournaments: dict[str, ImportedTournament]
) -> tuple[str, date, ImportedTournament, str] | None:
    tournament = tournaments.get(game.get("tournament", ""))
    if tournament is None or not tournament.rated or tournament.end is None:
        return None
    if game.get("unrated", "0") not in ("0", ""):
        return None
    if db.canonical(game["black"]) == db.canonical(game["white"]):
        return None  # one person on both sides, once the merged ids are followed
    result = result_of(game.get("bresult", ""))
    if result is None:
        return None
    category = tournament.category or db.rules.get(game.get("rule", ""), "")  # the tournament's rule decides
    if not category:
        return None
    return category, tournament.end, tournament, result
