"""Over-the-board games entered as records, as honest references for the null model.

A game played at the board under an arbiter's eye, entered afterwards as a record (imported, or its stones
typed), is the best honest reference there is: a real player of a known rating choosing real moves. Each such
game of two rated players is screened at the calibration's settings and each player's moves go into the band
of their rating, beside the synthetic players' (``manage.py fairplay_calibrate --records``). Before they are
added, they are scored against the synthetic-only fit: how real honest players come out of the synthetic
model is the check the synthetic model most needs (the calibration's ``summary`` keeps it).

Records carry no think times (the screening ignores the times), and a record without the opening's actions
does not say which stones the opening rule placed: the first ``OPENING_STONES`` are then taken as placed.
"""

from __future__ import annotations

from collections.abc import Iterable

from fairplay.calibrate import References, band_of
from fairplay.screening import Settings, screen
from fairplay.services import stones_and_times, time_class_of
from games.enums import GameMode, GameStatus
from games.models import Game

MIN_STONES = 10  # a shorter record is an opening and an agreement, not a game to learn from
OPENING_STONES = 5  # the 26 openings' three stones, the fourth and the fifth


def reference_games(tournaments: Iterable[int] | None = None) -> list[Game]:
    """Finished over-the-board games of two rated players (of these tournaments, when given), oldest first."""
    games = Game.objects.filter(
        mode=GameMode.OVER_THE_BOARD,
        status=GameStatus.FINISHED,
        black__rating__isnull=False,
        white__rating__isnull=False,
    ).select_related("black", "white")
    if tournaments is not None:
        games = games.filter(match_game__match__tournament__in=list(tournaments))
    return list(games.order_by("pk"))


def reference_sides(settings: Settings, tournaments: Iterable[int] | None = None) -> References:
    """Each rated player's screened moves in each reference game, by the band of their rating and the class of
    the game's time control ("" untimed or unknown)."""
    sides: References = {}
    for game in reference_games(tournaments):
        stones, _times, fixed = stones_and_times(game)
        if len([s for s in stones if s != "pass"]) < MIN_STONES:
            continue
        if game.protocol != "none" and not game.moves.exists():
            fixed = max(fixed, OPENING_STONES)
        moves = screen(stones, game.rules, None, fixed, settings)
        played_at = time_class_of(game.time_control)
        for color, player in (("black", game.black), ("white", game.white)):
            assert player is not None and player.rating is not None
            key = (band_of(player.rating), played_at)
            sides.setdefault(key, []).append([m for m in moves if m.color == color])
    return sides
