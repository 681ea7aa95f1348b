"""A Swiss stage's byes."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class SwissBye(models.Model):
    """A Swiss round a player has no opponent in: the pairing-allocated bye, a bye asked for, a round
    missed before a late entry."""

    class Kind(models.TextChoices):
        PAIRING = "U", _("pairing-allocated bye")
        HALF = "H", _("half-point bye")
        ZERO = "Z", _("zero-point bye")
        FULL = "F", _("full-point bye")

    stage = models.ForeignKey(
        "tournament.Stage", on_delete=models.PROTECT, related_name="swiss_byes", verbose_name=_("stage")
    )
    round = models.PositiveSmallIntegerField(verbose_name=_("round"))
    entry = models.ForeignKey(
        "tournament.Entry", on_delete=models.PROTECT, related_name="swiss_byes", verbose_name=_("entry")
    )
    kind = models.CharField(max_length=1, choices=Kind.choices, verbose_name=_("kind"))
    requested = models.BooleanField(default=False, verbose_name=_("requested"))
    late = models.BooleanField(default=False, help_text=_("a round missed before a late entry"), verbose_name=_("late"))
    absent = models.BooleanField(
        default=False, help_text=_("not checked in when the round was paired"), verbose_name=_("absent")
    )

    class Meta:
        verbose_name = _("Swiss bye")
        verbose_name_plural = _("Swiss byes")
        ordering = ["stage", "round", "entry"]
        constraints = [models.UniqueConstraint(fields=["stage", "round", "entry"], name="swiss_bye_once")]

    def __str__(self) -> str:
        return f"{self.entry_id} round {self.round}: {self.kind}"
