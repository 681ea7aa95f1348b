"""Choices for the games app."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class GameMode(models.TextChoices):
    ONLINE = "online", _("online")
    OVER_THE_BOARD = "otb", _("over the board")


class GameStatus(models.TextChoices):
    PENDING = "pending", _("not started")
    OPENING = "opening", _("opening")
    PLAYING = "playing", _("playing")
    FINISHED = "finished", _("finished")
    CANCELLED = "cancelled", _("cancelled")

    @classmethod
    def active(cls) -> set[str]:
        return {cls.OPENING, cls.PLAYING}


class ForbiddenMode(models.TextChoices):
    CLAIM = "claim", _("white must claim a foul")
    AUTO = "auto", _("a foul loses at once")
    BLOCK = "block", _("forbidden points cannot be played")


class WrongClaimPenalty(models.TextChoices):
    NONE = "none", _("none (logged)")
    LOSE_TURN = "lose_turn", _("the claimant loses a turn")


class GameResult(models.TextChoices):
    BLACK = "black", _("black wins")
    WHITE = "white", _("white wins")
    DRAW = "draw", _("draw")


class ResultReason(models.TextChoices):
    FIVE = "five", _("five in a row")
    FORBIDDEN = "forbidden", _("forbidden move")
    TIME = "time", _("time")
    RESIGNATION = "resignation", _("resignation")
    AGREEMENT = "agreement", _("agreement")
    OVERTIME_EXHAUSTED = "overtime_exhausted", _("overtime exhausted")
    FULL_BOARD = "full_board", _("full board")
    TWO_PASSES = "two_passes", _("two passes")
    NO_SHOW = "no_show", _("no-show")
    FORFEIT = "forfeit", _("forfeit")
    LIFTED_STONE = "lifted_stone", _("lifting a stone")
    DROPPED_STONE = "dropped_stone", _("dropping a stone")
    LEFT_GAME = "left_game", _("leaving the game")
    REFEREE = "referee", _("referee decision")


# The reasons by the results they can give (lichess keeps its status groupings beside the enum, too).
DRAW_REASONS = {
    ResultReason.AGREEMENT,
    ResultReason.OVERTIME_EXHAUSTED,
    ResultReason.FULL_BOARD,
    ResultReason.TWO_PASSES,
    ResultReason.REFEREE,
}
# Results given without a game over the board: no rating, no board prize, no colour or float in a Swiss.
UNPLAYED_REASONS = frozenset({ResultReason.FORFEIT, ResultReason.NO_SHOW})
DECISIVE_REASONS = set(ResultReason) - DRAW_REASONS | {ResultReason.REFEREE}
REPORTABLE_REASONS = [
    ResultReason.FIVE,
    ResultReason.FORBIDDEN,
    ResultReason.TIME,
    ResultReason.RESIGNATION,
    ResultReason.AGREEMENT,
    ResultReason.OVERTIME_EXHAUSTED,
    ResultReason.NO_SHOW,
    ResultReason.LIFTED_STONE,
    ResultReason.DROPPED_STONE,
    ResultReason.LEFT_GAME,
    ResultReason.REFEREE,
]


class ClaimStatus(models.TextChoices):
    OPEN = "open", _("open")
    UPHELD = "upheld", _("upheld")
    REJECTED = "rejected", _("rejected")
    LATE = "late", _("too late")


class ReportStatus(models.TextChoices):
    PENDING = "pending", _("awaiting the opponent")
    CONFIRMED = "confirmed", _("confirmed")
    DISPUTED = "disputed", _("disputed")
    RULED = "ruled", _("settled by a referee")
    OVERRIDDEN = "overridden", _("settled by the organizer")
    WITHDRAWN = "withdrawn", _("replaced by a later report")


class Interface(models.TextChoices):
    API = "api", _("API")
    WEB = "web", _("web page")
    ADMIN = "admin", _("admin")
    SYSTEM = "system", _("system")
    COMPUTER = "computer", _("computer opponent")


class EventKind(models.TextChoices):
    """What a :class:`~games.models.GameEvent` records (``GameEvent.Kind``)."""

    CREATED = "created", _("game created")
    IMPORTED = "imported", _("record imported")
    ACTION = "action", _("opening step")
    MOVE = "move", _("stone placed")
    CLAIM = "claim", _("forbidden-move claim")
    CLOCK = "clock", _("clock")
    CLOCK_START = "clock_start", _("clock started by the referee")
    CLOCK_PAUSE = "clock_pause", _("clock paused by the referee")
    CLOCK_RESUME = "clock_resume", _("clock resumed by the referee")
    CLOCK_ADD_TIME = "clock_add_time", _("time added by the referee")
    DRAW_OFFER = "draw_offer", _("draw offered")
    DRAW_ANSWER = "draw_answer", _("draw offer answered")
    REPORTED = "reported", _("result reported")
    CONFIRMED = "confirmed", _("result confirmed")
    DISPUTED = "disputed", _("result disputed")
    RULED = "ruled", _("ruling")
    FINISHED = "finished", _("game finished")
    CORRECTED = "corrected", _("result corrected")
    CANCELLED = "cancelled", _("game cancelled")
    ABSENT = "absent", _("marked absent")
    PRESENT = "present", _("marked present")
    ARBITER_CALL = "arbiter_call", _("arbiter called")
    ARBITER_ANSWERED = "arbiter_answered", _("arbiter answered")
    ANALYSIS_REQUESTED = "analysis_requested", _("analysis requested")


class Settled(models.TextChoices):
    """What settling a game's clock did (:func:`games.services.game_settle`)."""

    APPLIED = "applied", _("applied")
    NOT_DUE = "not_due", _("nothing due")
    STALE = "stale", _("about an older clock")
    FINISHED = "finished", _("already finished")
    HELD = "held", _("held for a request in flight")
