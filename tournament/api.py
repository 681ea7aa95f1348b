"""The tournament API: public reads (tournaments, stages, standings, schedule) and organizer actions."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Case, When
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from games.access import account, drafts_hidden, may_organize, player_in, require_organizer, visible_players
from games.models import Game, Player
from games.parsing import whole
from games.serializers import validated
from tournament import appeals, selectors, services
from tournament.checkin import check_in_round
from tournament.errors import after_round
from tournament.invitations import invitation_answer, invite, open_invitations
from tournament.models import Appeal, Group, Invitation, Match, Stage, Tournament
from tournament.registration import check_in_as, import_entries, import_summary
from tournament.serializers import (
    AbsentSerializer,
    AnswerSerializer,
    AppealSerializer,
    BoutSerializer,
    CheckInAnswerSerializer,
    CheckInSerializer,
    CorrectionSerializer,
    CsvSerializer,
    DecisionSerializer,
    EntryRegisterSerializer,
    InvitationSerializer,
    InviteSerializer,
    MatchSerializer,
    PlayoffDecisionSerializer,
    StageActionSerializer,
    StageSerializer,
    StandingsStageSerializer,
    TossSerializer,
    TournamentCreateSerializer,
    TournamentSerializer,
    WithdrawSerializer,
    player_named,
)
from tournament.services.outcomes import playoff_decide
from tournament.stage_formats import stage_standings
from tournament.withdrawals import entry_withdraw, match_mark_absent, match_mark_present


class TournamentViewSet(viewsets.ReadOnlyModelViewSet[Tournament]):
    """Tournaments: anyone reads; organizers create and run them."""

    serializer_class = TournamentSerializer
    queryset = Tournament.objects.prefetch_related("stages").order_by("-id")

    def get_queryset(self) -> Any:
        """Drafts are their organizers' own: nobody else lists or reads them."""
        return drafts_hidden(self.queryset, self.request.user)

    def _input(self, cls: type[serializers.Serializer[Any]]) -> dict[str, Any]:
        return validated(cls, self.request.data)

    @extend_schema(request=TournamentCreateSerializer, responses={201: TournamentSerializer})
    def create(self, request: Request) -> Response:
        if not request.user.has_perm("tournament.add_tournament"):
            require_organizer(request.user)
        data = self._input(TournamentCreateSerializer)
        tournament = services.tournament_create(actor=request.user, **data)
        return Response(TournamentSerializer(tournament).data, status=201)

    @extend_schema(responses=StandingsStageSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def standings(self, request: Request, pk: str) -> Response:
        """Every stage's groups with rank, player, unit, W/D/L, points, tie-breaks and state;
        ``?after_round=N``: as each stage's groups stood after their round N (a Swiss or team stage: its own
        API with the same parameter)."""
        tournament = self.get_object()
        through = after_round(request.query_params)
        return Response(
            [
                {
                    "stage": s.pk,
                    "name": s.name,
                    "kind": s.kind,
                    "status": s.status,
                    "groups": stage_standings(s, through),
                }
                for s in tournament.stages.exclude(status=Stage.Status.PENDING)
            ]
        )

    @extend_schema(responses={200: dict})
    @action(detail=True, methods=["get"])
    def arena(self, request: Request, pk: str) -> Response:
        """擂台赛: the table holder, the current streak and the longest streak."""
        return Response(selectors.arena_summary(self.get_object()))

    @extend_schema(request=BoutSerializer, responses={201: dict})
    @action(detail=True, methods=["post"], url_path="arena-bout")
    def arena_bout(self, request: Request, pk: str) -> Response:
        """擂台赛: record a bout (the organizer or one of the tournament's referees)."""
        tournament = self.get_object()
        self._referee_or_organizer(tournament)
        data = self._input(BoutSerializer)
        appeals.arena_bout(tournament=tournament, actor=request.user, **data)
        return Response(selectors.arena_summary(tournament), status=201)

    @extend_schema(request=TossSerializer, responses={200: dict})
    @action(detail=True, methods=["post"], url_path="colour-toss")
    def colour_toss(self, request: Request, pk: str) -> Response:
        """猜先 at the table for a best-of-three or playoff match, before its first game."""
        tournament = self.get_object()
        self._referee_or_organizer(tournament)
        data = self._input(TossSerializer)
        match = Match.objects.filter(pk=data["match"], tournament=tournament).select_related("tournament").first()
        grabber = tournament.entries.filter(pk=data["grabber"]).first()
        if match is None or grabber is None:
            raise services.TournamentError("no_match", _("There is no such match or player in this tournament."), 404)
        match = services.record_colour_toss(
            match=match, grabber=grabber, guess=data["guess"], count=data["count"], actor=request.user
        )
        return Response({"match": match.pk, "colour_toss": match.colour_toss})

    @extend_schema(request=AppealSerializer, responses={201: dict})
    @action(detail=True, methods=["post"])
    def appeal(self, request: Request, pk: str) -> Response:
        """A player appeals a referee's ruling on their game to the appeals committee."""
        tournament = self.get_object()
        data = self._input(AppealSerializer)
        game = Game.objects.filter(pk=data["game"], match_game__match__tournament=tournament).first()
        player = player_in(request.user, tournament.pk)
        if game is None:
            raise services.TournamentError("no_game", _("There is no such game in this tournament."), 404)
        if player is None:
            raise services.TournamentError("not_your_game", _("You are not a player in this game."), 403)
        appeal = appeals.appeal_file(game=game, appellant=player, reason=data["reason"], actor=request.user)
        return Response({"appeal": appeal.pk, "status": appeal.status}, status=201)

    @extend_schema(request=DecisionSerializer, responses={200: dict})
    @action(detail=True, methods=["post"], url_path="decide-appeal")
    def decide_appeal(self, request: Request, pk: str) -> Response:
        """The organizer records the committee's final decision."""
        require_organizer(request.user, self.get_object())
        tournament = self.get_object()
        data = self._input(DecisionSerializer)
        appeal = Appeal.objects.filter(pk=data["appeal"], game__match_game__match__tournament=tournament).first()
        if appeal is None:
            raise services.TournamentError("no_appeal", _("There is no such appeal in this tournament."), 404)
        committee = list(get_user_model().objects.filter(pk__in=data["committee"]))
        appeal = appeals.appeal_decide(
            appeal=appeal,
            committee=committee,
            upheld=data["upheld"],
            decision=data["decision"],
            result=data.get("result", ""),
            reason=data["reason"],
            actor=request.user,
        )
        return Response({"appeal": appeal.pk, "status": appeal.status, "decision": appeal.decision})

    @extend_schema(request=CorrectionSerializer, responses={200: dict})
    @action(detail=True, methods=["post"], url_path="correct-result")
    def correct_result(self, request: Request, pk: str) -> Response:
        """The organizer corrects a game's result; the tournament asks first whether it needs confirming."""
        tournament = self.get_object()
        require_organizer(request.user, tournament)
        data = self._input(CorrectionSerializer)
        game = Game.objects.filter(pk=data.pop("game"), match_game__match__tournament=tournament).first()
        if game is None:
            raise services.TournamentError("no_game", _("There is no such game in this tournament."), 404)
        game = services.correct_result(game_id=game.pk, actor=request.user, interface="api", **data)
        return Response({"game": game.pk, "result": game.result, "result_reason": game.result_reason})

    @extend_schema(responses=MatchSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def schedule(self, request: Request, pk: str) -> Response:
        """Matches on the boards now (by board), then the ones waiting, in calling order (at most 200)."""
        tournament = self.get_object()
        matches = (
            Match.objects.filter(tournament=tournament)
            .exclude(status__in=[Match.Status.FINISHED, Match.Status.CANCELLED])
            .select_related("first__player", "second__player")
            .prefetch_related("match_games")
            .annotate(waiting=Case(When(status=Match.Status.CALLED, then=0), default=1))
            .order_by("waiting", "board", "group__stage__order", "round", "group__number", "order")[:200]
        )
        return Response(MatchSerializer(matches, many=True).data)

    @extend_schema(request=EntryRegisterSerializer, responses={201: dict})
    @action(detail=True, methods=["post"])
    def register(self, request: Request, pk: str) -> Response:
        require_organizer(request.user, self.get_object())
        tournament = self.get_object()
        player = player_named(self._input(EntryRegisterSerializer), actor=request.user, tournament=tournament)
        entry = services.register(tournament=tournament, player=player, actor=request.user)
        return Response({"entry": entry.pk, "player": player.pk}, status=201)

    @extend_schema(request=InviteSerializer, responses={201: dict})
    @action(detail=True, methods=["post"])
    def invite(self, request: Request, pk: str) -> Response:
        """Ask a player the organizer does not keep to play (docs/security.md): ``invitation`` while they have
        not accepted; a player the organizer keeps is entered at once (``entry``)."""
        tournament = self.get_object()
        require_organizer(request.user, tournament)
        number = self._input(InviteSerializer)["player"]
        player = visible_players(request.user).filter(pk=number).first()
        if player is None:
            raise services.TournamentError("no_player", _("There is no player with that number."), 404)
        done = invite(tournament=tournament, player=player, actor=request.user)
        if isinstance(done, Invitation):
            return Response({"invitation": done.pk, "player": player.pk, "entry": None}, status=201)
        return Response({"invitation": None, "player": player.pk, "entry": done.pk}, status=201)

    @extend_schema(request=CsvSerializer, responses={201: dict})
    @action(detail=True, methods=["post"], url_path="import-players")
    def import_players(self, request: Request, pk: str) -> Response:
        require_organizer(request.user, self.get_object())
        report = import_entries(
            tournament=self.get_object(), text=self._input(CsvSerializer)["csv"], actor=request.user
        )
        return Response(
            {
                "entries": [e.pk for e in report.entered],
                "already": report.already,
                "repeated": report.repeated,
                "message": import_summary(report),
            },
            status=201,
        )

    def _stage(self, tournament: Tournament, data: dict[str, Any]) -> Stage:
        stage = tournament.stages.filter(pk=data["stage"]).first()
        if stage is None:
            raise services.TournamentError("no_stage", "There is no such stage in this tournament.", 404)
        return stage

    @extend_schema(request=None, responses=TournamentSerializer)
    @action(detail=True, methods=["post"])
    def publish(self, request: Request, pk: str) -> Response:
        require_organizer(request.user, self.get_object())
        return Response(TournamentSerializer(services.publish(tournament=self.get_object(), actor=request.user)).data)

    @extend_schema(request=StageActionSerializer, responses=StageSerializer)
    @action(detail=True, methods=["post"])
    def draw(self, request: Request, pk: str) -> Response:
        require_organizer(request.user, self.get_object())
        data = self._input(StageActionSerializer)
        stage = services.draw_stage(
            stage=self._stage(self.get_object(), data), seed=data.get("seed"), actor=request.user
        )
        return Response(StageSerializer(stage).data)

    @extend_schema(request=StageActionSerializer, responses=StageSerializer)
    @action(detail=True, methods=["post"], url_path="undo-draw")
    def undo_draw(self, request: Request, pk: str) -> Response:
        require_organizer(request.user, self.get_object())
        stage = services.undo_draw(
            stage=self._stage(self.get_object(), self._input(StageActionSerializer)), actor=request.user
        )
        return Response(StageSerializer(stage).data)

    @extend_schema(request=StageActionSerializer, responses=StageSerializer)
    @action(detail=True, methods=["post"], url_path="start-stage")
    def start_stage(self, request: Request, pk: str) -> Response:
        require_organizer(request.user, self.get_object())
        stage = services.start_stage(
            stage=self._stage(self.get_object(), self._input(StageActionSerializer)), actor=request.user
        )
        return Response(StageSerializer(stage).data)

    @extend_schema(request=WithdrawSerializer, responses={200: dict})
    @action(detail=True, methods=["post"])
    def withdraw(self, request: Request, pk: str) -> Response:
        """Withdraw a player: remaining games forfeited, or annulled (policy); a qualifier is replaced."""
        require_organizer(request.user, self.get_object())
        tournament = self.get_object()
        data = self._input(WithdrawSerializer)
        entry = tournament.entries.filter(pk=data["entry"]).first()
        if entry is None:
            raise services.TournamentError("no_entry", _("There is no such player in this tournament."), 404)
        entry = entry_withdraw(entry=entry, reason=data["reason"], policy=data.get("policy", ""), actor=request.user)
        return Response({"entry": entry.pk, "withdrawn": entry.withdrawn, "withdrawal": entry.withdrawal})

    @extend_schema(request=CheckInSerializer, responses={200: CheckInAnswerSerializer})
    @action(detail=True, methods=["post"], url_path="check-in")
    def check_in(self, request: Request, pk: str) -> Response:
        """Check in for the round whose check-in is open: the organizer for any entry (``entry``; ``undo``
        takes a check-in back), a player for their own entry (no ``entry`` needed)."""
        tournament = self.get_object()
        data = self._input(CheckInSerializer)
        entry = check_in_as(
            tournament=tournament, user=account(request.user), entry_id=data.get("entry"), undo=data["undo"]
        )
        number = check_in_round(tournament)
        return Response(
            {
                "entry": entry.pk,
                "round": number,
                "checked_in": number is not None and entry.checked_in_round >= number,
                "checked_in_at": entry.checked_in_at,
            }
        )

    def _referee_or_organizer(self, tournament: Tournament) -> None:
        user = account(self.request.user)
        if not (may_organize(user, tournament) or tournament.referees.filter(pk=user.pk).exists()):
            raise services.TournamentError("not_referee", _("Only the organizer and the referees may do this."), 403)

    @extend_schema(request=AbsentSerializer, responses={200: dict})
    @action(detail=True, methods=["post"])
    def absent(self, request: Request, pk: str) -> Response:
        """A player is not at the called board: the game is forfeited after the tournament's no-show wait."""
        tournament = self.get_object()
        self._referee_or_organizer(tournament)
        data = self._input(AbsentSerializer)
        player = Player.objects.filter(pk=data.get("player", 0)).first()
        if player is None:
            raise services.TournamentError("no_player", _("Name the absent player."), 400)
        game = match_mark_absent(tournament=tournament, game_id=data["game"], player=player, actor=request.user)
        return Response({"game": game.pk, "absent_player": game.absent_player_id, "deadline": game.absent_deadline})

    @extend_schema(request=AbsentSerializer, responses={200: dict})
    @action(detail=True, methods=["post"])
    def present(self, request: Request, pk: str) -> Response:
        """The absent player has come: no forfeit."""
        tournament = self.get_object()
        self._referee_or_organizer(tournament)
        data = self._input(AbsentSerializer)
        game = match_mark_present(tournament=tournament, game_id=data["game"], actor=request.user)
        return Response({"game": game.pk, "absent_player": None, "deadline": None})

    @extend_schema(request=PlayoffDecisionSerializer, responses={200: dict})
    @action(detail=True, methods=["post"], url_path="decide-playoff")
    def decide_playoff(self, request: Request, pk: str) -> Response:
        """The organizer orders players whose tie the playoff games could not break."""
        require_organizer(request.user, self.get_object())
        tournament = self.get_object()
        data = self._input(PlayoffDecisionSerializer)
        group = Group.objects.filter(pk=data["group"], stage__tournament=tournament).first()
        if group is None:
            raise services.TournamentError("no_group", _("There is no such playoff in this tournament."), 404)
        group = playoff_decide(group=group, order=data["order"], actor=request.user)
        return Response({"group": group.pk, "decision": group.decision})

    @extend_schema(request=StageActionSerializer, responses={200: dict})
    @action(detail=True, methods=["post"])
    def advance(self, request: Request, pk: str) -> Response:
        require_organizer(request.user, self.get_object())
        following = services.advance(
            stage=self._stage(self.get_object(), self._input(StageActionSerializer)), actor=request.user
        )
        return Response({"next_stage": StageSerializer(following).data if following else None})


class InvitationViewSet(viewsets.GenericViewSet[Invitation]):
    """Your invitations to play (an account of your own answers them; accepting enters you)."""

    serializer_class = InvitationSerializer
    permission_classes = [IsAuthenticated]
    pagination_class = None

    queryset = Invitation.objects.none()  # what the schema describes; a request lists only its own

    def get_queryset(self) -> Any:
        if getattr(self, "swagger_fake_view", False):
            return self.queryset
        return Invitation.objects.filter(player__user=account(self.request.user)).select_related("tournament")

    @extend_schema(responses=InvitationSerializer(many=True))
    def list(self, request: Request) -> Response:
        return Response(InvitationSerializer(open_invitations(request.user), many=True).data)

    @extend_schema(request=AnswerSerializer, responses=InvitationSerializer)
    @action(detail=True, methods=["post"])
    def answer(self, request: Request, pk: str) -> Response:
        number = whole(pk)
        accept = validated(AnswerSerializer, request.data)["accept"]
        invitation = invitation_answer(invitation_id=number or 0, user=request.user, accept=accept)
        return Response(InvitationSerializer(invitation).data)
