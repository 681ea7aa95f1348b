"""What is shown of the relayed boards: a tournament's multiboard read in a few queries whatever the number of
its boards, as a viewer may see it (the public: each board as it stood its stage's delay ago), and when that
view next changes by itself (an entry coming of age), so a live push can be sent then without being asked.

A game over is shown at once (it has nothing left to hide). Its result sheet (or the referee's record)
settles it: where the sheet's stones differ from the relayed record's, the sheet's are shown; a sheet
without a record, or one that agrees, leaves the relayed record standing (with its opening's swap and
offers), with the result.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from engine.protocols import Options
from engine.records import replay_actions
from games.access import may_organize, may_rule
from games.enums import GameStatus
from games.models import Game
from relay.models import Correction, RelayMove
from tournament.models import MatchGame, Tournament


@dataclass(frozen=True)
class Entry:
    ply: int
    text: str
    at: datetime
    clock: tuple[tuple[str, int], ...] = ()  # the table clock's readings typed with it


def relayed_games(tournament: Tournament) -> QuerySet[Game]:
    """The tournament's public games that have a relayed record, in board order."""
    return (
        Game.objects.filter(match_game__match__tournament=tournament, is_public=True)
        .filter(pk__in=RelayMove.objects.values("game_id"))
        .select_related("player_one", "player_two")
        .order_by("board_number", "pk")
    )


def visible(entries: list[Entry], cutoff: datetime) -> list[Entry]:
    """The record as it stood at ``cutoff``: the entries made by then, up to the first gap (an entry that a
    later correction put back in place is shown only from the correction on)."""
    shown: list[Entry] = []
    for entry in entries:
        if entry.at > cutoff or entry.ply != len(shown) + 1:
            break
        shown.append(entry)
    return shown


def next_change(times: list[datetime], cutoff: datetime, delay: timedelta) -> datetime | None:
    """When the public view next changes by itself: the oldest entry or correction not yet shown, come of age."""
    pending = [at for at in times if at > cutoff]
    return min(pending) + delay if pending else None


def sheet_stones(game: Game) -> list[str] | None:
    """The stones of the game's result sheet (or the referee's record) once the game is over; None without."""
    if game.status != GameStatus.FINISHED or not game.record_text.strip():
        return None
    return game.record_text.split()


@functools.lru_cache(maxsize=4096)
def _stones(protocol: str, options: str, texts: tuple[str, ...]) -> tuple[str, ...]:
    replay = replay_actions(protocol, Options(**json.loads(options)), list(texts))
    return tuple(replay.stones.split())


def stones_of(game: Game, texts: list[str]) -> list[str]:
    """The stones on the board after ``texts``, in order (the opening's offers and choices resolved)."""
    options = json.dumps(game.protocol_options or {}, sort_keys=True)
    return list(_stones(game.protocol, options, tuple(texts)))


def _delays(games: list[Game]) -> dict[int, tuple[int, bool]]:
    """Each game's stage's publish delay, and whether its organizer set the hall's screen live."""
    rows = MatchGame.objects.filter(game__in=games).values_list(
        "game_id", "match__group__stage__relay_delay__minutes", "match__group__stage__relay_delay__screen_live"
    )
    return {game_id: (minutes or 0, bool(screen_live)) for game_id, minutes, screen_live in rows}


def _entries(games: list[Game]) -> dict[int, list[Entry]]:
    found: dict[int, list[Entry]] = {game.pk: [] for game in games}
    rows = RelayMove.objects.filter(game__in=games).order_by("game_id", "ply")
    for game_id, ply, text, at, clock in rows.values_list("game_id", "ply", "text", "entered_at", "clock"):
        found[game_id].append(Entry(ply, text, at, tuple(sorted((clock or {}).items()))))
    return found


def _corrections(games: list[Game]) -> dict[int, list[datetime]]:
    found: dict[int, list[datetime]] = {game.pk: [] for game in games}
    for game_id, at in Correction.objects.filter(game__in=games).values_list("game_id", "at"):
        found[game_id].append(at)
    return found


def board_states(
    tournament: Tournament, viewer: Any, now: datetime | None = None, screen: bool = False
) -> dict[str, Any]:
    """Every relayed board of the tournament as ``viewer`` may see it, ``{"boards": [...], "refresh_at": …}``:
    each board's players, board number, stones in order, entries shown, corrections shown, how far behind,
    result, and its page; ``refresh_at`` (seconds since the epoch, or None) is when this view next changes by
    itself; ``live``: some board is shown to the viewer at once (a referee's, the organizer's). Five queries,
    whatever the number of boards. ``screen``: as the hall's projector shows them, at the public's delay
    unless the viewer runs the tournament and the stage's screen is set live (a spectators' room)."""
    now = now or timezone.now()
    games = list(relayed_games(tournament))
    delays, entries, corrections = _delays(games), _entries(games), _corrections(games)
    boards, due, any_live = [], [], False
    for game in games:
        minutes, screen_live = delays.get(game.pk, (0, False))
        over = game.status in (GameStatus.FINISHED, GameStatus.CANCELLED)  # a game over has nothing to hide
        live = over or (
            viewer.is_authenticated
            and (may_organize(viewer, tournament) and screen_live if screen else may_rule(viewer, game))
        )
        any_live = any_live or (live and not over)
        delay = timedelta(minutes=0 if live else minutes)
        cutoff = now - delay
        seen = visible(entries[game.pk], cutoff)
        shown = [e.text for e in seen]
        fixes = sum(1 for at in corrections[game.pk] if at <= cutoff)
        coming = next_change([e.at for e in entries[game.pk]] + corrections[game.pk], cutoff, delay)
        if coming is not None:
            due.append(coming)
        stones, sheet = stones_of(game, shown), sheet_stones(game)
        superseded = sheet is not None and sheet != stones
        minutes_behind = int(delay.total_seconds() // 60)
        shown_stones = sheet if sheet is not None and superseded else stones
        board = _board(game, shown_stones, len(shown), fixes, minutes_behind, superseded)
        boards.append({**board, "clock": "" if superseded else table_clock(seen)})
    refresh_at = min(due).timestamp() if due else None
    return {"boards": boards, "refresh_at": refresh_at, "live": any_live}


def _board(game: Game, stones: list[str], count: int, fixes: int, delay: int, superseded: bool) -> dict[str, Any]:
    """One board as shown: ``stones`` (the relayed record's, or the result sheet's where it supersedes it)."""
    parts = [ngettext("%(n)s entry", "%(n)s entries", count) % {"n": count}]
    if stones:
        parts.insert(0, _("move %(n)s") % {"n": len(stones)})
    if superseded:
        parts.append(_("the result sheet's record"))
    elif delay:
        parts.append(_("%(m)s min behind") % {"m": delay})
    if fixes:
        parts.append(ngettext("%(n)s correction", "%(n)s corrections", fixes) % {"n": fixes})
    result = game.get_result_display() if game.status == GameStatus.FINISHED and game.result else ""
    return {
        "game": game.pk,
        "board": game.board_number,
        "players": f"{game.player_one.name} – {game.player_two.name}",
        "stones": stones,
        "ply": count,
        "meta": " · ".join(parts),
        "result": str(result),
        "href": reverse("relay-game", args=[game.pk]),
    }


def _mmss(ms: int) -> str:
    seconds = ms // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


def table_clock(entries: list[Entry]) -> str:
    """The table clock as last typed: black's and white's time left (``4:31 · 4:02``), either left out when
    never typed."""
    last: dict[str, int] = {}
    for entry in entries:
        last.update(dict(entry.clock))
    return " · ".join(_mmss(last[k]) if k in last else "–" for k in ("black_ms", "white_ms")) if last else ""


def delta(previous: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """What changed between two multiboard states: the boards that differ (by game), and the full order when a
    board came or went; the page applies it to the state it shows."""
    before = {b["game"]: b for b in previous.get("boards", [])}
    changed = [b for b in current["boards"] if before.get(b["game"]) != b]
    order = [b["game"] for b in current["boards"]]
    out: dict[str, Any] = {"delta": True, "boards": changed, "refresh_at": current.get("refresh_at")}
    if order != [b["game"] for b in previous.get("boards", [])]:
        out["order"] = order
    return out
