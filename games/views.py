"""Game pages: the live board for everyone, with the controls of whoever may act,
and the referee's claim tool."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from engine.protocols import PROTOCOLS
from games.access import acting_player, concerns, event_of, may_rule, player_of, seated_player, visible_games
from games.clock import PRESETS
from games.enums import REPORTABLE_REASONS, GameMode, GameResult, GameStatus, Interface, ResultReason
from games.messages import protocol_label, rules_label, time_control_label
from games.models import Engine, Game, GameEvent
from games.services import GameError
from games.services.arbiter import game_answer_arbiter, game_call_arbiter
from games.services.practice import practice_start


def labels() -> dict[str, str]:
    """Words the page scripts show, in the request's language."""
    return {
        "black": _("Black"),
        "white": _("White"),
        "draw": _("Draw"),
        "your_turn": _("Your turn"),
        "waiting": _("Waiting for the opponent"),
        "place": _("Click a point (or use the arrow keys and Enter) to place a stone."),
        "pass": _("Pass"),
        "resign": _("Resign"),
        "confirm_resign": _("Resign this game?"),
        "swap": _("Swap colours"),
        "no_swap": _("Keep colours"),
        "declare": _("Declare"),
        "declare_help": _("How many fifth-move offers will you make? The table's verdict for each number:"),
        "offer": _("Offer these points"),
        "offer_help": _("Click %(n)s points for the fifth move, then offer them."),
        "choose_help": _("Click one of the offered points to keep it."),
        "color_help": _("Choose your colour."),
        "swap2_help": _("Choose a colour, or place two more stones."),
        "branch": _("Choose"),
        "draw_offer": _("Offer a draw"),
        "accept": _("Accept the draw"),
        "decline": _("Decline"),
        "offer_pending": _("A draw offer is waiting for an answer."),
        "claim": _("Claim a forbidden move (move %(n)s)"),
        "finished": _("Finished"),
        "main": _("main time"),
        "overtime": _("overtime"),
        "stones_left": _("stones left"),
        "offers_left": _("draw offers left"),
        "paused": _("paused"),
        "turn": _("this move"),
        "show_forbidden": _("Show black's forbidden points"),
        "move": _("Move"),
        "report": _("Report the result"),
        "confirm": _("Confirm"),
        "dispute": _("Dispute"),
        "opponent_reported": _("Your opponent reported:"),
        "you_reported": _("You reported the result; waiting for your opponent to confirm it:"),
        "pause": _("Pause"),
        "resume": _("Resume"),
        "add_time": _("Add 30 s to the turn"),
        "rule": _("Rule"),
        "verdict": _("Verdict"),
        "upheld": _("upheld"),
        "rejected": _("rejected"),
        "late": _("too late"),
        "double-three": _("double-three (三三)"),
        "double-four": _("double-four (四四)"),
        "overline": _("overline (长连)"),
        "cursor": _("Cursor"),
        "empty": _("empty"),
        "board_label": _("Board. Arrow keys move the cursor, Enter or Space places a stone."),
        "selected": _("selected"),
        "claimed_point": _("Now click the claimed stone."),
        "record_mode": _("Click the moves of the record in order, or paste them."),
        "finished_as": _("Finished: %(result)s"),
        "black_result": _("Black wins"),
        "white_result": _("White wins"),
        "draw_result": _("Draw"),
        "cancelled": _("Cancelled"),
        "over_the_board": _("Played over the board: the result is reported here."),
        "you_play_black": _("You play black"),
        "you_play_white": _("You play white"),
        "pass_move": _("pass"),
        "swapped": _("colours swapped"),
        "not_swapped": _("colours kept"),
        "declared": _("%(n)s fifth-move offers declared"),
        "offered": _("fifth move offered on %(points)s"),
        "colour_chosen": _("chose %(colour)s"),
        "branch_chosen": _("chose option %(n)s"),
        "arbiter_call": _("Call the arbiter"),
        "arbiter_note": _("What is it about? (optional)"),
        "arbiter_called": _("An arbiter has been called to this board."),
        "arbiter_called_paused": _("An arbiter has been called: the clocks are stopped until a referee comes."),
        "arbiter_called_by": _("%(name)s called an arbiter to this board."),
        "arbiter_answer": _("Answered: resume the game"),
        "analysis_none": _("This game has not been analysed yet."),
        "analysis_pending": _("The engine is analysing the game…"),
        "analysis_done": _("Marked moves below: step to one to see the winning line."),
        "analysis_clean": _("No forced win was missed or allowed (within the search limits)."),
        "analysis_failed": _("The analysis failed; ask again."),
        "missed_win": _("missed a forced win"),
        "allowed_win": _("let the opponent force a win"),
        "engine_plays": _("%(engine)s would play %(point)s here."),
        "engine_agrees": _("%(engine)s would play the same move."),
        "engine_builtin": _("Built-in solver only"),
    }


def _analysers(game: Game) -> list[dict[str, Any]]:
    """The registered engines that may analyse ``game`` (enabled, and playing its rules)."""
    return [{"id": e.pk, "name": e.name} for e in Engine.objects.filter(enabled=True) if game.rules in e.rules]


def game_page(request: HttpRequest, pk: int) -> HttpResponse:
    game = get_object_or_404(visible_games(request.user).select_related("player_one", "player_two"), pk=pk)
    player = seated_player(request.user, game)
    seat = None
    if player is not None:
        seat = 1 if player.pk == game.player_one_id else 2 if player.pk == game.player_two_id else None
    config = {
        "game": game.pk,
        "seat": seat,
        "player": player.pk if player else None,
        "referee": may_rule(request.user, game),
        "arbiter": not game.practice,  # a practice game against the computer has no arbiter to call
        # a game of an event is screened for fair play, and its page says when it loses the focus on your turn
        "focus_signal": game.mode == GameMode.ONLINE and event_of(game) is not None,
        "can_analyse": concerns(request.user, game),
        "engines": _analysers(game) if concerns(request.user, game) else [],
        "players": {"1": str(game.player_one), "2": str(game.player_two)},
        "ids": {"1": game.player_one_id, "2": game.player_two_id},
        "labels": labels(),
        "socket_moves": settings.LIVE_MOVES,  # stones and passes on the game's socket while it is open
        "results": [{"value": v, "label": str(lbl)} for v, lbl in GameResult.choices],
        "reasons": [{"value": r.value, "label": str(r.label)} for r in REPORTABLE_REASONS],
    }
    corrections = list(game.events.filter(kind=GameEvent.Kind.CORRECTED).order_by("id").values_list("data", flat=True))
    context = {
        "game": game,
        "config": config,
        "corrections": corrections,
        "cancelled": game.status == GameStatus.CANCELLED,
    }
    return render(request, "games/game.html", context)


LEVEL_NAMES = {
    1: gettext_lazy("1 · beginner"),
    2: gettext_lazy("2 · novice"),
    3: gettext_lazy("3 · club player"),
    4: gettext_lazy("4 · expert"),
    5: gettext_lazy("5 · master"),
}


def practice_options() -> dict[str, Any]:
    """The choices of the console's practice form."""
    return {
        "levels": list(LEVEL_NAMES.items()),
        "rules": [(r, rules_label(r)) for r in ("renju", "freestyle", "standard")],
        "protocols": [(p, protocol_label(p)) for p in PROTOCOLS],
        "time_controls": [(name, time_control_label(name)) for name in PRESETS],
        "engines": [(e.pk, e.name) for e in Engine.objects.filter(enabled=True).order_by("name")],
    }


@login_required
@require_POST
def practice(request: HttpRequest) -> HttpResponse:
    """Start a practice game against the computer from the console's form, then open it."""
    player = player_of(request.user)
    if player is None:
        raise Http404
    form = request.POST
    engine = form.get("engine") or None
    if engine is not None and not engine.isdigit():
        messages.error(request, _("There is no such engine, or it is switched off."), extra_tags="practice")
        return redirect("player-console")
    try:
        game = practice_start(
            player=player,
            level=int(form.get("level", "3")),
            rules=form.get("rules", "renju"),
            protocol=form.get("protocol", "none"),
            time_control=form.get("time_control", "quick"),
            seat=int(form.get("seat", "1")),
            engine=int(engine) if engine is not None else None,
            actor=request.user,
            interface=Interface.WEB,
        )
    except (GameError, ValueError) as exc:
        messages.error(
            request,
            exc.message if isinstance(exc, GameError) else _("Choose a level and a seat."),
            extra_tags="practice",
        )
        return redirect("player-console")
    return redirect("game", pk=game.pk)


@login_required
def claim_tool(request: HttpRequest, pk: int) -> HttpResponse:
    game = get_object_or_404(visible_games(request.user), pk=pk)
    if not may_rule(request.user, game):
        raise Http404
    config: dict[str, Any] = {"game": game.pk, "labels": labels(), "record": game.record_text}
    return render(request, "games/claim.html", {"game": game, "config": config, "reasons": [r for r in ResultReason]})


def safe_next(request: HttpRequest, fallback: str) -> str:
    """The form's ``next`` when it is a path on this site, else ``fallback`` (never a redirect off-site)."""
    wanted = request.POST.get("next") or ""
    if wanted and url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return wanted
    return fallback


@login_required
@require_POST
def call_arbiter(request: HttpRequest, pk: int) -> HttpResponse:
    """The console's "call the arbiter" button for the player's game on a board."""
    player = player_of(request.user)
    if player is None:
        raise Http404
    try:
        acting_player(request.user, get_object_or_404(Game, pk=pk))  # the link's reach included
        game_call_arbiter(
            game_id=pk, player=player, note=request.POST.get("note", ""), actor=request.user, interface=Interface.WEB
        )
    except GameError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The arbiter has been called to your board."))
    return redirect(safe_next(request, "player-console"))


@login_required
@require_POST
def answer_call(request: HttpRequest, pk: int) -> HttpResponse:
    """A referee (or the organizer) answers an arbiter call: the game's clocks run again."""
    try:
        call = game_answer_arbiter(
            call_id=pk,
            actor=request.user,
            answer=request.POST.get("answer", ""),
            justified=request.POST.get("justified") == "1",
            interface=Interface.WEB,
        )
    except GameError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The call from board %(board)s is answered.") % {"board": call.board or "—"})
    return redirect("referee-console")
