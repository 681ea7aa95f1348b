"""Over-the-board results: reports, confirmations and disputes, referees' rulings, organizers' overrides."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from engine.records import RecordError, check_record
from games.enums import (
    DECISIVE_REASONS,
    DRAW_REASONS,
    EventKind,
    GameMode,
    GameResult,
    GameStatus,
    ReportStatus,
    ResultReason,
)
from games.messages import translate
from games.models import Game, Player, ResultReport
from games.services.base import GameError, lock_game, log_event, seat_of
from games.services.finish import check_correction, game_finish


def check_result(result: str, reason: str, record: str, game: Game) -> str:
    """Refuse an impossible (result, reason) pair or a record that contradicts it; return the record."""
    if result not in GameResult.values:
        raise GameError("bad_result", _("The result is black, white or draw."))
    if reason not in ResultReason.values:
        raise GameError("bad_result", _("Unknown reason %(reason)s.") % {"reason": reason})
    label = ResultReason(reason).label
    if result == GameResult.DRAW and reason not in DRAW_REASONS:
        raise GameError("bad_result", _("A game cannot be drawn by %(reason)s.") % {"reason": label})
    if result != GameResult.DRAW and reason not in DECISIVE_REASONS:
        raise GameError("bad_result", _("%(reason)s ends a game in a draw.") % {"reason": label})
    if reason == ResultReason.FORBIDDEN and result != GameResult.WHITE:
        raise GameError("bad_result", _("A forbidden move is a white win."))
    if not record.strip():
        return ""
    try:
        replay = check_record(record, game.rules, game.forbidden_mode, result, reason)
    except RecordError as exc:
        raise GameError("bad_record", translate(exc)) from None
    return " ".join(str(m) for m in replay.board.move_stack)


def _open_report(game: Game) -> ResultReport | None:
    return game.reports.select_for_update().filter(status__in=[ReportStatus.PENDING, ReportStatus.DISPUTED]).first()


def _otb_game(game_id: int) -> Game:
    game = lock_game(game_id)
    if game.mode != GameMode.OVER_THE_BOARD:
        raise GameError("online_game", _("An online game's result comes from its moves, not from a report."))
    if game.status == GameStatus.FINISHED:
        raise GameError("game_over", _("The game is over."), 409)
    return game


@transaction.atomic
def game_report_result(
    *,
    game_id: int,
    reporter: Player,
    result: str,
    reason: str,
    record: str = "",
    actor: Any = None,
    interface: str = "api",
) -> ResultReport:
    """A player reports an over-the-board result; the opponent confirms or disputes it.

    A player may replace their own pending report; while the opponent's
    report is open the player answers it instead.
    """
    game = _otb_game(game_id)
    seat_of(game, reporter)
    record = check_result(result, reason, record, game)
    open_report = _open_report(game)
    if open_report is not None:
        if open_report.reporter_id != reporter.pk:
            raise GameError("report_pending", _("Your opponent has reported a result: confirm or dispute it."), 409)
        if open_report.status == ReportStatus.DISPUTED:
            raise GameError("report_disputed", _("The result is disputed; the referee decides."), 409)
        open_report.status = ReportStatus.WITHDRAWN
        open_report.save(update_fields=["status"])
    report = ResultReport.objects.create(
        game=game, reporter=reporter, reported_by=actor, result=result, reason=reason, record=record
    )
    log_event(game, EventKind.REPORTED, actor, interface, report=report.pk, result=result, reason=reason, record=record)
    return report


def _answerable_report(game: Game, player: Player) -> ResultReport:
    seat_of(game, player)
    report = _open_report(game)
    if report is None or report.status != ReportStatus.PENDING:
        raise GameError("no_report", _("There is no reported result to answer."), 409)
    if report.reporter_id == player.pk:
        raise GameError("own_report", _("Your opponent must answer your report."), 403)
    return report


def _close_report(report: ResultReport, status: str, actor: Any, note: str = "") -> None:
    report.status = status
    report.answered_by = actor
    report.answered_at = timezone.now()
    report.note = note
    report.save(update_fields=["status", "answered_by", "answered_at", "note"])


@transaction.atomic
def game_confirm_result(*, game_id: int, player: Player, actor: Any = None, interface: str = "api") -> Game:
    """The opponent confirms the reported result: the game ends with it."""
    game = _otb_game(game_id)
    report = _answerable_report(game, player)
    _close_report(report, ReportStatus.CONFIRMED, actor)
    log_event(game, EventKind.CONFIRMED, actor, interface, report=report.pk)
    if report.record:
        Game.objects.filter(pk=game.pk).update(record_text=report.record)
    return game_finish(game=game, result=report.result, reason=report.reason, actor=actor, interface=interface)


@transaction.atomic
def game_dispute_result(
    *, game_id: int, player: Player, note: str = "", actor: Any = None, interface: str = "api"
) -> ResultReport:
    """The opponent disputes the reported result: the game's referees decide."""
    game = _otb_game(game_id)
    report = _answerable_report(game, player)
    report.status = ReportStatus.DISPUTED
    report.note = note[:500]
    report.save(update_fields=["status", "note"])
    log_event(
        game,
        EventKind.DISPUTED,
        actor,
        interface,
        report=report.pk,
        note=report.note,
        referees=list(game.referees.values_list("pk", flat=True)),
    )
    return report


@transaction.atomic
def game_rule(
    *,
    game_id: int,
    result: str,
    reason: str,
    note: str = "",
    record: str = "",
    actor: Any = None,
    interface: str = "api",
) -> Game:
    """A referee's ruling: settles an open report (or the game directly) and ends the game."""
    game = lock_game(game_id)
    if game.status == GameStatus.FINISHED:
        raise GameError("game_over", _("The game is over; only the organizer can correct its result."), 409)
    record = check_result(result, reason, record, game)
    report = _open_report(game)
    if report is not None:
        _close_report(report, ReportStatus.RULED, actor, note[:500])
    log_event(
        game, EventKind.RULED, actor, interface, result=result, reason=reason, note=note, report=report and report.pk
    )
    if record:
        Game.objects.filter(pk=game.pk).update(record_text=record)
    return game_finish(game=game, result=result, reason=reason, detail=note[:200], actor=actor, interface=interface)


@transaction.atomic
def game_override(
    *, game_id: int, result: str, reason: str, note: str, actor: Any = None, interface: str = "api"
) -> Game:
    """The organizer sets the result, finished or not, with a reason; the old one stays in the log. The apps
    above are asked first (:func:`~games.services.finish.check_correction`): a refusal writes nothing."""
    game = lock_game(game_id)
    if game.status == GameStatus.CANCELLED:
        raise GameError("game_cancelled", _("The game was cancelled; it has no result to correct."), 409)
    if not note.strip():
        raise GameError("reason_required", _("Say why the result is overridden."))
    check_result(result, reason, "", game)
    check_correction(game, result, reason)
    report = _open_report(game)
    if report is not None:
        _close_report(report, ReportStatus.OVERRIDDEN, actor, note[:500])
    return game_finish(
        game=game,
        result=result,
        reason=reason,
        detail=note[:200],
        actor=actor,
        interface=interface,
        correction=note[:500],
    )
