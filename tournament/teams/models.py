"""A team event's teams, their members, team matches and line-ups."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class Team(models.Model):
    """A team of a team event (团体赛): its players in a standing order (boards, then reserves), a captain."""

    tournament = models.ForeignKey(
        "tournament.Tournament", on_delete=models.PROTECT, related_name="teams", verbose_name=_("tournament")
    )
    name = models.CharField(max_length=60, verbose_name=pgettext_lazy("tournament", "name"))
    captain = models.ForeignKey(
        "games.Player",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="captained",
        verbose_name=_("captain"),
    )
    seed = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("seed number"))

    class Meta:
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        ordering = ["tournament", "seed", "pk"]
        constraints = [models.UniqueConstraint(fields=["tournament", "name"], name="team_name_unique")]

    def __str__(self) -> str:
        return self.name


class TeamMember(models.Model):
    """A player of a team: an entry of the tournament (ratings, check-in, withdrawals as for anyone), at a
    place in the team's standing order."""

    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="memberships", verbose_name=_("team"))
    entry = models.OneToOneField(
        "tournament.Entry", on_delete=models.PROTECT, related_name="team_membership", verbose_name=_("entry")
    )
    order = models.PositiveSmallIntegerField(verbose_name=_("order"))

    class Meta:
        verbose_name = _("team member")
        verbose_name_plural = _("team members")
        ordering = ["team", "order"]
        constraints = [models.UniqueConstraint(fields=["team", "order"], name="team_member_order")]

    def __str__(self) -> str:
        return f"{self.team} {self.order}: {self.entry}"


class TeamMatch(models.Model):
    """Two teams paired in a round (``away`` None: a bye); its boards are ordinary matches made when both
    lineups are in or the deadline passes."""

    stage = models.ForeignKey(
        "tournament.Stage", on_delete=models.PROTECT, related_name="team_matches", verbose_name=_("stage")
    )
    round = models.PositiveIntegerField(verbose_name=_("round"))
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    home = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="+", verbose_name=_("first team"))
    away = models.ForeignKey(
        Team, null=True, blank=True, on_delete=models.PROTECT, related_name="+", verbose_name=_("second team")
    )
    lineup_deadline = models.DateTimeField(null=True, blank=True, verbose_name=_("lineup deadline"))
    boards_made_at = models.DateTimeField(null=True, blank=True, verbose_name=_("boards made at"))
    forfeits = models.JSONField(
        default=dict, blank=True, help_text=_("board -> the side with nobody there"), verbose_name=_("forfeited boards")
    )
    colour_toss = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("猜先 for board 1: which team grabbed, the guess, the count, which team had black"),
        verbose_name=_("colour toss"),
    )

    class Meta:
        verbose_name = _("team match")
        verbose_name_plural = _("team matches")
        ordering = ["stage", "round", "order"]
        constraints = [models.UniqueConstraint(fields=["stage", "round", "home"], name="team_match_home_once")]

    def __str__(self) -> str:
        return f"{self.home} – {self.away or '—'}"


class TeamBoard(models.Model):
    """A board of a team match: the ordinary match of the two players seated there (the shared ``Match``
    knows nothing of teams; the team event finds its boards here)."""

    match = models.OneToOneField(
        "tournament.Match", on_delete=models.CASCADE, related_name="team_board", verbose_name=_("match")
    )
    team_match = models.ForeignKey(
        TeamMatch, on_delete=models.PROTECT, related_name="boards", verbose_name=_("team match")
    )
    number = models.PositiveSmallIntegerField(help_text=_("the board within the team match"), verbose_name=_("table"))

    class Meta:
        verbose_name = _("team board")
        verbose_name_plural = _("team boards")
        ordering = ["team_match", "number"]

    def __str__(self) -> str:
        return f"{self.team_match} board {self.number}"


class Lineup(models.Model):
    """A team's players for one team match, by board (None: nobody on that board), as the captain sent it or
    as the standing order gave it when none came by the deadline."""

    team_match = models.ForeignKey(
        TeamMatch, on_delete=models.PROTECT, related_name="lineups", verbose_name=_("team match")
    )
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="lineups", verbose_name=_("team"))
    entries = models.JSONField(default=list, verbose_name=_("players by board"))
    fallback = models.BooleanField(
        default=False,
        help_text=_("taken from the standing order: none came by the deadline"),
        verbose_name=_("fallback"),
    )
    submitted_at = models.DateTimeField(auto_now=True, verbose_name=_("submitted at"))
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("by"),
    )

    class Meta:
        verbose_name = _("lineup")
        verbose_name_plural = _("lineups")
        constraints = [models.UniqueConstraint(fields=["team_match", "team"], name="lineup_once")]

    def __str__(self) -> str:
        return f"{self.team} in {self.team_match}"
