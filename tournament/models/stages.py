"""A tournament's stages, their groups, the matches paired in them and the games of each match."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.models import Game
from tournament.models.tournaments import Entry, Tournament


class Stage(models.Model):
    class Kind(models.TextChoices):
        GROUPS = "groups", _("group round robin")
        KNOCKOUT = "knockout", _("best-of-N knockout")
        ROUND_ROBIN = "round_robin", _("round robin")
        SWISS = "swiss", _("Swiss system")
        TEAMS = "teams", _("team event")
        DOUBLE_ELIMINATION = "double_elim", _("double elimination")

    class Status(models.TextChoices):
        PENDING = "pending", _("not drawn")
        DRAWN = "drawn", _("drawn")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="stages", verbose_name=_("tournament")
    )
    order = models.PositiveIntegerField(verbose_name=_("order"))
    name = models.CharField(max_length=100, verbose_name=pgettext_lazy("tournament", "name"))
    kind = models.CharField(max_length=12, choices=Kind.choices, verbose_name=_("kind"))
    options = models.JSONField(default=dict, blank=True, verbose_name=_("options"))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, verbose_name=_("status"))
    draw_seed = models.BigIntegerField(
        null=True, blank=True, help_text=_("re-run the draw with this seed to check it"), verbose_name=_("draw seed")
    )
    # Where a correction after the fact left the stage (tournament.services.outcomes), as fields, not options:
    held = models.BooleanField(
        default=False, help_text=_("waits until a reopened previous stage is decided again"), verbose_name=_("held")
    )
    held_drawn = models.BooleanField(
        default=False,
        help_text=_("was drawn before it was held"),
        verbose_name=_("held drawn"),
    )
    reopened = models.BooleanField(
        default=False, help_text=_("a correction reopened it after it finished"), verbose_name=_("reopened")
    )
    reopen_reason = models.CharField(
        max_length=500, blank=True, help_text=_("the organizer's confirmed reason"), verbose_name=_("reason")
    )
    qualified = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("who went on, by group"),
        verbose_name=_("qualified"),
    )
    redraws = models.JSONField(
        default=list, blank=True, help_text=_("draws redone after corrections"), verbose_name=_("redraws")
    )

    class Meta:
        verbose_name = _("stage")
        verbose_name_plural = _("stages")
        ordering = ["tournament", "order"]
        constraints = [models.UniqueConstraint(fields=["tournament", "order"], name="stage_order_unique")]

    def __str__(self) -> str:
        return f"{self.tournament}: {self.name}"


class Group(models.Model):
    """Players who play each other: a round-robin group, a best-of-N pair, or a playoff among tied players."""

    class Kind(models.TextChoices):
        ROUND_ROBIN = "round_robin", _("round robin")
        BEST_OF = "best_of", _("best of N")
        PLAYOFF = "playoff", _("playoff")
        SWISS = "swiss", _("Swiss")
        TEAMS = "teams", _("teams' boards")

    stage = models.ForeignKey(Stage, on_delete=models.PROTECT, related_name="groups", verbose_name=_("stage"))
    number = models.PositiveIntegerField(verbose_name=_("number"))
    name = models.CharField(max_length=50, verbose_name=pgettext_lazy("tournament", "name"))
    kind = models.CharField(max_length=12, choices=Kind.choices, verbose_name=_("kind"))
    games_per_pair = models.PositiveSmallIntegerField(default=2, verbose_name=_("games per pair"))
    advance = models.PositiveSmallIntegerField(
        default=2, help_text=_("how many of this group go on"), verbose_name=_("advance")
    )
    parent = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="playoffs",
        help_text=_("the group whose tie this playoff decides"),
        verbose_name=_("parent"),
    )
    root = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text=_("the top-level group of a playoff tree"),
        verbose_name=_("root"),
    )
    members: models.ManyToManyField[Entry, GroupMember] = models.ManyToManyField(
        Entry,
        through="GroupMember",
        related_name="groups",
        verbose_name=_("members"),
    )
    void = models.BooleanField(
        default=False, help_text=_("a playoff no longer needed after a correction"), verbose_name=_("void")
    )
    decision = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("a tie the playoff games could not break: the order, by lot or by the organizer"),
        verbose_name=_("decision"),
    )

    class Meta:
        verbose_name = _("group")
        verbose_name_plural = _("groups")
        ordering = ["stage", "number"]

    def __str__(self) -> str:
        return f"{self.stage.name} {self.name}"


class GroupMember(models.Model):
    group = models.ForeignKey(Group, on_delete=models.PROTECT, related_name="memberships", verbose_name=_("group"))
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, verbose_name=_("entry"))
    position = models.PositiveSmallIntegerField(
        help_text=_("a, b, c, d … in the pairing order"), verbose_name=_("position")
    )

    class Meta:
        verbose_name = _("group member")
        verbose_name_plural = _("group members")
        ordering = ["group", "position"]
        constraints = [models.UniqueConstraint(fields=["group", "entry"], name="member_once_per_group")]

    def __str__(self) -> str:
        return f"{self.group_id}:{self.position} {self.entry_id}"


class Match(models.Model):
    """Two entries in a group: a pairing of its round robin, a best-of-N, or a playoff; it owns its games."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting")
        CALLED = "called", _("on a board")
        FINISHED = "finished", _("finished")
        CANCELLED = "cancelled", _("cancelled")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="matches", verbose_name=_("tournament")
    )
    group = models.ForeignKey(Group, on_delete=models.PROTECT, related_name="matches", verbose_name=_("group"))
    round = models.PositiveIntegerField(default=1, verbose_name=_("round"))
    order = models.PositiveIntegerField(default=0, verbose_name=_("order"))
    first = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="+", verbose_name=_("first"))
    second = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="+", verbose_name=_("second"))
    games_planned = models.PositiveSmallIntegerField(
        default=2, help_text=_("2: colours swapped; N: best of N"), verbose_name=_("games planned")
    )
    best_of = models.BooleanField(default=False, verbose_name=_("best of"))
    sudden_death = models.BooleanField(default=True, verbose_name=_("sudden death"))
    colour_toss = models.JSONField(
        default=dict, blank=True, help_text=_("猜先: who grabbed, the guess, the count"), verbose_name=_("colour toss")
    )
    board = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("board"))
    referee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("referee"),
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, verbose_name=_("status"))
    winner = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.PROTECT, related_name="+", verbose_name=_("winner")
    )
    replaces = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text=_("a match voided by a correction"),
        verbose_name=_("replaces"),
    )
    games: models.ManyToManyField[Game, MatchGame] = models.ManyToManyField(
        Game,
        through="MatchGame",
        related_name="matches",
        verbose_name=_("games"),
    )

    class Meta:
        verbose_name = _("match")
        ordering = ["group", "round", "order"]
        verbose_name_plural = _("matches")
        constraints = [
            models.CheckConstraint(condition=~Q(first=models.F("second")), name="match_two_entries"),
            models.UniqueConstraint(
                fields=["tournament", "board"], condition=Q(status="called"), name="board_one_match"
            ),
        ]
        # A game's end asks whether any match waits for a board (services.common.call_matches): in a round of
        # 3,000 games on every board, the answer must not walk them.
        indexes = [models.Index(fields=["tournament", "status"], name="match_by_status")]

    def __str__(self) -> str:
        return f"{self.first} – {self.second}"


class MatchGame(models.Model):
    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="match_games", verbose_name=_("match"))
    game = models.OneToOneField(Game, on_delete=models.PROTECT, related_name="match_game", verbose_name=_("game"))
    number = models.PositiveSmallIntegerField(verbose_name=_("number"))
    counted = models.BooleanField(
        default=True,
        help_text=_("false for a game played after a correction decided the match earlier"),
        verbose_name=_("counted"),
    )

    class Meta:
        verbose_name = _("game of a match")
        verbose_name_plural = _("games of matches")
        ordering = ["match", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="match_game_number")]

    def __str__(self) -> str:
        return f"match {self.match_id} game {self.number}"
