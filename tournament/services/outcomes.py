"""Outcomes derived from the games, recomputed whenever a result changes.

Nothing here trusts an earlier conclusion: a match's state and winner, the
playoffs a group needs, who qualified from a stage and who was drawn into the
next one are recomputed from the games (and the recorded tosses and lots)
every time a game ends or a finished result is corrected, whoever changed it
(a confirmed report, a ruling, an organizer's override, an upheld appeal, a
forfeit, a withdrawal).

- :func:`match_sync`: a match closes when its games decide it (a correction
  can decide it early: unplayed games are cancelled) and reopens when a
  correction un-decides it (the deciding game is called, on the same board
  when free).
- :func:`group_sync`: playoffs for ties that decide something, none for ties
  that no longer exist (voided), a lot (or the organizer) after too many drawn
  playoff games.
- :func:`stage_sync`: a finished stage whose qualifiers change re-draws the
  next stage from its recorded seed if it has not started; if it has, the
  correction needs the organizer's confirmation with a reason (``next_stage_started``),
  asked before the result is written (:mod:`tournament.services.corrections`), and then
  the affected next-stage matches are voided and re-made.
"""

from __future__ import annotations

import random
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import live
from games.enums import GameStatus
from games.forfeits import game_cancel
from games.models import Game
from tournament import formats
from tournament.errors import TournamentError
from tournament.models import Consent, Entry, Group, GroupMember, Match, MatchGame, Stage, TieDecider, Tournament
from tournament.services import rounds
from tournament.services.common import (
    audit,
    call_matches,
    cancel_match,
    make_group,
    next_game,
    root_of,
    stage_for_update,
)
from tournament.services.draws import draw_stage, undo_draw
from tournament.signals import tournament_finished
from tournament.stage_formats import format_of
from tournament.standings import Order, decided, winner_index


def after_game(game: Game, correction: bool, actor: Any) -> None:
    """What follows in the tournament when one of its games ends or its result is corrected: the match, the
    group and the stage re-derived from the games, the boards called; the ratings told of a correction after
    the end. Registered with :func:`games.services.finish.follow_finished_games` in
    ``TournamentConfig.ready``; runs after the game's own write, in a savepoint of its own. A correction the
    organizer confirmed beforehand carries its :class:`~tournament.models.Consent`, used up here."""
    link = MatchGame.objects.filter(game=game).only("match_id").first()
    if link is not None:
        consent = Consent.objects.filter(game=game).first() if correction else None
        confirm = consent.reason if consent is not None else ""
        match = match_sync(match_id=link.match_id, confirm=confirm, actor=actor)
        if consent is not None:
            consent.delete()
        tournament = Tournament.objects.get(pk=match.tournament_id)
        if tournament.status == Tournament.Status.FINISHED:  # a correction after the end: the ratings follow
            tournament_finished.send(sender=Tournament, tournament=tournament)


@transaction.atomic
def match_sync(*, match_id: int, confirm: str = "", actor: Any = None) -> Match:
    """Recompute a match from its games; then its group, its stage, and the boards."""
    match = (
        Match.objects.select_for_update().select_related("first", "second", "group__stage__tournament").get(pk=match_id)
    )
    tournament = match.group.stage.tournament
    live.changed(f"tournament:{tournament.pk}")
    if match.status == Match.Status.CANCELLED:
        return match
    links = [link for link in match.match_games.select_related("game").order_by("number")]
    games = [link.game for link in links if link.game.status != GameStatus.CANCELLED]
    finished = [g for g in games if g.status == GameStatus.FINISHED]
    counted = len(finished)
    still_open = [g for g in games if g.status != GameStatus.FINISHED]
    winner: int | None = None
    if match.best_of:
        limit = tournament.playoff_draw_limit if match.group.kind == Group.Kind.PLAYOFF else 0
        score = formats.best_of(
            [winner_index(g, match) for g in finished], match.games_planned, match.sudden_death, draw_limit=limit
        )
        complete, winner = formats.match_complete(score, match.games_planned, match.sudden_death), score.winner
        counted = score.games
    else:
        complete = len(finished) >= match.games_planned
    winner_id = None if winner is None else (match.first_id if winner == 0 else match.second_id)
    before = (match.status, match.winner_id)
    extra = {g.pk for g in finished[counted:]}  # played after a correction decided the match: they do not count
    for link in links:
        if link.counted == (link.game_id in extra):
            MatchGame.objects.filter(pk=link.pk).update(counted=link.game_id not in extra)
    if complete:
        for game in still_open:  # decided before this game: it will not be played
            game_cancel(game_id=game.pk, note=_("The match was decided without this game."), actor=actor)
        match.status, match.winner_id = Match.Status.FINISHED, winner_id
    else:
        match.winner_id = None
        if match.status == Match.Status.FINISHED:  # a correction un-decided it: the next game is called
            match.status = Match.Status.PENDING
            audit(tournament, "match_reopened", actor, match=match.pk)
        elif match.status == Match.Status.CALLED and not still_open:
            match.save(update_fields=["winner"])
            next_game(match, tournament)
    if (match.status, match.winner_id) != before:
        match.save(update_fields=["status", "winner"])
        if match.status == Match.Status.FINISHED and before[0] == Match.Status.FINISHED:
            audit(tournament, "match_corrected", actor, match=match.pk, winner=match.winner_id, before=before[1])
    if match.status == Match.Status.FINISHED:  # the round closes with its last match
        stage_format = format_of(match.group.stage)
        if stage_format.round_by_round:
            rounds.close_finished_rounds(match.group.stage, actor)
        stage_format.match_closed(match, corrected=before[0] == Match.Status.FINISHED, actor=actor)
    # even when the match stands, a corrected game inside it can move the group's order
    group_sync(group=match.group, confirm=confirm, actor=actor)
    call_matches(tournament=tournament)
    return match


def _lot_order(group: Group, block: list[int], root_positions: dict[int, int]) -> list[int]:
    """A recorded lot: the block in its draw order, shuffled by a generator seeded from the stage's draw seed."""
    order = sorted(block, key=lambda e: root_positions.get(e, 0))
    random.Random(f"{group.stage.draw_seed}-lot-{group.name}").shuffle(order)
    return order


def group_sync(*, group: Group, confirm: str = "", actor: Any = None) -> Order | None:
    """A top-level group's playoffs made to fit its current order; then its stage."""
    root = Group.objects.select_related("stage__tournament").get(pk=root_of(group).pk)
    tournament = root.stage.tournament
    if not format_of(root.stage).playoffs:  # tie-breaks and a lot order the group; the stage checks itself
        stage_sync(stage=root.stage, confirm=confirm, actor=actor)
        return None
    for _round in range(8):  # a lot changes the order; at most a few passes
        order = format_of(root.stage).group_order(root)
        changed = False
        for playoff in Group.objects.filter(root=root, void=False).exclude(pk__in=order.used):
            if order.unplayed:
                break
            # a tie that no longer exists after a correction or withdrawal: its playoff is void
            playoff.void = True
            playoff.save(update_fields=["void"])
            for match in playoff.matches.exclude(status=Match.Status.CANCELLED):
                cancel_match(match, _("The playoff is no longer needed after a correction."), actor)
            audit(tournament, "playoff_void", actor, group=root.pk, playoff=playoff.pk)
            changed = True
        for stalled, block in order.awaiting:
            if tournament.playoff_decider != TieDecider.LOT:
                continue
            positions = {m.entry_id: m.position for m in GroupMember.objects.filter(group=root)}
            stalled.decision = {"by": TieDecider.LOT, "order": _lot_order(stalled, block, positions)}
            stalled.save(update_fields=["decision"])
            audit(tournament, "playoff_lot", actor, group=root.pk, playoff=stalled.pk, order=stalled.decision["order"])
            changed = True
        if not changed:
            break
    if not order.unplayed and order.undecided:
        for tied in order.undecided:
            number = Group.objects.filter(root=root).count() + 1
            parent = order.playoff_parent.get(frozenset(tied), root)
            positions = {m.entry_id: m.position for m in GroupMember.objects.filter(group=root)}
            keys = sorted(tied, key=lambda e: positions.get(e, 0))
            playoff = make_group(root.stage, number, keys, Group.Kind.PLAYOFF, advance=0, games=1, parent=parent)
            audit(tournament, "create_playoff", actor, group=root.pk, players=keys, playoff=playoff.pk)
        order = format_of(root.stage).group_order(root)
    stage_sync(stage=root.stage, confirm=confirm, actor=actor)
    return order


@transaction.atomic
def playoff_decide(*, group: Group, order: list[int], actor: Any = None) -> Group:
    """The organizer decides a tie that the playoff games could not break (``order``: entry ids, best first)."""
    group = Group.objects.select_for_update().select_related("stage__tournament").get(pk=group.pk)
    root_order = format_of(group.stage).group_order(root_of(group))
    awaiting = {g.pk: block for g, block in root_order.awaiting}
    if group.pk not in awaiting:
        raise TournamentError("no_decision_needed", _("This playoff does not await a decision."), 409)
    if sorted(order) != sorted(awaiting[group.pk]):
        raise TournamentError("bad_order", _("Name each tied player exactly once."))
    group.decision = {"by": TieDecider.ORGANIZER, "order": list(order)}
    group.save(update_fields=["decision"])
    audit(group.stage.tournament, "playoff_decided", actor, playoff=group.pk, order=list(order))
    group_sync(group=group, actor=actor)
    call_matches(tournament=group.stage.tournament)
    return group


# -- stages -------------------------------------------------------------------------


def stage_orders(stage: Stage) -> dict[int, Order]:
    stage_format = format_of(stage)
    groups = stage.groups.filter(parent__isnull=True, void=False).order_by("number")
    return {g.pk: stage_format.group_order(g) for g in groups}


def stage_qualifiers(stage: Stage, orders: dict[int, Order]) -> dict[str, list[int]]:
    stage_format = format_of(stage)
    return {str(pk): stage_format.qualifiers(order, stage) for pk, order in orders.items()}


def _names(entry_ids: list[int]) -> str:
    names = dict(Entry.objects.filter(pk__in=entry_ids).values_list("pk", "player__name"))
    return "、".join(names.get(e, str(e)) for e in entry_ids)


def stage_sync(*, stage: Stage, confirm: str = "", actor: Any = None) -> Stage:
    """A stage checked against its games: reopened, closed again, or its next stage re-drawn or re-made."""
    stage = Stage.objects.select_related("tournament").get(pk=stage.pk)
    tournament = stage.tournament
    following = Stage.objects.filter(tournament=tournament, order=stage.order + 1).first()
    if stage.status == Stage.Status.RUNNING:
        held = following is not None and following.held
        if held or stage.reopened:
            orders = stage_orders(stage)
            if all(decided(o) for o in orders.values()):
                _close_again(stage, following, orders, actor)
        return stage
    if stage.status != Stage.Status.FINISHED:
        return stage
    orders = stage_orders(stage)
    if not all(decided(o) for o in orders.values()):
        started = following is not None and following.status in (Stage.Status.RUNNING, Stage.Status.FINISHED)
        if started and not confirm.strip():
            assert following is not None
            raise TournamentError(
                "next_stage_started",
                _(
                    "This correction reopens %(stage)s (a playoff is needed), but %(next)s has started. "
                    "Confirm with a reason: once %(stage)s is decided again, the matches of players who lose "
                    "their place in %(next)s are voided and re-made."
                )
                % {"stage": stage.name, "next": following.name},
                409,
            )
        if started:  # the replacement is made when this stage is decided again
            assert following is not None
            _refuse_two_stages_on(following)
            _reopen(stage, actor, confirmed=confirm)
        else:
            if following is not None:  # held until this stage is decided again, then drawn with the same seed
                _hold(following, actor)
            _reopen(stage, actor)
        return stage
    if following is None:
        return stage
    new = stage_qualifiers(stage, orders)
    old = {str(k): list(v) for k, v in stage.qualified.items()}
    if new == old:
        return stage
    flat_new = [e for ids in new.values() for e in ids]
    out = [e for ids in old.values() for e in ids if e not in flat_new]
    came = [e for e in flat_new if e not in {x for ids in old.values() for x in ids}]
    if following.status in (Stage.Status.PENDING, Stage.Status.DRAWN):
        redraw(following, flat_new, out, came, actor)
    else:
        if not confirm.strip():
            raise TournamentError(
                "next_stage_started",
                _(
                    "This correction changes who qualified from %(stage)s: %(out)s would give their place to "
                    "%(in)s, but %(next)s has started. Confirm with a reason to void and re-make their matches."
                )
                % {"stage": stage.name, "out": _names(out) or "—", "in": _names(came) or "—", "next": following.name},
                409,
            )
        _apply_replacement(stage, following, new, confirm, actor)
    Stage.objects.filter(pk=stage.pk).update(qualified=new)
    return stage


def _hold(following: Stage, actor: Any) -> None:
    """A next stage not yet started waits for a reopened stage: its draw is taken back, its seed kept."""
    options, drawn = following.options, following.status == Stage.Status.DRAWN
    if drawn:
        options = {**options, "seed": following.draw_seed}
        undo_draw(stage=following, actor=actor)
    Stage.objects.filter(pk=following.pk).update(options=options, held=True, held_drawn=drawn or following.held_drawn)


def _reopen(stage: Stage, actor: Any, confirmed: str = "") -> None:
    """A finished stage runs again (a playoff, or re-made matches, to play); it closes itself when decided."""
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.RUNNING, reopened=True, reopen_reason=confirmed)
    Tournament.objects.filter(pk=stage.tournament_id).update(status=Tournament.Status.RUNNING)
    audit(stage.tournament, "stage_reopened", actor, stage=stage.pk, **({"confirmed": confirmed} if confirmed else {}))
    stage.status = Stage.Status.RUNNING


def _apply_replacement(stage: Stage, following: Stage, new: dict[str, list[int]], reason: str, actor: Any) -> None:
    """The started next stage takes the new qualifiers: each one out is replaced by one in, in their matches."""
    old = {str(k): list(v) for k, v in stage.qualified.items()}
    flat_new = [e for ids in new.values() for e in ids]
    flat_old = [e for ids in old.values() for e in ids]
    out = [e for e in flat_old if e not in flat_new]
    came = [e for e in flat_new if e not in flat_old]
    if not (out or came):
        return
    _replace_entrants(following, list(zip(out, came, strict=False)), reason, actor)
    following.refresh_from_db()  # _replace_entrants may have reopened it
    following.options = {**following.options, "entries": flat_new}
    following.save(update_fields=["options"])
    audit(stage.tournament, "correction_confirmed", actor, stage=following.pk, out=out, came=came, reason=reason)


def redraw(following: Stage, entries: list[int], out: list[int], came: list[int], actor: Any) -> None:
    """The next stage, not started, takes the new entrants; drawn again from its recorded seed if it was drawn."""
    seed = following.draw_seed if following.draw_seed is not None else following.options.get("seed")
    drawn = following.status == Stage.Status.DRAWN or following.held_drawn
    if following.status == Stage.Status.DRAWN:
        undo_draw(stage=following, actor=actor)
    options = {**following.options, "entries": entries}
    redraws = list(following.redraws)
    if out or came:
        redraws.append({"at": timezone.now().isoformat(), "out": out, "in": came, "seed": seed})
    if seed is not None:
        options["seed"] = seed
    Stage.objects.filter(pk=following.pk).update(options=options, held=False, held_drawn=False, redraws=redraws)
    following.refresh_from_db()
    if drawn and seed is not None:
        draw_stage(stage=following, seed=seed, actor=actor)
    audit(following.tournament, "redraw", actor, stage=following.pk, out=out, came=came, seed=seed)


def _close_again(stage: Stage, following: Stage | None, orders: dict[int, Order], actor: Any) -> None:
    """A reopened stage decided again: closed, and its held next stage takes the qualifiers."""
    if following is None:  # the final: the tournament is finished again
        Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.FINISHED)
        Tournament.objects.filter(pk=stage.tournament_id).update(status=Tournament.Status.FINISHED)
        audit(stage.tournament, "stage_closed_again", actor, stage=stage.pk)
        return
    new = stage_qualifiers(stage, orders)
    old = {str(k): list(v) for k, v in stage.qualified.items()}
    flat_new = [e for ids in new.values() for e in ids]
    flat_old = [e for ids in old.values() for e in ids]
    Stage.objects.filter(pk=stage.pk).update(
        status=Stage.Status.FINISHED, reopened=False, reopen_reason="", qualified=new
    )
    audit(stage.tournament, "stage_closed_again", actor, stage=stage.pk, qualifiers=flat_new)
    if following.status in (Stage.Status.RUNNING, Stage.Status.FINISHED):
        _apply_replacement(stage, following, new, stage.reopen_reason, actor)
        return
    out = [e for e in flat_old if e not in flat_new]
    came = [e for e in flat_new if e not in flat_old]
    redraw(following, flat_new, out, came, actor)


def _refuse_two_stages_on(stage: Stage) -> Stage | None:
    """A correction may change the entrants of the stage after it, not of the one after that."""
    following = Stage.objects.filter(tournament=stage.tournament, order=stage.order + 1).first()
    if following is not None and following.status in (Stage.Status.RUNNING, Stage.Status.FINISHED):
        raise TournamentError(
            "too_late",
            _("%(stage)s has started too; correct the stages one at a time.") % {"stage": following.name},
            409,
        )
    return following


def _replace_entrants(stage: Stage, swaps: list[tuple[int, int]], reason: str, actor: Any) -> None:
    """In a started stage, ``new`` takes ``old``'s place: old's matches are voided and re-made with new."""
    following = _refuse_two_stages_on(stage)
    touched: set[int] = set()
    for old, new in swaps:
        GroupMember.objects.filter(group__stage=stage, group__parent__isnull=True, entry_id=old).update(entry_id=new)
        for match in Match.objects.filter(group__stage=stage).exclude(status=Match.Status.CANCELLED):
            if old not in (match.first_id, match.second_id):
                continue
            cancel_match(match, _("Voided by a correction: %(reason)s") % {"reason": reason}, actor)
            if match.group.kind == Group.Kind.PLAYOFF:
                continue  # the group's order decides whether a new playoff is needed
            Match.objects.create(
                tournament=match.tournament,
                group=match.group,
                round=match.round,
                order=match.order,
                first_id=new if match.first_id == old else match.first_id,
                second_id=new if match.second_id == old else match.second_id,
                games_planned=match.games_planned,
                best_of=match.best_of,
                sudden_death=match.sudden_death,
                replaces=match,
            )
            touched.add(root_of(match.group).pk)
    if stage.status == Stage.Status.FINISHED:  # re-made matches to play: it runs again and closes itself
        if following is not None:
            _hold(following, actor)
        _reopen(stage, actor, confirmed=reason)
    for group_id in sorted(touched):
        group_sync(group=Group.objects.get(pk=group_id), actor=actor)


# -- advancing --------------------------------------------------------------------


@transaction.atomic
def advance(*, stage: Stage, actor: Any = None) -> Stage | None:
    """Close a finished stage and open the next: more best-of-three rounds until few enough remain, then the final.

    Refused while a match or a playoff is unfinished. Returns the next stage
    (None after the final, which finishes the tournament). Idempotent.
    """
    stage = stage_for_update(stage.pk)
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
    stage.qualified = by_group
    stage.status = Stage.Status.FINISHED
    stage.save(update_fields=["status", "qualified"])
    audit(tournament, "advance", actor, stage=stage.pk, qualifiers=qualifiers)
    stage_format = format_of(stage)
    nxt = stage_format.following(stage, qualifiers, tournament)
    if nxt is None:  # the final, or a single survivor
        Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
        audit(tournament, "finish", actor)
        tournament_finished.send(sender=Tournament, tournament=tournament)  # the rating lists take its games
        return None
    if following is not None:  # held while a correction reopened this stage: it takes the qualifiers now
        redraw(following, qualifiers, [], [], actor)
        following.refresh_from_db()
        return following
    options: dict[str, Any] = {**stage_format.next_stage_options(stage), "entries": qualifiers}
    return Stage.objects.create(
        tournament=tournament, order=stage.order + 1, name=nxt.name, kind=nxt.kind, options=options
    )
