"""What fair play keeps: each player's screening of each finished online game, the cases opened for the
referees, their decisions, the player's appeal, and players' reports of an opponent. A case never sanctions by
itself: an outcome needs two referees who agree; an appeal is heard by a third."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Screening(models.Model):
    """One player's moves in one finished online game, screened (fairplay.screening) and judged against the
    null model of their band (fairplay.stats)."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="screenings")
    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="screenings")
    tournament = models.ForeignKey(
        "tournament.Tournament", null=True, blank=True, on_delete=models.CASCADE, related_name="screenings"
    )
    color = models.CharField(max_length=5, verbose_name=_("color"))
    band = models.CharField(max_length=20, verbose_name=_("strength band"))
    settings = models.JSONField(default=dict, help_text=_("the engine and limits the moves were screened with"))
    moves = models.JSONField(default=list, help_text=_("each move: forced or a real choice, rank, loss, time"))
    stats = models.JSONField(default=dict, help_text=_("matches, loss and z-scores against the null model"))
    z = models.FloatField(default=0.0, verbose_name=_("z-score"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=_("screened at"))

    class Meta:
        verbose_name = _("screening")
        verbose_name_plural = _("screenings")
        constraints = [models.UniqueConstraint(fields=["game", "player"], name="one_screening_per_player_game")]

    def __str__(self) -> str:
        return f"{self.game_id}/{self.player_id}: z={self.z:.2f}"


class Case(models.Model):
    """A player's screenings in one event above the threshold: a case for the referees, never a sanction."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        DECIDED = "decided", _("decided")
        APPEALED = "appealed", _("appealed")
        CLOSED = "closed", _("closed")

    class Outcome(models.TextChoices):
        NO_ACTION = "no_action", _("no action")
        WARNING = "warning", _("warning")
        ANNULLED = "annulled", _("games annulled")
        REFERRED = "referred", _("referred")

    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="fairplay_cases")
    tournament = models.ForeignKey(
        "tournament.Tournament", null=True, blank=True, on_delete=models.CASCADE, related_name="fairplay_cases"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, verbose_name=_("status"))
    outcome = models.CharField(max_length=10, choices=Outcome.choices, blank=True, verbose_name=_("outcome"))
    grounds = models.TextField(blank=True, verbose_name=_("grounds"), help_text=_("told to the player"))
    z = models.FloatField(default=0.0, verbose_name=_("z-score"))
    stats = models.JSONField(default=dict)
    reported = models.PositiveIntegerField(default=0, verbose_name=_("reports"))
    annulled = models.JSONField(default=dict, blank=True, help_text=_("games annulled: their results before"))
    opened_at = models.DateTimeField(default=timezone.now, verbose_name=_("opened at"))
    decided_at = models.DateTimeField(null=True, blank=True, verbose_name=_("decided at"))
    keep_until = models.DateField(null=True, blank=True, verbose_name=_("kept until"))

    class Meta:
        verbose_name = _("fair-play case")
        verbose_name_plural = _("fair-play cases")
        ordering = ["-z"]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.tournament_id}: {self.status}"


class Decision(models.Model):
    """A referee's decision on a case (``first``), or on its appeal (``appeal``)."""

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="decisions")
    referee = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    stage = models.CharField(max_length=10, default="first", verbose_name=_("stage"))
    outcome = models.CharField(max_length=10, choices=Case.Outcome.choices, verbose_name=_("outcome"))
    note = models.TextField(blank=True, verbose_name=_("note"))
    at = models.DateTimeField(default=timezone.now, verbose_name=_("at"))

    class Meta:
        verbose_name = _("fair-play decision")
        verbose_name_plural = _("fair-play decisions")
        ordering = ["at"]
        constraints = [models.UniqueConstraint(fields=["case", "referee", "stage"], name="one_decision_per_referee")]

    def __str__(self) -> str:
        return f"{self.case_id}: {self.outcome} by {self.referee_id}"


class Appeal(models.Model):
    """The player's appeal of a decided case, heard by a referee who did not decide it."""

    case = models.OneToOneField(Case, on_delete=models.CASCADE, related_name="appeal")
    text = models.TextField(verbose_name=_("appeal"))
    at = models.DateTimeField(default=timezone.now, verbose_name=_("at"))

    class Meta:
        verbose_name = _("fair-play appeal")
        verbose_name_plural = _("fair-play appeals")

    def __str__(self) -> str:
        return f"appeal of {self.case_id}"


class Report(models.Model):
    """A player's report that an opponent had help; it adds to the opponent's case (it never opens one by
    itself), weighed by how often this reporter's reports were upheld."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="fairplay_reports")
    reporter = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="fairplay_reports_made")
    reported = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="fairplay_reports_about")
    note = models.CharField(max_length=500, blank=True, verbose_name=_("note"))
    at = models.DateTimeField(default=timezone.now, verbose_name=_("at"))

    class Meta:
        verbose_name = _("fair-play report")
        verbose_name_plural = _("fair-play reports")
        constraints = [models.UniqueConstraint(fields=["game", "reporter"], name="one_report_per_game")]

    def __str__(self) -> str:
        return f"{self.reporter_id} reports {self.reported_id} in {self.game_id}"


class FocusLoss(models.Model):
    """The game page lost the focus during this player's own turn (another window, another tab): counted
    beside the game's screening for the referees, never a judgement by itself."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="focus_losses")
    player = models.ForeignKey("games.Player", on_delete=models.CASCADE, related_name="focus_losses")
    ply = models.PositiveIntegerField(verbose_name=_("ply"))
    at = models.DateTimeField(default=timezone.now, verbose_name=_("at"))

    class Meta:
        verbose_name = _("focus lost")
        verbose_name_plural = _("focus lost")
        constraints = [models.UniqueConstraint(fields=["game", "player", "ply"], name="one_focus_loss_per_turn")]

    def __str__(self) -> str:
        return f"{self.game_id}/{self.player_id} at {self.ply}"
