"""What the organizer and the referees record beside the games: the audit log, confirmed corrections,
appeals, arena bouts."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from games.models import Game, Player
from tournament.models.tournaments import Tournament


class AuditLog(models.Model):
    """Every organizer action, append-only."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="audit", verbose_name=_("tournament")
    )
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, verbose_name=_("actor"))
    action = models.CharField(max_length=40, verbose_name=_("action"))
    data = models.JSONField(default=dict, blank=True, verbose_name=_("data"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("audit log entry")
        verbose_name_plural = _("audit log")
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.tournament_id} {self.action}"


class Consent(models.Model):
    """The organizer's confirmation of a correction the tournament asked about (its next stage has started),
    given before the game's result is written and used by what follows it (then deleted)."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="consents", verbose_name=_("tournament")
    )
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="consent", verbose_name=_("game"))
    reason = models.CharField(max_length=500, verbose_name=_("reason"))
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("actor")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("confirmed correction")
        verbose_name_plural = _("confirmed corrections")

    def __str__(self) -> str:
        return f"{self.game_id}: {self.reason[:40]}"


class Appeal(models.Model):
    """An appeal against a referee's ruling, decided finally by a committee of three."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        UPHELD = "upheld", _("upheld")
        DISMISSED = "dismissed", _("dismissed")

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="appeals", verbose_name=_("game"))
    appellant = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("appellant"))
    reason = models.CharField(max_length=500, verbose_name=_("reason"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, verbose_name=_("status"))
    committee = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="+", verbose_name=_("committee")
    )
    decision = models.CharField(max_length=500, blank=True, verbose_name=_("decision"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    decided_at = models.DateTimeField(null=True, blank=True, verbose_name=_("decided at"))

    class Meta:
        verbose_name = _("appeal")
        verbose_name_plural = _("appeals")
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["game"], condition=Q(status="open"), name="appeal_one_open_per_game")
        ]

    def __str__(self) -> str:
        return f"appeal on game {self.game_id}: {self.status}"


class ArenaBout(models.Model):
    """擂台赛: a challenger plays the table holder; the winner holds the table."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="arena", verbose_name=_("tournament")
    )
    holder = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("holder"))
    challenger = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("challenger"))
    winner = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("winner"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("arena bout")
        verbose_name_plural = _("arena bouts")
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.challenger_id} vs {self.holder_id}: {self.winner_id}"
