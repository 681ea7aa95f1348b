"""Small API endpoints that belong to no app."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class WhoAmIView(APIView):
    """The signed-in user and their roles."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses=inline_serializer(
            "WhoAmI",
            {
                "username": serializers.CharField(),
                "roles": serializers.ListField(child=serializers.CharField()),
            },
        )
    )
    def get(self, request: Request) -> Response:
        user = request.user
        roles = sorted(user.groups.values_list("name", flat=True))  # type: ignore[union-attr]
        return Response({"username": user.get_username(), "roles": roles})
