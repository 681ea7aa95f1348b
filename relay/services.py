"""Recording an over-the-board game at the board, one writer per board, and what the public may see of it.

Every entry names the ply it expects (the number of actions already recorded): the same action again is
harmless, a different one answers a conflict with the current record, a ply ahead of the record is stale.
Actions go through the game's opening protocol and rule set (engine.records): who acts and with which
colour is the protocol's to say; an occupied point, a step the protocol does not allow, a stone after a
five are refused; a forbidden stone is recorded as played, with its foul (the referee's claim ends the game,
as the rules say). The server never flags an over-the-board game: clock readings are typed, kept, shown.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from engine import EngineError
from engine.protocols import Options
from engine.records import format_actions, replay_actions, replay_record
from games.access import may_rule
from games.enums import GameMode, GameStatus
from games.exports import Recorded
from games.live import changed
from games.messages import translate
from games.models import Game
from games.services.base import GameError
from relay.boards import Entry, next_change, sheet_stones, stones_of, visible
from relay.models import Correction, Lease, LeaseChange, RelayMove, StageDelay
from tournament.models import MatchGame, Stage

MAX_DELAY = 60
CLOCK_KEYS = ("black_ms", "white_ms")


def _game_for_recording(game_id: int, user: Any) -> Game:
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None:
        raise GameError("no_game", _("There is no such game."), 404)
    if not may_rule(user, game):
        raise GameError("not_recorder", _("Only the game's referees and the organizer may record it."), 403)
    if game.mode != GameMode.OVER_THE_BOARD:
        raise GameError("online_game", _("An online game records itself; only games at the board are relayed."), 409)
    if game.status in (GameStatus.FINISHED, GameStatus.CANCELLED):
        raise GameError("game_over", _("The game is over: its result sheet settles the record."), 409)
    return game


def _hold_lease(game: Game, user: Any, takeover: bool, at: datetime) -> None:
    """The board's one writer: the first to record it, or a referee who takes it over (logged)."""
    lease = Lease.objects.select_for_update().filter(game=game).first()
    if lease is None:
        Lease.objects.create(game=game, holder=user, since=at)
    elif lease.holder_id != user.pk:
        if not takeover:
            raise GameError(
                "lease_held",
                _("%(name)s records this board; take it over to record it yourself.")
                % {"name": lease.holder.get_username()},
                409,
            )
        LeaseChange.objects.create(game=game, previous_id=lease.holder_id, holder=user, at=at)
        lease.holder, lease.since = user, at
        lease.save(update_fields=["holder", "since"])


def _checked(game: Game, actions: list[str]) -> list[dict[str, Any]]:
    """Each action as the protocol and the rules read it (seat, colour, stone number, foul), or a refusal."""
    try:
        replay = replay_actions(game.protocol, Options(**(game.protocol_options or {})), actions)
        fouls = {f.move_number: f.kind for f in replay_record(replay.stones, game.rules).fouls}
    except (EngineError, ValueError, TypeError) as exc:
        raise GameError("bad_entry", translate(exc)) from None
    return [
        {
            "text": step.text,
            "seat": int(step.seat),
            "color": str(step.color) if step.color else "",
            "move_number": step.move_number,
            "foul": fouls.get(step.move_number or 0, ""),
        }
        for step in replay.actions
    ]


def _clock(readings: dict[str, Any] | None) -> dict[str, int]:
    """Table clock readings as typed (milliseconds left for black and white), each optional."""
    out: dict[str, int] = {}
    for key in CLOCK_KEYS:
        value = (readings or {}).get(key)
        if value is None:
            continue
        if type(value) is not int or not 0 <= value <= 24 * 3600 * 1000:
            raise GameError("bad_clock", _("A clock reading is a number of milliseconds left."))
        out[key] = value
    return out


def record(game: Game) -> list[RelayMove]:
    return list(RelayMove.objects.filter(game=game).order_by("ply"))


@transaction.atomic
def relay_enter(
    *,
    game_id: int,
    user: Any,
    expected_ply: int,
    action: str,
    clock: dict[str, Any] | None = None,
    takeover: bool = False,
    at: datetime | None = None,
) -> tuple[list[RelayMove], bool]:
    """Record ``action`` as ply ``expected_ply + 1``: the record after it, and whether it was new (False: the
    same action was already there, an entry sent twice)."""
    at = at or timezone.now()
    game = _game_for_recording(game_id, user)
    moves = record(game)
    action = " ".join(action.split())
    if expected_ply < len(moves):
        if moves[expected_ply].text == action:
            return moves, False  # sent twice: nothing changes
        raise GameError(
            "conflict",
            _("Ply %(n)s is already recorded as %(text)s; correct the record from there to change it.")
            % {"n": expected_ply + 1, "text": moves[expected_ply].text},
            409,
        )
    if expected_ply > len(moves):
        raise GameError(
            "stale_ply", _("The record has %(n)s actions; reload it before entering the next.") % {"n": len(moves)}, 409
        )
    _hold_lease(game, user, takeover, at)
    step = _checked(game, [m.text for m in moves] + [action])[-1]
    moves.append(
        RelayMove.objects.create(
            game=game, ply=expected_ply + 1, clock=_clock(clock), entered_at=at, entered_by=user, **step
        )
    )
    announce(game)
    return moves, True


@transaction.atomic
def relay_replace(
    *,
    game_id: int,
    user: Any,
    from_ply: int,
    actions: list[str],
    reason: str,
    takeover: bool = False,
    at: datetime | None = None,
) -> list[RelayMove]:
    """Replace the record from ply ``from_ply`` on with ``actions`` (none: an undo), with a reason; kept as a
    correction everyone sees."""
    at = at or timezone.now()
    game = _game_for_recording(game_id, user)
    moves = record(game)
    if not reason.strip():
        raise GameError("reason_required", _("Say why the record is corrected."))
    if not 1 <= from_ply <= len(moves):
        raise GameError("bad_ply", _("The record has no ply %(n)s.") % {"n": from_ply})
    _hold_lease(game, user, takeover, at)
    rewrite(game, moves, from_ply, [" ".join(a.split()) for a in actions], user=user, at=at, reason=reason)
    announce(game)
    return record(game)


def rewrite(
    game: Game, moves: list[RelayMove], from_ply: int, added: list[str], *, user: Any, at: datetime, reason: str
) -> None:
    """The record from ``from_ply`` on replaced by ``added`` (each checked through the protocol and the rules),
    kept as a correction: what was there, what replaced it, who, when, why."""
    kept = [m.text for m in moves[: from_ply - 1]]
    steps = _checked(game, kept + added)[len(kept) :]
    removed = [m.text for m in moves[from_ply - 1 :]]
    RelayMove.objects.filter(game=game, ply__gte=from_ply).delete()
    RelayMove.objects.bulk_create(
        RelayMove(game=game, ply=from_ply + i, entered_at=at, entered_by=user, **step) for i, step in enumerate(steps)
    )
    if removed:
        Correction.objects.create(
            game=game, from_ply=from_ply, removed=removed, added=added, reason=reason[:200], at=at, by=user
        )


def announce(game: Game) -> None:
    """After the transaction commits, the live sockets watching the game's relay and its tournament's
    multiboard are told (the public's view changes only once the delay has passed: config.live)."""
    changed(f"relaygame:{game.pk}")
    tournament = MatchGame.objects.filter(game=game).values_list("match__tournament_id", flat=True).first()
    if tournament is not None:
        changed(f"relay:{tournament}")


def stage_of(game: Game) -> Stage | None:
    link = MatchGame.objects.filter(game=game).select_related("match__group__stage").first()
    return link.match.group.stage if link is not None else None


def delay_of(game: Game) -> int:
    """The publish delay of the game's stage, in minutes (0 outside a tournament or when none is set)."""
    stage = stage_of(game)
    if stage is None:
        return 0
    found = StageDelay.objects.filter(stage=stage).values_list("minutes", flat=True).first()
    return found or 0


@transaction.atomic
def set_delay(*, stage: Stage, minutes: int, screen_live: bool = False) -> StageDelay:
    """The stage's publish delay, and whether the organizer's projector shows its boards at once."""
    if type(minutes) is not int or not 0 <= minutes <= MAX_DELAY:
        raise GameError("bad_delay", _("The publish delay is 0 to %(n)s minutes.") % {"n": MAX_DELAY})
    found, _created = StageDelay.objects.update_or_create(
        stage=stage, defaults={"minutes": minutes, "screen_live": bool(screen_live)}
    )
    changed(f"relay:{stage.tournament_id}")
    return found


def position(game: Game, texts: list[str]) -> dict[str, Any]:
    """The board after ``texts``: the stones in order, what the protocol expects next (place, swap, offer,
    choose …; ``play`` once the opening is over), the fifths offered and how many to offer."""
    replay = replay_actions(game.protocol, Options(**(game.protocol_options or {})), texts)
    opening = replay.opening
    expects = opening.expects
    return {
        "stones": replay.stones.split(),
        "expects": expects,
        "to_move": str(opening.next_color) if not opening.finished else "",
        "offers": [str(p) for p in opening.offers] if expects == "choose" else [],
        "offer_count": opening.offer_count if expects == "offer" else None,
    }


def _shown(move: RelayMove) -> dict[str, Any]:
    """A relayed entry as the API shows it."""
    return {
        "ply": move.ply,
        "action": move.text,
        "seat": move.seat,
        "color": move.color,
        "move_number": move.move_number,
        "foul": move.foul,
        "clock": move.clock or {},
    }


def _sheet_move(number: int, point: str) -> dict[str, Any]:
    """A stone of the result sheet's record, where it supersedes the relayed one (stones only: who held which
    colour through the opening is the relayed record's to say)."""
    color = "black" if number % 2 else "white"
    return {
        "ply": number,
        "action": f"place {point}",
        "seat": None,
        "color": color,
        "move_number": number,
        "foul": "",
        "clock": {},
    }


def _sheet_position(stones: list[str]) -> dict[str, Any]:
    return {"stones": stones, "expects": "", "to_move": "", "offers": [], "offer_count": None}


def relay_view(game: Game, viewer: Any, now: datetime | None = None) -> dict[str, Any]:
    """The record as ``viewer`` may see it: at once for the game's referees and organizers; for anyone else
    as it stood the stage's delay ago (the newest state older than the delay), with the corrections made by
    then; ``refresh_at``: when that view next changes by itself. Once the game is over, a result sheet (or
    the referee's record) with moves supersedes the live record (``settled``)."""
    now = now or timezone.now()
    delay = delay_of(game)
    ruling = may_rule(viewer, game)
    live = ruling or game.status in (GameStatus.FINISHED, GameStatus.CANCELLED)  # a game over: nothing to hide
    cutoff = now if live else now - timedelta(minutes=delay)
    entries = record(game)
    shown_plies = {e.ply for e in visible([Entry(m.ply, m.text, m.entered_at) for m in entries], cutoff)}
    moves = [m for m in entries if m.ply in shown_plies]
    corrections = list(Correction.objects.filter(game=game).order_by("at"))
    coming = next_change(
        [m.entered_at for m in entries] + [c.at for c in corrections], cutoff, timedelta(minutes=delay)
    )
    texts = [m.text for m in moves]
    sheet = sheet_stones(game)
    superseded = sheet is not None and sheet != stones_of(game, texts)
    shown = [_shown(m) for m in moves]
    if sheet is not None and superseded:
        shown = [_sheet_move(n, point) for n, point in enumerate(sheet, start=1)]
    lease = Lease.objects.filter(game=game).select_related("holder").first()
    return {
        "game": game.pk,
        "delay_minutes": 0 if live else delay,
        "as_of": cutoff,
        "refresh_at": coming.timestamp() if coming is not None and not live else None,
        "settled": superseded,
        "result": game.result if game.status == GameStatus.FINISHED else "",
        "ply": len(shown),
        "moves": shown,
        "corrections": [
            {"from_ply": c.from_ply, "removed": c.removed, "added": c.added, "reason": c.reason, "at": c.at}
            for c in corrections
            if c.at <= cutoff
        ],
        "recorder": lease.holder.get_username() if ruling and lease is not None else None,
        "position": _sheet_position(sheet) if sheet is not None and superseded else position(game, texts),
    }


def recorded(game: Game, viewer: Any, now: datetime | None = None) -> Recorded:
    """The relayed record as the viewer may see it, in the shape the game exports take (plain and .rif):
    every action with the colour of who took it, the stones in board order."""
    view = relay_view(game, viewer, now)
    actions = [m["action"] for m in view["moves"]]
    return Recorded(
        body=format_actions(actions),
        stones=" ".join(view["position"]["stones"]),
        actions=actions,
        times=[None for _a in actions],
        colors=[m["color"] for m in view["moves"]],
    )
