"""Rating lists, the rated games they are computed from, and each player's rating and its history.

Renju and gomoku are rated separately (RenjuNet's rule categories 1 and 2); a list is one method (WHR
or Elo) on one category, optionally for one organization. Ratings are computed, never typed in: a
recomputation replaces a list's ratings and history (:mod:`ratings.services`).
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.models import Game, Player
from ratings.compute import RIF_OFFSET, RIF_VIRTUAL_GAMES, RIF_W2


class Category(models.TextChoices):
    RENJU = "renju", _("renju")
    GOMOKU = "gomoku", _("gomoku")


class RatingList(models.Model):
    class Method(models.TextChoices):
        WHR = "whr", _("Whole-History Rating (as the RIF)")
        ELO = "elo", _("Elo")

    name = models.CharField(pgettext_lazy("rating list", "name"), max_length=100)
    method = models.CharField(_("method"), max_length=3, choices=Method.choices, default=Method.WHR)
    category = models.CharField(_("category"), max_length=6, choices=Category.choices, default=Category.RENJU)
    organization = models.CharField(_("organization"), max_length=100, blank=True)
    provisional_games = models.PositiveSmallIntegerField(_("games before a rating is established"), default=10)
    inactive_days = models.PositiveIntegerField(_("days without a game before a player is inactive"), default=730)
    w2 = models.FloatField(
        _("WHR w² (Elo² per day)"),
        null=True,
        blank=True,
        help_text=_("empty: the RIF's value since April 2024 (19.3 renju, 10.7 gomoku); 12.9 reproduces 2021–2024"),
    )
    virtual_games = models.PositiveSmallIntegerField(_("WHR virtual draws on a first day"), default=RIF_VIRTUAL_GAMES)
    offset = models.FloatField(_("rating shown as offset + WHR Elo"), default=RIF_OFFSET)
    computed_at = models.DateTimeField(_("computed at"), null=True, blank=True)

    class Meta:
        ordering = ["category", "name"]
        verbose_name = _("rating list")
        verbose_name_plural = _("rating lists")

    def __str__(self) -> str:
        return self.name

    @property
    def whr_w2(self) -> float:
        """The w² this list computes with: its own, or the RIF's current value for its category."""
        return self.w2 if self.w2 is not None else RIF_W2[self.category]


class ImportedTournament(models.Model):
    """A tournament of the RenjuNet database (its games rate players; it is not run here)."""

    renjunet_id = models.PositiveBigIntegerField(_("RenjuNet id"), unique=True)
    name = models.CharField(pgettext_lazy("tournament", "name"), max_length=200)
    country = models.CharField(_("country"), max_length=60, blank=True)
    city = models.CharField(_("city"), max_length=100, blank=True)
    start = models.DateField(_("start date"), null=True, blank=True)
    end = models.DateField(_("end date"), null=True, blank=True)
    rule = models.CharField(_("rule"), max_length=60, blank=True)
    category = models.CharField(_("category"), max_length=6, choices=Category.choices, blank=True)
    rated = models.BooleanField(_("rated"), default=True)
    kind = models.CharField(
        _("RenjuNet type"), max_length=10, blank=True, help_text=_("type 1 is kept but not rated, as the RIF list")
    )

    class Meta:
        ordering = ["-end", "name"]
        verbose_name = _("imported tournament")
        verbose_name_plural = _("imported tournaments")

    def __str__(self) -> str:
        return self.name


class RatedGame(models.Model):
    """A game that counts for ratings: one of ours (a rated tournament's) or RenjuNet's, dated at its
    tournament's end."""

    class Result(models.TextChoices):
        BLACK = "B", _("black wins")
        WHITE = "W", _("white wins")
        DRAW = "D", _("draw")

    category = models.CharField(_("category"), max_length=6, choices=Category.choices)
    black = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("black"))
    white = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("white"))
    result = models.CharField(_("result"), max_length=1, choices=Result.choices)
    played_on = models.DateField(_("dated"))
    round = models.CharField(_("round"), max_length=20, blank=True)
    game = models.OneToOneField(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="rated", verbose_name=_("game")
    )
    tournament = models.ForeignKey(
        "tournament.Tournament",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="rated_games",
        verbose_name=_("tournament"),
    )
    imported_tournament = models.ForeignKey(
        ImportedTournament,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="games",
        verbose_name=_("imported tournament"),
    )
    renjunet_id = models.PositiveBigIntegerField(_("RenjuNet id"), null=True, blank=True, unique=True)

    class Meta:
        ordering = ["played_on", "id"]
        verbose_name = _("rated game")
        verbose_name_plural = _("rated games")
        indexes = [models.Index(fields=["category", "played_on"])]

    def __str__(self) -> str:
        return f"{self.black_id}-{self.white_id} {self.result} {self.played_on}"


class Rating(models.Model):
    rating_list = models.ForeignKey(
        RatingList, on_delete=models.CASCADE, related_name="ratings", verbose_name=_("rating list")
    )
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ratings", verbose_name=_("player"))
    rating = models.FloatField(_("rating"))
    deviation = models.FloatField(_("deviation"), default=0.0)
    games = models.PositiveIntegerField(_("games"), default=0)
    provisional = models.BooleanField(_("provisional"), default=True)
    last_played = models.DateField(_("last game"), null=True, blank=True)

    class Meta:
        ordering = ["rating_list", "-rating"]
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [models.UniqueConstraint(fields=["rating_list", "player"], name="rating_once_per_list")]

    def __str__(self) -> str:
        return f"{self.player_id}: {self.rating:.0f}"


class RatingPoint(models.Model):
    """A player's rating on a day they played: the history drawn on their page."""

    rating_list = models.ForeignKey(
        RatingList, on_delete=models.CASCADE, related_name="points", verbose_name=_("rating list")
    )
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("player"))
    day = models.DateField(_("day"))
    rating = models.FloatField(_("rating"))
    deviation = models.FloatField(_("deviation"), default=0.0)

    class Meta:
        ordering = ["rating_list", "player", "day"]
        verbose_name = _("rating on a day")
        verbose_name_plural = _("ratings by day")
        indexes = [models.Index(fields=["rating_list", "player", "day"])]

    def __str__(self) -> str:
        return f"{self.player_id} {self.day}: {self.rating:.0f}"
