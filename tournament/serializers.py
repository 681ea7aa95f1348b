"""The tournament API's serializers: what its reads answer and its actions take (tournament.api)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers

from engine.protocols import PROTOCOLS
from games.access import visible_players
from games.enums import ForbiddenMode, GameMode
from games.models import Player
from games.serializers import RULE_SETS, ResultInputSerializer, TimeControlField
from tournament import services
from tournament.identity import check_may_enter, player_for_entry
from tournament.models import Match, Stage, Tournament, WithdrawalPolicy
from tournament.services.common import held_for_room


class StageSerializer(serializers.ModelSerializer[Stage]):
    kind = serializers.CharField(
        read_only=True, help_text="the stage's format: a built-in one (Stage.Kind) or any other registered format"
    )

    class Meta:
        model = Stage
        fields = ["id", "order", "name", "kind", "status", "draw_seed", "options"]


class TournamentSerializer(serializers.ModelSerializer[Tournament]):
    stages = StageSerializer(many=True, read_only=True)
    rules = serializers.ChoiceField(choices=RULE_SETS, read_only=True)
    protocol = serializers.ChoiceField(choices=list(PROTOCOLS), read_only=True)
    time_control = TimeControlField(read_only=True)
    held_for_room = serializers.SerializerMethodField(
        help_text="online: the games that wait for room on the server (ONLINE_CAPACITY) and start as others end"
    )

    class Meta:
        model = Tournament
        fields = [
            "id",
            "name",
            "start_date",
            "end_date",
            "venue",
            "boards",
            "rules",
            "protocol",
            "forbidden_mode",
            "time_control",
            "mode",
            "win_points",
            "draw_points",
            "loss_points",
            "tiebreak",
            "status",
            "preset",
            "stages",
            "held_for_room",
        ]
        read_only_fields = ["status", "stages"]

    def get_held_for_room(self, tournament: Tournament) -> int:
        return held_for_room(tournament)


class MatchSerializer(serializers.ModelSerializer[Match]):
    first = serializers.CharField(source="first.player.name")
    second = serializers.CharField(source="second.player.name")
    games = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = [
            "id",
            "group",
            "round",
            "order",
            "first",
            "second",
            "board",
            "status",
            "winner",
            "best_of",
            "colour_toss",
            "games",
        ]

    def get_games(self, match: Match) -> list[int]:
        return [mg.game_id for mg in match.match_games.all()]


class StandingsStageSerializer(serializers.Serializer[Any]):
    stage = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField(help_text="the stage's format: a built-in one (Stage.Kind) or any other registered")
    status = serializers.ChoiceField(choices=Stage.Status.choices)
    groups = serializers.ListField(
        child=serializers.DictField(),
        help_text="each group's table: rank, player, unit, wins, draws, losses, points, tie-breaks and state",
    )


class TournamentCreateSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=200)
    preset = serializers.ChoiceField(choices=list(services.PRESETS), default="seed")
    boards = serializers.IntegerField(min_value=1, max_value=500, required=False)
    rules = serializers.ChoiceField(choices=RULE_SETS, required=False, help_text="else the preset's")
    protocol = serializers.ChoiceField(choices=list(PROTOCOLS), required=False, help_text="else the preset's")
    forbidden_mode = serializers.ChoiceField(
        choices=ForbiddenMode.choices, required=False, help_text="else the preset's"
    )
    mode = serializers.ChoiceField(choices=GameMode.choices, required=False, help_text="else the preset's")
    first_stage = serializers.CharField(
        required=False, default="", help_text="a stage format (round_robin, double_elim)"
    )
    stage_options = serializers.DictField(
        required=False,
        help_text="preset swiss: rounds, games (1, 2, 3), rules (2026, 2017), accelerate, unit_rounds, "
        "unit_last_rounds, prohibited, pab, late_score, "
        "max_requested_byes, no_byes_last, tiebreaks, advance, then (docs/swiss.md); preset teams: system, boards, "
        "reserves, rounds, match_points (e.g. [1, 0.5, 0]), bye (won_drawn, won_all, drawn, zero), primary, "
        "tiebreaks, lineup_minutes, first_colour, complete_tie, precise_places, order (rating, lot, fixed), "
        "apart_last, numbers (order fixed: the teams' names, number 1 first) (docs/teams.md); first_stage "
        "round_robin: lot, apart_last or numbers; double_elim: best_of, seeding (docs/formats.md)",
    )


class EntryRegisterSerializer(serializers.Serializer[Any]):
    player = serializers.IntegerField(
        required=False, min_value=1, help_text="a player's number (one you keep; anyone else: invite them)"
    )
    name = serializers.CharField(max_length=100, required=False)
    unit = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
    rating = serializers.IntegerField(required=False, allow_null=True)


class CheckInSerializer(serializers.Serializer[Any]):
    entry = serializers.IntegerField(required=False, allow_null=True, help_text="organizers: the entry to check in")
    undo = serializers.BooleanField(required=False, default=False, help_text="organizers: take the check-in back")


class CheckInAnswerSerializer(serializers.Serializer[Any]):
    entry = serializers.IntegerField()
    round = serializers.IntegerField(allow_null=True)
    checked_in = serializers.BooleanField()
    checked_in_at = serializers.DateTimeField(allow_null=True)


def player_named(data: dict[str, Any], *, actor: Any, tournament: Tournament) -> Player:
    """The player an entry names: by id (one ``actor`` keeps: tournament.identity), or by name (and unit,
    rating) one it keeps or a new one of its own."""
    number = data.get("player")
    player = visible_players(actor).filter(pk=number).first() if number is not None else None
    if number is not None and player is None:  # the same answer for a number nobody has and one hidden
        raise services.TournamentError("no_player", _("There is no player with that number."), 404)
    if player is None:
        if not data.get("name"):
            raise serializers.ValidationError({"name": _("Give a player id or a name.")})
        player = player_for_entry(
            actor=actor, tournament=tournament, name=data["name"], unit=data["unit"], rating=data.get("rating")
        )
    assert isinstance(player, Player)
    check_may_enter(actor, player)
    return player


class InviteSerializer(serializers.Serializer[Any]):
    player = serializers.IntegerField(min_value=1, help_text="the player's number (GET /api/players/)")


class InvitationSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    tournament = serializers.IntegerField(source="tournament_id")
    tournament_name = serializers.CharField(source="tournament.name")
    player = serializers.IntegerField(source="player_id")
    created_at = serializers.DateTimeField()
    accepted = serializers.BooleanField(allow_null=True)


class AnswerSerializer(serializers.Serializer[Any]):
    accept = serializers.BooleanField()


class CsvSerializer(serializers.Serializer[Any]):
    csv = serializers.CharField(max_length=200_000, help_text="rows of name,unit,rating")


class AppealSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField(help_text="a game of this tournament that a referee ruled on")
    reason = serializers.CharField(max_length=500)


class DecisionSerializer(serializers.Serializer[Any]):
    appeal = serializers.IntegerField()
    committee = serializers.ListField(
        child=serializers.IntegerField(), min_length=3, max_length=3, help_text="the three members' user ids"
    )
    upheld = serializers.BooleanField()
    decision = serializers.CharField(max_length=500)
    result = serializers.ChoiceField(choices=["black", "white", "draw"], required=False)
    reason = serializers.CharField(max_length=20, required=False, default="referee")


class CorrectionSerializer(ResultInputSerializer):
    game = serializers.IntegerField(help_text="a game of this tournament")
    note = serializers.CharField(max_length=500, help_text="why the result is corrected")
    confirm = serializers.BooleanField(
        required=False,
        default=False,
        help_text=(
            "the organizer confirms, with the note as the reason, a correction that changes who qualified for a "
            "stage already under way (its affected matches are voided and re-made); without it such a "
            "correction is refused with 409 next_stage_started and nothing is written"
        ),
    )


class BoutSerializer(serializers.Serializer[Any]):
    challenger = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    winner = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    holder = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(), required=False, help_text="the first table holder, for the first bout"
    )


class TossSerializer(serializers.Serializer[Any]):
    match = serializers.IntegerField()
    grabber = serializers.IntegerField(help_text="the entry id of the player who grabbed the stones")
    guess = serializers.ChoiceField(choices=["odd", "even"])
    count = serializers.IntegerField(min_value=1, max_value=361)


class WithdrawSerializer(serializers.Serializer[Any]):
    entry = serializers.IntegerField(help_text="the entry's id")
    reason = serializers.CharField(required=False, allow_blank=True, max_length=500, default="")
    policy = serializers.ChoiceField(
        choices=WithdrawalPolicy.choices, required=False, help_text="default: the tournament's withdrawal policy"
    )


class AbsentSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField(help_text="the game at the called board")
    player = serializers.IntegerField(required=False, help_text="the absent player's id (absent only)")


class PlayoffDecisionSerializer(serializers.Serializer[Any]):
    group = serializers.IntegerField(help_text="the playoff group awaiting a decision")
    order = serializers.ListField(child=serializers.IntegerField(), help_text="entry ids, best first")


class StageActionSerializer(serializers.Serializer[Any]):
    stage = serializers.IntegerField(help_text="the stage's id")
    seed = serializers.IntegerField(required=False, help_text="draw: re-run a recorded draw")
