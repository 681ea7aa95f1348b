"""The games API: read games, and one action endpoint per transition.

Every action goes through a service in :mod:`games.services`; refusals come
back as ``{"code": …, "message": …}`` with the service's HTTP status.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from config.security import MoveThrottle
from engine.protocols import PROTOCOLS, opening_name
from engine.rules import RULES
from games import services
from games.access import (
    acting_player,
    can_see,
    concerns,
    is_organizer,
    require_organizer,
    require_referee,
    visible_games,
)
from games.clock import PRESETS
from games.enums import ForbiddenMode, GameMode, GameResult, Interface, ResultReason
from games.exports import export_plain, export_rif
from games.messages import claim_reason, result_text
from games.models import ForbiddenClaim, Game, GameEvent, Move, Player, ResultReport

INTERFACE = "api"

RULE_SETS = list(RULES)
TIME_CONTROL_SCHEMA = {
    "oneOf": [
        {"type": "string", "enum": list(PRESETS), "description": "a preset"},
        {
            "type": "object",
            "description": "custom options (preset: start from a preset; main_ms, move_ms, main_scope, on_expiry, "
            "ot_stones, ot_move_ms, increment_ms, draw_offers, draw_reply_ms, grace_ms, lag_compensation)",
        },
    ]
}


@extend_schema_field(TIME_CONTROL_SCHEMA)
class TimeControlField(serializers.JSONField):
    """A preset name or custom options (games.clock)."""


class PlayerSerializer(serializers.ModelSerializer[Player]):
    class Meta:
        model = Player
        fields = ["id", "name", "unit", "rating"]


class MoveSerializer(serializers.ModelSerializer[Move]):
    class Meta:
        model = Move
        fields = ["ply", "kind", "text", "player_number", "color", "move_number", "foul", "created_at", "clock_ms"]


class ClaimSerializer(serializers.ModelSerializer[ForbiddenClaim]):
    verdict = serializers.ChoiceField(
        choices=["double-three", "double-four", "overline", "none", ""],
        help_text="the engine's finding: a forbidden kind, or none (empty while the claim is open)",
    )
    reason = serializers.SerializerMethodField(help_text="the engine's reason, in the reader's language")

    class Meta:
        model = ForbiddenClaim
        fields = ["id", "move_number", "point", "status", "verdict", "reason", "explanation", "created_at"]

    def get_reason(self, claim: ForbiddenClaim) -> str:
        return claim_reason(claim)


class ReportSerializer(serializers.ModelSerializer[ResultReport]):
    class Meta:
        model = ResultReport
        fields = ["id", "reporter", "result", "reason", "record", "status", "note", "created_at", "answered_at"]


class ResultTextMixin(serializers.Serializer[Any]):
    result_text = serializers.SerializerMethodField(
        help_text="how the game ended, in the reader's language (result_detail is the code or the referee's note)"
    )

    def get_result_text(self, game: Game) -> str:
        return result_text(game)


class GameSummarySerializer(ResultTextMixin, serializers.ModelSerializer[Game]):
    player_one = PlayerSerializer(read_only=True)
    player_two = PlayerSerializer(read_only=True)
    rules = serializers.ChoiceField(choices=RULE_SETS, read_only=True)
    protocol = serializers.ChoiceField(choices=list(PROTOCOLS), read_only=True)

    class Meta:
        model = Game
        fields = [
            "id",
            "player_one",
            "player_two",
            "black",
            "white",
            "rules",
            "protocol",
            "forbidden_mode",
            "mode",
            "status",
            "result",
            "result_reason",
            "result_detail",
            "result_text",
            "ply",
            "board_number",
            "event",
            "round",
            "is_public",
            "created_at",
            "finished_at",
        ]


class PositionSerializer(serializers.Serializer[Any]):
    size = serializers.IntegerField()
    stones = serializers.ListField(child=serializers.CharField(), help_text="board moves in order, 'pass' included")
    to_move = serializers.CharField(help_text="black or white")
    actor = serializers.IntegerField(allow_null=True, help_text="seat (1 or 2) that acts next; null when over")
    expects = serializers.CharField(help_text="the opening step awaited, or 'play'")
    legal_kinds = serializers.ListField(child=serializers.CharField())
    opening = serializers.CharField(allow_blank=True)
    offers = serializers.ListField(child=serializers.CharField(), help_text="fifth-move offers awaiting a choice")
    offer_count = serializers.IntegerField(allow_null=True, help_text="how many offers to place now")
    declare_verdicts = serializers.DictField(help_text="Yamaguchi table: verdict for each N one may declare")
    forbidden = serializers.DictField(help_text="black's forbidden points now, with their kind")
    last_black_move = serializers.IntegerField(allow_null=True, help_text="claim mode: the move white may claim")


class ClockSerializer(serializers.Serializer[Any]):
    now = serializers.IntegerField(help_text="the server's time, ms since the epoch")
    server_time = serializers.DateTimeField()
    status = serializers.ChoiceField(choices=["waiting", "running", "finished"])
    actor = serializers.IntegerField(min_value=1, max_value=2, help_text="the seat (1 or 2) whose clock runs")
    paused = serializers.ChoiceField(choices=["offer", "referee"], allow_null=True, help_text="why the clock stopped")
    offer_by = serializers.IntegerField(allow_null=True, help_text="the seat (1 or 2) that offered a draw")
    main_left = serializers.ListField(
        child=serializers.IntegerField(allow_null=True), help_text="ms per seat: [seat 1, seat 2]"
    )
    turn_left = serializers.IntegerField(allow_null=True, help_text="ms left in the current turn")
    reply_left = serializers.IntegerField(allow_null=True, help_text="ms left to answer a draw offer")
    phase = serializers.ListField(child=serializers.CharField(), help_text="main or overtime, per seat")
    overtime_left = serializers.ListField(child=serializers.IntegerField(), help_text="overtime stones per seat")
    offers_left = serializers.ListField(child=serializers.IntegerField())
    deadline = serializers.DateTimeField(allow_null=True)
    version = serializers.IntegerField()
    time_control = serializers.DictField()


class GameStateSerializer(ResultTextMixin, serializers.ModelSerializer[Game]):
    """What an action changes: status, result, colours, the position and the clock (no record)."""

    position = serializers.SerializerMethodField()
    clock = serializers.SerializerMethodField()

    class Meta:
        model = Game
        fields = [
            "id",
            "ply",
            "status",
            "result",
            "result_reason",
            "result_detail",
            "result_text",
            "black",
            "white",
            "position",
            "clock",
        ]

    @extend_schema_field(ClockSerializer)  # type: ignore[misc]
    def get_clock(self, game: Game) -> dict[str, Any]:
        return services.clock_view(game)

    @extend_schema_field(PositionSerializer)  # type: ignore[misc]
    def get_position(self, game: Game) -> dict[str, Any]:
        state = services.game_state(game)
        opening = state.opening
        over = game.status == "finished"
        board = state.board
        expects = "over" if over else opening.expects
        stones = [str(m) for m in board.move_stack]
        if not stones and game.mode == GameMode.OVER_THE_BOARD and game.record_text:
            stones = game.record_text.split()  # an over-the-board game's record, as settled
        return {
            "size": board.size,
            "stones": stones,
            "to_move": str(board.turn if opening.finished else opening.next_color),
            "actor": None if over else int(state.to_act),
            "expects": expects,
            "legal_kinds": [] if over else [k.value for k in opening.legal_kinds()],
            "opening": opening_name(opening) or "",
            "offers": [str(p) for p in opening.offers] if expects == "choose" else [],
            "offer_count": opening.offer_count if expects == "offer" else None,
            "declare_verdicts": _declare_verdicts(opening) if expects == "declare" else {},
            "forbidden": _forbidden(game, board) if not over else {},
            "last_black_move": _last_black_move(board),
        }


class RefereeSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    username = serializers.CharField()


class EventSerializer(serializers.ModelSerializer[GameEvent]):
    actor = serializers.CharField(source="actor.username", allow_null=True, default=None)
    interface = serializers.ChoiceField(choices=Interface.choices)

    class Meta:
        model = GameEvent
        fields = ["id", "kind", "data", "actor", "interface", "created_at"]


class GameDetailSerializer(GameSummarySerializer, GameStateSerializer):
    protocol_options = serializers.JSONField(read_only=True)
    referees = serializers.SerializerMethodField(
        help_text="the game's referees, for its players, its referees and organizers (null for others)"
    )
    moves = MoveSerializer(many=True, read_only=True)
    claims = ClaimSerializer(many=True, read_only=True)
    reports = ReportSerializer(many=True, read_only=True)

    class Meta(GameSummarySerializer.Meta):
        fields = [
            *GameSummarySerializer.Meta.fields,
            "protocol_options",
            "referees",
            "record_text",
            "position",
            "clock",
            "moves",
            "claims",
            "reports",
        ]

    @extend_schema_field(RefereeSerializer(many=True, allow_null=True))  # type: ignore[misc]
    def get_referees(self, game: Game) -> list[dict[str, Any]] | None:
        request = self.context.get("request")
        if request is None or not concerns(request.user, game):
            return None
        return [{"id": u.pk, "username": u.get_username()} for u in game.referees.order_by("pk")]


class PlayerDetailSerializer(PlayerSerializer):
    games = serializers.SerializerMethodField(help_text="the player's games you may see, newest first (at most 100)")

    class Meta(PlayerSerializer.Meta):
        fields = [*PlayerSerializer.Meta.fields, "games"]

    @extend_schema_field(GameSummarySerializer(many=True))  # type: ignore[misc]
    def get_games(self, player: Player) -> list[dict[str, Any]]:
        request = self.context["request"]
        games = (
            visible_games(request.user)
            .filter(Q(player_one=player) | Q(player_two=player))
            .select_related("player_one", "player_two")
            .order_by("-id")[:100]
        )
        return list(GameSummarySerializer(games, many=True, context=self.context).data)


class PlayerViewSet(viewsets.ReadOnlyModelViewSet[Player]):
    """Players: name, unit and rating (public, as on standings), and the games you may see."""

    queryset = Player.objects.order_by("name", "pk")

    def get_serializer_class(self) -> Any:
        return PlayerDetailSerializer if self.action == "retrieve" else PlayerSerializer


class CreateSerializer(serializers.Serializer[Any]):
    player_one = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    player_two = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    rules = serializers.ChoiceField(choices=RULE_SETS, default="renju")
    protocol = serializers.ChoiceField(choices=list(PROTOCOLS), default="none")
    protocol_options = serializers.DictField(default=dict)
    forbidden_mode = serializers.ChoiceField(choices=ForbiddenMode.choices, default=ForbiddenMode.AUTO)
    mode = serializers.ChoiceField(choices=GameMode.choices, default=GameMode.ONLINE)
    board_number = serializers.IntegerField(required=False, min_value=1)
    is_public = serializers.BooleanField(default=True)
    time_control = TimeControlField(required=False, help_text="a preset name or custom options")


class SeatSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField(
        required=False, min_value=1, max_value=2, help_text="organizers only: act for seat 1 or 2"
    )


class TimedInputSerializer(SeatSerializer):
    think_ms = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=86_400_000,
        help_text="the client's own measure of the player's thinking on this turn (from seeing the position to "
        "sending); the server credits the network lag beyond it within the player's lag quota",
    )


class MoveInputSerializer(TimedInputSerializer):
    ply = serializers.IntegerField(min_value=0, help_text="the game's ply you saw; a stale one gets 409")
    action = serializers.CharField(
        required=False, max_length=200, help_text="e.g. 'place h8', 'swap', 'declare 3', 'offer h10 j7', 'choose h10'"
    )
    point = serializers.CharField(required=False, max_length=4, help_text="shorthand for 'place <point>'")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("action") and not attrs.get("point"):
            raise serializers.ValidationError({"action": "Give an action or a point."})
        return attrs


class PassInputSerializer(TimedInputSerializer):
    ply = serializers.IntegerField(min_value=0)


class ClaimInputSerializer(serializers.Serializer[Any]):
    move_number = serializers.IntegerField(required=False, min_value=1, help_text="black's move in the game record")
    record = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text="referees: the moves before the claimed stone"
    )
    point = serializers.CharField(required=False, max_length=4, help_text="referees: the claimed stone")
    moves_after = serializers.IntegerField(
        required=False, default=0, min_value=0, help_text="referees: moves played after the claimed stone"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "move_number" not in attrs and "point" not in attrs:
            raise serializers.ValidationError({"move_number": "Give a move number, or a record and a point."})
        return attrs


class ResultInputSerializer(serializers.Serializer[Any]):
    result = serializers.ChoiceField(choices=GameResult.choices)
    reason = serializers.ChoiceField(choices=ResultReason.choices)


class ReportInputSerializer(SeatSerializer, ResultInputSerializer):
    record = serializers.CharField(required=False, allow_blank=True, max_length=2000, default="")


class DisputeInputSerializer(SeatSerializer):
    note = serializers.CharField(required=False, allow_blank=True, max_length=500, default="")


class RuleInputSerializer(ResultInputSerializer):
    note = serializers.CharField(required=False, allow_blank=True, max_length=500, default="")
    record = serializers.CharField(required=False, allow_blank=True, max_length=2000, default="")


class OverrideInputSerializer(ResultInputSerializer):
    note = serializers.CharField(max_length=500, help_text="why the result is overridden")
    confirm = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=500,
        default="",
        help_text=(
            "the organizer's reason to apply a correction that changes who qualified for a tournament stage "
            "already under way (its affected matches are voided and re-made); without it such a correction "
            "is refused with 409 next_stage_started"
        ),
    )


class AnswerInputSerializer(SeatSerializer):
    accept = serializers.BooleanField()


class ClockInputSerializer(serializers.Serializer[Any]):
    op = serializers.ChoiceField(choices=["start", "pause", "resume", "add_time"])
    seat = serializers.IntegerField(required=False, min_value=1, max_value=2, help_text="add_time: whose clock")
    ms = serializers.IntegerField(required=False, default=0, min_value=0, max_value=24 * 3600 * 1000)
    target = serializers.ChoiceField(choices=["main", "turn"], default="main")


class ImportInputSerializer(serializers.Serializer[Any]):
    text = serializers.CharField(max_length=20000, help_text='the plain record: [Key "value"] lines, then moves')


class GameViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Game]):
    """Games: public read, actions for the players, referees and organizers they concern."""

    serializer_class = GameDetailSerializer
    throttle_scope = "moves"
    throttle_classes = [MoveThrottle]

    def get_queryset(self) -> Any:
        games = visible_games(self.request.user).select_related("player_one", "player_two")
        if self.action == "list":
            return games.order_by("-id")
        if self.action == "retrieve":
            return games.prefetch_related("moves", "claims", "reports")
        return games

    def get_serializer_class(self) -> Any:
        return GameSummarySerializer if self.action == "list" else GameDetailSerializer

    def get_object(self) -> Game:
        """Actions load the bare game and check who may see it without a join over every role."""
        if self.action in ("retrieve", "list"):
            return super().get_object()  # type: ignore[no-any-return]
        game = Game.objects.filter(pk=self.kwargs["pk"]).first() if str(self.kwargs["pk"]).isdigit() else None
        if game is None or not can_see(self.request.user, game):
            raise NotFound(_("There is no such game."))
        self.check_object_permissions(self.request, game)
        return game

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        game = self.get_object()
        at = _received(request)
        if game.deadline is not None and game.deadline < at:  # a clock ran out and nobody has settled it yet
            services.game_settle(game_id=game.pk, at=at, path="lazy_read")
            game = self.get_object()
        return Response(GameDetailSerializer(game, context={"request": request}).data)

    def _input(self, serializer_class: type[serializers.Serializer[Any]]) -> dict[str, Any]:
        serializer = serializer_class(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    def _detail(self, game: Game) -> Response:
        """The game after an action: its state, position and clock (GET the game for the whole record)."""
        return Response(GameStateSerializer(game, context={"request": self.request}).data)

    def _full(self, game: Game, status: int = 200) -> Response:
        fresh = visible_games(self.request.user).prefetch_related("moves", "claims", "reports").get(pk=game.pk)
        return Response(GameDetailSerializer(fresh, context={"request": self.request}).data, status=status)

    @extend_schema(request=CreateSerializer, responses={201: GameDetailSerializer})
    def create(self, request: Request) -> Response:
        require_organizer(request.user)
        data = self._input(CreateSerializer)
        game = services.game_create(actor=request.user, **data)
        return self._full(game, 201)

    @extend_schema(request=MoveInputSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"])
    def move(self, request: Request, pk: str) -> Response:
        game = self.get_object()
        data = self._input(MoveInputSerializer)
        text = data.get("action") or f"place {data['point']}"
        game = services.game_act(
            game_id=game.pk,
            player=acting_player(request.user, game, data.get("seat")),
            action=text,
            expected_ply=data["ply"],
            actor=request.user,
            interface=INTERFACE,
            at=_received(request),
            think_ms=data.get("think_ms"),
            queued_ms=getattr(request, "queued_ms", 0),
            live=True,
        )
        return self._detail(game)

    @extend_schema(request=PassInputSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"], url_path="pass")
    def pass_(self, request: Request, pk: str) -> Response:
        game = self.get_object()
        data = self._input(PassInputSerializer)
        game = services.game_pass(
            game_id=game.pk,
            player=acting_player(request.user, game, data.get("seat")),
            expected_ply=data["ply"],
            actor=request.user,
            interface=INTERFACE,
            at=_received(request),
            think_ms=data.get("think_ms"),
            queued_ms=getattr(request, "queued_ms", 0),
            live=True,
        )
        return self._detail(game)

    @extend_schema(request=SeatSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"])
    def resign(self, request: Request, pk: str) -> Response:
        game = self.get_object()
        data = self._input(SeatSerializer)
        game = services.game_resign(
            game_id=game.pk,
            player=acting_player(request.user, game, data.get("seat")),
            actor=request.user,
            interface=INTERFACE,
        )
        return self._detail(game)

    @extend_schema(request=SeatSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"], url_path="offer-draw")
    def offer_draw(self, request: Request, pk: str) -> Response:
        """The player who has just moved offers a draw (at most two per game); the clocks stop."""
        game = self.get_object()
        data = self._input(SeatSerializer)
        game = services.game_offer_draw(
            game_id=game.pk,
            player=acting_player(request.user, game, data.get("seat")),
            at=_received(request),
            actor=request.user,
            interface=INTERFACE,
        )
        return self._detail(game)

    @extend_schema(request=AnswerInputSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"], url_path="answer-draw")
    def answer_draw(self, request: Request, pk: str) -> Response:
        game = self.get_object()
        data = self._input(AnswerInputSerializer)
        game = services.game_answer_draw(
            game_id=game.pk,
            player=acting_player(request.user, game, data.get("seat")),
            accept=data["accept"],
            at=_received(request),
            actor=request.user,
            interface=INTERFACE,
        )
        return self._detail(game)

    @extend_schema(request=ClockInputSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"], url_path="clock")
    def clock_action(self, request: Request, pk: str) -> Response:
        """Referees: start, pause or resume the clock, or add time to a seat's main time or current turn."""
        game = self.get_object()
        require_referee(request.user, game)
        data = self._input(ClockInputSerializer)
        game = services.game_clock_action(
            game_id=game.pk,
            op=data["op"],
            seat=data.get("seat"),
            ms_added=data["ms"],
            target=data["target"],
            at=_received(request),
            actor=request.user,
            interface=INTERFACE,
        )
        return self._detail(game)

    @extend_schema(request=ClaimInputSerializer, responses={201: ClaimSerializer})
    @action(detail=True, methods=["post"], url_path="claim-forbidden")
    def claim_forbidden(self, request: Request, pk: str) -> Response:
        """White claims a foul by move number; a referee may also give a record and the claimed point."""
        game = self.get_object()
        data = self._input(ClaimInputSerializer)
        if "point" in data:
            require_referee(request.user, game)
            claim = services.game_referee_claim(
                game_id=game.pk,
                record=data.get("record", ""),
                point=data["point"],
                moves_after=data["moves_after"],
                actor=request.user,
                interface=INTERFACE,
            )
        else:
            claimant = None
            if not is_organizer(request.user) and not game.referees.filter(pk=request.user.pk).exists():
                claimant = acting_player(request.user, game)
            claim = services.game_claim_forbidden(
                game_id=game.pk,
                move_number=data["move_number"],
                claimant=claimant,
                actor=request.user,
                interface=INTERFACE,
            )
        return Response(ClaimSerializer(claim).data, status=201)

    @extend_schema(request=ReportInputSerializer, responses={201: ReportSerializer})
    @action(detail=True, methods=["post"], url_path="report-result")
    def report_result(self, request: Request, pk: str) -> Response:
        game = self.get_object()
        data = self._input(ReportInputSerializer)
        report = services.game_report_result(
            game_id=game.pk,
            reporter=acting_player(request.user, game, data.get("seat")),
            result=data["result"],
            reason=data["reason"],
            record=data["record"],
            actor=request.user,
            interface=INTERFACE,
        )
        return Response(ReportSerializer(report).data, status=201)

    @extend_schema(request=SeatSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"], url_path="confirm-result")
    def confirm_result(self, request: Request, pk: str) -> Response:
        game = self.get_object()
        data = self._input(SeatSerializer)
        game = services.game_confirm_result(
            game_id=game.pk,
            player=acting_player(request.user, game, data.get("seat")),
            actor=request.user,
            interface=INTERFACE,
        )
        return self._detail(game)

    @extend_schema(request=DisputeInputSerializer, responses=ReportSerializer)
    @action(detail=True, methods=["post"], url_path="dispute-result")
    def dispute_result(self, request: Request, pk: str) -> Response:
        game = self.get_object()
        data = self._input(DisputeInputSerializer)
        report = services.game_dispute_result(
            game_id=game.pk,
            player=acting_player(request.user, game, data.get("seat")),
            note=data["note"],
            actor=request.user,
            interface=INTERFACE,
        )
        return Response(ReportSerializer(report).data)

    @extend_schema(request=RuleInputSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"])
    def rule(self, request: Request, pk: str) -> Response:
        game = self.get_object()
        require_referee(request.user, game)
        data = self._input(RuleInputSerializer)
        game = services.game_rule(game_id=game.pk, actor=request.user, interface=INTERFACE, **data)
        return self._detail(game)

    @extend_schema(request=OverrideInputSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"])
    def override(self, request: Request, pk: str) -> Response:
        game = self.get_object()
        require_organizer(request.user)
        data = self._input(OverrideInputSerializer)
        game = services.game_override(game_id=game.pk, actor=request.user, interface=INTERFACE, **data)
        return self._detail(game)

    @extend_schema(
        parameters=[OpenApiParameter("as", str, enum=["txt", "rif"], description="plain (default) or rif XML")],
        responses={(200, "text/plain"): OpenApiTypes.STR, (200, "application/xml"): OpenApiTypes.STR},
    )
    @action(detail=True, methods=["get"])
    def record(self, request: Request, pk: str) -> HttpResponse:
        """The game record as a plain move list with a header, or RenjuNet-style XML."""
        game = self.get_object()
        if request.query_params.get("as") == "rif":
            body, content_type, ext = export_rif([game], timezone.now()), "application/xml", "rif"
        else:
            body, content_type, ext = export_plain(game), "text/plain", "txt"
        response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.{ext}"'
        return response

    @extend_schema(responses=EventSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def events(self, request: Request, pk: str) -> Response:
        """The game's event log, oldest first (its players, its referees and organizers)."""
        game = self.get_object()
        if not concerns(request.user, game):
            raise services.GameError(
                "not_allowed", _("Only the game's players, its referees and organizers see its log."), 403
            )
        events = GameEvent.objects.filter(game=game).select_related("actor").order_by("pk")
        return Response(EventSerializer(events, many=True).data)

    @extend_schema(request=ImportInputSerializer, responses={201: GameDetailSerializer})
    @action(detail=False, methods=["post"], url_path="import")
    def import_record(self, request: Request) -> Response:
        """Organizers: import one finished game from the plain record or a one-game .rif file.

        The opening protocol's actions, who took them, their times and the round are kept."""
        require_organizer(request.user)
        data = self._input(ImportInputSerializer)
        game = services.game_import(text=data["text"], actor=request.user, interface=INTERFACE)
        return self._full(game, 201)


def _received(request: Request) -> Any:
    """When the request reached the server (stamped by config.middleware.ReceivedAtMiddleware)."""
    return getattr(request, "received_at", None) or timezone.now()


def _declare_verdicts(opening: Any) -> dict[str, str]:
    from engine.openings import identify

    stones = [m.point for m in opening.moves[:3] if m.point is not None]
    found = identify(stones, include_52=True) if len(stones) == 3 else None
    if found is None:
        return {}
    step = opening.current
    high = step.high or opening.options.max_n  # 0 means "up to the options' maximum"
    return {str(n): found.opening.yamaguchi_verdict(n).value for n in range(step.low, high + 1)}


def _forbidden(game: Game, board: Any) -> dict[str, str]:
    from engine import Color, find_rules

    rules = find_rules(game.rules)
    if not rules.black_forbidden or board.turn is not Color.BLACK:
        return {}
    return {str(p): str(kind) for p, kind in rules.forbidden_points(board).items()}


def _last_black_move(board: Any) -> int | None:
    for number in range(len(board.move_stack), 0, -1):
        if number % 2 == 1 and board.move_stack[number - 1].point is not None:
            return number
    return None
