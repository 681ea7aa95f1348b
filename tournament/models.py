"""Tournaments, entries, stages, groups, matches and the organizer's audit log.

Players are the games app's ``Player``; a match owns its games through
``MatchGame``. Standings are computed from the games, never stored.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.enums import ForbiddenMode, GameMode
from games.models import Game, Player


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


class Stage(models.Model):
    class Kind(models.TextChoices):
        GROUPS = "groups", _("group round robin")
        KNOCKOUT = "knockout", _("best-of-N knockout")
        ROUND_ROBIN = "round_robin", _("round robin")
        SWISS = "swiss", _("Swiss system")
        TEAMS = "teams", _("team event")

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
    team_match = models.ForeignKey(
        "TeamMatch",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="boards",
        help_text=_("in a team event: the team match this board belongs to"),
        verbose_name=_("team match"),
    )
    team_board = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("in a team event: the board within the team match"), verbose_name=_("table")
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


class SwissRound(models.Model):
    """One round of a Swiss stage: paired (a draft the organizer reviews), published (its matches are
    called to boards), closed (every match finished). The pairing program's own boards are kept beside
    the published ones, with every manual edit and the warnings it raised."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("paired, not published")
        PUBLISHED = "published", _("published")
        CLOSED = "closed", _("closed")

    stage = models.ForeignKey(Stage, on_delete=models.PROTECT, related_name="swiss_rounds", verbose_name=_("stage"))
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
        verbose_name = _("Swiss round")
        verbose_name_plural = _("Swiss rounds")
        ordering = ["stage", "number"]
        constraints = [models.UniqueConstraint(fields=["stage", "number"], name="swiss_round_once")]

    def __str__(self) -> str:
        return f"{self.stage} round {self.number}"


class SwissBye(models.Model):
    """A Swiss round a player has no opponent in: the pairing-allocated bye, a bye asked for, a round
    missed before a late entry."""

    class Kind(models.TextChoices):
        PAIRING = "U", _("pairing-allocated bye")
        HALF = "H", _("half-point bye")
        ZERO = "Z", _("zero-point bye")
        FULL = "F", _("full-point bye")

    stage = models.ForeignKey(Stage, on_delete=models.PROTECT, related_name="swiss_byes", verbose_name=_("stage"))
    round = models.PositiveSmallIntegerField(verbose_name=_("round"))
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="swiss_byes", verbose_name=_("entry"))
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


def entry_rating(entry: Entry) -> int | None:
    """The rating a tournament seeds and pairs an entry by: the one fixed at its start, else the player's."""
    return entry.rating if entry.rating is not None else entry.player.rating


class Team(models.Model):
    """A team of a team event (团体赛): its players in a standing order (boards, then reserves), a captain."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="teams", verbose_name=_("tournament")
    )
    name = models.CharField(max_length=60, verbose_name=pgettext_lazy("tournament", "name"))
    captain = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="captained", verbose_name=_("captain")
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
        Entry, on_delete=models.PROTECT, related_name="team_membership", verbose_name=_("entry")
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

    stage = models.ForeignKey(Stage, on_delete=models.PROTECT, related_name="team_matches", verbose_name=_("stage"))
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
