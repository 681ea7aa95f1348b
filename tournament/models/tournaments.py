"""The tournament, its entries and the choices they are made of."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.enums import ForbiddenMode, GameMode
from games.models import Player


class WithdrawalPolicy(models.TextChoices):
    FORFEIT = "forfeit", _("remaining games forfeited")
    ANNUL = "annul", _("games annulled while fewer than half were played, else forfeited")


class TieDecider(models.TextChoices):
    LOT = "lot", _("by lot (recorded)")
    ORGANIZER = "organizer", _("by the organizer")


class CheckIn(models.TextChoices):
    OFF = "off", _("no check-in")
    FIRST = "first", _("before the first round")
    EACH_ROUND = "each", _("before each Swiss round")


# The reason recorded on an entry left out of the first draw for not checking in: a no-show, not a player
# who withdrew (the public notice and the control room say so).
NO_SHOW = "did not check in"


class Tournament(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        PUBLISHED = "published", _("published")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")

    name = models.CharField(pgettext_lazy("tournament", "name"), max_length=200)
    start_date = models.DateField(_("start date"), null=True, blank=True)
    end_date = models.DateField(_("end date"), null=True, blank=True)
    venue = models.CharField(_("venue"), max_length=200, blank=True)
    boards = models.PositiveIntegerField(_("boards"), default=6)
    rules = models.CharField(_("rule set"), max_length=20, default="freestyle")
    protocol = models.CharField(_("opening protocol"), max_length=30, default="none")
    protocol_options = models.JSONField(default=dict, blank=True, verbose_name=_("protocol options"))
    forbidden_mode = models.CharField(
        max_length=10, choices=ForbiddenMode.choices, default=ForbiddenMode.CLAIM, verbose_name=_("forbidden mode")
    )
    time_control = models.JSONField(_("time control"), default=dict, blank=True, help_text=_("a preset or options"))
    mode = models.CharField(
        max_length=10, choices=GameMode.choices, default=GameMode.OVER_THE_BOARD, verbose_name=_("mode")
    )
    win_points = models.PositiveSmallIntegerField(default=2, verbose_name=_("win points"))
    draw_points = models.PositiveSmallIntegerField(default=1, verbose_name=_("draw points"))
    loss_points = models.PositiveSmallIntegerField(default=0, verbose_name=_("loss points"))
    tiebreak = models.JSONField(
        default=list,
        blank=True,
        help_text=_(
            "empty: ties that decide qualification are played off; otherwise computed tie-breaks in order "
            "(mini_league, wins, sonneborn_berger, white_wins)"
        ),
        verbose_name=_("tiebreak"),
    )
    final_playoff_places = models.JSONField(
        default=list,
        blank=True,
        help_text=_("places in the final decided by playoffs; empty: all"),
        verbose_name=_("final playoff places"),
    )
    final_max = models.PositiveIntegerField(
        default=8, help_text=_("second-stage rounds repeat until this many remain"), verbose_name=_("final max")
    )
    max_per_unit = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("max per unit"))
    draw_by_rating = models.BooleanField(default=False, verbose_name=_("draw by rating"))
    preset = models.CharField(max_length=20, default="seed", verbose_name=_("preset"))
    withdrawal_policy = models.CharField(
        _("withdrawals"), max_length=10, choices=WithdrawalPolicy.choices, default=WithdrawalPolicy.FORFEIT
    )
    replace_withdrawn = models.BooleanField(
        _("replace a withdrawn qualifier"),
        default=True,
        help_text=_("by the next-ranked player of the same group (a playoff if that is tied)"),
    )
    no_show_wait = models.PositiveIntegerField(
        _("no-show wait (minutes)"), default=15, help_text=_("after a player is marked absent, the game is forfeited")
    )
    playoff_draw_limit = models.PositiveSmallIntegerField(
        _("drawn playoff games before a decision"),
        default=3,
        help_text=_("after this many drawn playoff games in a row the tie is decided another way; 0: never"),
    )
    playoff_decider = models.CharField(
        _("a tie the playoffs cannot break is decided"),
        max_length=10,
        choices=TieDecider.choices,
        default=TieDecider.LOT,
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT, verbose_name=_("status"))
    rated = models.BooleanField(
        _("rated"), default=False, help_text=_("its games count for the rating lists of its rules when it finishes")
    )
    check_in = models.CharField(
        _("check-in"),
        max_length=5,
        choices=CheckIn.choices,
        default=CheckIn.OFF,
        help_text=_("players not checked in are left out of the draw (or, in a Swiss, of the round: a zero-point bye)"),
    )
    self_registration = models.BooleanField(
        _("players may register themselves"), default=False, help_text=_("through the tournament's public page")
    )
    registration_closes = models.DateTimeField(_("self-registration closes"), null=True, blank=True)
    # Players' own check-ins (link, slip, console) end here; the organizer may still check in a late arrival.
    check_in_closes = models.DateTimeField(_("players' check-in closes"), null=True, blank=True)
    registration_approval = models.BooleanField(
        _("self-registrations wait for approval"),
        default=False,
        help_text=_("a player who registers themselves is entered only once the organizer approves them"),
    )
    referees = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="refereed_tournaments", verbose_name=_("referees")
    )
    organizers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="organized_tournaments",
        verbose_name=_("organizers"),
        help_text=_("accounts that run this tournament (its creator and those they add); site organizers run all"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        ordering = ["-id"]
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")

    def __str__(self) -> str:
        return self.name


class Entry(models.Model):
    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="entries", verbose_name=_("tournament")
    )
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="entries", verbose_name=_("player"))
    seed = models.PositiveIntegerField(_("seed number"), null=True, blank=True)
    rating = models.IntegerField(
        _("rating at the start"),
        null=True,
        blank=True,
        help_text=_("fixed when the first stage is drawn: from the rating list if the tournament is rated"),
    )
    withdrawn = models.BooleanField(default=False, verbose_name=_("withdrawn"))
    withdrawn_stage = models.ForeignKey(
        "Stage",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text=_("the stage the player withdrew from; empty: before the first stage started"),
        verbose_name=_("withdrawn stage"),
    )
    withdrawal = models.JSONField(
        default=dict, blank=True, help_text=_("when, why, which policy"), verbose_name=_("withdrawal")
    )
    checked_in_round = models.PositiveSmallIntegerField(
        _("checked in for round"), default=0, help_text=_("0: not checked in")
    )
    checked_in_at = models.DateTimeField(_("checked in at"), null=True, blank=True)
    pending = models.BooleanField(
        _("awaiting approval"), default=False, help_text=_("registered themselves; the organizer has not approved yet")
    )
    declared_rating = models.IntegerField(
        _("declared rating"),
        null=True,
        blank=True,
        help_text=_("a rating the player gave when registering themselves: unverified, not used until confirmed"),
    )
    access_key = models.CharField(
        _("private link key"),
        max_length=40,
        null=True,
        blank=True,
        unique=True,
        help_text=_("the player's private link (/p/<key>/) logs them in without a password; a new key revokes it"),
    )

    class Meta:
        ordering = ["tournament", "seed", "id"]
        constraints = [models.UniqueConstraint(fields=["tournament", "player"], name="entry_once_per_tournament")]
        verbose_name = _("entry")
        verbose_name_plural = _("entries")

    def __str__(self) -> str:
        return str(self.player)


def entry_rating(entry: Entry) -> int | None:
    """The rating a tournament seeds and pairs an entry by: the one fixed at its start, else the player's."""
    return entry.rating if entry.rating is not None else entry.player.rating


class Invitation(models.Model):
    """An organizer asks a player who keeps themselves (an account of their own) to play in its tournament:
    the player is entered when they accept, signed in as themselves (tournament.identity)."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="invitations", verbose_name=_("tournament")
    )
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="invitations", verbose_name=_("player"))
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("invited by"),
    )
    created_at = models.DateTimeField(_("invited at"), auto_now_add=True)
    answered_at = models.DateTimeField(_("answered at"), null=True, blank=True)
    accepted = models.BooleanField(_("accepted"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["tournament", "player"], name="one_invitation_per_player")]
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")

    def __str__(self) -> str:
        return f"{self.player} → {self.tournament}"
