"""Server clocks as pure arithmetic: (state, time control, now) -> view or new state.

No database, no wall clock: every function takes the instant it is about
(integer milliseconds since the epoch) and returns a new :class:`ClockState`
plus the events it applied, so a clock can be replayed from its log and a
late adjudicator reaches the same result as a punctual one.

Clocks belong to the two seats of the game (player one and player two),
not to colours, so a swap in the opening does not swap clocks. Every turn
(an opening action or a stone) is timed the same way.

Rules (each is an option of :class:`TimeControl`):

* Main time is one budget for the whole game (``main_scope="game"``, the
  seed's 每场5分钟) or one per player (``"player"``), optionally with a
  Fischer increment.
* A turn longer than ``move_ms`` loses, in main time and in overtime; the
  limit is inclusive (a move at exactly 30.000 s stands) plus ``grace_ms``.
* Running out of main time starts overtime (``on_expiry="overtime"``: each
  side plays ``ot_stones`` stones of at most ``ot_move_ms``; when both have
  played them the game is drawn) or loses (``on_expiry="lose"``).
* A draw offer is made by the player who has just moved, at most
  ``draw_offers`` per player; all clocks stop until it is answered; no answer
  within ``draw_reply_ms`` declines it, and the clock resumes at that
  nominal instant. Once main time has run out, either side may offer once
  without spending an offer.
* A referee may pause, resume, and add time.
* A span in which the whole server stood still (:func:`freeze`) is nobody's time.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

# The options, re-exported: ``clock.TimeControl``, ``clock.PRESETS`` and ``clock.find_time_control`` as before.
from games.time_control import PRESETS as PRESETS
from games.time_control import ClockError as ClockError
from games.time_control import TimeControl as TimeControl
from games.time_control import find_time_control as find_time_control

Seat = Literal[0, 1]  # player one, player two


@dataclass(frozen=True)
class ClockState:
    status: Literal["waiting", "running", "finished"] = "waiting"
    actor: Seat = 0
    turn_started: int = 0  # when the running turn clock last (re)started
    turn_used: int = 0  # time used in this turn before the last pause
    used: tuple[int, int] = (0, 0)  # main-time use per seat (pauses excluded)
    bonus: tuple[int, int] = (0, 0)  # increments and referee additions per seat
    ot_played: tuple[int, int] = (0, 0)  # overtime stones per seat
    in_overtime: tuple[bool, bool] = (False, False)
    paused_since: int | None = None
    pause: Literal["offer", "referee"] | None = None
    offer_by: Seat | None = None
    offers_left: tuple[int, int] = (2, 2)
    expiry_offer_used: bool = False
    lag_quota: tuple[int, int] | None = None  # lag credit each seat may still receive (None: the starting quota)
    version: int = 0
    result: str = ""  # "timeout 0" (seat 0 lost on time), "draw agreement", "draw overtime_exhausted"

    @property
    def lost_on_time(self) -> Seat | None:
        """The seat whose flag fell, if the clock ended on time (``result`` is stored as ``timeout <seat>``)."""
        kind, _space, seat = self.result.partition(" ")
        if kind != "timeout":
            return None
        return 0 if seat == "0" else 1

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)  # asdict(self), without its deep copy of values that are all immutable

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClockState:
        values = dict(data)
        for key in ("used", "bonus", "ot_played", "offers_left", "in_overtime", "lag_quota"):
            if values.get(key) is not None:
                values[key] = tuple(values[key])
        return cls(**values)


@dataclass(frozen=True)
class Event:
    """One applied transition: what, when, and its arguments (replayable)."""

    op: str
    at: int
    args: dict[str, Any] = field(default_factory=dict)


def initial(tc: TimeControl) -> ClockState:
    return ClockState(offers_left=(tc.draw_offers, tc.draw_offers))


def _other(seat: Seat) -> Seat:
    return 1 if seat == 0 else 0


def _set(pair: tuple[Any, Any], seat: Seat, value: Any) -> tuple[Any, Any]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


# -- reading -------------------------------------------------------------------


def running_ms(s: ClockState, now: int) -> int:
    """Time run since the turn clock last started (0 while paused or not running)."""
    if s.status != "running" or s.paused_since is not None:
        return 0
    return max(0, now - s.turn_started)


def main_left(s: ClockState, tc: TimeControl, seat: Seat, now: int) -> int | None:
    """Main time left for ``seat`` at ``now`` (the shared budget when scope is game); None: no main time."""
    if tc.main_ms is None:
        return None
    run = running_ms(s, now)
    if tc.main_scope == "game":
        return tc.main_ms + s.bonus[0] + s.bonus[1] - s.used[0] - s.used[1] - run
    own_run = run if seat == s.actor else 0
    return tc.main_ms + s.bonus[seat] - s.used[seat] - own_run


def in_overtime(s: ClockState, tc: TimeControl, seat: Seat, now: int) -> bool:
    """Has ``seat``'s main time run out (so its turns are overtime stones)?"""
    if tc.on_expiry != "overtime":
        return False
    left = main_left(s, tc, seat, now)
    return s.in_overtime[seat] or (left is not None and left <= 0)


def _main_expiry(s: ClockState, tc: TimeControl) -> int | None:
    """The instant the running turn exhausts main time (running, unpaused states)."""
    left = main_left(s, tc, s.actor, s.turn_started)
    return None if left is None else s.turn_started + left


def deadline(s: ClockState, tc: TimeControl) -> int | None:
    """The next instant at which the state changes on its own (before grace), or None."""
    if s.status != "running":
        return None
    if s.pause == "offer":
        assert s.paused_since is not None
        return s.paused_since + tc.draw_reply_ms
    if s.pause == "referee":
        return None
    limits: list[int] = []
    overtime_now = in_overtime(s, tc, s.actor, s.turn_started)
    if overtime_now:
        assert tc.ot_move_ms is not None
        limits.append(s.turn_started + tc.ot_move_ms - s.turn_used)
    else:
        if tc.move_ms is not None:
            limits.append(s.turn_started + tc.move_ms - s.turn_used)
        expiry = _main_expiry(s, tc)
        if expiry is not None:
            if tc.on_expiry == "lose":
                limits.append(expiry)
            elif tc.move_ms is None:  # no per-move limit: the overtime stone's limit starts at expiry
                assert tc.ot_move_ms is not None
                limits.append(expiry + tc.ot_move_ms)
    return min(limits) if limits else None


@dataclass(frozen=True)
class View:
    """What a client shows: remaining time per seat, phase, the deadline, the server's time."""

    now: int
    status: str
    actor: int
    paused: str | None
    offer_by: int | None
    main_left: list[int | None]
    turn_left: int | None  # the side to act: time left in this turn (frozen while paused)
    reply_left: int | None  # time left to answer a pending draw offer
    phase: list[str]
    overtime_left: list[int]
    offers_left: list[int]
    deadline: int | None
    version: int

    def to_dict(self) -> dict[str, Any]:
        return {name: list(v) if isinstance(v, list) else v for name, v in self.__dict__.items()}  # asdict(self)


def view(s: ClockState, tc: TimeControl, now: int) -> View:
    dl = deadline(s, tc)
    reply_left = max(0, dl - now) if s.pause == "offer" and dl is not None else None
    turn_left = None
    if s.status == "running":
        # While paused, the turn is frozen: read it as if it resumed now.
        live = s if s.pause is None else replace(s, pause=None, paused_since=None, turn_started=now)
        turn_deadline = deadline(live, tc)
        turn_left = None if turn_deadline is None else max(0, turn_deadline - now)
    seats: tuple[Seat, Seat] = (0, 1)
    return View(
        now=now,
        status=s.status,
        actor=s.actor,
        paused=s.pause,
        offer_by=s.offer_by,
        main_left=[None if (m := main_left(s, tc, seat, now)) is None else max(0, m) for seat in seats],
        turn_left=turn_left,
        reply_left=reply_left,
        phase=["overtime" if in_overtime(s, tc, seat, now) else "main" for seat in seats],
        overtime_left=[max(0, tc.ot_stones - s.ot_played[seat]) for seat in seats],
        offers_left=list(s.offers_left),
        deadline=dl,
        version=s.version,
    )


def lag_allowance(s: ClockState, tc: TimeControl) -> int:
    """How long past the deadline a move may still arrive and stand: the lag credit the actor has left.

    Anyone but the actor flags only after it (lichess's flag with grace): a move in flight on a slow
    network, which its own lag credit would save, is not beaten by a watcher's read or the worker.
    """
    if not tc.lag_compensation or s.status != "running" or s.paused_since is not None:
        return 0
    return lag_quota(s, tc, s.actor)


def flag_deadline(s: ClockState, tc: TimeControl) -> int | None:
    """When the actor's flag may be called by anyone: the deadline, plus grace, plus the lag allowance."""
    dl = deadline(s, tc)
    if dl is None:
        return None
    return dl + tc.grace_ms + (0 if s.pause == "offer" else lag_allowance(s, tc))


def flagged(s: ClockState, tc: TimeControl, now: int, *, strict: bool = False) -> bool:
    """Is the side to act over its time at ``now``? Strictly after the deadline plus grace, and, unless
    ``strict`` (the actor's own move, already credited its lag), plus the :func:`lag_allowance`."""
    if s.status != "running" or s.paused_since is not None:
        return False
    dl = deadline(s, tc)
    return dl is not None and now > dl + tc.grace_ms + (0 if strict else lag_allowance(s, tc))


# -- transitions ---------------------------------------------------------------


def _bump(s: ClockState, **changes: Any) -> ClockState:
    return replace(s, version=s.version + 1, **changes)


def start(s: ClockState, tc: TimeControl, at: int, actor: Seat = 0) -> tuple[ClockState, list[Event]]:
    if s.status != "waiting":
        raise ClockError("clock_started", "the clock is already running")
    started = _bump(s, status="running", actor=actor, turn_started=at, turn_used=0)
    return started, [Event("start", at, {"actor": actor})]


def _charge(s: ClockState, at: int) -> ClockState:
    """Add the running time to the turn and to the actor's main-time use; restart the turn clock at ``at``."""
    run = running_ms(s, at)
    return replace(s, turn_used=s.turn_used + run, used=_set(s.used, s.actor, s.used[s.actor] + run), turn_started=at)


def settle(s: ClockState, tc: TimeControl, now: int) -> tuple[ClockState, list[Event]]:
    """Apply every transition due by ``now`` in time order: offer lapses, then a flag."""
    events: list[Event] = []
    while s.status == "running":
        dl = deadline(s, tc)
        if s.pause == "offer" and dl is not None and now > dl:
            s, more = _resume(s, dl, "lapse")
            events += more
            continue
        if flagged(s, tc, now):
            assert dl is not None
            s, more = _flag(s, dl + tc.grace_ms)
            events += more
        break
    return s, events


def _flag(s: ClockState, at: int) -> tuple[ClockState, list[Event]]:
    loser = s.actor
    return _bump(_charge(s, at), status="finished", result=f"timeout {loser}"), [Event("flag", at, {"seat": loser})]


def _resume(s: ClockState, at: int, why: str) -> tuple[ClockState, list[Event]]:
    return _bump(s, paused_since=None, pause=None, offer_by=None, turn_started=at), [Event(why, at)]


def lag_quota(s: ClockState, tc: TimeControl, seat: Seat) -> int:
    return tc.lag_quota_start_ms if s.lag_quota is None else s.lag_quota[seat]


def lag_credit(s: ClockState, tc: TimeControl, at: int, think_ms: int | None) -> int:
    """The lag credit for the side to act, whose request arrived at ``at`` and who says it thought ``think_ms``.

    The lag is what the server would charge beyond the client's own measured
    thinking (the opponent's move travelling out, this move travelling in);
    it is credited within the player's quota (lichess's scheme). No claim, no credit.
    """
    if not tc.lag_compensation or think_ms is None or s.status != "running" or s.paused_since is not None:
        return 0
    charged = running_ms(s, at)
    lag = charged - max(0, think_ms)
    return max(0, min(lag, lag_quota(s, tc, s.actor), charged))


def play(
    s: ClockState,
    tc: TimeControl,
    at: int,
    next_actor: Seat,
    *,
    stone: bool = True,
    credit_ms: int = 0,
    next_start: int | None = None,
) -> tuple[ClockState, list[Event], dict[str, Any]]:
    """The actor's turn ends at ``at``; ``next_actor`` acts next. Returns the state, events and the readings.

    Call :func:`settle` first: a flagged state is refused. A pending draw
    offer is declined by playing (the time is counted without the pause).
    An overtime stone is counted when the turn ends after main time ran out.
    ``credit_ms`` (from :func:`lag_credit`) is network lag not charged to the
    actor: the turn is timed as ending that much earlier, the next one starts at ``at`` — or at
    ``next_start`` (not before ``at``): when the server applied the move, so the time it waited in the
    server's queue is charged to neither player.
    """
    if s.status != "running":
        raise ClockError("clock_stopped", "the clock is not running")
    if s.pause == "referee":
        raise ClockError("paused", "the referee has paused the game")
    events: list[Event] = []
    if s.pause == "offer":  # declined by the move, which is then timed as any other (as the record replays it)
        s, events = _resume(s, at, "decline")
    credit_ms = max(0, min(credit_ms, lag_quota(s, tc, s.actor), running_ms(s, at)))
    end = at - credit_ms
    if flagged(s, tc, end, strict=True):
        raise ClockError("time_over", "the time for this turn has run out")
    mover = s.actor
    overtime = in_overtime(s, tc, mover, end)
    s = _charge(s, end)
    think = s.turn_used
    if tc.lag_compensation:
        quota = min(tc.lag_quota_max_ms, lag_quota(s, tc, mover) - credit_ms + tc.lag_gain_ms)
        start_quota = (tc.lag_quota_start_ms, tc.lag_quota_start_ms)
        s = replace(s, lag_quota=_set(s.lag_quota or start_quota, mover, quota))
    if overtime:
        s = replace(s, in_overtime=_set(s.in_overtime, mover, True))
        if stone:
            s = replace(s, ot_played=_set(s.ot_played, mover, s.ot_played[mover] + 1))
    if tc.increment_ms:
        s = replace(s, bonus=_set(s.bonus, mover, s.bonus[mover] + tc.increment_ms))
    if tc.main_scope == "game" and overtime:  # the shared budget is spent: both sides are in overtime
        s = replace(s, in_overtime=(True, True))
    s = _bump(s, actor=next_actor, turn_started=max(at, next_start or at), turn_used=0)
    readings = {
        "think_ms": think,
        "lag_credit_ms": credit_ms,
        "overtime": overtime,
        "ot_played": list(s.ot_played),
        "main_left": [main_left(s, tc, 0, at), main_left(s, tc, 1, at)],
    }
    events.append(Event("play", at, {"next": next_actor, "stone": stone, "lag_credit_ms": credit_ms}))
    return s, events, readings


def overtime_exhausted(s: ClockState, tc: TimeControl) -> bool:
    """Have both sides played all their overtime stones? (The game is then drawn.)"""
    return tc.on_expiry == "overtime" and tc.ot_stones > 0 and min(s.ot_played) >= tc.ot_stones


def offer(s: ClockState, tc: TimeControl, at: int, by: Seat) -> tuple[ClockState, list[Event]]:
    """A draw offer by the player who has just moved: all clocks stop until it is answered."""
    if s.status != "running":
        raise ClockError("clock_stopped", "the game is not running")
    if s.pause is not None:
        raise ClockError(
            "offer_pending" if s.pause == "offer" else "paused",
            "a draw offer is already pending" if s.pause == "offer" else "the game is paused",
        )
    if by == s.actor:
        raise ClockError("offer_on_turn", "offer a draw together with your move, not on your turn")
    free = not s.expiry_offer_used and in_overtime(s, tc, by, at)
    if not free and s.offers_left[by] <= 0:
        raise ClockError("no_offers_left", "you have no draw offers left")
    s = _charge(s, at)
    if free:
        s = replace(s, expiry_offer_used=True)
    else:
        s = replace(s, offers_left=_set(s.offers_left, by, s.offers_left[by] - 1))
    return _bump(s, paused_since=at, pause="offer", offer_by=by), [Event("offer", at, {"by": by, "free": free})]


def answer(s: ClockState, tc: TimeControl, at: int, by: Seat, accept: bool) -> tuple[ClockState, list[Event]]:
    if s.pause != "offer" or s.offer_by is None:
        raise ClockError("no_offer", "there is no draw offer to answer")
    if by == s.offer_by:
        raise ClockError("own_offer", "your opponent answers your offer")
    if accept:
        return _bump(s, status="finished", result="draw agreement", paused_since=None, pause=None, offer_by=None), [
            Event("accept", at)
        ]
    return _resume(s, at, "decline")


def referee_pause(s: ClockState, at: int) -> tuple[ClockState, list[Event]]:
    if s.status != "running" or s.pause is not None:
        raise ClockError("cannot_pause", "only a running, unpaused game can be paused")
    return _bump(_charge(s, at), paused_since=at, pause="referee"), [Event("pause", at)]


def referee_resume(s: ClockState, at: int, *, charge: bool = False) -> tuple[ClockState, list[Event]]:
    """The referee's pause ends; with ``charge`` the pause is the side to act's own time (an unjustified
    arbiter call on one's own turn, FIDE 6.12b): its turn clock runs again from when the pause began."""
    if s.pause != "referee":
        raise ClockError("not_paused", "the game is not paused by a referee")
    if charge and s.paused_since is not None:
        since = s.paused_since
        resumed = _bump(s, paused_since=None, pause=None, offer_by=None, turn_started=since)
        return resumed, [Event("resume", at, {"charged": True})]
    return _resume(s, at, "resume")


def add_time(
    s: ClockState, tc: TimeControl, at: int, seat: Seat, ms: int, target: str = "main"
) -> tuple[ClockState, list[Event]]:
    """A referee adds ``ms`` to ``seat``'s main time (the shared budget under game scope) or to the current turn."""
    if s.status == "finished":
        raise ClockError("clock_stopped", "the game is over")
    if ms <= 0:
        raise ClockError("bad_time", "add a positive amount of time")
    if target == "turn":
        if seat != s.actor:
            raise ClockError("bad_time", "only the side to act has a running turn")
        s = replace(s, turn_used=s.turn_used - ms)
    elif target == "main":
        if tc.main_ms is None:
            raise ClockError("bad_time", "this game has no main time")
        s = replace(s, bonus=_set(s.bonus, seat, s.bonus[seat] + ms))
    else:
        raise ClockError("bad_time", "add time to main or turn")
    return _bump(s), [Event("add_time", at, {"seat": seat, "ms": ms, "target": target})]


def freeze(s: ClockState, tc: TimeControl, start: int, end: int) -> tuple[ClockState, list[Event]]:
    """The whole server stood still from ``start`` to ``end`` (a host's pause, a VM snapshot): nobody could
    move, read or flag, so the span is not the side to act's time.

    The running turn skips the part of the span it overlaps (as a referee's pause would), and so does a
    pending draw offer's reply time. A clock already flagged at ``start`` (lag allowance included) is left to
    fall: the freeze did not cost that player anything. A referee's pause already stops the clock.
    """
    if s.status != "running" or end <= start or s.pause == "referee":
        return s, []
    if s.pause == "offer":
        assert s.paused_since is not None
        overlap = end - max(start, s.paused_since)
        lapsed = s.paused_since + tc.draw_reply_ms < start
        if overlap <= 0 or lapsed:
            return s, []
        changed = _bump(s, paused_since=s.paused_since + overlap)
    else:
        overlap = end - max(start, s.turn_started)
        if overlap <= 0 or flagged(s, tc, start):
            return s, []
        changed = _bump(s, turn_started=s.turn_started + overlap)
    return changed, [Event("freeze", end, {"from": start, "ms": overlap})]


def replay(tc: TimeControl, events: list[Event]) -> ClockState:
    """Rebuild a clock from its events (the audit of clocks.md §6.9 #34)."""
    s = initial(tc)
    for e in events:
        if e.op == "start":
            s, _ = start(s, tc, e.at, e.args["actor"])
        elif e.op == "play":
            s, _, _ = play(s, tc, e.at, e.args["next"], stone=e.args.get("stone", True))
        elif e.op in ("lapse", "decline") and s.pause == "offer":
            s, _ = _resume(s, e.at, e.op)
        elif e.op == "flag":
            s, _ = _flag(s, e.at)
        elif e.op == "offer":
            s, _ = offer(s, tc, e.at, e.args["by"])
        elif e.op == "accept":
            s, _ = answer(s, tc, e.at, _other(s.offer_by or 0), True)
        elif e.op == "pause":
            s, _ = referee_pause(s, e.at)
        elif e.op == "resume":
            s, _ = referee_resume(s, e.at, charge=bool(e.args.get("charged")))
        elif e.op == "add_time":
            s, _ = add_time(s, tc, e.at, e.args["seat"], e.args["ms"], e.args["target"])
        elif e.op == "freeze":
            s, _ = freeze(s, tc, e.args["from"], e.at)
        elif e.op == "finish":
            s = _bump(s, status="finished", result=e.args.get("result", ""))
    return s


def finish(s: ClockState, at: int, result: str) -> tuple[ClockState, list[Event]]:
    """Stop the clock because the game ended on the board (five, foul, resignation …)."""
    if s.status == "finished":
        return s, []
    if s.status == "waiting":  # the clock never ran: nothing to log
        return replace(s, status="finished", result=result), []
    return _bump(s, status="finished", result=result, paused_since=None, pause=None), [
        Event("finish", at, {"result": result})
    ]
