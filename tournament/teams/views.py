"""Team pages: a team's roster and matches (public), the captain's lineup on the player's console, and the
organizer's teams page (enter a team: its players in standing order, one per line)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from games.access import may_organize, organizer_or_404, player_in
from games.models import Player
from games.parsing import whole
from games.services import GameError
from games.services.players import check_name
from tournament import services
from tournament.identity import player_for_entry
from tournament.models import Stage, Team, TeamMatch, TeamMember, Tournament
from tournament.pdf import pdf_response
from tournament.services import TournamentError
from tournament.services import rounds as round_cycle
from tournament.swiss import trf
from tournament.teams.export import team_trf
from tournament.teams.options import TeamOptions
from tournament.teams.selectors import team_and_match, team_rounds, team_stage, team_stage_of
from tournament.teams.services import (
    lineup_submit,
    planned_rounds,
    record_team_toss,
    standing_order,
    team_create,
)


def _viewer_team(request: HttpRequest, tournament: Tournament) -> Team | None:
    player = player_in(request.user, tournament.pk)
    if player is None:
        return None
    return Team.objects.filter(tournament=tournament, memberships__entry__player=player).first() or (
        Team.objects.filter(tournament=tournament, captain=player).first()
    )


def team_page(request: HttpRequest, pk: int, team_id: int) -> HttpResponse:
    """A team's players in standing order and its matches, board by board."""
    tournament, stage = _team_stage_for(request, pk)
    team = get_object_or_404(Team, pk=team_id, tournament=tournament)
    viewer = _viewer_team(request, tournament)
    rounds = [
        {
            "round": r["round"],
            "matches": [m for m in r["matches"] if team.pk in (m["home"]["id"], (m["away"] or {}).get("id"))],
        }
        for r in team_rounds(stage, viewer, organizer=may_organize(request.user, tournament))
    ]
    data = team_stage(stage)
    roster = next((t for t in data["teams"] if t["id"] == team.pk), None)
    row = next((r for r in data["standings"] if r["team"] == team.pk), None)
    context = {"tournament": tournament, "team": team, "roster": roster, "row": row, "rounds": rounds, "stage": stage}
    return render(request, "tournament/team.html", context)


def _team_stage_for(request: HttpRequest, pk: int) -> tuple[Tournament, Stage]:
    tournament = get_object_or_404(Tournament.objects.exclude(status=Tournament.Status.DRAFT), pk=pk)
    stage = team_stage_of(tournament)
    if stage is None:
        raise Http404
    return tournament, stage


def _round_context(request: HttpRequest, pk: int, number: int) -> dict[str, Any]:
    tournament, stage = _team_stage_for(request, pk)
    rounds = team_rounds(stage, _viewer_team(request, tournament), organizer=may_organize(request.user, tournament))
    rnd = next((r for r in rounds if r["round"] == number), None)
    if rnd is None:
        raise Http404
    return {"tournament": tournament, "stage": stage, "round": rnd, "boards": TeamOptions.of(stage).boards}


def team_round_sheet(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Printable: a round's team matches with their lineups board by board (as far as the asker may see
    them), board 1's toss, and a match sheet per team match for the results and the captains' signatures."""
    return render(request, "tournament/team_round.html", _round_context(request, pk, number))


def team_round_pdf(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    return pdf_response(
        request, "tournament/team_round.html", _round_context(request, pk, number), f"teams-{pk}-{number}.pdf"
    )


def team_trf_file(request: HttpRequest, pk: int) -> HttpResponse:
    """The team event as a TRF16 file for team tournaments (001 player lines, 013 team lines)."""
    tournament, stage = _team_stage_for(request, pk)
    meta = {
        "city": tournament.venue,
        "start": tournament.start_date.strftime("%Y/%m/%d") if tournament.start_date else "",
        "end": tournament.end_date.strftime("%Y/%m/%d") if tournament.end_date else "",
    }
    response = HttpResponse(trf.as_file(team_trf(stage, meta)), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="teams-{tournament.pk}.trf"'
    return response


def captain_lineups(player: Player | None, scope: set[int] | None = None) -> list[dict[str, Any]]:
    """The team matches whose lineup this player, as captain, may still send, with the choices per board (in
    the tournaments of ``scope`` only, when given: a private link's reach)."""
    if player is None:
        return []
    now = timezone.now()
    out = []
    teams = Team.objects.filter(captain=player).select_related("tournament")
    if scope is not None:
        teams = teams.filter(tournament_id__in=scope)
    for team in teams:
        open_matches = (
            TeamMatch.objects.filter(boards_made_at=None, stage__status=Stage.Status.RUNNING)
            .exclude(away=None)
            .filter(Q(home=team) | Q(away=team))
            .select_related("home", "away", "stage")
            .order_by("round")
        )
        for team_match in open_matches:
            if team_match.lineup_deadline is not None and team_match.lineup_deadline <= now:
                continue
            boards = TeamOptions.of(team_match.stage).boards
            members = list(
                TeamMember.objects.filter(team=team, entry__withdrawn=False)
                .select_related("entry__player")
                .order_by("order")
            )
            sent = team_match.lineups.filter(team=team).first()
            chosen = list(sent.entries) if sent else [*standing_order(team)[:boards]]
            chosen += [None] * (boards - len(chosen))
            out.append(
                {
                    "team": team,
                    "match": team_match,
                    "opponent": team_match.away if team_match.home_id == team.pk else team_match.home,
                    "members": members,
                    "boards": [{"number": b + 1, "chosen": chosen[b]} for b in range(boards)],
                    "sent": sent is not None,
                }
            )
    return out


@login_required
@require_POST
def lineup_post(request: HttpRequest, team_match_id: int) -> HttpResponse:
    """The captain's lineup form (a select per board); the answer comes back as a message on the console."""
    team_match = get_object_or_404(TeamMatch, pk=team_match_id)
    player = player_in(request.user, team_match.stage.tournament_id)
    team = Team.objects.filter(pk__in=[team_match.home_id, team_match.away_id], captain=player).first()
    if player is None or team is None:  # only a captain of one of the two teams has this form
        raise Http404
    boards = TeamOptions.of(team_match.stage).boards
    entries: list[int | None] = []
    for number in range(1, boards + 1):
        value = request.POST.get(f"board_{number}", "")
        entries.append(whole(value))
    try:
        lineup_submit(team_match=team_match, team=team, entries=entries, actor=request.user)
    except GameError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Lineup sent. The opponent sees it once both are in."))
    return redirect("player-console")


class TeamForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("team name"), max_length=60)
    players = forms.CharField(
        label=gettext_lazy("players, one per line, in standing order (name, unit, rating)"),
        widget=forms.Textarea(attrs={"rows": 6}),
    )


@login_required
def control_teams(request: HttpRequest, pk: int) -> HttpResponse:
    """The organizer's teams page: the teams entered, and a form to enter one."""
    tournament = get_object_or_404(Tournament, pk=pk)
    user = organizer_or_404(request, tournament)
    stage = team_stage_of(tournament)
    if stage is None:
        raise Http404
    action = request.POST.get("action", "team")
    if request.method == "POST" and action in ("pair", "close", "toss"):
        try:
            if action == "toss":
                _toss_post(request, stage, user)
            elif action == "pair":
                made = services.pair_next_round(stage=stage, actor=user)
                messages.success(request, _("Round paired: %(n)s boards called.") % {"n": len(made)})
            else:
                closed = round_cycle.close_lineups(stage=stage, actor=user)
                messages.success(request, _("Lineups closed: %(n)s team matches have their boards.") % {"n": closed})
        except GameError as exc:
            messages.error(request, exc.message)
        return redirect("control-teams", pk=pk)
    form = TeamForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():  # all or nothing: no players left behind by a refused team
                players = [
                    player_for_entry(actor=user, tournament=tournament, name=name, unit=unit, rating=rating)
                    for name, unit, rating in _player_lines(form.cleaned_data["players"])
                ]
                team_create(tournament=tournament, name=form.cleaned_data["name"], players=players, actor=user)
        except GameError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("Team %(name)s entered.") % {"name": form.cleaned_data["name"]})
            return redirect("control-teams", pk=pk)
    rounds = team_rounds(stage, organizer=True)
    context = {
        **team_stage(stage),
        "tournament": tournament,
        "stage": stage,
        "form": form,
        "current": rounds[-1] if rounds else None,
        "planned": planned_rounds(stage) if stage.status != Stage.Status.PENDING else 0,
    }
    return render(request, "tournament/team_control.html", context)


def _toss_post(request: HttpRequest, stage: Stage, user: Any) -> None:
    """猜先 for board 1, as the organizer saw it at the table: who grabbed, the other's guess, the count."""
    grabber, team_match = team_and_match(stage, request.POST.get("grabber"), request.POST.get("team_match"))
    count = _number(request.POST.get("count"))
    record_team_toss(
        team_match=team_match, grabber=grabber, guess=request.POST.get("guess", ""), count=count, actor=user
    )
    messages.success(request, _("Toss for board 1 recorded: %(match)s.") % {"match": str(team_match)})


def _number(text: str | None) -> int:
    return whole(text or "") or 0


def _player_lines(text: str) -> list[tuple[str, str, int | None]]:
    """``name, unit, rating`` per line (comma or tab; unit and rating optional), checked."""
    out = []
    for number, line in enumerate((line for line in text.splitlines() if line.strip()), start=1):
        cells = [c.strip() for c in line.replace("\t", ",").replace("，", ",").split(",")]
        name, unit = check_name(cells[0], cells[1] if len(cells) > 1 else "")
        rating_text = cells[2] if len(cells) > 2 else ""
        rating = whole(rating_text, 9)
        if rating_text and rating is None:
            raise TournamentError("bad_rating", _("Line %(n)s: the rating is a whole number.") % {"n": number})
        out.append((name, unit, rating))
    return out
