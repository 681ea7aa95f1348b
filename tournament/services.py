"""Organizer actions and the progress of matches, one function per transition.

The format's arithmetic lives in :mod:`tournament.formats`; this module
turns it into rows, inside transactions, and logs every organizer action.
Standings are computed from the games (see :mod:`tournament.standings`).
"""

from __future__ import annotations

import csv
import io
import random
import secrets
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.enums import GameMode, GameStatus
from games.models import Game, Player
from games.services import GameError, game_create
from tournament import formats
from tournament.models import AuditLog, Entry, Group, GroupMember, Match, MatchGame, Stage, Tournament
from tournament.standings import decided


class TournamentError(GameError):
    """A refused organizer action (same shape as the games app's errors: code, message, status)."""


def _audit(tournament: Tournament, action: str, actor: Any = None, **data: Any) -> None:
    AuditLog.objects.create(
        tournament=tournament, actor=actor if getattr(actor, "pk", None) else None, action=action, data=data
    )


PRESETS = {
    # The seed (五子棋比赛规则及流程): free-style, no opening rule, quick play, results over the board.
    "seed": {
        "rules": "freestyle",
        "protocol": "none",
        "forbidden_mode": "claim",
        "time_control": "quick",
        "mode": "otb",
        "boards": 6,
    },
    "renju-rif": {
        "rules": "renju",
        "protocol": "rif",
        "forbidden_mode": "claim",
        "time_control": "rif-90+30",
        "mode": "otb",
        "boards": 6,
    },
}


@transaction.atomic
def tournament_create(*, name: str, preset: str = "seed", actor: Any = None, **fields: Any) -> Tournament:
    """A tournament in a preset format; its first stage (the group draw) is ready to draw."""
    if preset not in PRESETS:
        raise TournamentError("bad_preset", _("Unknown preset %(name)s.") % {"name": preset})
    tournament = Tournament.objects.create(name=name, preset=preset, **{**PRESETS[preset], **fields})
    Stage.objects.create(tournament=tournament, order=1, name="初赛 Preliminary", kind=Stage.Kind.GROUPS)
    _audit(tournament, "create", actor, preset=preset)
    return tournament


@transaction.atomic
def register(*, tournament: Tournament, player: Player, seed: int | None = None, actor: Any = None) -> Entry:
    """Enter a player; idempotent; refuses a unit over the tournament's limit or a started tournament."""
    existing = Entry.objects.filter(tournament=tournament, player=player).first()
    if existing is not None:
        return existing
    if tournament.stages.exclude(status=Stage.Status.PENDING).exists():
        raise TournamentError("draw_made", _("Entries close when the first draw is made."), 409)
    if tournament.max_per_unit and player.unit:
        count = Entry.objects.filter(tournament=tournament, player__unit=player.unit).count()
        if count >= tournament.max_per_unit:
            raise TournamentError(
                "unit_full",
                _("%(unit)s already has %(n)s entries, the most allowed.") % {"unit": player.unit, "n": count},
            )
    entry = Entry.objects.create(tournament=tournament, player=player, seed=seed)
    _audit(tournament, "register", actor, player=player.pk)
    return entry


@transaction.atomic
def import_players(*, tournament: Tournament, text: str, actor: Any = None) -> list[Entry]:
    """CSV rows ``name,unit,rating`` (a header row is optional); all or nothing."""
    entries = []
    for number, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not row or not "".join(row).strip() or (number == 1 and row[0].strip().lower() in ("name", "姓名")):
            continue
        name = row[0].strip()
        unit = row[1].strip() if len(row) > 1 else ""
        rating_text = row[2].strip() if len(row) > 2 else ""
        if not name:
            raise TournamentError("bad_csv", _("Row %(n)s has no name.") % {"n": number})
        try:
            rating = int(rating_text) if rating_text else None
        except ValueError:
            raise TournamentError(
                "bad_csv", _("Row %(n)s: the rating %(value)s is not a number.") % {"n": number, "value": rating_text}
            ) from None
        player = Player.objects.filter(name=name, unit=unit).first() or Player.objects.create(
            name=name, unit=unit, rating=rating
        )
        entries.append(register(tournament=tournament, player=player, actor=actor))
    return entries


# -- draws ------------------------------------------------------------------------


def _stage_for_update(stage_id: int) -> Stage:
    return Stage.objects.select_for_update().select_related("tournament").get(pk=stage_id)


@transaction.atomic
def draw_stage(*, stage: Stage, seed: int | None = None, actor: Any = None) -> Stage:
    """Draw a stage's groups and pairings from a recorded seed; idempotent once drawn."""
    stage = _stage_for_update(stage.pk)
    if stage.status != Stage.Status.PENDING:
        return stage
    if stage.options.get("held"):
        raise TournamentError(
            "stage_held", _("A correction reopened the previous stage; this draw waits until it is decided."), 409
        )
    tournament = stage.tournament
    if seed is None:
        seed = stage.options.get("seed", secrets.randbelow(2**31))
    rng = random.Random(seed)
    entries = _stage_entries(stage)
    if stage.kind == Stage.Kind.GROUPS:
        seats = [formats.Seat(e.pk, e.player.unit, e.player.rating) for e in entries]
        groups = formats.draw_groups(seats, formats.group_sizes(len(seats)), rng, by_rating=tournament.draw_by_rating)
        for number, keys in enumerate(groups, start=1):
            if len(keys) == 2:
                _make_group(stage, number, keys, Group.Kind.BEST_OF, advance=1, games=3)
            else:
                _make_group(stage, number, keys, Group.Kind.ROUND_ROBIN, advance=2, games=2)
    elif stage.kind == Stage.Kind.KNOCKOUT:
        pairs, trio = formats.knockout_pairs([e.pk for e in entries], rng)
        for number, pair in enumerate(pairs, start=1):
            _make_group(stage, number, list(pair), Group.Kind.BEST_OF, advance=1, games=3)
        if trio:
            _make_group(stage, len(pairs) + 1, trio, Group.Kind.ROUND_ROBIN, advance=1, games=2)
    else:
        _make_group(stage, 1, [e.pk for e in entries], Group.Kind.ROUND_ROBIN, advance=len(entries), games=2)
    stage.status = Stage.Status.DRAWN
    stage.draw_seed = seed
    stage.save(update_fields=["status", "draw_seed"])
    _audit(tournament, "draw", actor, stage=stage.pk, seed=seed)
    return stage


def _stage_entries(stage: Stage) -> list[Entry]:
    ids = stage.options.get("entries")
    entries = Entry.objects.filter(tournament=stage.tournament, withdrawn=False).select_related("player")
    if ids is not None:
        entries = entries.filter(pk__in=ids)
    found = list(entries.order_by("seed", "pk"))
    if len(found) < 2:
        raise TournamentError("too_few", _("A stage needs at least two players."))
    return found


def _make_group(
    stage: Stage, number: int, keys: list[Any], kind: str, *, advance: int, games: int, parent: Group | None = None
) -> Group:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    name = letters[(number - 1) % 26] + (str((number - 1) // 26) if number > 26 else "")
    if kind == Group.Kind.PLAYOFF and parent is not None:
        name = f"{parent.name} playoff {number}"
    root = None if parent is None else (parent.root or parent)
    group = Group.objects.create(
        stage=stage,
        number=number,
        name=name,
        kind=kind,
        games_per_pair=games,
        advance=advance,
        parent=parent,
        root=root,
    )
    GroupMember.objects.bulk_create([GroupMember(group=group, entry_id=k, position=i) for i, k in enumerate(keys)])
    tournament_id = stage.tournament_id
    if kind == Group.Kind.BEST_OF or (kind == Group.Kind.PLAYOFF and len(keys) == 2):
        best = games if kind == Group.Kind.BEST_OF else 1
        Match.objects.create(
            tournament_id=tournament_id,
            group=group,
            first_id=keys[0],
            second_id=keys[1],
            games_planned=best,
            best_of=True,
        )
        return group
    single = kind == Group.Kind.PLAYOFF
    rounds = formats.balanced_single_rounds(keys) if single else formats.circle_rounds(keys)
    Match.objects.bulk_create(
        [
            Match(
                tournament_id=tournament_id,
                group=group,
                round=r,
                order=o,
                first_id=a,
                second_id=b,
                games_planned=1 if single else games,
            )
            for r, pairs in enumerate(rounds, start=1)
            for o, (a, b) in enumerate(pairs)
        ]
    )
    return group


@transaction.atomic
def undo_draw(*, stage: Stage, actor: Any = None) -> Stage:
    """Take a draw back until the stage starts (nothing has been played)."""
    stage = _stage_for_update(stage.pk)
    if stage.status != Stage.Status.DRAWN:
        raise TournamentError("stage_started", _("A draw can be undone only before the stage starts."), 409)
    Match.objects.filter(group__stage=stage).delete()
    GroupMember.objects.filter(group__stage=stage).delete()
    Group.objects.filter(stage=stage).delete()
    stage.status, stage.draw_seed = Stage.Status.PENDING, None
    stage.save(update_fields=["status", "draw_seed"])
    _audit(stage.tournament, "undo_draw", actor, stage=stage.pk)
    return stage


@transaction.atomic
def swap_players(*, stage: Stage, first: Entry, second: Entry, actor: Any = None) -> None:
    """Exchange two players between groups before the stage starts."""
    stage = _stage_for_update(stage.pk)
    if stage.status != Stage.Status.DRAWN:
        raise TournamentError("stage_started", _("Players can be swapped only before the stage starts."), 409)
    a = GroupMember.objects.get(group__stage=stage, entry=first)
    b = GroupMember.objects.get(group__stage=stage, entry=second)
    if a.group_id == b.group_id:
        raise TournamentError("same_group", _("Both players are in the same group."))
    for member, old, new in ((a, first, second), (b, second, first)):
        Match.objects.filter(group_id=member.group_id, first=old).update(first=new)
        Match.objects.filter(group_id=member.group_id, second=old).update(second=new)
    GroupMember.objects.filter(pk=a.pk).update(entry=second)
    GroupMember.objects.filter(pk=b.pk).update(entry=first)
    _audit(stage.tournament, "swap", actor, stage=stage.pk, entries=[first.pk, second.pk])


@transaction.atomic
def publish(*, tournament: Tournament, actor: Any = None) -> Tournament:
    if tournament.status == Tournament.Status.DRAFT:
        Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.PUBLISHED)
        _audit(tournament, "publish", actor)
    tournament.refresh_from_db()
    return tournament


@transaction.atomic
def start_stage(*, stage: Stage, actor: Any = None) -> Stage:
    """Start a drawn stage and call the first matches to the boards; idempotent."""
    stage = _stage_for_update(stage.pk)
    if stage.status == Stage.Status.PENDING:
        raise TournamentError("not_drawn", _("Draw the stage before starting it."), 409)
    if stage.status == Stage.Status.DRAWN:
        stage.status = Stage.Status.RUNNING
        stage.save(update_fields=["status"])
        Tournament.objects.filter(pk=stage.tournament_id).exclude(status=Tournament.Status.FINISHED).update(
            status=Tournament.Status.RUNNING
        )
        _audit(stage.tournament, "start_stage", actor, stage=stage.pk)
        call_matches(tournament=stage.tournament)
    return stage


# -- boards and games -------------------------------------------------------------


def call_matches(*, tournament: Tournament) -> list[Match]:
    """Fill every free board with the next ready match (both players free, earlier rounds first)."""
    Tournament.objects.select_for_update().filter(pk=tournament.pk).first()  # one caller at a time
    busy = list(
        Match.objects.filter(tournament=tournament, status=Match.Status.CALLED).values_list(
            "board", "first_id", "second_id"
        )
    )
    boards_used = {b for b, _, _ in busy}
    playing = {e for _, a, b in busy for e in (a, b)}
    free_boards = [b for b in range(1, tournament.boards + 1) if b not in boards_used]
    if not free_boards:
        return []
    called = []
    waiting = (
        Match.objects.filter(
            tournament=tournament, status=Match.Status.PENDING, group__stage__status=Stage.Status.RUNNING
        )
        .select_related("group__stage", "first__player", "second__player")
        .order_by("group__stage__order", "round", "group__number", "order")
    )
    for match in waiting.iterator(chunk_size=64):  # usually the first few rows fill the free boards
        if not free_boards:
            break
        if match.first_id in playing or match.second_id in playing:
            continue
        # a match reopened by a correction goes back to its own board when that is free
        match.board = match.board if match.board in free_boards else free_boards[0]
        free_boards.remove(match.board)
        match.status = Match.Status.CALLED
        match.save(update_fields=["board", "status"])
        playing |= {match.first_id, match.second_id}
        _next_game(match, tournament)
        called.append(match)
    return called


def _next_game(match: Match, tournament: Tournament) -> Game:
    """The match's next game on its board, with colours: swapped pairs, or 猜先 then alternating."""
    links = list(match.match_games.values_list("number", "game__status"))
    number = max((n for n, _s in links), default=0) + 1
    played = sum(1 for _n, status in links if status != GameStatus.CANCELLED) + 1  # colours count live games only
    first, second = match.first, match.second
    # Lots are drawn from the stage's recorded seed and the match's place in the draw (names, never database ids),
    # so they can be re-run.
    lot = f"{match.group.stage.draw_seed}-{match.group.name}-{match.round}-{match.order}"
    if match.replaces_id is not None:
        lot += f"-remade-{first.player.name}-{second.player.name}"
    if match.best_of:
        first_black = _first_black_by_toss(match, lot)
        black_first = first_black if played % 2 == 1 else not first_black
    elif match.group.kind == Group.Kind.PLAYOFF:
        black_first = _playoff_colours(match, lot)
    else:
        black_first = played % 2 == 1
    black, white = (first, second) if black_first else (second, first)
    game = game_create(
        player_one=black.player,
        player_two=white.player,
        rules=tournament.rules,
        protocol=tournament.protocol,
        protocol_options=tournament.protocol_options,
        forbidden_mode=tournament.forbidden_mode,
        mode=tournament.mode,
        time_control=tournament.time_control or None,
        board_number=match.board,
        event=tournament.name[:200],
        round=f"{match.group.stage.order}.{match.round}.{number}",
        interface="system",
        # Online, the clock starts when the game is called to its board: an absent player's time runs
        # and they lose by the game's rules. Over the board, the clock on the table counts.
        start_clock_at=timezone.now() if tournament.mode == GameMode.ONLINE and tournament.time_control else None,
    )
    referees = list(tournament.referees.order_by("pk").values_list("pk", flat=True))
    if referees:
        if match.referee_id is None:  # by lot, recorded on the match
            match.referee_id = random.Random(f"referee-{lot}").choice(referees)
            match.save(update_fields=["referee"])
        game.referees.add(match.referee_id)
    MatchGame.objects.create(match=match, game=game, number=number)
    return game


def _playoff_colours(match: Match, lot: str) -> bool:
    """A pair in a playoff: 猜先 by lot the first time they meet in this tree, then colours alternate."""
    root = match.group.root_id or match.group_id
    pair = {match.first_id, match.second_id}
    earlier = (
        MatchGame.objects.filter(match__group__root_id=root, game__status=GameStatus.FINISHED)
        .exclude(match=match)
        .filter(match__first_id__in=pair, match__second_id__in=pair)
        .select_related("game", "match__first")
        .order_by("-game_id")
        .first()
    )
    if earlier is not None:  # the one who had black last time has white now
        return earlier.game.black_id != match.first.player_id
    return _first_black_by_toss(match, lot)


def _first_black_by_toss(match: Match, lot: str) -> bool:
    """猜先: the toss recorded at the table, or one drawn by lot (and recorded); True if the first-named is black."""
    if not match.colour_toss:
        toss = formats.guess_colours(random.Random(lot))
        guesser = 1 - int(toss["grabber"])
        toss["black"] = guesser if toss["guess_right"] else int(toss["grabber"])
        toss["seed"] = lot
        match.colour_toss = toss
        match.save(update_fields=["colour_toss"])
    return int(match.colour_toss["black"]) == 0


@transaction.atomic
def record_colour_toss(*, match: Match, grabber: Entry, guess: str, count: int, actor: Any = None) -> Match:
    """猜先 at the table: ``grabber`` grabs ``count`` stones, the other guesses odd or even; right plays black.

    Recorded before the match's first game is created (the first game takes its colours from it);
    without a record, the colours are drawn by lot with a recorded seed.
    """
    match = Match.objects.select_for_update().get(pk=match.pk)
    if not match.best_of:
        raise TournamentError("no_toss", _("Colours in a group pairing are fixed: game 1 to the first-named."))
    if match.match_games.exists():
        raise TournamentError("toss_too_late", _("The first game has begun; its colours stand."), 409)
    if grabber.pk not in (match.first_id, match.second_id):
        raise TournamentError("not_in_match", _("The grabber must be one of the two players."))
    if guess not in ("odd", "even") or not 1 <= count <= 361:
        raise TournamentError("bad_toss", _("The guess is odd or even, and the count is between 1 and 361."))
    grabber_index = 0 if grabber.pk == match.first_id else 1
    right = (count % 2 == 1) == (guess == "odd")
    match.colour_toss = {
        "grabber": grabber_index,
        "count": count,
        "guess": guess,
        "guess_right": int(right),
        "black": 1 - grabber_index if right else grabber_index,
        "recorded": True,
    }
    match.save(update_fields=["colour_toss"])
    _audit(match.tournament, "colour_toss", actor, match=match.pk, **match.colour_toss)
    return match


# -- advancing --------------------------------------------------------------------


@transaction.atomic
def advance(*, stage: Stage, actor: Any = None) -> Stage | None:
    """Close a finished stage and open the next: more best-of-three rounds until few enough remain, then the final.

    Refused while a match or a playoff is unfinished. Returns the next stage
    (None after the final, which finishes the tournament). Idempotent.
    """
    stage = _stage_for_update(stage.pk)
    tournament = stage.tournament
    following = Stage.objects.filter(tournament=tournament, order=stage.order + 1).first()
    if stage.status == Stage.Status.FINISHED:
        return following
    if stage.status != Stage.Status.RUNNING:
        raise TournamentError("not_running", _("The stage has not started."), 409)
    previous = Stage.objects.filter(tournament=tournament, order=stage.order - 1).first()
    if previous is not None and previous.status != Stage.Status.FINISHED:
        raise TournamentError(
            "previous_reopened",
            _("%(stage)s was reopened by a correction; it must be decided before %(next)s can advance.")
            % {"stage": previous.name, "next": stage.name},
            409,
        )
    from tournament.outcomes import stage_orders, stage_qualifiers

    orders = stage_orders(stage)
    for order in orders.values():
        if not decided(order):
            raise TournamentError(
                "undecided",
                _("Group %(name)s is not decided yet (matches or playoffs to play).") % {"name": order.group.name},
                409,
            )
    by_group = stage_qualifiers(stage, orders)
    qualifiers = [e for ids in by_group.values() for e in ids]
    stage.options = {**stage.options, "qualified": by_group}
    stage.status = Stage.Status.FINISHED
    stage.save(update_fields=["status", "options"])
    _audit(tournament, "advance", actor, stage=stage.pk, qualifiers=qualifiers)
    if stage.kind == Stage.Kind.ROUND_ROBIN or len(qualifiers) < 2:  # the final, or a single survivor
        Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
        _audit(tournament, "finish", actor)
        return None
    first_knockout = stage.kind == Stage.Kind.GROUPS and len(qualifiers) >= 4  # the seed always has a 复赛
    if first_knockout or len(qualifiers) > tournament.final_max:
        kind, name = Stage.Kind.KNOCKOUT, f"复赛 Round {stage.order}"
    else:
        kind, name = Stage.Kind.ROUND_ROBIN, "决赛 Final"
    if following is not None:  # held while a correction reopened this stage: it takes the qualifiers now
        from tournament.outcomes import _redraw

        _redraw(following, qualifiers, [], [], actor)
        following.refresh_from_db()
        return following
    return Stage.objects.create(
        tournament=tournament, order=stage.order + 1, name=name, kind=kind, options={"entries": qualifiers}
    )


# -- appeals and the arena ----------------------------------------------------------


@transaction.atomic
def appeal_file(*, game: Game, appellant: Player, reason: str, actor: Any = None) -> Any:
    """A player appeals a referee's ruling on their game; the committee of three decides."""
    from games.models import GameEvent
    from tournament.models import Appeal

    if appellant.pk not in (game.player_one_id, game.player_two_id):
        raise TournamentError("not_your_game", _("You are not a player in this game."), 403)
    if not GameEvent.objects.filter(game=game, kind="ruled").exists():
        raise TournamentError("no_ruling", _("Only a referee's ruling can be appealed."), 409)
    if not reason.strip():
        raise TournamentError("reason_required", _("Say why you appeal."))
    if Appeal.objects.filter(game=game).exclude(status=Appeal.Status.OPEN).exists():
        raise TournamentError("appeal_decided", _("The committee has decided; its decision is final."), 409)
    appeal, _created = Appeal.objects.get_or_create(
        game=game, status=Appeal.Status.OPEN, defaults={"appellant": appellant, "reason": reason[:500]}
    )
    match = Match.objects.filter(match_games__game=game).first()
    if match is not None:
        _audit(match.tournament, "appeal", actor, game=game.pk, appeal=appeal.pk)
    return appeal


@transaction.atomic
def appeal_decide(
    *,
    appeal: Any,
    committee: list[Any],
    upheld: bool,
    decision: str,
    result: str = "",
    reason: str = "",
    actor: Any = None,
) -> Any:
    """The committee of three decides, finally; an upheld appeal replaces the result (logged on the game)."""
    from django.utils import timezone

    from games.services import game_override
    from tournament.models import Appeal

    appeal = Appeal.objects.select_for_update().get(pk=appeal.pk)
    if appeal.status != Appeal.Status.OPEN:
        raise TournamentError("appeal_decided", _("The committee has decided; its decision is final."), 409)
    if len({member.pk for member in committee}) != 3:
        raise TournamentError("committee_of_three", _("An appeal is decided by a committee of three."))
    if not decision.strip():
        raise TournamentError("reason_required", _("Write the committee's decision."))
    if upheld:
        game_override(
            game_id=appeal.game_id,
            result=result,
            reason=reason or "referee",
            note=f"appeal {appeal.pk}: {decision}"[:500],
            actor=actor,
        )
    appeal.status = Appeal.Status.UPHELD if upheld else Appeal.Status.DISMISSED
    appeal.decision = decision[:500]
    appeal.decided_at = timezone.now()
    appeal.save(update_fields=["status", "decision", "decided_at"])
    appeal.committee.set(committee)
    return appeal


@transaction.atomic
def arena_bout(
    *, tournament: Tournament, challenger: Player, winner: Player, holder: Player | None = None, actor: Any = None
) -> Any:
    """擂台赛: a challenger plays the table holder (the last winner, or ``holder`` for the first bout)."""
    from tournament.models import ArenaBout

    last = ArenaBout.objects.filter(tournament=tournament).order_by("-id").first()
    current = last.winner if last is not None else holder
    if current is None:
        raise TournamentError("no_holder", _("Name the first table holder."))
    if challenger.pk == current.pk:
        raise TournamentError("same_player", _("The holder cannot challenge themselves."))
    if winner.pk not in (challenger.pk, current.pk):
        raise TournamentError("bad_winner", _("The winner is the holder or the challenger."))
    bout = ArenaBout.objects.create(tournament=tournament, holder=current, challenger=challenger, winner=winner)
    _audit(tournament, "arena_bout", actor, bout=bout.pk)
    return bout


def arena_summary(tournament: Tournament) -> dict[str, Any]:
    """The holder, the current streak and the longest streak (successful defences in a row)."""
    from tournament.models import ArenaBout

    bouts = list(ArenaBout.objects.filter(tournament=tournament).select_related("winner").order_by("id"))
    best: tuple[int, Any] = (0, None)
    streak, holder = 0, None
    for bout in bouts:
        if holder is not None and bout.winner_id == holder.pk:
            streak += 1
        else:
            holder, streak = bout.winner, 1 if bout.winner_id == bout.holder_id else 0
        if streak > best[0]:
            best = (streak, holder)
    return {
        "holder": holder.name if holder else None,
        "streak": streak,
        "longest": {"player": best[1].name if best[1] else None, "defences": best[0]},
        "bouts": len(bouts),
    }
