"""Fair play's API for players: a report of an opponent, and the game page's note that it lost the focus during
the player's own turn (static/js/game.js)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from fairplay import services
from games.access import player_of
from games.serializers import validated
from games.services import GameError


class FairplayReportSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField()
    note = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")


class FocusLostSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField()
    ply = serializers.IntegerField(min_value=0, max_value=1000)


class FairplayViewSet(viewsets.GenericViewSet[Any]):
    """A player's part in fair play."""

    permission_classes = [IsAuthenticated]
    serializer_class = FairplayReportSerializer

    def _player(self, request: Request) -> Any:
        player = player_of(request.user)
        if player is None:
            raise GameError("not_your_game", _("Only a player can do this."), 403)
        return player

    @extend_schema(request=FairplayReportSerializer, responses={201: dict})
    @action(detail=False, methods=["post"])
    def report(self, request: Request) -> Response:
        """Report the opponent of one of your finished online games (three a day, once a game): it adds to a
        case the referees already have, it never opens one."""
        data = validated(FairplayReportSerializer, request.data)
        found = services.report(game_id=data["game"], reporter=self._player(request), note=data["note"])
        return Response({"game": found.game_id, "reported": found.reported_id}, status=201)

    @extend_schema(request=FocusLostSerializer, responses={200: dict})
    @action(detail=False, methods=["post"], url_path="focus")
    def focus(self, request: Request) -> Response:
        """The game page lost the focus during your own turn (kept once a turn; anything else ignored)."""
        data = validated(FocusLostSerializer, request.data)
        kept = services.focus_lost(game_id=data["game"], player=self._player(request), ply=data["ply"])
        return Response({"kept": kept})
