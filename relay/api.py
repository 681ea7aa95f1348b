"""The relay's API, by game id: the record as the viewer may see it (the public after the stage's delay), and
for the game's referees and organizers the entries, corrections and the lease; a stage's publish delay for
its organizer."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from games.access import drafts_hidden, require_organizer, visible_games
from games.exports import export_plain, export_rif
from games.models import Game
from games.serializers import validated
from relay import services
from tournament.models import Stage


class TableClockSerializer(serializers.Serializer[Any]):
    black_ms = serializers.IntegerField(required=False, min_value=0, max_value=86_400_000)
    white_ms = serializers.IntegerField(required=False, min_value=0, max_value=86_400_000)


class RelayEntrySerializer(serializers.Serializer[Any]):
    ply = serializers.IntegerField(min_value=0, max_value=1000, help_text="the actions already recorded")
    action = serializers.CharField(max_length=200, help_text="place h8, swap, no-swap, offer g8 j11, choose g8 …")
    clock = TableClockSerializer(required=False, help_text="the table clock's readings, typed")
    takeover = serializers.BooleanField(required=False, default=False, help_text="take the board's lease over")


class RelayReplaceSerializer(serializers.Serializer[Any]):
    from_ply = serializers.IntegerField(min_value=1, max_value=1000)
    actions = serializers.ListField(child=serializers.CharField(max_length=200), max_length=500, allow_empty=True)
    reason = serializers.CharField(max_length=200)
    takeover = serializers.BooleanField(required=False, default=False)


class RelayDelaySerializer(serializers.Serializer[Any]):
    stage = serializers.IntegerField()
    minutes = serializers.IntegerField(min_value=0, max_value=services.MAX_DELAY)


class RelaySerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField()
    delay_minutes = serializers.IntegerField(help_text="how old the record shown is at most")
    as_of = serializers.DateTimeField()
    ply = serializers.IntegerField()
    moves = serializers.ListField(child=serializers.DictField())
    corrections = serializers.ListField(child=serializers.DictField())
    recorder = serializers.CharField(allow_null=True, help_text="referees and organizers: who records the board")
    position = serializers.DictField(help_text="stones in order, what the protocol expects next, the offers")


class RelayViewSet(viewsets.GenericViewSet[Game]):
    """A game at the board, relayed: ``GET`` the record (the public as it stood the stage's delay ago);
    ``enter`` one action naming the ply it expects; ``replace`` the record from a ply (an undo, a correction)."""

    serializer_class = RelaySerializer

    def get_queryset(self) -> Any:
        return visible_games(self.request.user)

    @extend_schema(responses=RelaySerializer)
    def retrieve(self, request: Request, pk: str) -> Response:
        return Response(services.relay_view(self.get_object(), request.user))

    @extend_schema(responses={(200, "text/plain"): str, (200, "application/xml"): str})
    @action(detail=True, methods=["get"])
    def record(self, request: Request, pk: str) -> HttpResponse:
        """The relayed record as the viewer may see it: the plain format, or RenjuNet's ``.rif``
        (``?as=rif``) with the opening's swap and offered fifths; read back by the game importer."""
        game = self.get_object()
        relayed = services.recorded(game, request.user)
        if request.query_params.get("as") == "rif":
            body, content_type, ext = (
                export_rif([game], timezone.now(), records={game.pk: relayed}),
                "application/xml",
                "rif",
            )
        else:
            body, content_type, ext = export_plain(game, relayed), "text/plain", "txt"
        response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="relay-{game.pk}.{ext}"'
        return response

    @extend_schema(request=RelayEntrySerializer, responses={200: RelaySerializer, 201: RelaySerializer})
    @action(detail=True, methods=["post"])
    def enter(self, request: Request, pk: str) -> Response:
        """Record one action as the next ply: 201 when new, 200 when the same action was already there; 409 for
        a different action at that ply (``conflict``), a ply ahead of the record (``stale_ply``), or a board
        another recorder holds (``lease_held``; ``takeover`` to take it)."""
        game = self.get_object()
        data = validated(RelayEntrySerializer, request.data)
        _moves, new = services.relay_enter(
            game_id=game.pk,
            user=request.user,
            expected_ply=data["ply"],
            action=data["action"],
            clock=data.get("clock"),
            takeover=data["takeover"],
        )
        return Response(services.relay_view(game, request.user), status=201 if new else 200)

    @extend_schema(request=RelayReplaceSerializer, responses=RelaySerializer)
    @action(detail=True, methods=["post"])
    def replace(self, request: Request, pk: str) -> Response:
        """Replace the record from ``from_ply`` on (no actions: an undo), with a reason everyone sees."""
        game = self.get_object()
        data = validated(RelayReplaceSerializer, request.data)
        services.relay_replace(
            game_id=game.pk,
            user=request.user,
            from_ply=data["from_ply"],
            actions=data["actions"],
            reason=data["reason"],
            takeover=data["takeover"],
        )
        return Response(services.relay_view(game, request.user))

    @extend_schema(request=RelayDelaySerializer, responses={200: dict})
    @action(detail=False, methods=["post"])
    def delay(self, request: Request) -> Response:
        """A stage's publish delay (0–60 minutes), for its organizer."""
        data = validated(RelayDelaySerializer, request.data)
        stages = drafts_hidden(Stage.objects.select_related("tournament"), request.user, "tournament__")
        stage = get_object_or_404(stages, pk=data["stage"])
        require_organizer(request.user, stage.tournament)
        found = services.set_delay(stage=stage, minutes=data["minutes"])
        return Response({"stage": stage.pk, "minutes": found.minutes})
