"""Records fed from elsewhere: pushes by a key with its own scope, and a round's records typed afterwards.

- **A push key** (:class:`~relay.models.PushToken`) belongs to one tournament and may do one thing: push a
  game's record so far (plain or ``.rif``) into that tournament's relayed games. Its key is shown once; only
  a digest is kept. A game recorded at the board (a recorder holds its lease) refuses pushes: one writer per
  board.
- **A push** is the whole record so far. What the relay already holds and the push repeats is left alone;
  new actions are appended; where the push differs, the record is replaced from that ply, kept as a
  correction everyone sees (never silently).
- **An upload** (the organizer): a round's records typed after it, a ``.rif`` database or plain records, each
  matched to the tournament's game between its two players (or named by game id), all or nothing.

A game's result never comes from here: it goes through the result sheet's report and confirmation.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from engine import EngineError
from engine.records import PlainRecord, parse_actions, read_records
from games.access import require_organizer
from games.enums import GameMode
from games.messages import translate
from games.models import Game
from games.services.base import GameError
from relay.models import Lease, PushToken
from relay.services import announce, record, rewrite
from tournament.models import Tournament

KEYWORD = "Relay"  # Authorization: Relay <key>


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@transaction.atomic
def push_token_create(*, tournament: Tournament, user: Any, label: str) -> tuple[PushToken, str]:
    """A new push key for ``tournament`` (its organizer only): the token, and the key, shown this once."""
    require_organizer(user, tournament)
    if not label.strip():
        raise GameError("label_required", _("Name the key (who or what will push with it)."))
    key = secrets.token_urlsafe(32)
    token = PushToken.objects.create(
        tournament=tournament, label=label.strip()[:100], digest=digest(key), created_by=user
    )
    return token, key


@transaction.atomic
def push_token_revoke(*, token_id: int, user: Any) -> PushToken:
    token = PushToken.objects.select_for_update().select_related("tournament").filter(pk=token_id).first()
    if token is None:
        raise GameError("no_key", _("There is no such key."), 404)
    require_organizer(user, token.tournament)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def token_for(key: str) -> PushToken | None:
    """The live push key ``key`` names (None: unknown or revoked)."""
    return (
        PushToken.objects.select_related("tournament", "created_by")
        .filter(digest=digest(key), revoked_at__isnull=True)
        .first()
    )


def actions_of(parsed: PlainRecord) -> list[str]:
    """A record's actions: as written (``{swap}``, ``{offer g8 j11}`` …), or its stones placed in turn."""
    try:
        if "{" in parsed.moves:
            return parse_actions(parsed.moves)
        return [f"place {stone}" for stone in parsed.moves.replace(",", " ").split()]
    except (EngineError, ValueError) as exc:
        raise GameError("bad_record", translate(exc)) from None


def _one_record(text: str) -> list[str]:
    try:
        records = read_records(text)
    except EngineError as exc:
        raise GameError("bad_record", translate(exc)) from None
    if len(records) != 1:
        raise GameError("bad_record", _("A push holds one game's record; this holds %(n)s.") % {"n": len(records)})
    return actions_of(records[0])


def _apply(game: Game, actions: list[str], *, user: Any, at: datetime, reason: str) -> str:
    """Bring the relayed record to ``actions``: ``unchanged``, ``appended`` or ``corrected`` (from the first
    ply that differs, kept as a correction)."""
    moves = record(game)
    held = [m.text for m in moves]
    actions = [" ".join(a.split()) for a in actions]
    same = next(
        (i for i, (a, b) in enumerate(zip(held, actions, strict=False)) if a != b), min(len(held), len(actions))
    )
    if same == len(held) == len(actions):
        return "unchanged"
    rewrite(game, moves, same + 1, actions[same:], user=user, at=at, reason=reason)
    announce(game)
    return "appended" if same == len(held) else "corrected"


def _pushable(game_id: int, tournament: Tournament) -> Game:
    game = (
        Game.objects.select_for_update()
        .filter(pk=game_id, match_game__match__tournament=tournament, mode=GameMode.OVER_THE_BOARD)
        .first()
    )
    if game is None:  # another tournament's game, or an online one: the key reaches no such game
        raise GameError("no_game", _("There is no such game."), 404)
    if Lease.objects.filter(game=game).exists():
        raise GameError("recorded_at_board", _("This board is recorded at the table; it takes no pushes."), 409)
    return game


@transaction.atomic
def relay_push(*, game_id: int, token: PushToken, text: str, at: datetime | None = None) -> tuple[Game, str]:
    """Push ``text`` (one game's record so far, plain or ``.rif``) into the game with ``token``: the game, and
    ``unchanged``, ``appended`` or ``corrected``."""
    game = _pushable(game_id, token.tournament)
    actions = _one_record(text)
    reason = _("pushed by %(label)s") % {"label": token.label}
    return game, _apply(game, actions, user=token.created_by, at=at or timezone.now(), reason=reason)


@dataclass
class Uploaded:
    game: int
    outcome: str


def _named(record_number: int, parsed: PlainRecord, games: list[Game]) -> Game:
    """The game between the record's two players (whichever had black)."""
    names = {parsed.header.get("Black", "").strip(), parsed.header.get("White", "").strip()}
    found = [g for g in games if {g.player_one.name, g.player_two.name} == names]
    if len(found) != 1:
        raise GameError(
            "unmatched_record",
            _("Record %(n)s (%(names)s) matches %(count)s of the tournament's games; name its game by id.")
            % {"n": record_number, "names": " – ".join(sorted(names)), "count": len(found)},
        )
    return found[0]


@transaction.atomic
def relay_upload(
    *, tournament: Tournament, user: Any, text: str = "", records: list[dict[str, Any]] | None = None
) -> list[Uploaded]:
    """A round's records typed after it, into the tournament's relayed games (its organizer): ``text``, a
    ``.rif`` database or a plain record, each matched to the game between its players; or ``records``,
    ``[{"game": id, "record": text}]``. All or nothing: a record that matches no game, or fails the rules,
    and nothing is written."""
    require_organizer(user, tournament)
    games = list(
        Game.objects.select_for_update()
        .filter(match_game__match__tournament=tournament, mode=GameMode.OVER_THE_BOARD)
        .select_related("player_one", "player_two")
    )
    by_id = {g.pk: g for g in games}
    work: list[tuple[Game, list[str]]] = []
    if text:
        try:
            parsed_all = read_records(text)
        except EngineError as exc:
            raise GameError("bad_record", translate(exc)) from None
        work += [(_named(n, parsed, games), actions_of(parsed)) for n, parsed in enumerate(parsed_all, start=1)]
    for item in records or []:
        game = by_id.get(item["game"])
        if game is None:
            raise GameError("no_game", _("There is no such game."), 404)
        work.append((game, _one_record(item["record"])))
    if not work:
        raise GameError("bad_record", _("The upload holds no record."))
    if len({g.pk for g, _a in work}) != len(work):
        raise GameError("bad_record", _("The upload holds two records of one game."))
    at, reason = timezone.now(), _("uploaded after the round")
    return [Uploaded(game.pk, _apply(game, actions, user=user, at=at, reason=reason)) for game, actions in work]
