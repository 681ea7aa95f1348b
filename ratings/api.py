"""The ratings API: rating lists and their tables (filter by country, unit, activity), a player's
ratings with their history."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from ratings import selectors
from ratings.models import RatingList


class RatingListSerializer(serializers.ModelSerializer[RatingList]):
    class Meta:
        model = RatingList
        fields = ["id", "name", "method", "category", "organization", "provisional_games", "computed_at"]


class RatingRowSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    native_name = serializers.CharField()
    country = serializers.CharField()
    unit = serializers.CharField()
    rating = serializers.IntegerField()
    deviation = serializers.IntegerField()
    games = serializers.IntegerField()
    provisional = serializers.BooleanField()
    last_played = serializers.DateField(allow_null=True)


class RatingListViewSet(viewsets.ReadOnlyModelViewSet[RatingList]):
    """Rating lists (renju and gomoku, WHR as the RIF or Elo); anyone reads them."""

    queryset = RatingList.objects.all()
    serializer_class = RatingListSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter("country", str, required=False),
            OpenApiParameter("unit", str, required=False),
            OpenApiParameter("active", bool, required=False),
        ],
        responses=RatingRowSerializer(many=True),
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def table(self, request: Request, pk: str) -> Response:
        """The list's players by rating (at most 1,000), filtered by country, unit, activity."""
        rows = selectors.list_rows(
            self.get_object(),
            country=request.query_params.get("country", ""),
            unit=request.query_params.get("unit", ""),
            active=request.query_params.get("active", "") in ("1", "true"),
        )
        return Response(RatingRowSerializer(rows, many=True).data)
