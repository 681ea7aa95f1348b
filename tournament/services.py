"""Organizer actions and the progress of matches, one function per transition.

The format's arithmetic lives in :mod:`tournament.formats`; this module
turns it into rows, inside transactions, and logs every organizer action.
Standings are computed from the games (see :mod:`tournament.standings`).
"""

from __future__ import annotations

import random
import secrets
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import live
from games.enums import GameMode, GameStatus, Interface
from games.models import Game, Player
from games.services import GameError, game_create
from tournament import formats
from tournament.checkin import absent
from tournament.models import (
    AuditLog,
    CheckIn,
    Entry,
    Group,
    GroupMember,
    Match,
    MatchGame,
    Stage,
    Tournament,
)
from tournament.signals import tournament_finished, tournament_starting
from tournament.stage_formats import format_of, stage_name
from tournament.standings import decided


class TournamentError(GameError):
    """A refused organizer action (same shape as the games app's errors: code, message, status)."""


def audit(tournament: Tournament, action: str, actor: Any = None, **data: Any) -> None:
    AuditLog.objects.create(
        tournament=tournament, actor=actor if getattr(actor, "pk", None) else None, action=action, data=data
    )
    live.changed(f"tournament:{tournament.pk}")


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
    # A Swiss open as Renju events run them: renju, RIF opening, one Swiss stage (options: tournament.swiss).
    "swiss": {
        "rules": "renju",
        "protocol": "rif",
        "forbidden_mode": "claim",
        "time_control": "rif-90+30",
        "mode": "otb",
        "boards": 50,
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
def tournament_create(
    *, name: str, preset: str = "seed", actor: Any = None, stage_options: dict[str, Any] | None = None, **fields: Any
) -> Tournament:
    """A tournament in a preset format; its first stage (the seed's group draw, or a Swiss stage with
    ``stage_options``) is ready to draw."""
    if preset not in PRESETS:
        raise TournamentError("bad_preset", _("Unknown preset %(name)s.") % {"name": preset})
    if stage_options and preset != "swiss":
        raise TournamentError("bad_options", _("Stage options are for the Swiss preset."))
    tournament = Tournament.objects.create(name=name, preset=preset, **{**PRESETS[preset], **fields})
    if preset == "swiss":
        from tournament.swiss.selectors import check_options

        Stage.objects.create(
            tournament=tournament,
            order=1,
            name=stage_name("swiss"),
            kind=Stage.Kind.SWISS,
            options=check_options(stage_options or {}),
        )
    else:
        Stage.objects.create(tournament=tournament, order=1, name=stage_name("preliminary"), kind=Stage.Kind.GROUPS)
    audit(tournament, "create", actor, preset=preset)
    return tournament


@transaction.atomic
def register(*, tournament: Tournament, player: Player, seed: int | None = None, actor: Any = None) -> Entry:
    """Enter a player; idempotent; refuses a unit over the tournament's limit or a started tournament."""
    existing = Entry.objects.filter(tournament=tournament, player=player).first()
    if existing is not None:
        return existing
    if tournament.stages.exclude(status=Stage.Status.PENDING).exists():
        raise TournamentError("draw_made", _("Entries close when the first draw is made."), 409)
    if player.computer_level is not None:
        raise TournamentError("computer", _("The computer opponent plays practice games only."))
    if tournament.max_per_unit and player.unit:
        count = Entry.objects.filter(tournament=tournament, player__unit=player.unit).count()
        if count >= tournament.max_per_unit:
            raise TournamentError(
                "unit_full",
                _("%(unit)s already has %(n)s entries, the most allowed.") % {"unit": player.unit, "n": count},
            )
    entry = Entry.objects.create(tournament=tournament, player=player, seed=seed)
    audit(tournament, "register", actor, player=player.pk)
    return entry


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
    if stage.order == 1:  # seeding and pairing numbers use the ratings at the start (ratings app)
        _leave_out_absent(tournament, actor)
        tournament_starting.send(sender=Tournament, tournament=tournament)
    if seed is None:
        seed = stage.options.get("seed", secrets.randbelow(2**31))
    rng = random.Random(seed)
    entries = _stage_entries(stage)
    for number, plan in enumerate(format_of(stage).draw(entries, rng, tournament, stage), start=1):
        _make_group(stage, number, plan.keys, plan.kind, advance=plan.advance, games=plan.games, pair=plan.pair_at_draw)
    stage.status = Stage.Status.DRAWN
    stage.draw_seed = seed
    stage.options = {**stage.options, **format_of(stage).recorded_at_draw(stage, seed)}
    stage.save(update_fields=["status", "draw_seed", "options"])
    audit(tournament, "draw", actor, stage=stage.pk, seed=seed)
    return stage


def _leave_out_absent(tournament: Tournament, actor: Any) -> None:
    """With check-in on, the players not checked in when the first stage is drawn are left out of it:
    withdrawn before the start, saying why (in a Swiss they may still come back as late entries)."""
    if tournament.check_in == CheckIn.OFF:
        return
    missing = list(absent(tournament.entries.all(), 1).select_related("player"))
    now = timezone.now().isoformat()
    for entry in missing:
        entry.withdrawn = True
        entry.withdrawal = {"at": now, "reason": "did not check in", "policy": "", "applied": "", "stage": None}
        entry.save(update_fields=["withdrawn", "withdrawal"])
    if missing:
        audit(tournament, "absent_at_check_in", actor, entries=[e.pk for e in missing])


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
    stage: Stage,
    number: int,
    keys: list[Any],
    kind: str,
    *,
    advance: int,
    games: int,
    parent: Group | None = None,
    pair: bool = True,
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
    if not pair:  # a round-by-round format pairs each round later (pair_next_round)
        return group
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
    audit(stage.tournament, "undo_draw", actor, stage=stage.pk)
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
    audit(stage.tournament, "swap", actor, stage=stage.pk, entries=[first.pk, second.pk])


@transaction.atomic
def publish(*, tournament: Tournament, actor: Any = None) -> Tournament:
    if tournament.status == Tournament.Status.DRAFT:
        Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.PUBLISHED)
        audit(tournament, "publish", actor)
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
        audit(stage.tournament, "start_stage", actor, stage=stage.pk)
        call_matches(tournament=stage.tournament)
    return stage


@transaction.atomic
def pair_next_round(*, stage: Stage, actor: Any = None) -> list[Match]:
    """Pair the next round of a round-by-round stage in each of its groups, as its format decides from the
    results so far; the matches are then called to boards like any others. Refused for a format that made
    every pairing at the draw."""
    stage = _stage_for_update(stage.pk)
    stage_format = format_of(stage)
    if stage.kind == Stage.Kind.SWISS:  # paired, then published at once (no review)
        from tournament.swiss.services import swiss_pair, swiss_publish

        paired = swiss_pair(stage=stage, actor=actor)
        return swiss_publish(stage=stage, number=paired.number, actor=actor)
    if not stage_format.round_by_round:
        raise TournamentError("paired_at_draw", _("Every pairing of this stage was made at the draw."), 409)
    if stage.status != Stage.Status.RUNNING:
        raise TournamentError("not_running", _("The stage has not started."), 409)
    made: list[Match] = []
    for group in stage.groups.filter(parent=None).order_by("number"):
        if group.matches.exclude(status__in=[Match.Status.FINISHED, Match.Status.CANCELLED]).exists():
            raise TournamentError(
                "round_unfinished",
                _("Group %(name)s has matches of this round still to finish.") % {"name": group.name},
                409,
            )
        pairs = stage_format.next_round(stage, group)
        if not pairs:
            continue
        number = max(group.matches.values_list("round", flat=True), default=0) + 1
        made += Match.objects.bulk_create(
            Match(
                tournament_id=stage.tournament_id,
                group=group,
                round=number,
                order=order,
                first_id=a,
                second_id=b,
                games_planned=group.games_per_pair,
            )
            for order, (a, b) in enumerate(pairs)
        )
    audit(stage.tournament, "pair_round", actor, stage=stage.pk, matches=[m.pk for m in made])
    call_matches(tournament=stage.tournament)
    return made


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
        interface=Interface.SYSTEM,
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
    right = formats.guessed_right(count, guess)
    match.colour_toss = {
        "grabber": grabber_index,
        "count": count,
        "guess": guess,
        "guess_right": int(right),
        "black": 1 - grabber_index if right else grabber_index,
        "recorded": True,
    }
    match.save(update_fields=["colour_toss"])
    audit(match.tournament, "colour_toss", actor, match=match.pk, **match.colour_toss)
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
    audit(tournament, "advance", actor, stage=stage.pk, qualifiers=qualifiers)
    nxt = format_of(stage).following(stage, qualifiers, tournament)
    if nxt is None:  # the final, or a single survivor
        Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
        audit(tournament, "finish", actor)
        tournament_finished.send(sender=Tournament, tournament=tournament)  # the rating lists take its games
        return None
    if following is not None:  # held while a correction reopened this stage: it takes the qualifiers now
        from tournament.outcomes import _redraw

        _redraw(following, qualifiers, [], [], actor)
        following.refresh_from_db()
        return following
    options: dict[str, Any] = {"entries": qualifiers}
    if stage.kind == Stage.Kind.SWISS:
        options["seeded"] = True  # the qualifiers are in the Swiss order of merit: the knockout is seeded by it
    return Stage.objects.create(
        tournament=tournament, order=stage.order + 1, name=nxt.name, kind=nxt.kind, options=options
    )
