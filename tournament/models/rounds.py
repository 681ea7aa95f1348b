"""The rounds of a stage paired one round at a time: draft, published, closed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import models
from django.utils.translation import gettext_lazy as _

from games.access import may_organize
from tournament.models.stages import Stage


class Round(models.Model):
    """One round of a round-by-round stage (a Swiss system's, or any format that pairs round by round):
    paired (a draft the organizer reviews), published (its matches are called to boards), closed (every
    match finished). The pairing program's own boards are kept beside the published ones, with every manual
    edit and the warnings it raised."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("paired, not published")
        PUBLISHED = "published", _("published")
        CLOSED = "closed", _("closed")

    stage = models.ForeignKey(Stage, on_delete=models.PROTECT, related_name="rounds", verbose_name=_("stage"))
    number = models.PositiveSmallIntegerField(verbose_name=_("round"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT, verbose_name=_("status"))
    engine = models.CharField(max_length=40, verbose_name=_("pairing program"))
    engine_boards = models.JSONField(
        default=list,
        help_text=_("the program's pairing: [first entry, second entry or null]"),
        verbose_name=_("engine boards"),
    )
    boards = models.JSONField(default=list, help_text=_("the pairing as published"), verbose_name=_("boards"))
    why = models.JSONField(default=list, blank=True, help_text=_("why each board is paired so"), verbose_name=_("why"))
    edits = models.JSONField(
        default=list, blank=True, help_text=_("manual edits with reasons and warnings"), verbose_name=_("edits")
    )
    notes = models.JSONField(
        default=list, blank=True, help_text=_("what the pairing had to relax"), verbose_name=_("notes")
    )
    paired_at = models.DateTimeField(auto_now_add=True, verbose_name=_("paired at"))
    published_at = models.DateTimeField(null=True, blank=True, verbose_name=_("published at"))
    closed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("closed at"))

    class Meta:
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        ordering = ["stage", "number"]
        constraints = [models.UniqueConstraint(fields=["stage", "number"], name="round_once")]

    def __str__(self) -> str:
        return f"{self.stage} round {self.number}"


def shown_rounds(viewer: Any, tournament: Any, rounds: Iterable[Round]) -> list[Round]:
    """Drafts stay private everywhere: the one rule every page and API that lists a stage's rounds asks
    (tournament/tests/test_drafts.py walks them all). A round not yet published — its boards, its edits and
    their reasons — is seen only by its tournament's organizers; a published one by everyone."""
    if may_organize(viewer, tournament):
        return list(rounds)
    return [r for r in rounds if r.status != Round.Status.DRAFT]


def shown_edits(viewer: Any, tournament: Any, edits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A published round's manual edits as ``viewer`` sees them: what changed and why for everyone, who made
    the change (an organizer's account name) for the tournament's organizers only."""
    if may_organize(viewer, tournament):
        return edits
    return [{key: value for key, value in edit.items() if key != "actor"} for edit in edits]
