"""Time controls: the options of a game's clock (:mod:`games.clock`), the presets and how one is named.

Every option of :class:`TimeControl` is a rule of :mod:`games.clock` (its docstring says which).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

MainScope = Literal["game", "player"]
Expiry = Literal["overtime", "lose"]


class ClockError(ValueError):
    """A clock action the state does not allow; ``code`` is stable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class TimeControl:
    name: str = "untimed"
    main_ms: int | None = None  # None: no main time
    main_scope: MainScope = "game"
    move_ms: int | None = None  # per-turn limit; None: none
    on_expiry: Expiry = "lose"
    ot_stones: int = 0
    ot_move_ms: int | None = None
    increment_ms: int = 0  # Fischer, per player
    draw_offers: int = 2
    draw_reply_ms: int = 30_000
    grace_ms: int = 0
    lag_compensation: bool = True  # network lag credited within a quota per player (never for over-the-board)

    @property
    def lag_gain_ms(self) -> int:
        """Quota gained per move, as lichess does: 2/5 of the estimated game seconds plus 15 cs, at most 1 s."""
        seconds = ((self.main_ms or 0) + 40 * self.increment_ms) / 1000 or 40 * (self.move_ms or 0) / 1000
        return min(1000, round(seconds * 4 + 150))

    @property
    def lag_quota_start_ms(self) -> int:
        return 3 * self.lag_gain_ms

    @property
    def lag_quota_max_ms(self) -> int:
        return 7 * self.lag_gain_ms

    @property
    def timed(self) -> bool:
        return self.main_ms is not None or self.move_ms is not None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)  # asdict(self), without its deep copy of values that are all immutable

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TimeControl:
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise ClockError("bad_time_control", f"unknown time-control options: {', '.join(sorted(unknown))}")
        control = cls(**data)
        control.validate()
        return control

    def validate(self) -> None:
        for name in ("main_ms", "move_ms", "ot_move_ms"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value <= 0):
                raise ClockError("bad_time_control", f"{name} must be a positive number of milliseconds")
        for name in ("ot_stones", "increment_ms", "draw_offers", "draw_reply_ms", "grace_ms"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise ClockError("bad_time_control", f"{name} cannot be negative")
        if self.main_scope not in ("game", "player") or self.on_expiry not in ("overtime", "lose"):
            raise ClockError("bad_time_control", "main_scope is game or player; on_expiry is overtime or lose")
        if (
            self.on_expiry == "overtime"
            and self.main_ms is not None
            and (self.ot_stones < 1 or self.ot_move_ms is None)
        ):
            raise ClockError("bad_time_control", "overtime needs ot_stones and ot_move_ms")


MIN = 60_000
PRESETS: dict[str, TimeControl] = {
    "untimed": TimeControl(),
    # The seed's quick play: 5 minutes for the whole game, 30 s a move, then 8 stones each at 30 s, then a draw.
    "quick": TimeControl(
        "quick",
        main_ms=5 * MIN,
        main_scope="game",
        move_ms=30_000,
        on_expiry="overtime",
        ot_stones=8,
        ot_move_ms=30_000,
    ),
    # Chinese standard levels: per player, time out loses (超时判负).
    **{
        f"cn-{label}": TimeControl(f"cn-{label}", main_ms=minutes * MIN, main_scope="player", on_expiry="lose")
        for label, minutes in [("15m", 15), ("30m", 30), ("1h", 60), ("90m", 90), ("2h", 120), ("5h", 300)]
    },
    # RIF-style: per player with a Fischer increment from move 1.
    **{
        f"rif-{minutes}+30": TimeControl(
            f"rif-{minutes}+30", main_ms=minutes * MIN, main_scope="player", on_expiry="lose", increment_ms=30_000
        )
        for minutes in (60, 90, 135)
    },
}


def find_time_control(spec: str | dict[str, Any] | None) -> TimeControl:
    """A preset by name, or a custom control from its options (starting from ``quick`` if named)."""
    if spec is None or spec == "":
        return PRESETS["untimed"]
    if isinstance(spec, str):
        if spec not in PRESETS:
            raise ClockError("bad_time_control", f"unknown time control {spec!r}; presets: {', '.join(PRESETS)}")
        return PRESETS[spec]
    data = dict(spec)
    base = PRESETS.get(str(data.pop("preset", "")))
    if base is not None:
        data = {**base.to_dict(), **data}
    data.setdefault("name", "custom")
    return TimeControl.from_dict(data)
