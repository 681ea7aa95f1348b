"""Games, their records, forbidden-move claims and the event log.

A game knows nothing of tournaments; the tournament app links its matches
to games. Nothing is deleted: corrections are new events.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from games.enums import (
    ClaimStatus,
    ForbiddenMode,
    GameMode,
    GameResult,
    GameStatus,
    Interface,
    ReportStatus,
    ResultReason,
    WrongClaimPenalty,
)


class Player(models.Model):
    """A person who plays; an account is optional."""

    name = models.CharField(_("name"), max_length=100)
    unit = models.CharField(_("unit (club, school or class)"), max_length=100, blank=True)
    rating = models.IntegerField(_("rating"), null=True, blank=True)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="player"
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("player")
        verbose_name_plural = _("players")

    def __str__(self) -> str:
        return f"{self.name} ({self.unit})" if self.unit else self.name


class Game(models.Model):
    """One game between player one and player two of its opening protocol."""

    player_one = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    player_two = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    black = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    white = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    rules = models.CharField(_("rule set"), max_length=20, default="renju")
    protocol = models.CharField(_("opening protocol"), max_length=30, default="none")
    protocol_options = models.JSONField(_("protocol options"), default=dict, blank=True)
    forbidden_mode = models.CharField(max_length=10, choices=ForbiddenMode.choices, default=ForbiddenMode.AUTO)
    wrong_claim_penalty = models.CharField(
        max_length=10, choices=WrongClaimPenalty.choices, default=WrongClaimPenalty.NONE
    )
    mode = models.CharField(max_length=10, choices=GameMode.choices, default=GameMode.ONLINE)
    status = models.CharField(max_length=10, choices=GameStatus.choices, default=GameStatus.OPENING)
    result = models.CharField(max_length=10, choices=GameResult.choices, blank=True)
    result_reason = models.CharField(max_length=20, choices=ResultReason.choices, blank=True)
    result_detail = models.CharField(max_length=200, blank=True)
    ply = models.PositiveIntegerField(default=0, help_text=_("actions recorded so far"))
    board_number = models.PositiveIntegerField(null=True, blank=True)
    event = models.CharField(_("event"), max_length=200, blank=True, help_text=_("the tournament, for the record"))
    round = models.CharField(_("round"), max_length=40, blank=True, help_text=_("stage.round.game, for the record"))
    record_text = models.TextField(
        _("over-the-board record"), blank=True, help_text=_("the stones of an over-the-board game, as settled")
    )
    is_public = models.BooleanField(default=True)
    referees = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="refereed_games")
    # The clock (games.clock): the control's options, a snapshot, and the next instant it changes on its own.
    time_control = models.JSONField(_("time control"), default=dict, blank=True)
    clock = models.JSONField(default=dict, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    clock_version = models.PositiveIntegerField(default=0)
    # A no-show: a referee marked a player absent at the board; the game is forfeited at ``absent_deadline``.
    absent_player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    absent_deadline = models.DateTimeField(null=True, blank=True)
    adjudicated_by = models.CharField(max_length=12, blank=True, help_text=_("which path ended the game on time"))
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["deadline"], condition=Q(deadline__isnull=False), name="game_deadline")]
        constraints = [
            models.CheckConstraint(condition=~Q(player_one=models.F("player_two")), name="game_two_different_players"),
            models.CheckConstraint(
                condition=Q(black__isnull=True) | ~Q(black=models.F("white")), name="game_black_is_not_white"
            ),
        ]
        verbose_name = _("game")
        verbose_name_plural = _("games")
        permissions = [("override_result", _("Can override any game's result"))]

    def __str__(self) -> str:
        return f"#{self.pk} {self.player_one} – {self.player_two}"


class Move(models.Model):
    """One action of the record (rules.md §1.3); ``ply`` numbers actions."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="moves")
    ply = models.PositiveIntegerField()
    kind = models.CharField(max_length=10)  # engine.protocols.Kind values
    text = models.CharField(max_length=200, help_text=_("the action as recorded, e.g. 'place h8'"))
    player_number = models.PositiveSmallIntegerField()
    color = models.CharField(max_length=5, blank=True, help_text=_("colour the actor held"))
    move_number = models.PositiveIntegerField(null=True, blank=True, help_text=_("board move number, if any"))
    foul = models.CharField(max_length=20, blank=True, help_text=_("forbidden kind of a black stone, if any"))
    created_at = models.DateTimeField(auto_now_add=True)
    clock_ms = models.JSONField(default=dict, blank=True)

    class Meta:
        verbose_name = _("move")
        verbose_name_plural = _("moves")
        ordering = ["game", "ply"]
        constraints = [models.UniqueConstraint(fields=["game", "ply"], name="move_one_per_ply")]

    def __str__(self) -> str:
        return f"{self.game_id}:{self.ply} {self.text}"


class ForbiddenClaim(models.Model):
    """White's (or a referee's) claim that a black move was forbidden."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="claims")
    move_number = models.PositiveIntegerField()
    point = models.CharField(max_length=4)
    claimed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT)
    status = models.CharField(max_length=10, choices=ClaimStatus.choices, default=ClaimStatus.OPEN)
    verdict = models.CharField(max_length=20, blank=True)
    explanation = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("forbidden-move claim")
        verbose_name_plural = _("forbidden-move claims")
        constraints = [
            models.UniqueConstraint(fields=["game"], condition=Q(status="open"), name="claim_one_open_per_game")
        ]

    def __str__(self) -> str:
        return f"claim {self.point} (move {self.move_number}): {self.status}"


class ResultReport(models.Model):
    """A player's report of an over-the-board result, awaiting the opponent."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="reports")
    reporter = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    reported_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    result = models.CharField(max_length=10, choices=GameResult.choices)
    reason = models.CharField(max_length=20, choices=ResultReason.choices)
    record = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=ReportStatus.choices, default=ReportStatus.PENDING)
    note = models.CharField(max_length=500, blank=True, help_text=_("the dispute's or the ruling's reason"))
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("result report")
        verbose_name_plural = _("result reports")
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["game"], condition=Q(status__in=["pending", "disputed"]), name="report_one_open_per_game"
            )
        ]

    def __str__(self) -> str:
        return f"report {self.result} ({self.reason}): {self.status}"


class GameEvent(models.Model):
    """Append-only log of every state change."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT)
    kind = models.CharField(max_length=30)
    data = models.JSONField(default=dict, blank=True)
    interface = models.CharField(max_length=10, choices=Interface.choices, default=Interface.API)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("game event")
        verbose_name_plural = _("game events")
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.game_id} {self.kind}"
