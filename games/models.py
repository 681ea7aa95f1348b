"""Games, their records, forbidden-move claims and the event log.

A game knows nothing of tournaments; the tournament app links its matches
to games. Nothing is deleted: corrections are new events.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxLengthValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from games.enums import (
    ClaimStatus,
    EventKind,
    ForbiddenMode,
    GameMode,
    GameResult,
    GameStatus,
    Interface,
    ReportStatus,
    ResultReason,
    WrongClaimPenalty,
)

NAME_MAX = 50  # characters in a player's name (a name longer than this stretches every table)
UNIT_MAX = 60


class Player(models.Model):
    """A person who plays; an account is optional."""

    name = models.CharField(_("name"), max_length=100, validators=[MaxLengthValidator(NAME_MAX)])
    unit = models.CharField(
        _("unit (club, school or class)"), max_length=100, blank=True, validators=[MaxLengthValidator(UNIT_MAX)]
    )
    rating = models.IntegerField(_("rating"), null=True, blank=True)
    native_name = models.CharField(_("name in the player's own script"), max_length=100, blank=True)
    country = models.CharField(_("country"), max_length=60, blank=True)
    city = models.CharField(_("city"), max_length=100, blank=True)
    renjunet_id = models.PositiveBigIntegerField(_("RenjuNet id"), null=True, blank=True, unique=True)
    renjunet_merged = models.JSONField(
        _("merged RenjuNet ids"),
        default=list,
        blank=True,
        help_text=_("RenjuNet ids whose disp_id points to this player: their games are this player's"),
    )
    computer_level = models.PositiveSmallIntegerField(
        _("computer level"),
        null=True,
        blank=True,
        help_text=_("set for the computer opponent of that level (1 to 5); such a player never enters a tournament"),
    )
    engine = models.ForeignKey(
        "games.Engine",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="players",
        verbose_name=_("engine"),
        help_text=_("the registered engine that plays for this computer player; empty: the built-in engine"),
    )
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="player",
        verbose_name=_("user"),
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="kept_players",
        verbose_name=_("kept by"),
        help_text=_(
            "the organizer who entered this player and keeps their record; empty: the server's register, kept by "
            "site organizers (docs/security.md)"
        ),
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("player")
        verbose_name_plural = _("players")
        constraints = [
            # One computer player per level of the built-in engine, and per level of each registered engine.
            models.UniqueConstraint(
                fields=["computer_level"],
                condition=Q(engine__isnull=True, computer_level__isnull=False),
                name="one_builtin_computer_per_level",
            ),
            models.UniqueConstraint(
                fields=["engine", "computer_level"],
                condition=Q(engine__isnull=False),
                name="one_engine_player_per_level",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.unit})" if self.unit else self.name


def default_engine_levels() -> dict[str, dict[str, int]]:
    """Each level's budget per move: milliseconds (INFO timeout_turn) and, where set, nodes (INFO max_node)."""
    return {
        "1": {"turn_ms": 100},
        "2": {"turn_ms": 300},
        "3": {"turn_ms": 1000},
        "4": {"turn_ms": 3000},
        "5": {"turn_ms": 6000},
    }


class Engine(models.Model):
    """A Gomocup (pbrain protocol) engine the organizer registered as an opponent and analyser.

    The command runs only the built-in engine or a program under ``settings.ENGINES_DIR``
    (see :mod:`games.services.engines`); each move runs it afresh with the limits enforced from outside."""

    name = models.CharField(_("name"), max_length=60, unique=True)
    command = models.CharField(
        _("command"),
        max_length=300,
        help_text=_("'builtin' for our own engine, or a program in the engines folder with its arguments"),
    )
    rules = models.JSONField(_("rules it plays"), default=list, help_text=_("of renju, freestyle, standard"))
    levels = models.JSONField(
        _("levels"),
        default=default_engine_levels,
        help_text=_('per level 1–5: {"turn_ms": milliseconds a move, "max_node": nodes a move (optional)}'),
    )
    enabled = models.BooleanField(_("enabled"), default=True)
    about = models.CharField(
        _("about"),
        max_length=300,
        blank=True,
        help_text=_("the name and version its ABOUT answer gives, cleaned and short (public)"),
    )
    about_raw = models.CharField(
        _("ABOUT as answered"),
        max_length=300,
        blank=True,
        help_text=_("the engine's ABOUT line as it wrote it, for organizers only: never published"),
    )
    failures = models.PositiveIntegerField(_("failures"), default=0)
    last_failure = models.CharField(_("last failure"), max_length=500, blank=True)
    last_failure_at = models.DateTimeField(_("last failure at"), null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("engine")
        verbose_name_plural = _("engines")

    def __str__(self) -> str:
        return self.name


class Game(models.Model):
    """One game between player one and player two of its opening protocol."""

    player_one = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("player one"))
    player_two = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("player two"))
    black = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+", verbose_name=_("black")
    )
    white = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+", verbose_name=_("white")
    )
    rules = models.CharField(_("rule set"), max_length=20, default="renju")
    protocol = models.CharField(_("opening protocol"), max_length=30, default="none")
    protocol_options = models.JSONField(_("protocol options"), default=dict, blank=True)
    forbidden_mode = models.CharField(
        max_length=10, choices=ForbiddenMode.choices, default=ForbiddenMode.AUTO, verbose_name=_("forbidden mode")
    )
    wrong_claim_penalty = models.CharField(
        max_length=10,
        choices=WrongClaimPenalty.choices,
        default=WrongClaimPenalty.NONE,
        verbose_name=_("wrong claim penalty"),
    )
    mode = models.CharField(max_length=10, choices=GameMode.choices, default=GameMode.ONLINE, verbose_name=_("mode"))
    status = models.CharField(
        max_length=10, choices=GameStatus.choices, default=GameStatus.OPENING, verbose_name=_("status")
    )
    result = models.CharField(max_length=10, choices=GameResult.choices, blank=True, verbose_name=_("result"))
    result_reason = models.CharField(
        max_length=20, choices=ResultReason.choices, blank=True, verbose_name=_("result reason")
    )
    result_detail = models.CharField(max_length=200, blank=True, verbose_name=_("result detail"))
    ply = models.PositiveIntegerField(default=0, help_text=_("actions recorded so far"), verbose_name=_("ply"))
    board_number = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("board number"))
    event = models.CharField(_("event"), max_length=200, blank=True, help_text=_("the tournament, for the record"))
    round = models.CharField(_("round"), max_length=40, blank=True, help_text=_("stage.round.game, for the record"))
    record_text = models.TextField(
        _("over-the-board record"), blank=True, help_text=_("the stones of an over-the-board game, as settled")
    )
    is_public = models.BooleanField(default=True, verbose_name=_("is public"))
    practice = models.BooleanField(
        default=False,
        verbose_name=_("practice game"),
        help_text=_("a game against the computer: unrated, never in a tournament's tables"),
    )
    referees = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="refereed_games", verbose_name=_("referees")
    )
    # The clock (games.clock): the control's options, a snapshot, and the next instant it changes on its own.
    time_control = models.JSONField(_("time control"), default=dict, blank=True)
    clock = models.JSONField(default=dict, blank=True, verbose_name=_("clock"))
    deadline = models.DateTimeField(null=True, blank=True, verbose_name=_("deadline"))
    clock_version = models.PositiveIntegerField(default=0, verbose_name=_("clock version"))
    # A no-show: a referee marked a player absent at the board; the game is forfeited at ``absent_deadline``.
    absent_player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+", verbose_name=_("absent player")
    )
    absent_deadline = models.DateTimeField(null=True, blank=True, verbose_name=_("absent deadline"))
    adjudicated_by = models.CharField(
        max_length=12, blank=True, help_text=_("which path ended the game on time"), verbose_name=_("adjudicated by")
    )
    # A player's call for the arbiter waits for an answer (games.services.arbiter keeps it with the calls), so
    # reading a game's state asks for the call only when there is one.
    arbiter_called = models.BooleanField(default=False, verbose_name=_("arbiter called"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))

    class Meta:
        indexes = [
            models.Index(fields=["deadline"], condition=Q(deadline__isnull=False), name="game_deadline"),
            # the online games in progress, counted against the server's capacity (games.selectors.online_room)
            models.Index(
                fields=["status"],
                condition=Q(status__in=["opening", "playing"], mode="online"),
                name="game_in_progress",
            ),
            # the sweep's look for overdue no-shows, every second: a few rows, not a scan of every game
            models.Index(
                fields=["absent_deadline"], condition=Q(absent_deadline__isnull=False), name="game_absent_deadline"
            ),
        ]
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

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="moves", verbose_name=_("game"))
    ply = models.PositiveIntegerField(verbose_name=_("ply"))
    kind = models.CharField(max_length=10, verbose_name=_("kind"))  # engine.protocols.Kind values
    text = models.CharField(
        max_length=200, help_text=_("the action as recorded, e.g. 'place h8'"), verbose_name=_("text")
    )
    player_number = models.PositiveSmallIntegerField(verbose_name=_("player number"))
    color = models.CharField(max_length=5, blank=True, help_text=_("colour the actor held"), verbose_name=_("color"))
    move_number = models.PositiveIntegerField(
        null=True, blank=True, help_text=_("board move number, if any"), verbose_name=_("move number")
    )
    foul = models.CharField(
        max_length=20, blank=True, help_text=_("forbidden kind of a black stone, if any"), verbose_name=_("foul")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    clock_ms = models.JSONField(default=dict, blank=True, verbose_name=_("clock ms"))

    class Meta:
        verbose_name = _("move")
        verbose_name_plural = _("moves")
        ordering = ["game", "ply"]
        constraints = [models.UniqueConstraint(fields=["game", "ply"], name="move_one_per_ply")]

    def __str__(self) -> str:
        return f"{self.game_id}:{self.ply} {self.text}"


class ForbiddenClaim(models.Model):
    """White's (or a referee's) claim that a black move was forbidden."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="claims", verbose_name=_("game"))
    move_number = models.PositiveIntegerField(verbose_name=_("move number"))
    point = models.CharField(max_length=4, verbose_name=_("point"))
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, verbose_name=_("claimed by")
    )
    status = models.CharField(
        max_length=10, choices=ClaimStatus.choices, default=ClaimStatus.OPEN, verbose_name=_("status")
    )
    verdict = models.CharField(max_length=20, blank=True, verbose_name=_("verdict"))
    explanation = models.JSONField(default=dict, blank=True, verbose_name=_("explanation"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

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

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="reports", verbose_name=_("game"))
    reporter = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("reporter"))
    reported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+", verbose_name=_("reported by")
    )
    result = models.CharField(max_length=10, choices=GameResult.choices, verbose_name=_("result"))
    reason = models.CharField(max_length=20, choices=ResultReason.choices, verbose_name=_("reason"))
    record = models.TextField(blank=True, verbose_name=_("record"))
    status = models.CharField(
        max_length=10, choices=ReportStatus.choices, default=ReportStatus.PENDING, verbose_name=_("status")
    )
    note = models.CharField(
        max_length=500, blank=True, help_text=_("the dispute's or the ruling's reason"), verbose_name=_("note")
    )
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("answered by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    answered_at = models.DateTimeField(null=True, blank=True, verbose_name=_("answered at"))

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

    Kind = EventKind

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events", verbose_name=_("game"))
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, verbose_name=_("actor"))
    kind = models.CharField(max_length=30, choices=EventKind.choices, verbose_name=_("kind"))
    data = models.JSONField(default=dict, blank=True, verbose_name=_("data"))
    interface = models.CharField(
        max_length=10, choices=Interface.choices, default=Interface.API, verbose_name=_("interface")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("game event")
        verbose_name_plural = _("game events")
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.game_id} {self.kind}"


class Analysis(models.Model):
    """The engine's analysis of a finished game, computed once per record (a Celery task): the forced wins
    missed and allowed (the built-in solver), and, when a registered engine was asked, its move in each position."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis", verbose_name=_("game"))
    record = models.CharField(_("record analysed"), max_length=64, help_text=_("hash of the moves analysed"))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.PENDING)
    marks = models.JSONField(_("marks"), default=list, blank=True)
    limits = models.JSONField(_("limits"), default=dict, blank=True)
    engine = models.ForeignKey(
        Engine,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("engine"),
        help_text=_("the registered engine asked for its move in every position, if any"),
    )
    suggestions = models.JSONField(
        _("engine's moves"), default=list, blank=True, help_text=_('[{"number": n, "point": the engine\'s stone n}]')
    )
    error = models.CharField(_("error"), max_length=200, blank=True)
    requested_at = models.DateTimeField(_("requested at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("analysis")
        verbose_name_plural = _("analyses")

    def __str__(self) -> str:
        return f"analysis of #{self.game_id} ({self.status})"


class ArbiterCall(models.Model):
    """A player's call for an arbiter at their board; an online game's clocks stop until a referee answers."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="arbiter_calls", verbose_name=_("game"))
    caller = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("caller"))
    note = models.CharField(_("note"), max_length=200, blank=True)
    board = models.PositiveIntegerField(_("board"), null=True, blank=True)
    paused_clock = models.BooleanField(_("paused the clock"), default=False)
    created_at = models.DateTimeField(_("called at"), auto_now_add=True)
    answered_at = models.DateTimeField(_("answered at"), null=True, blank=True)
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("answered by"),
    )
    answer = models.CharField(_("answer"), max_length=200, blank=True)
    on_callers_turn = models.BooleanField(
        _("on the caller's turn"), default=False, help_text=_("the caller's own clock was running when they called")
    )
    justified = models.BooleanField(
        _("justified"),
        null=True,
        blank=True,
        help_text=_("the referee's ruling; an unjustified call on the caller's turn is charged to their clock"),
    )

    class Meta:
        verbose_name = _("arbiter call")
        verbose_name_plural = _("arbiter calls")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["game"], condition=Q(answered_at__isnull=True), name="one_open_arbiter_call_per_game"
            )
        ]

    def __str__(self) -> str:
        return f"{self.game_id} {self.created_at:%H:%M}"


class FollowUp(models.Model):
    """The outbox of ended games: what the apps above (a tournament) still have to do after a game ended,
    recorded with the result and marked done once it ran (:mod:`games.services.finish`)."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="follow_ups", verbose_name=_("game"))
    correction = models.BooleanField(default=False, verbose_name=_("correction"))
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("actor")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    done_at = models.DateTimeField(null=True, blank=True, verbose_name=_("done at"))
    attempts = models.PositiveSmallIntegerField(default=0, verbose_name=_("attempts"))
    error = models.TextField(blank=True, verbose_name=_("error"))

    class Meta:
        verbose_name = _("follow-up of an ended game")
        verbose_name_plural = _("follow-ups of ended games")
        indexes = [models.Index(fields=["done_at", "attempts"], name="follow_up_pending")]

    def __str__(self) -> str:
        return f"{self.game_id} {'done' if self.done_at else 'pending'}"


class ServerFreeze(models.Model):
    """A span in which the whole server stood still, found as a gap in the processes' heartbeat and credited
    once to every running clock (:mod:`games.services.freeze`)."""

    since_ms = models.BigIntegerField(unique=True, verbose_name=_("since"), help_text=_("the last heartbeat before it"))
    until_ms = models.BigIntegerField(verbose_name=_("until"), help_text=_("when a process ran again"))
    clocks = models.PositiveIntegerField(default=0, verbose_name=_("clocks credited"))
    detected_by = models.CharField(max_length=20, verbose_name=_("detected by"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("server freeze")
        verbose_name_plural = _("server freezes")
        ordering = ["-since_ms"]

    def __str__(self) -> str:
        return f"{(self.until_ms - self.since_ms) / 1000:.1f} s"
