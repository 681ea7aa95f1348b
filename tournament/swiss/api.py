"""The Swiss API: a Swiss stage's standings, rounds (with why each board is paired so) and crosstable for
anyone; byes, late entries, returns, settings, the extra game and TRF import for the organizer. Its rounds are
paired, edited, published and unpaired through the one round API (``/api/rounds/<stage>/``,
tournament.rounds_api), as every round-by-round format's."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from games.access import drafts_hidden, require_organizer
from games.serializers import validated
from tournament.errors import after_round
from tournament.models import Entry, Stage, SwissBye
from tournament.serializers import EntryRegisterSerializer, player_named
from tournament.services import TournamentError
from tournament.swiss import selectors, services
from tournament.swiss.imports import tournament_from_trf
from tournament.swiss.trf import TrfError


class ByeSerializer(serializers.Serializer[Any]):
    entry = serializers.IntegerField()
    round = serializers.IntegerField(min_value=1, max_value=30)
    kind = serializers.ChoiceField(choices=[SwissBye.Kind.HALF, SwissBye.Kind.ZERO], default=SwissBye.Kind.HALF)
    cancel = serializers.BooleanField(default=False)


class OptionsSerializer(serializers.Serializer[Any]):
    options = serializers.DictField(help_text="the settings to change (docs/swiss.md)")


class EntrySerializer(serializers.Serializer[Any]):
    entry = serializers.IntegerField()


class TrfImportSerializer(serializers.Serializer[Any]):
    trf = serializers.CharField(max_length=2_000_000, help_text="a TRF16 file, with XX extension lines if any")
    name = serializers.CharField(max_length=200, required=False, help_text="default: the file's 012 line")


class TiedSerializer(serializers.Serializer[Any]):
    order = serializers.ListField(
        child=serializers.IntegerField(), min_length=2, help_text="the tied entries' ids, the extra game's winner first"
    )


class SwissStageSerializer(serializers.Serializer[Any]):
    stage = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=Stage.Status.choices)
    options = serializers.DictField()
    standings = serializers.DictField(help_text="columns (the chosen tie-breaks) and rows with the deciding tie-break")
    rounds = serializers.ListField(child=serializers.DictField(), help_text="boards, why, byes, edits per round")
    crosstable = serializers.ListField(child=serializers.DictField())


def swiss_payload(stage: Stage, viewer: Any, after: int | None = None) -> dict[str, Any]:
    """The stage as ``viewer`` sees it: a draft round only for its organizers (tournament.models.shown_rounds);
    ``after``: the standings and crosstable as they stood after that round (every round still listed)."""
    data = selectors.load(stage)
    table = data if after is None else selectors.load(stage, through=after)
    return {
        "stage": stage.pk,
        "name": stage.name,
        "status": stage.status,
        "options": stage.options,
        "standings": selectors.standings(stage, table),
        "rounds": selectors.rounds_view(stage, data, viewer=viewer),
        "crosstable": selectors.crosstable(stage, table),
    }


class SwissViewSet(viewsets.GenericViewSet[Stage]):
    """Swiss stages, by stage id."""

    queryset = Stage.objects.filter(kind=Stage.Kind.SWISS).select_related("tournament")

    def get_queryset(self) -> Any:
        """A draft tournament's stages are its organizers' own."""
        return drafts_hidden(super().get_queryset(), self.request.user, "tournament__")

    serializer_class = SwissStageSerializer  # what OPTIONS describes; each action validates its own input

    def _input(self, cls: type[serializers.Serializer[Any]]) -> dict[str, Any]:
        return validated(cls, self.request.data)

    def _entry(self, stage: Stage, pk: int) -> Entry:
        entry = Entry.objects.filter(pk=pk, tournament_id=stage.tournament_id).first()
        if entry is None:
            raise TournamentError("no_entry", _("There is no such player in this tournament."), 404)
        return entry

    @extend_schema(responses=SwissStageSerializer)
    def retrieve(self, request: Request, pk: str) -> Response:
        """Standings with the chosen tie-breaks, every round's boards and why, and the crosstable;
        ``?after_round=N``: the standings and crosstable as they stood after round N."""
        return Response(swiss_payload(self.get_object(), request.user, after_round(request.query_params)))

    @extend_schema(request=TiedSerializer, responses=SwissStageSerializer)
    @action(detail=True, methods=["post"], url_path="extra-game")
    def extra_game(self, request: Request, pk: str) -> Response:
        """The outcome of the extra game that settles a complete tie on a place that must be precise
        (``complete_tie`` "extra_game", or "share" with ``precise_places``)."""
        stage = self.get_object()
        require_organizer(request.user, stage.tournament)
        services.swiss_extra_game(stage=stage, order=self._input(TiedSerializer)["order"], actor=request.user)
        stage.refresh_from_db()
        return Response(swiss_payload(stage, request.user))

    @extend_schema(request=OptionsSerializer, responses=SwissStageSerializer)
    @action(detail=True, methods=["post"], url_path="options")
    def configure(self, request: Request, pk: str) -> Response:
        """Change the stage's settings (docs/swiss.md): any until round 1 is paired, then only the
        prohibited pairs, the unit rule and the bye limits."""
        stage = self.get_object()
        require_organizer(request.user, stage.tournament)
        services.swiss_configure(stage=stage, options=self._input(OptionsSerializer)["options"], actor=request.user)
        stage.refresh_from_db()
        return Response(swiss_payload(stage, request.user))

    @extend_schema(request=ByeSerializer, responses={200: dict})
    @action(detail=True, methods=["post"])
    def bye(self, request: Request, pk: str) -> Response:
        """A bye asked for (half or zero point) for a round not yet paired, or its cancellation."""
        stage = self.get_object()
        require_organizer(request.user, stage.tournament)
        data = self._input(ByeSerializer)
        entry = self._entry(stage, data["entry"])
        if data["cancel"]:
            services.swiss_cancel_bye(stage=stage, entry=entry, number=data["round"], actor=request.user)
            return Response({"entry": entry.pk, "round": data["round"], "kind": None})
        bye = services.swiss_request_bye(
            stage=stage, entry=entry, number=data["round"], kind=data["kind"], actor=request.user
        )
        return Response({"entry": entry.pk, "round": bye.round, "kind": bye.kind})

    @extend_schema(request=EntryRegisterSerializer, responses={201: dict})
    @action(detail=True, methods=["post"], url_path="late-entry")
    def late_entry(self, request: Request, pk: str) -> Response:
        """A player joins the stage under way: paired from the next round."""
        stage = self.get_object()
        require_organizer(request.user, stage.tournament)
        player = player_named(self._input(EntryRegisterSerializer), actor=request.user, tournament=stage.tournament)
        entry = services.swiss_late_entry(stage=stage, player=player, actor=request.user)
        return Response({"entry": entry.pk, "player": player.pk}, status=201)

    @extend_schema(request=EntrySerializer, responses={200: dict})
    @action(detail=True, methods=["post"], url_path="return")
    def return_(self, request: Request, pk: str) -> Response:
        """A withdrawn player comes back, paired again from the next round."""
        stage = self.get_object()
        require_organizer(request.user, stage.tournament)
        entry = services.swiss_return(
            stage=stage, entry=self._entry(stage, self._input(EntrySerializer)["entry"]), actor=request.user
        )
        return Response({"entry": entry.pk, "withdrawn": entry.withdrawn})

    @extend_schema(request=TrfImportSerializer, responses={201: dict})
    @action(detail=False, methods=["post"], url_path="import-trf")
    def import_trf(self, request: Request) -> Response:
        """Start a tournament from a TRF file: its players, the rounds already played, the prohibited pairs
        and the acceleration; the next round is then paired here."""
        if not request.user.has_perm("tournament.add_tournament"):
            require_organizer(request.user)
        data = self._input(TrfImportSerializer)
        try:
            tournament = tournament_from_trf(text=data["trf"], name=data.get("name", ""), actor=request.user)
        except TrfError as exc:
            raise TournamentError(
                "bad_trf",
                _("The TRF file cannot be read: line %(line)s: %(message)s")
                % {"line": exc.line, "message": exc.message},
            ) from None
        stage = tournament.stages.get(order=1)
        return Response({"tournament": tournament.pk, "stage": stage.pk}, status=201)
