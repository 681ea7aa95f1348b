"""The organizer's control room: one page per tournament with what needs doing now — boards now and next,
disputes and claims waiting, the stage buttons (draw, start, advance, call the boards, publish),
withdrawals and result corrections — and a form to create a tournament with every setting chosen from a
list. Each button calls one service; refusals come back as messages in the organizer's language."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from engine.protocols import PROTOCOLS
from games.access import is_organizer, organizer_or_404
from games.clock import PRESETS as CLOCK_PRESETS
from games.enums import ClaimStatus, ForbiddenMode, GameMode, GameResult, Interface, ReportStatus, ResultReason
from games.messages import protocol_label, rules_label, time_control_label
from games.models import ForbiddenClaim, Game, ResultReport
from games.parsing import whole
from games.services import GameError
from games.services.arbiter import game_answer_arbiter, open_calls_for
from tournament import backup, services, staff
from tournament.checkin import check_in_round
from tournament.lan import client_address, from_this_machine
from tournament.models import CheckIn, Entry, Stage, Tournament, WithdrawalPolicy
from tournament.registration_views import public_url, qr
from tournament.round_control import ROUND_ACTIONS, rounds_payload
from tournament.selectors import schedule_context
from tournament.services.setup import FIRST_STAGE
from tournament.stage_formats import control_pages, format_for, format_of, panel_action_names
from tournament.withdrawals import entry_withdraw

logger = logging.getLogger(__name__)
RULE_SETS = ["freestyle", "standard", "renju", "renju-a"]


class TournamentForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Tournament name"), max_length=200)
    venue = forms.CharField(label=gettext_lazy("venue"), max_length=200, required=False)
    boards = forms.IntegerField(label=gettext_lazy("boards"), min_value=1, max_value=200, initial=6)
    rules = forms.ChoiceField(label=gettext_lazy("rule set"), choices=lambda: [(r, rules_label(r)) for r in RULE_SETS])
    protocol = forms.ChoiceField(
        label=gettext_lazy("opening protocol"), choices=lambda: [(p, protocol_label(p)) for p in PROTOCOLS]
    )
    forbidden_mode = forms.ChoiceField(label=gettext_lazy("forbidden moves"), choices=ForbiddenMode.choices)
    time_control = forms.ChoiceField(
        label=gettext_lazy("time control"), choices=lambda: [(name, time_control_label(name)) for name in CLOCK_PRESETS]
    )
    mode = forms.ChoiceField(label=gettext_lazy("how games are played"), choices=GameMode.choices)
    preset = forms.ChoiceField(
        label=gettext_lazy("format"),
        choices=[
            ("seed", gettext_lazy("groups, best-of-three rounds, a final (the seed's format)")),
            ("swiss", gettext_lazy("Swiss system")),
            ("double", gettext_lazy("double elimination (winners' and losers' brackets, best of three)")),
        ],
        initial="seed",
        required=False,
    )
    rounds = forms.IntegerField(
        label=gettext_lazy("Swiss rounds"), min_value=1, max_value=30, initial=7, required=False
    )
    rated = forms.BooleanField(
        label=gettext_lazy("Rated"),
        required=False,
        help_text=gettext_lazy("its games count for the rating lists of its rules (renju or gomoku) when it finishes"),
    )
    check_in = forms.ChoiceField(
        label=gettext_lazy("Check-in"), choices=CheckIn.choices, initial=CheckIn.OFF, required=False
    )


class OverrideForm(forms.Form):
    game = forms.IntegerField(label=gettext_lazy("Game number"), min_value=1)
    result = forms.ChoiceField(label=gettext_lazy("Result"), choices=GameResult.choices)
    reason = forms.ChoiceField(label=gettext_lazy("Reason"), choices=ResultReason.choices)
    note = forms.CharField(label=gettext_lazy("Why"), max_length=200)
    confirm = forms.BooleanField(
        label=gettext_lazy("If the next stage has started: void and re-make the matches this changes"),
        required=False,
    )


class WithdrawForm(forms.Form):
    entry = forms.ModelChoiceField(label=gettext_lazy("Player"), queryset=Entry.objects.none())
    policy = forms.ChoiceField(label=gettext_lazy("Remaining games"), choices=WithdrawalPolicy.choices)
    reason = forms.CharField(label=gettext_lazy("Why"), max_length=200)

    def __init__(self, tournament: Tournament, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["entry"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = tournament.entries.filter(withdrawn=False).select_related("player").order_by("player__name")


def organized(request: HttpRequest, pk: int) -> tuple[Any, Tournament]:
    """The signed-in organizer of tournament ``pk`` and the tournament; anyone else finds no such page."""
    tournament = get_object_or_404(Tournament, pk=pk)
    return organizer_or_404(request, tournament), tournament


def organized_tournaments(user: Any) -> Any:
    """The tournaments ``user`` runs: all for a site organizer, else those listing them."""
    if is_organizer(user):
        return Tournament.objects.all()
    return Tournament.objects.filter(organizers=user)


def may_create(user: Any) -> bool:
    return is_organizer(user) or bool(user.has_perm("tournament.add_tournament"))


@login_required
def control_home(request: HttpRequest) -> HttpResponse:
    user = organizer_or_404(request)
    form = TournamentForm(request.POST or None, initial={"forbidden_mode": "claim", "time_control": "quick"})
    if request.method == "POST" and not may_create(user):
        raise Http404
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        data["preset"] = data.get("preset") or "seed"
        rounds = data.pop("rounds", None) or 7
        first = format_for(FIRST_STAGE.get(data["preset"], "groups"))
        options = first.default_options(rounds)
        data["check_in"] = data.get("check_in") or CheckIn.OFF
        if data["check_in"] == CheckIn.EACH_ROUND and not first.absences_by_round:
            data["check_in"] = CheckIn.FIRST  # a format without rounds to check in for one by one
        tournament = services.tournament_create(actor=user, stage_options=options, **data)
        messages.success(request, _("Tournament created."))
        return redirect("control-room", pk=tournament.pk)
    tournaments = organized_tournaments(user).order_by("-id")[:50]
    context = {
        "form": form if may_create(user) else None,
        "tournaments": tournaments,
        "may_backup": may_backup(request, user),
    }
    return render(request, "tournament/control_home.html", context)


@login_required
def control_room(request: HttpRequest, pk: int) -> HttpResponse:
    user, tournament = organized(request, pk)
    screen = reverse("tournament-screen", args=[tournament.pk])
    hall_url = public_url(request, reverse("tournament", args=[tournament.pk]))
    context = {
        "tournament": tournament,
        "entries": tournament.entries.filter(withdrawn=False).count(),
        "check_in_round": check_in_round(tournament),
        "hall_url": hall_url,
        "hall_qr": qr(hall_url),
        "venue": settings.VENUE,
        "may_backup": may_backup(request, user),
        "screen_url": screen,
        "stages": tournament.stages.order_by("order"),
        **waiting_context(tournament),
        "override_form": OverrideForm(),
        "withdraw_form": WithdrawForm(tournament),
        "stage_actions": [(name, label) for name, label in ACTION_LABELS.items()],
        "panels": panels(tournament, user),
        "format_pages": control_pages(tournament),
        "games_choices": [
            (1, gettext_lazy("one game")),
            (2, gettext_lazy("two games, roles swapped")),
            (3, gettext_lazy("best of three")),
        ],
        **schedule_context(tournament),
    }
    return render(request, "tournament/control_room.html", context)


def panels(tournament: Tournament, viewer: Any) -> list[dict[str, Any]]:
    """Each stage's own panel in the control room: the one its format declares, or the common round cycle's
    for a format paired round by round."""
    found = []
    for stage in tournament.stages.order_by("order"):
        stage_format = format_of(stage)
        if stage_format.control_part:
            context = stage_format.control_context(stage, viewer)
            found.append({"part": stage_format.control_part, "context": context})
        elif stage_format.round_by_round:
            found.append({"part": "tournament/_rounds_control.html", "context": rounds_payload(stage, viewer=viewer)})
    return found


def waiting_context(tournament: Tournament) -> dict[str, Any]:
    """What waits for the organizer: arbiter calls, disputed results, open 禁手 claims."""
    return {
        "tournament": tournament,
        "arbiter_calls": open_calls_for(Game.objects.filter(match_game__match__tournament=tournament)),
        "disputes": ResultReport.objects.filter(
            game__match_game__match__tournament=tournament, status=ReportStatus.DISPUTED
        ).select_related("game"),
        "claims": ForbiddenClaim.objects.filter(
            game__match_game__match__tournament=tournament, status=ClaimStatus.OPEN
        ).select_related("game"),
        "held_for_room": services.held_for_room(tournament),
        "capacity": settings.ONLINE_CAPACITY,
    }


def _loopback(request: HttpRequest) -> bool:
    """The request comes from the server's own machine (the operator at the control-room laptop)."""
    return from_this_machine(request)


def may_backup(request: HttpRequest, user: Any) -> bool:
    """A superuser anywhere; a site organizer at the server's own machine."""
    return bool(user.is_superuser or (is_organizer(user) and _loopback(request)))


@login_required
def backup_download(request: HttpRequest) -> HttpResponse | FileResponse:
    """A fresh backup of the whole database (kept in var/backups/ with the others), as a download.

    It holds every tournament and every account's password hash, so it is a superuser's (or a site
    organizer's at the server's own keyboard), asked for by a POST (a link or an image elsewhere cannot
    start it), and logged. Sessions and API tokens are left out of the copy (tournament.backup)."""
    user = organizer_or_404(request)
    if not may_backup(request, user):
        raise Http404
    if request.method != "POST":
        return redirect("control-home")
    try:
        path = backup.backup()
    except backup.BackupError as exc:
        messages.error(request, str(exc))
        return redirect("control-home")
    logger.warning(
        "backup downloaded by %s (#%s) from %s: %s", user.username, user.pk, client_address(request), path.name
    )
    backup.rotate(settings.BACKUP_KEEP)
    if path.stat().st_size <= 32 * 1024 * 1024:
        response = HttpResponse(path.read_bytes(), content_type="application/octet-stream")
        response["Content-Disposition"] = f'attachment; filename="{path.name}"'
        return response
    return FileResponse(open(path, "rb"), as_attachment=True, filename=path.name)  # noqa: SIM115 - closed by Django


@login_required
def control_waiting(request: HttpRequest, pk: int) -> HttpResponse:
    """The control room's "waiting for you" part, fetched when the tournament changes (or polled)."""
    _user, tournament = organized(request, pk)
    return render(request, "tournament/_control_waiting.html", {**waiting_context(tournament), "live_fragment": True})


@login_required
def control_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """One button of the control room: the service runs, and its answer (or refusal) becomes a message."""
    user, tournament = organized(request, pk)
    if request.method != "POST":
        return redirect("control-room", pk=pk)
    stage = None
    if action in STAGE_ACTIONS or action in ROUND_ACTIONS or action in panel_action_names():
        stage_id = whole(request.POST.get("stage", ""))
        if stage_id is None:
            raise Http404
        stage = get_object_or_404(Stage, pk=stage_id, tournament=tournament)
    try:
        done = _run(action, request, tournament, stage, user)
    except (GameError, ValueError) as exc:
        messages.error(request, getattr(exc, "message", str(exc)))
    else:
        if done:
            messages.success(request, done)
    held = services.held_for_room(tournament)
    if held:
        messages.warning(request, held_message(held))
    return redirect("control-room", pk=pk)


def held_message(held: int) -> str:
    """What the organizer is told while some games wait for room on the server."""
    return ngettext(
        "%(n)s game waits for room on the server: it runs at most %(capacity)s online games at once, and the "
        "waiting games start as others end.",
        "%(n)s games wait for room on the server: it runs at most %(capacity)s online games at once, and the "
        "waiting games start as others end.",
        held,
    ) % {"n": held, "capacity": settings.ONLINE_CAPACITY}


def _run(action: str, request: HttpRequest, tournament: Tournament, stage: Stage | None, user: Any) -> str:
    panel = {**ROUND_ACTIONS, **format_of(stage).panel_actions} if stage is not None else {}
    if stage is not None and action in panel:
        return panel[action](stage, request.POST, user)
    if stage is not None:
        STAGE_ACTIONS[action](stage, user)
        return _("Done: %(what)s, %(stage)s.") % {"what": ACTION_LABELS[action], "stage": stage.name}
    if action == "publish":
        services.publish(tournament=tournament, actor=user)
        return _("Published.")
    if action == "call":
        called = services.call_matches(tournament=tournament)
        return _("%(n)s matches called to the boards.") % {"n": len(called)}
    if action == "override":
        form = OverrideForm(request.POST)
        if not form.is_valid():
            return _("Give the game, the result, the reason and why.")
        data = form.cleaned_data
        game = Game.objects.filter(pk=data["game"], match_game__match__tournament=tournament).first()
        if game is None:
            raise GameError("no_game", _("There is no such game in this tournament."), 404)
        services.correct_result(
            game_id=game.pk,
            result=data["result"],
            reason=data["reason"],
            note=data["note"],
            confirm=data["confirm"],
            actor=user,
            interface=Interface.WEB,
        )
        return _("Result of game %(n)s corrected.") % {"n": game.pk}
    if action == "answer-call":
        call_id = whole(request.POST.get("call", ""))
        if call_id is None:
            raise Http404
        call = game_answer_arbiter(
            call_id=call_id,
            actor=user,
            answer=request.POST.get("answer", ""),
            justified=request.POST.get("justified") == "1",
        )
        return _("The call from board %(board)s is answered; its clocks run again.") % {"board": call.board or "—"}
    if action == "staff-add":
        added = staff.staff_add(
            tournament=tournament,
            username=request.POST.get("username", ""),
            role=request.POST.get("role", ""),
            actor=user,
        )
        return _("%(name)s added.") % {"name": added.get_username()}
    if action == "staff-remove":
        user_id = whole(request.POST.get("user", ""))
        if user_id is None:
            raise Http404
        staff.staff_remove(tournament=tournament, user_id=user_id, role=request.POST.get("role", ""), actor=user)
        return _("Removed.")
    if action == "withdraw":
        withdraw = WithdrawForm(tournament, request.POST)
        if not withdraw.is_valid():
            return _("Choose the player, what happens to their games, and why.")
        entry_withdraw(
            entry=withdraw.cleaned_data["entry"],
            policy=withdraw.cleaned_data["policy"],
            reason=withdraw.cleaned_data["reason"],
            actor=user,
        )
        return _("%(name)s withdrawn.") % {"name": withdraw.cleaned_data["entry"].player.name}
    raise Http404


STAGE_ACTIONS: dict[str, Callable[[Stage, Any], Any]] = {
    "draw": lambda stage, user: services.draw_stage(stage=stage, actor=user),
    "start": lambda stage, user: services.start_stage(stage=stage, actor=user),
    "advance": lambda stage, user: services.advance(stage=stage, actor=user),
}
ACTION_LABELS = {
    "draw": gettext_lazy("the draw"),
    "start": gettext_lazy("start"),
    "advance": gettext_lazy("advance to the next stage"),
}
