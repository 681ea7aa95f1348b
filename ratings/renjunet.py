"""RenjuNet's game database (``.rif``, XML) as a rating base and player registry, read the way the RIF's
own list (wind23/whr_renju) reads it.

Reading rules, each as the RIF list applies them:

- **Merged players**: a player whose ``disp_id`` names another is a duplicate RenjuNet merged into that one;
  their games are rated as the target's (followed through chains), no player of their own is made, and
  their id is kept on the target (``Player.renjunet_merged``) so an export can still name it.
- **Tournament types**: a tournament of any ``type`` but the ordinary one (none, or ``0``) is kept (with its
  games' players) but not rated — team events (``1``) and the rest (``2`` …) are not on the RIF list.
- **Category**: the tournament's rule decides whether its games are renju or gomoku, whatever a game's own
  rule says; a tournament whose rule is of neither category (``category`` other than 1 or 2) is not rated,
  as the RIF list leaves it out (no fallback to the game's own rule).
- **Results**: ``bresult`` is a number, ``1``, ``0.5`` or ``0`` written any way (``1.0``, ``0.50``, ``0.00``);
  empty means no result (the game is not rated); any other value is refused.

The whole file is checked first, and nothing is written if anything is wrong: malformed XML, a tag longer
than ``MAX_TAG`` bytes (found while reading, so a huge attribute costs no more than reading it: expat 2.5
would re-scan a token that spans its reads, CVE-2023-52425), a game naming a player who is not there, an id
that is not a number, does not fit the database's 64-bit key or is the same number as another's ("11" and
"011"), a date that does not exist (month 13, 30 February, year 10000), a field longer than its column (a
name longer than 100 characters, a country over 60 …), a ``disp_id`` loop. Each refusal names the element's
id and its line. Then everything is written in one transaction (all or nothing).

A newer file **converges** the database to it, as the RIF reads the latest file whole: players, tournaments
and games already known are updated (a merge made later, a corrected result, a tournament now rated or
with corrected dates), imported games no longer in the file or no longer rated are removed, and the report
says what changed; importing the same file again changes nothing, so an interrupted import is simply run
again.
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
from games.parsing import whole
from ratings.models import Category, ImportedTournament, RatedGame

Progress = Callable[[int, int], None]
MAX_ID = 2**63 - 1  # PostgreSQL's bigint, SQLite's INTEGER
MAX_TAG = 64 * 1024  # bytes in one tag with its attributes (RenjuNet's longest are a few hundred)
CHUNK = 1024 * 1024  # read and parsed at a time
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
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


def _category(value: str) -> str:
    """A rule's category as the RIF list reads it: ``1`` renju, ``2`` gomoku, anything else neither."""
    value = value.strip().lower()
    if value in ("1", "renju"):
        return Category.RENJU
    if value in ("2", "gomoku"):
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
    year, month = whole(attrs.get("year", ""), 4), whole(attrs.get("month", ""), 2)
    if end is None and year and month and 1 <= month <= 12:
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
            db.rules[key] = _category(a.get("category", ""))
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
                _feed(parser, handle)
        else:
            _feed(parser, source)
    except expat.ExpatError as exc:
        raise RifImportError(f"not well-formed XML ({expat.ErrorString(exc.code)})", exc.lineno) from None
    _check(db)
    return db


def _feed(parser: Any, handle: IO[bytes]) -> None:
    """The file to the parser a megabyte at a time, refusing a tag longer than ``MAX_TAG`` as soon as it is
    seen: a token cut by a read is re-scanned on each read until it ends, so an unbounded one is
    quadratic; bounded, and with reads this large, the whole file costs a single pass."""
    open_tag = -1  # bytes read so far in a tag not yet closed; -1 outside a tag
    line = 1  # the line the read so far ends on
    tag_line = 1
    while chunk := handle.read(CHUNK):
        lt, gt = chunk.rfind(b"<"), chunk.rfind(b">")
        if open_tag >= 0:
            first_gt = chunk.find(b">")
            if first_gt < 0:
                open_tag += len(chunk)
            elif lt > gt:
                open_tag, tag_line = len(chunk) - lt, line + chunk.count(b"\n", 0, lt)
            else:
                open_tag = -1
        elif lt > gt:
            open_tag, tag_line = len(chunk) - lt, line + chunk.count(b"\n", 0, lt)
        if open_tag > MAX_TAG:
            raise RifImportError(f"a tag longer than {MAX_TAG} bytes (not a RenjuNet database?)", tag_line)
        line += chunk.count(b"\n")
        parser.Parse(chunk, False)
    parser.Parse(b"", True)


def _id(db: Database, tag: str, key: str, what: str) -> None:
    line = db.line(tag, key)
    if not key.isascii() or not key.isdigit():
        raise RifImportError(f"a {what} without a numeric id ({key[:40]!r})", line)
    if len(key.lstrip("0")) > len(str(MAX_ID)) or int(key) > MAX_ID:
        shown = key if len(key) <= 40 else f"{key[:40]}… ({len(key)} digits)"
        raise RifImportError(f"{what} id {shown} is too large (at most {MAX_ID})", line)


def _once(db: Database, tag: str, keys: list[str], what: str) -> None:
    """Ids are numbers: "11" and "011" are the same one, and the second would overwrite the first."""
    seen: dict[int, str] = {}
    for key in keys:
        number = int(key)
        if number in seen:
            raise RifImportError(f"{what} id {key} is used twice (also as {seen[number]})", db.line(tag, key))
        seen[number] = key


def _date(db: Database, tag: str, key: str, what: str, text: str) -> None:
    """A RenjuNet date: ``YYYY-MM-DD``, ``0000-00-00`` for unknown, day ``00`` for a day not known; anything
    else that is not a day of the calendar is refused (the RIF list's reader would stop at it)."""
    text = text.strip()
    if not text or text == "0000-00-00":
        return
    if not DATE.match(text):
        raise RifImportError(f"{tag} {key}: the {what} {text[:40]!r} is not a date (YYYY-MM-DD)", db.line(tag, key))
    year, month, day = (int(x) for x in text.split("-"))
    if not (1 <= year <= 9999 and 1 <= month <= 12 and 0 <= day <= calendar.monthrange(year, month)[1]):
        raise RifImportError(f"{tag} {key}: the {what} {text} is not a day of the calendar", db.line(tag, key))


def _year_month(db: Database, tid: str, a: dict[str, str]) -> None:
    for what, high in (("year", 9999), ("month", 12)):
        text = a.get(what, "").strip()
        if text and (not text.isascii() or not text.isdigit() or len(text) > 4 or int(text) > high):
            raise RifImportError(f"tournament {tid}: the {what} {text[:40]!r} is not one", db.line("tournament", tid))


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
    _once(db, "player", list(db.players), "player")
    for tid, a in db.tournaments.items():
        _id(db, "tournament", tid, "tournament")
        _date(db, "tournament", tid, "start", a.get("start", ""))
        _date(db, "tournament", tid, "end", a.get("end", ""))
        _year_month(db, tid, a)
        _length(db, "tournament", tid, "tournament name", a.get("name", ""))
        _length(db, "tournament", tid, "country", db.countries.get(a.get("country", ""), ("", ""))[0])
        _length(db, "tournament", tid, "city", db.cities.get(a.get("city", ""), ""))
        _length(db, "tournament", tid, "rule", a.get("rule", ""))
        _length(db, "tournament", tid, "type", a.get("type", ""))
    _once(db, "tournament", list(db.tournaments), "tournament")
    seen: dict[int, str] = {}
    for game in db.games:
        gid = game.get("id", "")
        _id(db, "game", gid, "game")
        line = db.line("game", gid)
        if int(gid) in seen:
            also = f" (also as {seen[int(gid)]})" if seen[int(gid)] != gid else ""
            raise RifImportError(f"game id {gid} is used twice{also}", line)
        seen[int(gid)] = gid
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
    games_known: int = 0  # already here and unchanged
    games_unrated: int = 0
    merged: int = 0  # players whose disp_id names another: rated as that player
    # what a newer file changed
    players_updated: int = 0
    merges_applied: int = 0  # players known on their own before, now merged into another
    tournaments_new: int = 0
    tournaments_updated: int = 0
    games_changed: int = 0
    games_removed: int = 0  # imported games no longer in the file, or no longer rated

    def changes(self) -> str:
        """What the import changed, in one line."""
        return (
            f"players updated {self.players_updated}, merges applied {self.merges_applied}, tournaments new "
            f"{self.tournaments_new}, updated {self.tournaments_updated}; games new {self.games_new}, changed "
            f"{self.games_changed}, removed {self.games_removed}, unchanged {self.games_known}"
        )


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


def _players(db: Database, report: Report) -> dict[str, int]:
    """Every RenjuNet player as the file has it now; returns RenjuNet id -> our player (a merged one: its
    target's). A player merged since an earlier file loses the RenjuNet id (its games move to the target)."""
    merged: dict[int, list[int]] = {}
    for pid in db.players:
        target = db.canonical(pid)
        if target != pid:
            merged.setdefault(int(target), []).append(int(pid))
    known = {p.renjunet_id: p for p in Player.objects.filter(renjunet_id__isnull=False)}
    for pid in db.players:
        player = known.get(int(pid))
        if player is not None and db.canonical(pid) != pid:
            player.renjunet_id = None
            player.save(update_fields=["renjunet_id"])
            report.merges_applied += 1
    fresh = []
    for pid, a in db.players.items():
        if db.canonical(pid) != pid:
            continue
        wanted = {**_player_fields(db, a), "renjunet_merged": sorted(merged.get(int(pid), []))}
        player = known.get(int(pid))
        if player is None:
            fresh.append(Player(renjunet_id=int(pid), **wanted))
            continue
        report.players_updated += _bring_up_to_date(player, wanted)
    Player.objects.bulk_create(fresh, batch_size=2000)
    report.players = len(db.players)
    report.merged = sum(len(v) for v in merged.values())
    ours = dict(Player.objects.filter(renjunet_id__isnull=False).values_list("renjunet_id", "pk"))
    return {pid: ours[int(db.canonical(pid))] for pid in db.players}


def _bring_up_to_date(row: Any, wanted: dict[str, Any]) -> bool:
    """The fields of a row already here set to what the newer file says; whether any changed."""
    changed = [f for f, v in wanted.items() if getattr(row, f) != v]
    for f in changed:
        setattr(row, f, wanted[f])
    if changed:
        row.save(update_fields=changed)
    return bool(changed)


def _tournaments(db: Database, report: Report) -> dict[str, ImportedTournament]:
    """Every tournament as the file has it now (names, dates, rule, rated); returns RenjuNet id -> ours."""
    known = {t.renjunet_id: t for t in ImportedTournament.objects.all()}
    fresh = []
    for tid, a in db.tournaments.items():
        kind = a.get("type", "").strip()
        wanted = {
            "name": a.get("name", "") or f"#{tid}",
            "country": db.countries.get(a.get("country", ""), ("", ""))[0],
            "city": db.cities.get(a.get("city", ""), ""),
            "start": _day(a.get("start", "")),
            "end": _tournament_end(a),
            "rule": a.get("rule", ""),
            "category": db.rules.get(a.get("rule", ""), ""),
            "rated": a.get("rated", "1").strip() not in ("0", "") and kind in ("", "0"),
            "kind": kind,
        }
        tournament = known.get(int(tid))
        if tournament is None:
            fresh.append(ImportedTournament(renjunet_id=int(tid), **wanted))
            continue
        report.tournaments_updated += _bring_up_to_date(tournament, wanted)
    ImportedTournament.objects.bulk_create(fresh, batch_size=2000)
    report.tournaments = len(db.tournaments)
    report.tournaments_new = len(fresh)
    ids = {int(t) for t in db.tournaments}
    return {str(t.renjunet_id): t for t in ImportedTournament.objects.all() if t.renjunet_id in ids}


FIELDS = ("category", "black_id", "white_id", "result", "played_on", "round", "imported_tournament_id")


def import_database(source: str | IO[bytes], *, batch: int = 5000, progress: Progress | None = None) -> Report:
    """Import a RenjuNet database, or converge an earlier import to a newer file: all or nothing; returns
    what it found and what it changed."""
    db = read(source)
    report = Report()
    with transaction.atomic():
        players = _players(db, report)
        tournaments = _tournaments(db, report)
        existing = {g.renjunet_id: g for g in RatedGame.objects.filter(renjunet_id__isnull=False)}
        pending: list[RatedGame] = []
        changed: list[RatedGame] = []
        wanted: set[int] = set()
        for done, game in enumerate(db.games, start=1):
            gid = int(game["id"])
            rated = _rated(game, db, tournaments)
            if rated is None:
                report.games_unrated += 1
                continue
            wanted.add(gid)
            category, played_on, tournament, result = rated
            row = RatedGame(
                renjunet_id=gid,
                category=category,
                black_id=players[game["black"]],
                white_id=players[game["white"]],
                result=result,
                played_on=played_on,
                round=game.get("round", ""),
                imported_tournament=tournament,
            )
            old = existing.get(gid)
            if old is None:
                pending.append(row)
            elif any(getattr(old, f) != getattr(row, f) for f in FIELDS):
                for f in FIELDS:
                    setattr(old, f, getattr(row, f))
                changed.append(old)
            else:
                report.games_known += 1
            if len(pending) >= batch:
                _write(pending, batch)
                report.games_new += len(pending)
                pending.clear()
                if progress:
                    progress(done, len(db.games))
        _write(pending, batch)
        report.games_new += len(pending)
        RatedGame.objects.bulk_update(changed, [f.removesuffix("_id") for f in FIELDS], batch_size=batch)
        report.games_changed = len(changed)
        gone = [gid for gid in existing if gid not in wanted]
        for start in range(0, len(gone), batch):
            RatedGame.objects.filter(renjunet_id__in=gone[start : start + batch]).delete()
        report.games_removed = len(gone)
    if progress:
        progress(len(db.games), len(db.games))
    return report


def _write(games: list[RatedGame], batch: int) -> None:
    # No conflict can happen (known ids are updated, an id twice in the file is refused by the check);
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
    category = tournament.category  # the tournament's rule decides, as on the RIF list
    if not category:
        return None
    return category, tournament.end, tournament, result
