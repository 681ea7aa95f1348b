"""The team-event API, by stage id: the teams, standings, rounds and board prizes for anyone (a lineup shown
to the other team only once both are in or the deadline passes); a team entered by the organizer; a lineup
sent by the team's captain or the organizer."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from games.access import drafts_hidden, may_organize, player_in, require_organizer
from games.serializers import validated
from tournament.errors import after_round
from tournament.identity import player_for_entry
from tournament.models import Stage, Team
from tournament.services import TournamentError
from tournament.teams.selectors import team_and_match, team_rounds, team_stage
from tournament.teams.services import lineup_submit, record_extra_game, record_team_toss, team_create


class TeamPlayerSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=50)
    unit = serializers.CharField(max_length=60, required=False, default="")
    rating = serializers.IntegerField(required=False, min_value=0, max_value=4000)


class TeamSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=60)
    players = TeamPlayerSerializer(many=True, help_text="in standing order: the boards, then the reserves")
    captain = serializers.IntegerField(required=False, min_value=0, help_text="index in players (default 0)")


class LineupSerializer(serializers.Serializer[Any]):
    team_match = serializers.IntegerField()
    team = serializers.IntegerField()
    entries = serializers.ListField(
        child=serializers.IntegerField(allow_null=True), help_text="an entry id, or null, for each board"
    )


class TeamTossSerializer(serializers.Serializer[Any]):
    team_match = serializers.IntegerField()
    grabber = serializers.IntegerField(help_text="the team whose captain grabbed the stones")
    guess = serializers.ChoiceField(choices=["odd", "even"], help_text="the other captain's guess")
    count = serializers.IntegerField(min_value=1, max_value=361)


class ExtraGameSerializer(serializers.Serializer[Any]):
    order = serializers.ListField(
        child=serializers.IntegerField(), min_length=2, help_text="the tied teams' ids, the extra game's winner first"
    )


class TeamStageSerializer(serializers.Serializer[Any]):
    stage = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=Stage.Status.choices)
    options = serializers.DictField()
    teams = serializers.ListField(child=serializers.DictField())
    standings = serializers.ListField(child=serializers.DictField(), help_text="rank, points, tie-breaks")
    board_prizes = serializers.DictField(help_text="board -> the best three on it")
    rounds = serializers.ListField(child=serializers.DictField(), help_text="team matches, lineups, boards")


class TeamEventViewSet(viewsets.GenericViewSet[Stage]):
    """Team stages, by stage id."""

    queryset = Stage.objects.filter(kind=Stage.Kind.TEAMS).select_related("tournament")

    def get_queryset(self) -> Any:
        """A draft tournament's stages are its organizers' own."""
        return drafts_hidden(super().get_queryset(), self.request.user, "tournament__")

    serializer_class = TeamStageSerializer

    def _payload(self, stage: Stage, after: int | None = None) -> dict[str, Any]:
        user = self.request.user
        player = player_in(user, stage.tournament_id)
        viewer = Team.objects.filter(tournament_id=stage.tournament_id, captain=player).first() if player else None
        if viewer is None and player is not None:
            viewer = Team.objects.filter(memberships__entry__player=player, tournament_id=stage.tournament_id).first()
        return {
            **team_stage(stage, after),
            "rounds": team_rounds(stage, viewer, organizer=may_organize(user, stage.tournament)),
        }

    @extend_schema(responses=TeamStageSerializer)
    def retrieve(self, request: Request, pk: str) -> Response:
        """The teams, the standings (``?after_round=N``: as they stood after round N), every round's matches
        with their boards (match and game ids), the board prizes."""
        return Response(self._payload(self.get_object(), after_round(request.query_params)))

    @extend_schema(request=TeamSerializer, responses={201: TeamStageSerializer})
    @action(detail=True, methods=["post"])
    def team(self, request: Request, pk: str) -> Response:
        """Enter a team (before the draw): its players in standing order, made or found by name and unit."""
        stage = self.get_object()
        require_organizer(request.user, stage.tournament)
        data = validated(TeamSerializer, request.data)
        with transaction.atomic():  # a refused team leaves no players behind
            players = [
                player_for_entry(
                    actor=request.user,
                    tournament=stage.tournament,
                    name=p["name"],
                    unit=p.get("unit", ""),
                    rating=p.get("rating"),
                )
                for p in data["players"]
            ]
            captain = data.get("captain", 0)
            if captain >= len(players):
                raise TournamentError("bad_captain", _("The captain must be one of the team's players."))
            team_create(
                tournament=stage.tournament,
                name=data["name"],
                players=players,
                captain=players[captain],
                actor=request.user,
            )
        return Response(self._payload(stage), status=201)

    @extend_schema(request=LineupSerializer, responses=TeamStageSerializer)
    @action(detail=True, methods=["post"])
    def lineup(self, request: Request, pk: str) -> Response:
        """The captain's lineup for a team match (or the organizer's for any team)."""
        stage = self.get_object()
        data = validated(LineupSerializer, request.data)
        team, team_match = team_and_match(stage, data["team"], data["team_match"])
        player = player_in(request.user, stage.tournament_id)
        if not may_organize(request.user, stage.tournament) and (player is None or team.captain_id != player.pk):
            raise TournamentError("not_captain", _("Only the team's captain or the organizer sends its lineup."), 403)
        lineup_submit(team_match=team_match, team=team, entries=data["entries"], actor=request.user)
        return Response(self._payload(stage))

    @extend_schema(request=TeamTossSerializer, responses=TeamStageSerializer)
    @action(detail=True, methods=["post"])
    def toss(self, request: Request, pk: str) -> Response:
        """猜先 for board 1 of a team match, recorded by the organizer before the boards are made."""
        stage = self.get_object()
        require_organizer(request.user, stage.tournament)
        data = validated(TeamTossSerializer, request.data)
        team, team_match = team_and_match(stage, data["grabber"], data["team_match"])
        record_team_toss(
            team_match=team_match, grabber=team, guess=data["guess"], count=data["count"], actor=request.user
        )
        return Response(self._payload(stage))

    @extend_schema(request=ExtraGameSerializer, responses=TeamStageSerializer)
    @action(detail=True, methods=["post"], url_path="extra-game")
    def extra_game(self, request: Request, pk: str) -> Response:
        """The outcome of the extra game that settles a complete tie (``complete_tie`` "extra_game")."""
        stage = self.get_object()
        require_organizer(request.user, stage.tournament)
        data = validated(ExtraGameSerializer, request.data)
        record_extra_game(stage=stage, order=data["order"], actor=request.user)
        stage.refresh_from_db()
        return Response(self._payload(stage))
