"""What the relay keeps: who records each board (the lease), each recorded action, each correction, and a
stage's publish delay. The game's own record stays as it was; the signed result sheet settles the game."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class StageDelay(models.Model):
    """How long the public waits for a stage's relayed moves (0–60 minutes); referees and the organizer see
    them at once."""

    stage = models.OneToOneField(
        "tournament.Stage", on_delete=models.CASCADE, related_name="relay_delay", verbose_name=_("stage")
    )
    minutes = models.PositiveSmallIntegerField(default=0, verbose_name=_("publish delay (minutes)"))
    screen_live = models.BooleanField(
        default=False,
        verbose_name=_("projector live"),
        help_text=_("the organizer's projector shows the boards at once (a spectators' room, away from the players)"),
    )

    class Meta:
        verbose_name = _("publish delay")
        verbose_name_plural = _("publish delays")

    def __str__(self) -> str:
        return f"{self.stage_id}: {self.minutes} min"


class Lease(models.Model):
    """The one person who records a board's game; a referee may take it over (each change is logged)."""

    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, related_name="relay_lease")
    holder = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("recorder")
    )
    since = models.DateTimeField(default=timezone.now, verbose_name=_("since"))

    class Meta:
        verbose_name = _("recorder's lease")
        verbose_name_plural = _("recorders' leases")

    def __str__(self) -> str:
        return f"{self.game_id}: {self.holder_id}"


class RelayMove(models.Model):
    """One recorded action of the game (a stone, a swap, an offer, a choice), numbered by ply as the game's
    own moves are; who acted and with which colour come from the opening protocol."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="relay_moves")
    ply = models.PositiveIntegerField(verbose_name=_("ply"))
    text = models.CharField(max_length=200, verbose_name=_("action"))
    seat = models.PositiveSmallIntegerField(verbose_name=_("player number"))
    color = models.CharField(max_length=5, blank=True, verbose_name=_("color"))
    move_number = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("move number"))
    foul = models.CharField(max_length=20, blank=True, verbose_name=_("foul"))
    clock = models.JSONField(default=dict, blank=True, help_text=_("readings typed from the table clock"))
    entered_at = models.DateTimeField(default=timezone.now, verbose_name=_("entered at"))
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("by")
    )

    class Meta:
        verbose_name = _("recorded move")
        verbose_name_plural = _("recorded moves")
        ordering = ["game", "ply"]
        constraints = [models.UniqueConstraint(fields=["game", "ply"], name="relay_move_one_per_ply")]

    def __str__(self) -> str:
        return f"{self.game_id}:{self.ply} {self.text}"


class Correction(models.Model):
    """The record replaced from ``from_ply`` on: what was there, what replaced it, who and why. Spectators
    see it as a correction, never as a silent change."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="relay_corrections")
    from_ply = models.PositiveIntegerField(verbose_name=_("from ply"))
    removed = models.JSONField(default=list, verbose_name=_("removed"))
    added = models.JSONField(default=list, verbose_name=_("added"))
    reason = models.CharField(max_length=200, verbose_name=_("reason"))
    at = models.DateTimeField(default=timezone.now, verbose_name=_("at"))
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("by")
    )

    class Meta:
        verbose_name = _("record correction")
        verbose_name_plural = _("record corrections")
        ordering = ["game", "at"]

    def __str__(self) -> str:
        return f"{self.game_id} from {self.from_ply}"


class LeaseChange(models.Model):
    """A lease taken over: who had it, who took it, when (the audit of one writer per board)."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="relay_lease_changes")
    previous = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("from")
    )
    holder = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("to")
    )
    at = models.DateTimeField(default=timezone.now, verbose_name=_("at"))

    class Meta:
        verbose_name = _("lease taken over")
        verbose_name_plural = _("leases taken over")
        ordering = ["game", "at"]

    def __str__(self) -> str:
        return f"{self.game_id}: {self.previous_id} -> {self.holder_id}"


class PushToken(models.Model):
    """A key that may push records into one tournament's relayed games and do nothing else (a federation's
    feed, a transcription desk). Only its digest is kept; the key is shown once, when it is made."""

    tournament = models.ForeignKey(
        "tournament.Tournament", on_delete=models.CASCADE, related_name="relay_tokens", verbose_name=_("tournament")
    )
    label = models.CharField(max_length=100, verbose_name=_("label"))
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("made by")
    )
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("made at"))
    revoked_at = models.DateTimeField(null=True, blank=True, verbose_name=_("revoked at"))

    class Meta:
        verbose_name = _("relay push key")
        verbose_name_plural = _("relay push keys")

    def __str__(self) -> str:
        return f"{self.tournament_id}: {self.label}"
