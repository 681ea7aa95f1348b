"""The games API's serializers: what a client reads (games, positions, clocks, claims) and the input of each
action. They serialize; the selectors and services compute."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from engine.protocols import PROTOCOLS
from engine.rules import RULES
from games.access import (
    concerns,
    visible_games,
)
from games.clock import PRESETS
from games.enums import ForbiddenMode, GameMode, GameResult, Interface, ResultReason
from games.messages import claim_reason, result_text
from games.models import ForbiddenClaim, Game, GameEvent, Move, Player, ResultReport
from games.selectors import clock_view, instant, move_view, player_games, position_view


def validated(serializer_class: type[serializers.Serializer[Any]], data: Any) -> dict[str, Any]:
    """An action's input checked by its serializer (a 400 with the fields' errors otherwise). A field the
    action does not know is refused by its name, never dropped: ``"rules": "gomoku"`` sent where no rules are
    taken would otherwise make something else than was asked for without a word (issue 60)."""
    serializer = serializer_class(data=data)
    unknown = sorted(set(data) - set(serializer.fields)) if isinstance(data, Mapping) else []
    if unknown:
        message = _("Unknown option: this request takes %(known)s.") % {"known": ", ".join(sorted(serializer.fields))}
        raise serializers.ValidationError({name: [message] for name in unknown})
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


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


_BUILT: dict[type, dict[str, serializers.Field[Any, Any, Any, Any]]] = {}


class FieldsBuiltOnce(serializers.ModelSerializer[Any]):
    """DRF builds a model serializer's fields from the model for every instance: a quarter of the time of a
    game pushed to its spectators (bench/open.py). These serializers' fields depend on their class alone, so
    they are built once per class and copied, as DRF copies the declared ones."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        built = _BUILT.get(type(self))
        if built is None:
            built = _BUILT[type(self)] = super().get_fields()
        return copy.deepcopy(built)


class PlayerSerializer(FieldsBuiltOnce, serializers.ModelSerializer[Player]):
    class Meta:
        model = Player
        fields = ["id", "name", "unit", "rating"]


class MoveSerializer(FieldsBuiltOnce, serializers.ModelSerializer[Move]):
    class Meta:
        model = Move
        fields = ["ply", "kind", "text", "player_number", "color", "move_number", "foul", "created_at", "clock_ms"]


class ClaimSerializer(FieldsBuiltOnce, serializers.ModelSerializer[ForbiddenClaim]):
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


class ReportSerializer(FieldsBuiltOnce, serializers.ModelSerializer[ResultReport]):
    class Meta:
        model = ResultReport
        fields = ["id", "reporter", "result", "reason", "record", "status", "note", "created_at", "answered_at"]


class ResultTextMixin(serializers.Serializer[Any]):
    result_text = serializers.SerializerMethodField(
        help_text="how the game ended, in the reader's language (result_detail is the code or the referee's note)"
    )

    def get_result_text(self, game: Game) -> str:
        return result_text(game)


class GameSummarySerializer(FieldsBuiltOnce, ResultTextMixin, serializers.ModelSerializer[Game]):
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


class ArbiterCallSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    game = serializers.IntegerField(source="game_id")
    board = serializers.IntegerField(allow_null=True)
    caller = serializers.CharField(source="caller.name")
    note = serializers.CharField()
    paused_clock = serializers.BooleanField()
    on_callers_turn = serializers.BooleanField()
    justified = serializers.BooleanField(allow_null=True)
    created_at = serializers.DateTimeField()
    answered_at = serializers.DateTimeField(allow_null=True)
    answer = serializers.CharField()


class GameStateSerializer(FieldsBuiltOnce, ResultTextMixin, serializers.ModelSerializer[Game]):
    """What an action changes: status, result, colours, the position and the clock (no record)."""

    position = serializers.SerializerMethodField()
    clock = serializers.SerializerMethodField()
    arbiter_call = serializers.SerializerMethodField()

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
            "arbiter_call",
        ]

    @extend_schema_field(ArbiterCallSerializer(allow_null=True))
    def get_arbiter_call(self, game: Game) -> dict[str, Any] | None:
        return open_arbiter_call(game)

    @extend_schema_field(ClockSerializer)
    def get_clock(self, game: Game) -> dict[str, Any]:
        return clock_view(game)

    @extend_schema_field(PositionSerializer)
    def get_position(self, game: Game) -> dict[str, Any]:
        return position_view(game)


def open_arbiter_call(game: Game) -> dict[str, Any] | None:
    """The open call for an arbiter at this game, if any (the clocks of an online game are stopped)."""
    if not game.arbiter_called:
        return None
    call = game.arbiter_calls.filter(answered_at__isnull=True).select_related("caller").first()
    return ArbiterCallSerializer(call).data if call is not None else None


def game_state_data(game: Game, known: dict[str, Any] | None = None) -> dict[str, Any]:
    """``GameStateSerializer(game).data``, built directly: the answer to every move, where building the
    serializer's fields was a tenth of the work (games/tests/test_representations.py keeps them equal).
    ``known``: the game's position and clock as already built for its push (games.live.described)."""
    return {
        "id": game.pk,
        "ply": game.ply,
        "status": game.status,
        "result": game.result,
        "result_reason": game.result_reason,
        "result_detail": game.result_detail,
        "result_text": result_text(game),
        "black": game.black_id,
        "white": game.white_id,
        "position": known["position"] if known else position_view(game),
        "clock": known["clock"] if known else clock_view(game),
        "arbiter_call": open_arbiter_call(game),
    }


class RefereeSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    username = serializers.CharField()


class EventSerializer(FieldsBuiltOnce, serializers.ModelSerializer[GameEvent]):
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
            "arbiter_call",
            "moves",
            "claims",
            "reports",
        ]

    @extend_schema_field(RefereeSerializer(many=True, allow_null=True))
    def get_referees(self, game: Game) -> list[dict[str, Any]] | None:
        request = self.context.get("request")
        if request is None or not concerns(request.user, game):
            return None
        return [{"id": u.pk, "username": u.get_username()} for u in game.referees.order_by("pk")]


def game_detail_data(game: Game) -> dict[str, Any]:
    """``GameDetailSerializer(game).data`` for a reader without a request (no referees shown), built directly:
    the game as the socket server pushes it, where copying DRF's fields was a quarter of a read
    (games/tests/test_representations.py keeps them equal). ``game`` comes with its players, and its
    moves, claims and reports prefetched."""
    claims, reports = list(game.claims.all()), list(game.reports.all())
    return {
        "player_one": _player_data(game.player_one),
        "player_two": _player_data(game.player_two),
        "rules": game.rules,
        "protocol": game.protocol,
        "forbidden_mode": game.forbidden_mode,
        "mode": game.mode,
        "board_number": game.board_number,
        "event": game.event,
        "round": game.round,
        "is_public": game.is_public,
        "created_at": instant(game.created_at),
        "finished_at": instant(game.finished_at),
        "protocol_options": game.protocol_options,
        "referees": None,
        "record_text": game.record_text,
        **game_state_data(game),  # the id, ply, status, result, colours, position, clock and arbiter call
        "moves": [move_view(move) for move in game.moves.all()],
        "claims": ClaimSerializer(claims, many=True).data if claims else [],
        "reports": ReportSerializer(reports, many=True).data if reports else [],
    }


def _player_data(player: Player) -> dict[str, Any]:
    return {"id": player.pk, "name": player.name, "unit": player.unit, "rating": player.rating}


class PlayerDetailSerializer(PlayerSerializer):
    games = serializers.SerializerMethodField(help_text="the player's games you may see, newest first (at most 100)")

    class Meta(PlayerSerializer.Meta):
        fields = [*PlayerSerializer.Meta.fields, "games"]

    @extend_schema_field(GameSummarySerializer(many=True))
    def get_games(self, player: Player) -> list[dict[str, Any]]:
        games = player_games(visible_games(self.context["request"].user), player)
        return list(GameSummarySerializer(games, many=True, context=self.context).data)


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
    starts_at = serializers.DateTimeField(
        required=False,
        source="start_clock_at",
        help_text="the scheduled start: the clock of the side to act runs from then, so an absent player's time "
        "runs out (default: the clock starts with the first action); ignored over the board",
    )


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


def _whole(value: Any, low: int, high: int | None = None) -> bool:
    return type(value) is int and value >= low and (high is None or value <= high)


def _plain_text(value: Any, longest: int) -> bool:
    return type(value) is str and 0 < len(value) <= longest and value.isprintable() and value == value.strip()


def move_input(data: Any) -> dict[str, Any]:
    """A move's input as :class:`MoveInputSerializer` validates it.

    The common well-formed move (whole numbers, plain text, no unknown field) is checked here directly: building
    the serializer deep-copies its fields, about a tenth of a move's work in a web process. Anything else goes
    through the serializer, so every refusal reads as it always did (tested equal on both kinds of input).
    """
    if (
        type(data) is dict
        and data.keys() <= MOVE_FIELDS
        and _whole(data.get("ply"), 0)
        and (data.get("point") or data.get("action"))
        and ("point" not in data or _plain_text(data["point"], 4))
        and ("action" not in data or _plain_text(data["action"], 200))
        and ("think_ms" not in data or _whole(data["think_ms"], 0, 86_400_000))
        and ("seat" not in data or _whole(data["seat"], 1, 2))
    ):
        return dict(data)
    return validated(MoveInputSerializer, data)


MOVE_FIELDS = frozenset(MoveInputSerializer().fields)


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
    note = serializers.CharField(
        max_length=500,
        help_text=(
            "why the result is overridden. A correction a tournament must have confirmed (it changes who "
            "qualified for a stage already under way) is refused with 409 next_stage_started: the organizer "
            "confirms it with POST /api/tournaments/{id}/correct-result/"
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


class PracticeInputSerializer(serializers.Serializer[Any]):
    level = serializers.IntegerField(min_value=1, max_value=5, default=3, help_text="1 beginner … 5 master")
    rules = serializers.ChoiceField(choices=["renju", "freestyle", "standard"], default="renju")
    protocol = serializers.ChoiceField(choices=list(PROTOCOLS), default="none")
    time_control = serializers.ChoiceField(choices=list(PRESETS), default="quick")
    seat = serializers.IntegerField(
        min_value=1,
        max_value=2,
        default=1,
        help_text="1: you begin (Black without an opening protocol); 2: the computer begins",
    )
    engine = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="a registered engine's id (GET /api/engines/); empty: the built-in engine",
    )


class EngineSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    about = serializers.CharField(help_text="the engine's name and version from its ABOUT answer, cleaned and short")
    rules = serializers.ListField(child=serializers.CharField())
    levels = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField()),
        help_text="per level 1-5: turn_ms (milliseconds a move), max_node and level where set",
    )


class WinSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=["vcf", "vct"])
    line = serializers.ListField(child=serializers.CharField())


class MarkSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField(help_text="the stone's move number")
    point = serializers.CharField()
    color = serializers.CharField()
    win = WinSerializer(allow_null=True, help_text="the mover's forced win before the move")
    missed = serializers.BooleanField(help_text="the mover had a forced win and the move gave it away")
    allowed = WinSerializer(allow_null=True, help_text="the opponent's forced win this move allowed")


class SuggestionSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField(help_text="the stone's move number")
    point = serializers.CharField(help_text="the engine's move in the position before that stone")


class AnalysisSerializer(serializers.Serializer[Any]):
    status = serializers.CharField()
    marks = MarkSerializer(many=True)
    limits = serializers.DictField()
    error = serializers.CharField(help_text="why it failed, or why the outside engine stopped early")
    finished_at = serializers.DateTimeField(allow_null=True)
    engine = serializers.CharField(source="engine.name", allow_null=True, default=None, help_text="the engine asked")
    suggestions = SuggestionSerializer(many=True, help_text="the outside engine's move before each stone")


class AnalysisInputSerializer(serializers.Serializer[Any]):
    engine = serializers.IntegerField(
        required=False, allow_null=True, help_text="a registered engine (GET /api/engines/) to ask as well"
    )


class PositionInputSerializer(serializers.Serializer[Any]):
    moves = serializers.CharField(allow_blank=True, help_text="the stones in order, like h8 h9 j10")
    rules = serializers.ChoiceField(choices=RULE_SETS, default="renju")
    engine = serializers.IntegerField(
        required=False, allow_null=True, help_text="a registered engine for the suggested move (default: built-in)"
    )


class PositionAnalysisSerializer(serializers.Serializer[Any]):
    to_move = serializers.CharField()
    win = WinSerializer(allow_null=True, help_text="the side to move's forced win")
    threat = WinSerializer(allow_null=True, help_text="the other side's forced win if it were to move")
    best = serializers.CharField(allow_null=True, help_text="the computer's move (level 4), or the engine's")
    engine = serializers.CharField(allow_null=True, help_text="the registered engine that suggested it, if any")
    limits = serializers.DictField()


class ArbiterCallInputSerializer(SeatSerializer):
    note = serializers.CharField(required=False, allow_blank=True, max_length=200, help_text="what it is about")


class ArbiterAnswerInputSerializer(serializers.Serializer[Any]):
    answer = serializers.CharField(required=False, allow_blank=True, max_length=200)
    justified = serializers.BooleanField(
        required=False,
        default=False,
        help_text="the call was justified: a call on the caller's own turn is then not charged to their clock",
    )
