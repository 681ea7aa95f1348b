"""The FIDE Dutch system as revised for 2026 (C.04.3, in force since February 2026): plain Python.

The rules are pairing criteria in a strict order of priority, so a round pairing is a maximum-weight
matching whose edge weights hold one bit field per criterion, the most important highest. This is the
method of bbpPairings (the FIDE-endorsed program; version 6 implements these rules), written here for our
own :class:`~tournament.swiss.state.SwissState`; the weighted matching itself is bbpPairings' blossom
matcher as compiled in ``py4swiss`` (pinned in requirements.txt), which we already use for the older rules.

What the 2026 text changed, and where it shows below:

* C.5 - the pairing-allocated bye goes to a player of the lowest score that still lets the round be paired
  (found first, over the whole field: ``_quick_bye_score``, ``_full_completion``), then (C.9) to one whose
  bye leaves the fewest unplayed games (the most games played over the board: a late starter or a player
  with a bye or forfeit behind them keeps playing); a player who has scored a win's points without playing
  is not eligible (C.2).
* C.6/C.7 - within a bracket: first the most pairs, then the highest-scored moved-down players paired
  (it replaces the "pairing score difference"), and the same for the next bracket (C.8).
* A round scored without playing for more than a loss counts as a downfloat (1.4.3), so the float
  criteria (C.14-C.21) see it; any other unplayed round (a forfeit lost, a zero or half bye, an absence) is
  no float at all: 1.4.2 floats only players of different scores who played each other. C.18-C.21 weigh
  the floaters' scores, not score differences.

Everything else (colour preferences, topscorers, the order of transpositions and exchanges) is as
before. The pairing is done bracket by bracket from the top, each choice fixed before the next
(moved-down players first, then the exchanges, then each S1 player's opponent), exactly as the
rules' sequence of candidates demands.

The package: ``players.py`` (a player as the criteria see them, the shortcuts), ``rounds.py`` (the round:
completion, the bye's score, the weight of a pair, roles and board order), ``bracket.py`` (the brackets, in
the order of decisions), ``transport.py`` (transpositions settled on counts of kinds).

Speed, without changing a single pairing (each shortcut is checked and falls back to the full method;
:class:`Shortcuts`, and ``NO_SHORTCUTS`` for bbpPairings' method as written):
each bracket has a matching of its own; in a large field the next score group and the players further
down are replaced by a few stand-ins who may meet anyone, and the result is kept only if the real players
can take their places (a relaxation whose optimum is realisable is the optimum); a bracket without
moved-down players skips the matching that only counts its pairs; S1 players are settled eight at a time;
round 1 is read off the ranking when nothing forbids it.

Glossary (FIDE C.04.3 and bbpPairings' names, as the code uses them):

* *score group*: the players of one pairing score. *bracket*: a score group with the players who floated
  down into it from above; ``gpbi`` / ``bracket`` is the list of its players (indices into the round's
  ranked players) followed by the next score group's, and ``end`` is where the bracket stops.
* *MDP* (moved-down player), ``mdps``: how many players at the front of the bracket floated down into it.
  *Residents*: the bracket's own score group.
* *S1* / *S2*: the bracket's upper and lower halves (of the remainder, once the MDPs are paired);
  ``rem_pairs`` is the number of pairs the remainder makes, so S1 is its first ``rem_pairs`` players.
* *remainder*: the residents left once the MDPs have their opponents (the homogeneous bracket if none).
* *transposition* (D.1): a change of order within S2; *exchange* (D.2): players swapped between S1 and S2.
* *downfloater* / *upfloater* (1.4): a player paired below / above their score; ``float1`` / ``float2``
  the float of the last / the one before last round (``NONE``, ``DOWN``, ``UP``).
* *pairing-allocated bye* (PAB): the bye the odd player gets; ``bye_score`` the lowest score it may go to
  (C.5); ``single``: the bracket's single downfloater may be weighed as the bye's (C.9).
* *topscorer* (1.8): a player with more than half the maximum score, in the last round (``top_threshold``).
* *pref*: the colour (here the role: first or second to move) a player should get; *absolute* (an imbalance
  beyond 1 or the same role twice in a row), *strong* (an imbalance of 1), else mild (A.6).
* *stable*: the matcher's current matching (``stable[v]`` is v's mate, or v when unpaired); *base*: the
  bracket's pair weights before the decisions change the matcher's copy.
* *stand-in*: a vertex that replaces the next score group's or lower players in a windowed bracket.
"""

from __future__ import annotations

from tournament.swiss.dutch.bracket import pair_brackets
from tournament.swiss.dutch.players import DOWN, NO_SHORTCUTS, NONE, SHORTCUTS, UP, PairingError, Player, Shortcuts
from tournament.swiss.dutch.rounds import Round
from tournament.swiss.state import SwissState

__all__ = [
    "DOWN",
    "NONE",
    "NO_SHORTCUTS",
    "SHORTCUTS",
    "UP",
    "PairingError",
    "Player",
    "Round",
    "Shortcuts",
    "pair",
    "paired_round",
]


def pair(state: SwissState, shortcuts: Shortcuts = SHORTCUTS) -> list[tuple[int, int | None]]:
    """The next round of ``state`` by the 2026 rules: (first, second) pairing numbers in FIDE's board
    order, then the pairing-allocated bye as (player, None). Raises :class:`PairingError`."""
    return paired_round(state, shortcuts)[0]


def paired_round(state: SwissState, shortcuts: Shortcuts = SHORTCUTS) -> tuple[list[tuple[int, int | None]], Round]:
    """:func:`pair`, with the :class:`Round` it was paired on (its counters say which shortcuts were used)."""
    rnd = Round(state, shortcuts)
    players = rnd.players
    if rnd.n == 0:
        return [], rnd
    if rnd.n == 1:
        return [(players[0].number, None)], rnd
    if rnd.played_rounds == 0 and shortcuts.read_round_one:
        natural = rnd.round_one()
        if natural is not None:
            return rnd.boards(natural), rnd
    rnd.prepare()
    return rnd.boards(pair_brackets(rnd)), rnd
