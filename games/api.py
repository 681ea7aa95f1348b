"""The games API: read games, and one action endpoint per transition.

Every action goes through a service in :mod:`games.services`; refusals come
back as ``{"code": …, "message": …}`` with the service's HTTP status.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from games import services
from games.access import (
    acting_player,
    can_see,
    concerns,
    may_rule,
    organizes_any,
    player_of,
    referees_any,
    require_game_organizer,
    require_organizer,
    require_referee,
    visible_games,
    visible_players,
)
from games.enums import GameMode, Interface
from games.exports import export_plain, export_rif
from games.models import Analysis, ArbiterCall, Engine, Game, GameEvent, Player
from games.parsing import whole
from games.serializers import (
    AnalysisInputSerializer,
    AnalysisSerializer,
    AnswerInputSerializer,
    ArbiterAnswerInputSerializer,
    ArbiterCallInputSerializer,
    ArbiterCallSerializer,
    ClaimInputSerializer,
    ClaimSerializer,
    ClockInputSerializer,
    CreateSerializer,
    DisputeInputSerializer,
    EngineSerializer,
    EventSerializer,
    GameDetailSerializer,
    GameStateSerializer,
    GameSummarySerializer,
    ImportInputSerializer,
    MoveInputSerializer,
    OverrideInputSerializer,
    PassInputSerializer,
    PlayerDetailSerializer,
    PlayerSerializer,
    PositionAnalysisSerializer,
    PositionInputSerializer,
    PracticeInputSerializer,
    ReportInputSerializer,
    ReportSerializer,
    RuleInputSerializer,
    SeatSerializer,
    game_state_data,
    move_input,
    validated,
)
from games.services import GameError
from games.services.analysis import analysis_request, position_analysis
from games.services.arbiter import game_answer_arbiter, game_call_arbiter
from games.services.base import require_room
from games.services.practice import practice_start
from games.throttles import MoveThrottle

T = TypeVar("T")
INTERFACE = Interface.API


class PlayerViewSet(viewsets.ReadOnlyModelViewSet[Player]):
    """Players: name, unit and rating (public, as on standings), and the games you may see."""

    queryset = Player.objects.order_by("name", "pk")

    def get_queryset(self) -> Any:
        """A draft tournament's entrants are its organizers' own (games.access.visible_players)."""
        return visible_players(self.request.user).order_by("name", "pk")

    def get_serializer_class(self) -> Any:
        return PlayerDetailSerializer if self.action == "retrieve" else PlayerSerializer


class EngineViewSet(viewsets.ReadOnlyModelViewSet[Engine]):
    """The registered engines a practice game may be played against (enabled ones; the organizer registers
    them in the admin panel). The built-in engine is the default and is not listed."""

    queryset = Engine.objects.filter(enabled=True).order_by("name", "pk")
    serializer_class = EngineSerializer
    pagination_class = None


PLAY_ACTIONS = {"move", "pass_", "resign", "offer_draw", "answer_draw", "call_arbiter", "claim_forbidden", "practice"}


class GameViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Game]):
    """Games: public read, actions for the players, referees and organizers they concern."""

    serializer_class = GameDetailSerializer
    throttle_classes = [MoveThrottle]

    @property
    def throttle_scope(self) -> str:
        """A player's acts at the board count against ``THROTTLE_MOVES``; every other write (results entered,
        confirmed or corrected, records, analyses) against its own ``THROTTLE_WRITES``: an organizer entering a
        round's results is not stopped by the moves' limit. Reads are never limited (MoveThrottle)."""
        return "moves" if getattr(self, "action", None) in PLAY_ACTIONS else "writes"

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
            return super().get_object()
        pk = str(self.kwargs["pk"])
        number = whole(pk)
        game = next(iter(Game.objects.filter(pk=number)), None) if number is not None else None
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
        if serializer_class is MoveInputSerializer:
            return move_input(self.request.data)
        return validated(serializer_class, self.request.data)

    def _detail(self, game: Game) -> Response:
        """The game after an action: its state, position and clock (GET the game for the whole record)."""
        return Response(game_state_data(game))

    def _player_action(
        self,
        serializer_class: type[serializers.Serializer[Any]],
        service: Callable[..., T],
        *,
        as_player: str = "player",
        timed: bool = False,
        live: bool = False,
        inputs: Callable[[dict[str, Any]], dict[str, Any]] = lambda data: {},
    ) -> T:
        """A player's action on their game: the input, the seat acting (a shared account names it), the
        service. ``timed``: the service is given when the request arrived; ``live`` (a move or a pass): and how
        long it queued, and the game is read once, under the service's lock, where who may act is checked."""
        if live:
            return self._live_action(serializer_class, service, inputs)
        game = self.get_object()
        data = self._input(serializer_class)
        kwargs = inputs(data)
        if timed:
            kwargs["at"] = _received(self.request)
        kwargs[as_player] = acting_player(self.request.user, game, data.get("seat"))
        return service(game_id=game.pk, actor=self.request.user, interface=INTERFACE, **kwargs)

    def _live_action(
        self,
        serializer_class: type[serializers.Serializer[Any]],
        service: Callable[..., T],
        inputs: Callable[[dict[str, Any]], dict[str, Any]],
    ) -> T:
        pk = whole(str(self.kwargs["pk"]))
        if pk is None:
            raise NotFound(_("There is no such game."))
        data = self._input(serializer_class)

        def permitted(game: Game) -> None:
            self.check_object_permissions(self.request, game)

        return live_act(
            self.request.user,
            pk,
            data,
            service,
            inputs,
            at=_received(self.request),
            queued_ms=getattr(self.request, "queued_ms", 0),
            permitted=permitted,
        )

    def _full(self, game: Game, status: int = 200) -> Response:
        fresh = visible_games(self.request.user).prefetch_related("moves", "claims", "reports").get(pk=game.pk)
        return Response(GameDetailSerializer(fresh, context={"request": self.request}).data, status=status)

    @extend_schema(request=CreateSerializer, responses={201: GameDetailSerializer})
    def create(self, request: Request) -> Response:
        require_organizer(request.user)
        data = self._input(CreateSerializer)
        if data.get("mode", GameMode.ONLINE) == GameMode.ONLINE:
            require_room()
        game = services.game_create(actor=request.user, **data)
        return self._full(game, 201)

    @extend_schema(request=MoveInputSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"])
    def move(self, request: Request, pk: str) -> Response:
        return self._detail(self._player_action(MoveInputSerializer, services.game_act, live=True, inputs=move_inputs))

    @extend_schema(request=PassInputSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"], url_path="pass")
    def pass_(self, request: Request, pk: str) -> Response:
        return self._detail(self._player_action(PassInputSerializer, services.game_pass, live=True, inputs=pass_inputs))

    @extend_schema(request=SeatSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"])
    def resign(self, request: Request, pk: str) -> Response:
        return self._detail(self._player_action(SeatSerializer, services.game_resign))

    @extend_schema(request=SeatSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"], url_path="offer-draw")
    def offer_draw(self, request: Request, pk: str) -> Response:
        """The player who has just moved offers a draw (at most two per game); the clocks stop."""
        return self._detail(self._player_action(SeatSerializer, services.game_offer_draw, timed=True))

    @extend_schema(request=AnswerInputSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"], url_path="answer-draw")
    def answer_draw(self, request: Request, pk: str) -> Response:
        game = self._player_action(
            AnswerInputSerializer, services.game_answer_draw, timed=True, inputs=lambda data: {"accept": data["accept"]}
        )
        return self._detail(game)

    @extend_schema(request=ArbiterCallInputSerializer, responses={201: ArbiterCallSerializer})
    @action(detail=True, methods=["post"], url_path="call-arbiter")
    def call_arbiter(self, request: Request, pk: str) -> Response:
        """A player calls an arbiter to the board: the referees and the control room are alerted, and an
        online game's clocks stop until a referee answers (logged in the game's events)."""
        call = self._player_action(
            ArbiterCallInputSerializer, game_call_arbiter, inputs=lambda data: {"note": data.get("note", "")}
        )
        return Response(ArbiterCallSerializer(call).data, status=201)

    @extend_schema(request=ArbiterAnswerInputSerializer, responses=ArbiterCallSerializer)
    @action(detail=True, methods=["post"], url_path="answer-arbiter")
    def answer_arbiter(self, request: Request, pk: str) -> Response:
        """Referees and organizers: the open arbiter call of this game is answered; the clocks run again."""
        game = self.get_object()
        require_referee(request.user, game)
        call = ArbiterCall.objects.filter(game=game, answered_at__isnull=True).first()
        if call is None:
            raise GameError("no_call", _("This game has no open arbiter call."), 404)
        data = self._input(ArbiterAnswerInputSerializer)
        call = game_answer_arbiter(
            call_id=call.pk,
            actor=request.user,
            answer=data.get("answer", ""),
            justified=data.get("justified", False),
            interface=INTERFACE,
        )
        return Response(ArbiterCallSerializer(call).data)

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
            if not may_rule(request.user, game):
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
        def inputs(data: dict[str, Any]) -> dict[str, Any]:
            return {"result": data["result"], "reason": data["reason"], "record": data["record"]}

        report = self._player_action(
            ReportInputSerializer, services.game_report_result, as_player="reporter", inputs=inputs
        )
        return Response(ReportSerializer(report).data, status=201)

    @extend_schema(request=SeatSerializer, responses=GameStateSerializer)
    @action(detail=True, methods=["post"], url_path="confirm-result")
    def confirm_result(self, request: Request, pk: str) -> Response:
        return self._detail(self._player_action(SeatSerializer, services.game_confirm_result))

    @extend_schema(request=DisputeInputSerializer, responses=ReportSerializer)
    @action(detail=True, methods=["post"], url_path="dispute-result")
    def dispute_result(self, request: Request, pk: str) -> Response:
        report = self._player_action(
            DisputeInputSerializer, services.game_dispute_result, inputs=lambda data: {"note": data["note"]}
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
        require_game_organizer(request.user, game)
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

    @extend_schema(request=PracticeInputSerializer, responses={201: GameDetailSerializer})
    @action(detail=False, methods=["post"])
    def practice(self, request: Request) -> Response:
        """Start a practice game against the computer (level 1-5; unrated, in no tournament)."""
        player = player_of(request.user)
        if player is None:
            raise services.GameError(
                "no_player", _("Your account is not linked to a player yet; ask the organizer."), 403
            )
        data = self._input(PracticeInputSerializer)
        game = practice_start(player=player, actor=request.user, interface=INTERFACE, **data)
        return self._full(game, 201)

    @extend_schema(methods=["GET"], responses=AnalysisSerializer)
    @extend_schema(
        methods=["POST"],
        request=AnalysisInputSerializer,
        responses={202: AnalysisSerializer, 200: AnalysisSerializer},
    )
    @action(detail=True, methods=["get", "post"])
    def analysis(self, request: Request, pk: str) -> Response:
        """The engine's analysis of a finished game: forced wins missed and allowed, move by move; with
        ``engine``, a registered engine's move in every position as well.

        GET: as stored; ``status`` "none" (200, nothing else) when nobody has asked for one, so a finished
        game's page asks without a failed request. POST (the game's players, referees, organizers): ask for
        it; 200 with the stored one if it read this record, else 202 while a worker computes it."""
        game = self.get_object()
        if request.method == "POST":
            if not concerns(request.user, game):
                raise services.GameError(
                    "not_allowed", _("Only the game's players, its referees and organizers can ask for it."), 403
                )
            engine = self._input(AnalysisInputSerializer).get("engine")
            analysis = analysis_request(game=game, engine=engine, actor=request.user, interface=INTERFACE)
            done = analysis.status == Analysis.Status.DONE
            return Response(AnalysisSerializer(analysis).data, status=200 if done else 202)
        stored = Analysis.objects.filter(game=game).first()
        if stored is None:
            none: dict[str, Any] = {"status": "none", "marks": [], "limits": {}, "error": "", "finished_at": None}
            return Response({**none, "engine": None, "suggestions": []})
        return Response(AnalysisSerializer(stored).data)

    @extend_schema(request=PositionInputSerializer, responses=PositionAnalysisSerializer)
    @action(detail=False, methods=["post"], url_path="analyse-position")
    def analyse_position(self, request: Request) -> Response:
        """Referees and organizers: the forced wins (VCF, VCT within limits) of both sides in a position."""
        if not (organizes_any(request.user) or referees_any(request.user)):
            raise services.GameError("not_allowed", _("Only referees and organizers can analyse a position."), 403)
        data = self._input(PositionInputSerializer)
        return Response(
            position_analysis(
                moves=data["moves"], rules=data["rules"], engine=data.get("engine"), requester=request.user
            )
        )

    @extend_schema(request=ImportInputSerializer, responses={201: GameDetailSerializer})
    @action(detail=False, methods=["post"], url_path="import")
    def import_record(self, request: Request) -> Response:
        """Organizers: import one finished game from the plain record or a one-game .rif file.

        The opening protocol's actions, who took them, their times and the round are kept."""
        require_organizer(request.user)
        data = self._input(ImportInputSerializer)
        game = services.game_import(text=data["text"], actor=request.user, interface=INTERFACE)
        return self._full(game, 201)


def move_inputs(data: dict[str, Any]) -> dict[str, Any]:
    return {"action": data.get("action") or f"place {data['point']}", "expected_ply": data["ply"]}


def pass_inputs(data: dict[str, Any]) -> dict[str, Any]:
    return {"expected_ply": data["ply"]}


def live_act(
    user: Any,
    game_id: int,
    data: dict[str, Any],
    service: Callable[..., T],
    inputs: Callable[[dict[str, Any]], dict[str, Any]],
    *,
    at: Any,
    queued_ms: int,
    permitted: Callable[[Game], None] = lambda game: None,
) -> T:
    """A player's stone or pass (``data`` already checked by its input serializer), by HTTP or over the game's
    socket (config.live_acts): the game is read once, under the service's lock, where who may act is checked;
    ``at`` is when the action reached the server and ``queued_ms`` how long it then waited there."""

    def acting(game: Game) -> Player:
        if not can_see(user, game):
            raise NotFound(_("There is no such game."))
        permitted(game)
        return acting_player(user, game, data.get("seat"))

    try:
        return service(
            game_id=game_id,
            actor=user,
            interface=INTERFACE,
            at=at,
            think_ms=data.get("think_ms"),
            queued_ms=queued_ms,
            live=True,
            player=acting,
            **inputs(data),
        )
    except GameError as exc:
        if exc.code == "no_game":  # a game that is not there reads as one the user may not see
            raise NotFound(_("There is no such game.")) from None
        raise


def _received(request: Request) -> Any:
    """When the request reached the server (stamped by config.middleware.ReceivedAtMiddleware)."""
    return getattr(request, "received_at", None) or timezone.now()
