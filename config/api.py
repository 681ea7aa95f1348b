"""Small API endpoints that belong to no app."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

ROLES = ["host", "organizer", "player", "referee"]


class WhoAmIView(APIView):
    """The signed-in user and their roles."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses=inline_serializer(
            "WhoAmI",
            {
                "username": serializers.CharField(),
                "roles": serializers.ListField(child=serializers.ChoiceField(choices=ROLES)),
                "player": serializers.IntegerField(
                    allow_null=True, help_text="your player id (GET /api/players/{id}/), if you are a player"
                ),
            },
        )
    )
    def get(self, request: Request) -> Response:
        from games.access import account
        from games.models import Player

        user = account(request.user)
        roles = sorted(user.groups.values_list("name", flat=True))
        player = Player.objects.filter(user=user).values_list("pk", flat=True).first()
        return Response({"username": user.get_username(), "roles": roles, "player": player})


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Every API error as ``{"code": …, "message": …}`` in the user's language.

    Refusals from services (:class:`games.services.GameError`) keep their
    code and status; field errors add ``fields``.
    """
    from games.services import GameError

    if isinstance(exc, GameError):
        return Response({"code": exc.code, "message": exc.message}, status=exc.status)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ValidationError):
        fields = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        response.data = {"code": "invalid", "message": _("Some of the input is not valid."), "fields": fields}
        return response
    if isinstance(exc, APIException):
        detail = exc.detail
        message = str(detail) if not isinstance(detail, (dict, list)) else str(exc.default_detail)
        code = _code(exc)
    else:  # Django's Http404 and PermissionDenied, already turned into a response by DRF
        message = str((response.data or {}).get("detail", "")) or _("The request was refused.")
        code = {404: "not_found", 403: "permission_denied"}.get(response.status_code, "error")
    response.data = {"code": code, "message": message}
    return response


def _code(exc: APIException) -> str:
    codes = exc.get_codes()
    return codes if isinstance(codes, str) else str(exc.default_code)
