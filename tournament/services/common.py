"""What every tournament service shares: the one error type, the audit log, locking a stage, making a
group's rows, calling matches to the boards and the next game of a match (with its colours).

The one public module of :mod:`tournament.services` for helpers; the other modules of the package and the
stage formats import from here, never from each other's private names.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from games import live
from games.enums import GameMode, GameStatus, Interface
from games.forfeits import game_cancel
from games.models import Game
from games.selectors import online_room
from games.services import game_create
from tournament import formats
from tournament.errors import TournamentError
from tournament.models import AuditLog, Group, GroupMember, Match, MatchGame, Stage, Tournament


def audit(tournament: Tournament, action: str, actor: Any = None, **data: Any) -> None:
    AuditLog.objects.create(
        tournament=tournament, actor=actor if getattr(actor, "pk", None) else None, action=action, data=data
    )
    live.changed(f"tournament:{tournament.pk}")


def stage_for_update(stage_id: int) -> Stage:
    return Stage.objects.select_for_update().select_related("tournament").get(pk=stage_id)


def make_group(
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


def call_matches(*, tournament: Tournament) -> list[Match]:
    """Fill every free board with the next ready match (both players free, earlier rounds first).

    Online, no more games start than the server has room for (``ONLINE_CAPACITY``, every tournament's games
    together): the rest wait, as for a board, and are called as games end here (:func:`after_game`) or
    anywhere on the server (:func:`call_for_room`); the control room says how many wait (:func:`held_for_room`)."""
    Tournament.objects.select_for_update().filter(pk=tournament.pk).first()  # one caller at a time
    waiting = (
        Match.objects.filter(
            tournament=tournament, status=Match.Status.PENDING, group__stage__status=Stage.Status.RUNNING
        )
        .select_related("group__stage", "first__player", "second__player")
        .order_by("group__stage__order", "round", "group__number", "order")
    )
    if not waiting.exists():  # a Swiss round on every board: nothing waits, so no game's end reads them all
        return []
    busy = list(
        Match.objects.filter(tournament=tournament, status=Match.Status.CALLED).values_list(
            "board", "first_id", "second_id"
        )
    )
    boards_used = {b for b, _, _ in busy}
    playing = {e for _, a, b in busy for e in (a, b)}
    free_boards = [b for b in range(1, tournament.boards + 1) if b not in boards_used]
    room = online_room() if tournament.mode == GameMode.ONLINE else None
    if room is not None:
        free_boards = free_boards[:room]
    if not free_boards:
        return []
    called = []
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
        next_game(match, tournament)
        called.append(match)
    return called


def _waiting(tournament_filter: dict[str, Any]) -> QuerySet[Match]:
    """The matches that wait to be called in running stages (``tournament_filter`` narrows them)."""
    return Match.objects.filter(
        status=Match.Status.PENDING, group__stage__status=Stage.Status.RUNNING, **tournament_filter
    )


def _free_boards(tournament: Tournament) -> int:
    return tournament.boards - Match.objects.filter(tournament=tournament, status=Match.Status.CALLED).count()


def call_for_room() -> int:
    """Once games have ended anywhere on the server, the online tournaments' matches that waited for room on it
    are called, the oldest tournament first (the beat's task, every few seconds); returns how many were called.
    Nothing is written, and no lock taken, while the server is still full or nothing waits."""
    if not online_room():  # None: no limit, so nothing waits for room; 0: still full
        return 0
    waiting = _waiting({"tournament__mode": GameMode.ONLINE}).values_list("tournament_id", flat=True)
    called = 0
    for tournament in Tournament.objects.filter(pk__in=waiting).order_by("pk"):
        if _free_boards(tournament) <= 0:  # it waits for its own boards, not for the server
            continue
        with transaction.atomic():
            called += len(call_matches(tournament=tournament))
        if not online_room():
            break
    return called


def held_for_room(tournament: Tournament) -> int:
    """How many of an online tournament's matches wait for room on the server, shown to its organizers while the
    server is full: its waiting matches, at most as many as its free boards (a match whose player is still
    playing elsewhere is counted too: in a Swiss round none is)."""
    if tournament.mode != GameMode.ONLINE or online_room() != 0:
        return 0
    return max(0, min(_waiting({"tournament": tournament}).count(), _free_boards(tournament)))


def next_game(match: Match, tournament: Tournament) -> Game:
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
        first_black = first_black_by_toss(match, lot)
        black_first = first_black if played % 2 == 1 else not first_black
    elif match.group.kind == Group.Kind.PLAYOFF:
        black_first = playoff_colours(match, lot)
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
        # Online, the clock starts when the game is called to its board and the players can see it (when the
        # call commits: a round of a thousand games starts every clock at one instant): an absent player's
        # time runs and they lose by the game's rules. Over the board, the clock on the table counts.
        start_clock_on_commit=tournament.mode == GameMode.ONLINE and bool(tournament.time_control),
    )
    referees = list(tournament.referees.order_by("pk").values_list("pk", flat=True))
    if referees:
        if match.referee_id is None:  # by lot, recorded on the match
            match.referee_id = random.Random(f"referee-{lot}").choice(referees)
            match.save(update_fields=["referee"])
        game.referees.add(match.referee_id)
    MatchGame.objects.create(match=match, game=game, number=number)
    return game


def playoff_colours(match: Match, lot: str) -> bool:
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
    return first_black_by_toss(match, lot)


def first_black_by_toss(match: Match, lot: str) -> bool:
    """猜先: the toss recorded at the table, or one drawn by lot (and recorded); True if the first-named is black."""
    if not match.colour_toss:
        match.colour_toss = formats.toss_by_lot(lot)
        match.save(update_fields=["colour_toss"])
    return int(match.colour_toss["black"]) == 0


def root_of(group: Group) -> Group:
    return group.root or group


def cancel_match(match: Match, note: str, actor: Any) -> None:
    for link in match.match_games.select_related("game"):
        if link.game.status not in (GameStatus.FINISHED, GameStatus.CANCELLED):
            game_cancel(game_id=link.game_id, note=note, actor=actor)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.CANCELLED)


def record_tie_decision(
    *, stage: Stage, order: list[int], waiting: Callable[[Stage], list[list[int]]], action: str, actor: Any = None
) -> Stage:
    """The extra game that settles a complete tie where a precise place is needed, for any format that ranks
    by ``ranking.CompleteTie``: ``order`` the tied competitors, the extra game's winner first, kept in the
    stage's ``tie_decisions``. Refused unless they are exactly one block ``waiting`` (the format's standings)
    says is still due; locked, so two organizers cannot record two outcomes for one tie."""
    stage = Stage.objects.select_for_update().get(pk=stage.pk)
    chosen = [int(k) for k in order]
    if len(set(chosen)) != len(chosen) or sorted(chosen) not in [sorted(block) for block in waiting(stage)]:
        raise TournamentError(
            "not_tied", _("These are not level on everything, or their extra game is already recorded.")
        )
    stage.options = {**stage.options, "tie_decisions": [*stage.options.get("tie_decisions", []), chosen]}
    stage.save(update_fields=["options"])
    audit(stage.tournament, action, actor, stage=stage.pk, order=chosen)
    return stage
