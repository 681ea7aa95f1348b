"""The relay's API, by game id: the record as the viewer may see it (the public after the stage's delay), and
for the game's referees and organizers the entries, corrections and the lease; a stage's publish delay for
its organizer."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.decorators import action
from rest_framework.exceptions import AuthenticationFailed, ParseError
from rest_framework.parsers import BaseParser
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from games.access import drafts_hidden, require_organizer, visible_games
from games.exports import export_plain, export_rif
from games.models import Game
from games.parsing import whole
from games.serializers import validated
from relay import feeds, services
from relay.boards import board_states
from relay.models import PushToken
from tournament.models import Stage, Tournament


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
    screen_live = serializers.BooleanField(
        required=False, default=False, help_text="the organizer's projector shows the boards at once"
    )


class RelayPushSerializer(serializers.Serializer[Any]):
    record = serializers.CharField(max_length=100_000, help_text="the game's record so far: plain or .rif")


class RelayUploadItemSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField()
    record = serializers.CharField(max_length=100_000)


class RelayUploadSerializer(serializers.Serializer[Any]):
    tournament = serializers.IntegerField()
    rif = serializers.CharField(
        required=False, allow_blank=True, max_length=1_000_000, help_text="a .rif database or a plain record"
    )
    records = RelayUploadItemSerializer(many=True, required=False, help_text="records named by game id")


class RelayKeySerializer(serializers.Serializer[Any]):
    tournament = serializers.IntegerField()
    name = serializers.CharField(max_length=100, help_text="who or what will push with it")


class PlainRecordParser(BaseParser):
    """A push's body as the record itself (``text/plain``, or ``.rif`` as XML), read as ``{"record": …}``."""

    media_type = "text/*"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> dict[str, str]:
        try:
            return {"record": stream.read().decode("utf-8")}
        except UnicodeDecodeError:
            raise ParseError(_("The record is not UTF-8 text.")) from None


class RifParser(PlainRecordParser):
    media_type = "application/xml"


class PushKeyAuthentication(BaseAuthentication):
    """``Authorization: Relay <key>``: a push key (relay.feeds), good for pushes into its tournament only."""

    def authenticate(self, request: Request) -> tuple[Any, PushToken] | None:
        words = get_authorization_header(request).split()
        if not words or words[0].decode("latin-1") != feeds.KEYWORD:
            return None
        token = feeds.token_for(words[1].decode("latin-1")) if len(words) == 2 else None
        if token is None:
            raise AuthenticationFailed(_("This push key is unknown or revoked."))
        return token.created_by, token

    def authenticate_header(self, request: Request) -> str:
        return feeds.KEYWORD


class PushKeyScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """The push key in the OpenAPI schema: ``Authorization: Relay <key>``."""

    target_class = PushKeyAuthentication
    name = "relayPushKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "Relay <key>: a push key of the game's tournament (POST /api/relay/keys/)",
        }


class HoldsPushKey(BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.auth, PushToken)


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
        found = services.set_delay(stage=stage, minutes=data["minutes"], screen_live=data["screen_live"])
        return Response({"stage": stage.pk, "minutes": found.minutes, "screen_live": found.screen_live})

    @extend_schema(responses={200: dict})
    @action(detail=False, methods=["get"], url_path=r"boards/(?P<tournament>[0-9]+)", url_name="boards")
    def boards(self, request: Request, tournament: str) -> Response:
        """The tournament's relayed boards as the viewer may see them (the public after each stage's delay):
        players, board, stones in order, entries and corrections shown, result; ``refresh_at`` is when this
        view next changes by itself. ``?screen=1``: as the hall's projector shows them. With an ETag."""
        found = get_object_or_404(drafts_hidden(Tournament.objects.all(), request.user), pk=tournament)
        return Response(board_states(found, request.user, screen=request.query_params.get("screen") == "1"))

    @extend_schema(request=RelayPushSerializer, responses={200: RelaySerializer, 201: RelaySerializer})
    @action(
        detail=True,
        methods=["post"],
        authentication_classes=[PushKeyAuthentication],
        permission_classes=[HoldsPushKey],
        parser_classes=[*api_settings.DEFAULT_PARSER_CLASSES, PlainRecordParser, RifParser],
    )
    def push(self, request: Request, pk: str) -> Response:
        """The game's record so far (plain or ``.rif``, as JSON ``{"record": …}`` or the body itself), with a
        push key (``Authorization: Relay <key>``) of the game's tournament: 201 when the record grew or was
        corrected (a correction everyone sees), 200 when it held nothing new; 409 ``recorded_at_board`` for a
        game recorded at the table."""
        data = validated(RelayPushSerializer, request.data)
        assert isinstance(request.auth, PushToken)
        game, outcome = feeds.relay_push(game_id=whole(pk) or 0, token=request.auth, text=data["record"])
        body = {**services.relay_view(game, request.user), "outcome": outcome}
        return Response(body, status=200 if outcome == "unchanged" else 201)

    @extend_schema(request=RelayUploadSerializer, responses={200: dict})
    @action(detail=False, methods=["post"])
    def upload(self, request: Request) -> Response:
        """A round's records typed after it (the tournament's organizer): a ``.rif`` database or a plain record
        matched to the game between its players, or records named by game id; all or nothing."""
        data = validated(RelayUploadSerializer, request.data)
        tournament = get_object_or_404(drafts_hidden(Tournament.objects.all(), request.user), pk=data["tournament"])
        done = feeds.relay_upload(
            tournament=tournament, user=request.user, text=data.get("rif", ""), records=data.get("records")
        )
        return Response({"games": [{"game": d.game, "outcome": d.outcome} for d in done]})

    @extend_schema(request=RelayKeySerializer, responses={201: dict})
    @action(detail=False, methods=["post"], url_path="keys")
    def keys(self, request: Request) -> Response:
        """A new push key for a tournament (its organizer): the key is in this answer only."""
        data = validated(RelayKeySerializer, request.data)
        tournament = get_object_or_404(drafts_hidden(Tournament.objects.all(), request.user), pk=data["tournament"])
        token, key = feeds.push_token_create(tournament=tournament, user=request.user, label=data["name"])
        return Response({"id": token.pk, "name": token.label, "key": key}, status=201)

    @extend_schema(request=None, responses={200: dict})
    @action(detail=False, methods=["post"], url_path=r"keys/(?P<key_id>[0-9]+)/revoke", url_name="revoke-key")
    def revoke_key(self, request: Request, key_id: str) -> Response:
        """Revoke a push key (its tournament's organizer); pushes with it are refused from now on."""
        token = feeds.push_token_revoke(token_id=int(key_id), user=request.user)
        return Response({"id": token.pk, "revoked_at": token.revoked_at})
