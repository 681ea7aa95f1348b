"""The API of the one round cycle, by stage id, for every round-by-round format (group rounds, the Swiss
system, team events): a stage's rounds for anyone who may see the tournament; pair, edit, publish, unpair and
close the lineups (a team event) for its organizer."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from games.access import drafts_hidden, require_organizer
from games.serializers import validated
from tournament.models import Stage
from tournament.round_control import pair, rounds_payload
from tournament.services import rounds as services


class RoundSerializer(serializers.Serializer[Any]):
    round = serializers.IntegerField(min_value=1, max_value=1000)


class EditSerializer(serializers.Serializer[Any]):
    round = serializers.IntegerField(min_value=1, max_value=1000)
    action = serializers.ChoiceField(choices=["swap", "flip"])
    first = serializers.IntegerField(help_text="an entry id on the round's boards")
    second = serializers.IntegerField(required=False, help_text="swap: the other entry")
    reason = serializers.CharField(max_length=500)


class RoundsSerializer(serializers.Serializer[Any]):
    stage = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=Stage.Status.choices)
    rounds = serializers.ListField(
        child=serializers.DictField(), help_text="newest first: status, boards, the program's boards, edits"
    )
    draft = serializers.IntegerField(allow_null=True, help_text="the round paired and not yet published")
    next_round = serializers.IntegerField(allow_null=True, help_text="the round the next pairing makes")
    failure = serializers.CharField(help_text="why the last pairing in the background was refused (organizers)")
    pairing = serializers.BooleanField(required=False, help_text="202: the round is being paired in the background")


class RoundsViewSet(viewsets.GenericViewSet[Stage]):
    """A round-by-round stage's rounds, by stage id: the boards pair entries, or a team event's teams (the
    names say which); a stage paired at its draw is refused with 409."""

    queryset = Stage.objects.select_related("tournament")
    serializer_class = RoundsSerializer

    def get_queryset(self) -> Any:
        """A draft tournament's stages are its organizers' own."""
        return drafts_hidden(super().get_queryset(), self.request.user, "tournament__")

    def _stage(self, request: Request) -> Stage:
        stage = self.get_object()
        require_organizer(request.user, stage.tournament)
        return stage

    @extend_schema(responses=RoundsSerializer)
    def retrieve(self, request: Request, pk: str) -> Response:
        """The stage's rounds; a draft only for its organizer."""
        stage = self.get_object()
        return Response(rounds_payload(stage, viewer=request.user))

    @extend_schema(request=None, responses={201: RoundsSerializer, 202: RoundsSerializer})
    @action(detail=True, methods=["post"])
    def pair(self, request: Request, pk: str) -> Response:
        """Pair the next round as a draft (the previous one must be finished). A large Swiss field (more
        than ``SWISS_SYNC_PLAYERS``) is paired by a background task: 202, and the draft appears when ready."""
        stage = self._stage(request)
        if pair(stage, request.user) is None:
            return Response({**rounds_payload(stage, viewer=request.user), "pairing": True}, status=202)
        return Response(rounds_payload(stage, viewer=request.user), status=201)

    @extend_schema(request=EditSerializer, responses=RoundsSerializer)
    @action(detail=True, methods=["post"])
    def edit(self, request: Request, pk: str) -> Response:
        """Swap two players or flip a board's roles in the draft, with a reason; the warnings are kept."""
        stage = self._stage(request)
        data = validated(EditSerializer, request.data)
        services.round_edit(
            stage=stage,
            number=data["round"],
            action=data["action"],
            first=data["first"],
            second=data.get("second"),
            reason=data["reason"],
            actor=request.user,
        )
        return Response(rounds_payload(stage, viewer=request.user))

    @extend_schema(request=RoundSerializer, responses=RoundsSerializer)
    @action(detail=True, methods=["post"])
    def publish(self, request: Request, pk: str) -> Response:
        """Publish the draft: its matches are made and called to boards."""
        stage = self._stage(request)
        services.round_publish(
            stage=stage, number=validated(RoundSerializer, request.data)["round"], actor=request.user
        )
        return Response(rounds_payload(stage, viewer=request.user))

    @extend_schema(request=RoundSerializer, responses=RoundsSerializer)
    @action(detail=True, methods=["post"])
    def unpair(self, request: Request, pk: str) -> Response:
        """Take back the latest round's pairing before any of its games has begun."""
        stage = self._stage(request)
        services.round_unpair(stage=stage, number=validated(RoundSerializer, request.data)["round"], actor=request.user)
        return Response(rounds_payload(stage, viewer=request.user))

    @extend_schema(request=None, responses=RoundsSerializer)
    @action(detail=True, methods=["post"], url_path="close-lineups")
    def close_lineups(self, request: Request, pk: str) -> Response:
        """A team event: close the current round's lineups now; each team match gets its boards, from the
        standing order where a lineup is missing (409 ``no_lineups`` for a stage without lineups)."""
        stage = self._stage(request)
        services.close_lineups(stage=stage, actor=request.user)
        return Response(rounds_payload(stage, viewer=request.user))
