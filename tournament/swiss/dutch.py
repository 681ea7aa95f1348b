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

Speed, without changing a single pairing (each shortcut is checked and falls back to the full method):
each bracket has a matching of its own; in a large field the next score group and the players further
down are replaced by a few stand-ins who may meet anyone, and the result is kept only if the real players
can take their places (a relaxation whose optimum is realisable is the optimum); a bracket without
moved-down players skips the matching that only counts its pairs; S1 players are settled eight at a time;
round 1 is read off the ranking when nothing forbids it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tournament.swiss.matcher import Matcher
from tournament.swiss.state import FIRST, SECOND, SwissPlayer, SwissState

NONE, DOWN, UP = 0, 1, 2  # float directions
# A bracket with at least WINDOW_BELOW players below its next score group is solved over WINDOW_STAND_INS
# stand-ins for them (more when players float down), then checked against the real ones.
WINDOW_BELOW = 60
WINDOW_STAND_INS = 12
# S1 players given their opponents at once (by one matching, their orders weighted lexicographically).
S1_CHUNK = 8
# A bracket without moved-down players skips the matching that only counts its pairs (checked after).
GUESS_PAIRS = True
# S1 players' opponents settled on counts of kinds where that applies (_transpose_by_kind), with at
# most KINDS_AT_MOST kinds (each shortest path costs a few passes over kinds squared).
BY_KIND = True
KINDS_AT_MOST = 260


class PairingError(Exception):
    """No round pairing satisfies the absolute criteria."""


@dataclass
class _P:
    """One player to be paired, with everything the criteria read."""

    number: int
    score: int  # tenths, virtual points included (FIDE's pairing score)
    raw: int  # tenths, without virtual points (board order)
    pref: str | None  # FIRST, SECOND or None
    imbalance: int  # |games as first - games as second|
    strong: bool
    absolute: bool
    repeated: str | None  # the role of the last two games when they were alike
    played: int
    eligible: bool  # may receive the pairing-allocated bye (C.2)
    float1: int
    float2: int
    history: list[str]  # roles in games played, oldest first

    @property
    def kind(self) -> tuple[object, ...]:
        """Everything the quality criteria read of a player (not who they are)."""
        return (
            self.score,
            self.pref,
            self.imbalance,
            self.strong,
            self.absolute,
            self.repeated,
            self.played,
            self.eligible,
            self.float1,
            self.float2,
        )

    @property
    def absolute_imbalance(self) -> bool:
        return self.imbalance > 1


def _invert(colour: str | None) -> str | None:
    return None if colour is None else (SECOND if colour == FIRST else FIRST)


def _compatible_prefs(a: str | None, b: str | None) -> bool:
    return a != b or a is None or b is None


def _bits(value: int) -> int:
    return max(1, int(value).bit_length())


def pair(state: SwissState) -> list[tuple[int, int | None]]:
    """The next round of ``state`` by the 2026 rules: (first, second) pairing numbers in FIDE's board
    order, then the pairing-allocated bye as (player, None). Raises :class:`PairingError`."""
    return _Round(state).pair()


class _Round:
    def __init__(self, state: SwissState) -> None:
        self.state = state
        self.played_rounds = state.rounds_played
        points = state.points
        self.win = points.win
        self.loss = points.loss
        numbers = state.by_number()
        self.numbers = numbers
        waiting = [
            p
            for p in state.players
            if p.number not in state.absent
            and p.number not in state.preassigned
            and len(p.rounds) <= self.played_rounds
        ]
        players = [self._make(p) for p in waiting]
        players.sort(key=lambda p: (-p.score, p.number))
        self.players = players
        self.n = len(players)
        self.initial = state.first_colour
        self.forbidden = set(state.forbidden)
        for p in waiting:
            for r in p.rounds:
                if r.played and r.opponent is not None:
                    self.forbidden.add((min(p.number, r.opponent), max(p.number, r.opponent)))
        best = max(points.win, points.draw)
        self.top_threshold = (self.played_rounds * best) // 2
        self.last_round = self.played_rounds >= state.total_rounds - 1
        self._edges: dict[tuple[object, ...], int] = {}

    # -- the players ---------------------------------------------------------------------------------

    def _score_before(self, player: SwissPlayer, round_number: int) -> int:
        """The pairing score before ``round_number`` (virtual points of that round included)."""
        return self.state.pairing_score(player, round_number)

    def _float(self, player: SwissPlayer, back: int) -> int:
        index = self.played_rounds - back  # 0-based index of that round
        if index < 0 or index >= len(player.rounds):
            return NONE
        record = player.rounds[index]
        points = self.state.points
        if not record.played:  # 1.4.3: scored more than a loss without playing is a downfloat; else none
            return DOWN if record.result and points.points(record.result) > points.loss else NONE
        mine = self._score_before(player, index + 1)
        if record.opponent is None or record.opponent not in self.numbers:
            return NONE
        theirs = self._score_before(self.numbers[record.opponent], index + 1)
        return DOWN if mine > theirs else UP if mine < theirs else NONE

    def _make(self, player: SwissPlayer) -> _P:
        history = [r.colour for r in player.rounds if r.played and r.colour]
        firsts = history.count(FIRST)
        difference = firsts - (len(history) - firsts)
        repeated = history[-1] if len(history) > 1 and history[-1] == history[-2] else None
        if difference > 0:
            pref: str | None = SECOND
        elif difference < 0:
            pref = FIRST
        elif history:
            pref = _invert(history[-1])
        else:
            pref = None
        absolute = abs(difference) > 1 or repeated is not None
        points = self.state.points
        eligible = not any(not r.played and r.result and points.points(r.result) >= points.win for r in player.rounds)
        return _P(
            number=player.number,
            score=self.state.pairing_score(player),
            raw=player.score(points),
            pref=pref,
            imbalance=abs(difference),
            strong=abs(difference) == 1 and not absolute,
            absolute=absolute,
            repeated=repeated,
            played=len(history),
            eligible=eligible,
            float1=self._float(player, 1) if self.played_rounds >= 1 else NONE,
            float2=self._float(player, 2) if self.played_rounds >= 2 else NONE,
            history=history,
        )

    def compatible(self, a: _P, b: _P) -> bool:
        if (min(a.number, b.number), max(a.number, b.number)) in self.forbidden:
            return False
        if not (a.absolute and b.absolute and a.pref == b.pref):
            return True
        return self.last_round and (a.score > self.top_threshold or b.score > self.top_threshold)

    # -- the pairing ---------------------------------------------------------------------------------

    def pair(self) -> list[tuple[int, int | None]]:
        players, n = self.players, self.n
        if n == 0:
            return []
        if n == 1:
            return [(players[0].number, None)]
        if self.played_rounds == 0:
            natural = self._round_one()
            if natural is not None:
                return self._boards(natural)
        self._layout()
        odd = n % 2 == 1
        self.bye_score = 0
        self.single = False
        self.played_rank: dict[int, int] = {}
        # Completability, and (odd fields) the lowest score the bye can go to (C.5). Most fields are
        # paired in order at a glance (_greedy_over); only when that fails (or when the whole field shares
        # one score, where C.9 needs the matching itself) is the full matching computed.
        quick = self._quick_bye_score() if odd else (0 if self._greedy_over(list(range(n))) else None)
        if quick is not None and not (odd and quick >= players[0].score):
            self.bye_score = quick
        else:
            self._full_completion(odd)
        if odd:  # C.9: the bye to the one it leaves with the fewest unplayed games (most played, rank 0)
            counts = sorted((p.played for p in players if p.score == self.bye_score), reverse=True)
            for rank, games in enumerate(counts):
                self.played_rank[games] = rank
        pairs = self._brackets()
        return self._boards(pairs)

    def _round_one(self) -> list[tuple[int, int]] | None:
        """Round 1 read off the ranking, when nothing forbids it: with no colours and no floats yet, every
        quality criterion is met by each score group's top half meeting its bottom half in order (the
        first transposition), the last player taking the bye. ``None`` (pair in full) when a group
        other than the last is odd, a pair is prohibited, or someone may not take the bye."""
        players = self.players
        if any(p.history or not p.eligible for p in players):
            return None
        groups: list[list[int]] = []
        for i, p in enumerate(players):
            if groups and players[groups[-1][0]].score == p.score:
                groups[-1].append(i)
            else:
                groups.append([i])
        pairs: list[tuple[int, int]] = []
        for k, group in enumerate(groups):
            if len(group) % 2 and k != len(groups) - 1:
                return None
            half = len(group) // 2
            for a, b in zip(group[:half], group[half : 2 * half], strict=True):
                if not self.compatible(players[a], players[b]):
                    return None
                pairs.append((a, b))
        return pairs

    def _stand_in(self, k: int, score: int) -> _P:
        """A stand-in for a player of the next score group (``score``) or further down: anyone may meet
        them."""
        return _P(-1 - k, score, 0, None, 0, False, False, None, 0, True, NONE, NONE, [])

    @staticmethod
    def _room(count: int, mdps: int) -> int:
        """How many stand-ins for ``count`` players: a few more than can float down to them, and of the
        same parity as the players they stand for."""
        room = min(count, WINDOW_STAND_INS + 2 * mdps)
        return room + (count - room) % 2

    def _realised(self, stable: list[int], end: int, size: int, total: int, gpbi: list[int], below: list[int]) -> bool:
        """After a windowed bracket: did the stand-ins leave room (two of each kind unused), and can the
        real players take their places? Those sent to the next group's stand-ins each meet a real player of
        that group, the rest of it pairs within itself as fully as the stand-ins did, and what remains is
        paired with the players further down."""
        to_next = [k for k in range(end) if end <= stable[k] < size]
        to_far = [k for k in range(end) if stable[k] >= size or stable[k] == k]
        if len(to_next) > size - end - 2 and size - end < len(gpbi) - end:
            return False
        if len(to_far) > total - size - 2 and total - size < len(below):
            return False
        players = self.players
        free = list(gpbi[end:])
        for k in to_next:
            mover = players[gpbi[k]]
            partner = next((j for j in free if self.compatible(mover, players[j])), None)
            if partner is None:
                return False
            free.remove(partner)
        left = []
        while free:
            first = free.pop(0)
            partner = next((j for j in free if self.compatible(players[first], players[j])), None)
            if partner is None:
                left.append(first)
            else:
                free.remove(partner)
        if len(left) > 1:
            return False
        return self._pairable(sorted([gpbi[k] for k in to_far] + left) + below)

    def _pairable(self, indices: list[int]) -> bool:
        """Pairing in order (each player with the next one still free that they may meet), with one
        player eligible for the bye left out if the count is odd: proof that they can be paired, never
        proof that they cannot."""
        if len(indices) % 2 == 0:
            return self._greedy_over(indices)
        tries = [i for i in reversed(indices) if self.candidate(self.players[i])][:3]
        return any(self._greedy_over([j for j in indices if j != i]) for i in tries)

    def _greedy_over(self, indices: list[int]) -> bool:
        """Whether pairing ``indices`` in order, each with the next one still free that they may meet,
        then fitting in those left over (directly, or by taking a pair apart: x meets a, a's partner meets
        y), pairs them all."""
        players, compatible = self.players, self.compatible
        free = list(indices)
        pairs: list[list[int]] = []
        stuck: list[int] = []
        while free:
            first = free.pop(0)
            partner = next((j for j in free if compatible(players[first], players[j])), None)
            if partner is None:
                stuck.append(first)
            else:
                free.remove(partner)
                pairs.append([first, partner])
        while stuck:
            x = stuck.pop()
            y = next((j for j in stuck if compatible(players[x], players[j])), None)
            if y is not None:
                stuck.remove(y)
                pairs.append([x, y])
                continue
            for pair in reversed(pairs):
                for keep, move in ((pair[0], pair[1]), (pair[1], pair[0])):
                    if not compatible(players[x], players[keep]):
                        continue
                    y = next((j for j in stuck if compatible(players[move], players[j])), None)
                    if y is not None:
                        stuck.remove(y)
                        pair[:] = [x, keep]
                        pairs.append([move, y])
                        break
                else:
                    continue
                break
            else:
                return False
        return True

    def _quick_bye_score(self) -> int | None:
        """The lowest score of a player eligible for the bye, if the round completes around one of them."""
        eligible = [i for i, p in enumerate(self.players) if p.eligible]
        if not eligible:
            return None
        lowest = self.players[eligible[-1]].score
        tries = [i for i in reversed(eligible) if self.players[i].score == lowest][:3]
        everyone = range(self.n)
        return lowest if any(self._greedy_over([j for j in everyone if j != i]) for i in tries) else None

    def _full_completion(self, odd: bool) -> None:
        """bbpPairings' first matching over the whole field: can it be completed, the bye's lowest
        score, and (C.9) whether the single downfloater of a one-score field is the bye's."""
        players, n = self.players, self.n
        m = Matcher(n, self.weight_bits)
        top = players[0].score
        for i in range(n):
            pi = players[i]
            for j in range(i):
                pj = players[j]
                if not self.compatible(pi, pj):
                    continue
                if odd:
                    w = 1 + (not pi.eligible) + (not pj.eligible)
                    w = (w << self.sgs) | (self.shift[pi.score] + self.shift[pj.score])
                    w = (w << self.wbits) | (pi.score >= top)
                else:
                    w = (1 + (not self.candidate(pi)) + (not self.candidate(pj))) << self.below_top
                m.set(i, j, w)
        m.compute()
        stable = m.matching()
        unmatched = [i for i in range(n) if stable[i] == i]
        if len(unmatched) > (1 if odd else 0) or any(not players[i].eligible for i in unmatched):
            raise PairingError("the players cannot all be paired without breaking an absolute criterion")
        if not odd:
            return
        self.bye_score = players[unmatched[0]].score
        if self.bye_score >= top:
            self.single = True
            for i, p in enumerate(players):
                if p.score < top:
                    break
                if players[stable[i]].score < top:
                    self.single = False
                    break

    def _layout(self) -> None:
        """The widths of the weight's fields: enough that no sum over a round's pairs spills over."""
        players = self.players
        groups: list[tuple[int, int]] = []  # (score, size), lowest score first
        for p in reversed(players):
            if groups and groups[-1][0] == p.score:
                groups[-1] = (p.score, groups[-1][1] + 1)
            else:
                groups.append((p.score, 1))
        self.shift: dict[int, int] = {}
        total = 0
        for score, size in groups:
            self.shift[score] = total
            total += _bits(size) + 1
        self.sgs = max(total, _bits(self.n * max(total, 1)) + 1)
        self.wbits = _bits(self.n) + 2
        w, s = self.wbits, self.sgs
        below_top = w + s + w + s + w + 4 * w
        if self.played_rounds >= 1:
            below_top += 2 * w + 2 * s
        if self.played_rounds >= 2:
            below_top += 2 * w + 2 * s
        below_top += 3 * w + 1 + S1_CHUNK * w
        self.below_top = below_top
        self.weight_bits = below_top + 2  # the top field (C.4, C.5) holds up to 3

    def candidate(self, p: _P) -> bool:
        return p.eligible and p.score <= self.bye_score

    def edge(self, h: _P, lo: _P, in_current: bool, in_next: bool) -> int:
        """The weight of pairing ``h`` (ranked higher) with ``lo``: each criterion a field, highest first.
        Two players are told apart only by what the criteria read (``_P.kind``), so weights are cached by
        kind; whether they may meet at all is asked of the pair."""
        if (min(h.number, lo.number), max(h.number, lo.number)) in self.forbidden:
            return 0
        key = (h.kind, lo.kind, in_current, in_next, self.single)
        found = self._edges.get(key)
        if found is None:
            found = self._edges[key] = self._edge(h, lo, in_current, in_next)
        return found

    def _edge(self, h: _P, lo: _P, in_current: bool, in_next: bool) -> int:
        if not self.compatible(h, lo):
            return 0
        w, s, shift = self.wbits, self.sgs, self.shift
        r = 1 + (not self.candidate(h)) + (not self.candidate(lo))  # C.4 complete; C.5 the bye's score
        r = (r << w) | in_current  # C.6 pairs in the bracket
        r <<= s
        if in_current:
            r |= 1 << shift[h.score]  # C.7 the moved-down players' scores
        r = (r << w) | in_next  # C.8 the same in the next bracket
        r <<= s
        if in_next:
            r |= 1 << shift[h.score]
        r <<= w  # C.9 the bye to the player with the fewest unplayed games
        if self.single:
            if h.score == self.bye_score:
                r |= self.played_rank[h.played]
            if lo.score == self.bye_score:
                r += self.played_rank[lo.played]
        r = self._colour_bits(r, lo, h, in_current)
        if self.played_rounds >= 1:
            r = self._float_counts(r, h, lo, in_current, h.float1, lo.float1)
        if self.played_rounds >= 2:
            r = self._float_counts(r, h, lo, in_current, h.float2, lo.float2)
        if self.played_rounds >= 1:
            r = self._float_scores(r, h, lo, in_current, h.float1, lo.float1)
        if self.played_rounds >= 2:
            r = self._float_scores(r, h, lo, in_current, h.float2, lo.float2)
        return r << (3 * w + 1 + S1_CHUNK * w)  # room for the order of transpositions and exchanges

    def _colour_bits(self, r: int, p: _P, o: _P, mask: bool) -> int:
        w = self.wbits
        # C.10 topscorers' colour difference beyond 2
        r = (r << w) | (mask and (not p.absolute_imbalance or not o.absolute_imbalance or p.pref != o.pref))
        # C.11 topscorers' same role three times in a row
        if p.imbalance == o.imbalance:
            third = p.repeated is None or p.repeated != o.repeated
        else:
            third = (o if p.imbalance > o.imbalance else p).repeated != _invert(p.pref)
        r = (r << w) | (mask and (not p.absolute or not o.absolute or p.pref != o.pref or third))
        # C.12 colour preferences, C.13 strong ones
        r = (r << w) | (mask and _compatible_prefs(p.pref, o.pref))
        strong = (
            (not p.strong and not p.absolute)
            or (not o.strong and not o.absolute)
            or (p.absolute and o.absolute)
            or p.pref != o.pref
        )
        return (r << w) | (mask and strong)

    def _float_counts(self, r: int, h: _P, lo: _P, mask: bool, fh: int, fl: int) -> int:
        """C.14-C.17: repeated downfloats, then repeated upfloats."""
        w = self.wbits
        r <<= w
        if mask:
            r |= fl == DOWN
            r += h.score <= lo.score and fh == DOWN
        r <<= w
        if mask:
            r |= not (h.score > lo.score and fl == UP)
        return r

    def _float_scores(self, r: int, h: _P, lo: _P, mask: bool, fh: int, fl: int) -> int:
        """C.18-C.21: the scores of repeated downfloaters, of repeated upfloaters' opponents."""
        s, shift = self.sgs, self.shift
        r <<= s
        if mask:
            r += (fl == DOWN) << shift[lo.score]
            r += (fh == DOWN) << shift[h.score]
        r <<= s
        if mask and not (fl == UP and h.score > lo.score):
            r |= 1 << shift[h.score]
        return r

    def _brackets(self) -> list[tuple[int, int]]:
        """Pair bracket by bracket from the top; returns pairs of indices into ``self.players``."""
        players, n = self.players, self.n
        pbi: list[int] = []  # the bracket (moved-down players, residents) and the next score group
        nxt = 0
        while nxt < n and players[nxt].score >= players[0].score:
            pbi.append(nxt)
            nxt += 1
        self.matched = [False] * n
        self.last: dict[tuple[int, int], int] = {}  # weights left between players who float on together
        self.windowed = self.fell_back = 0
        mdps = 0  # moved-down players at the front of pbi
        pairs: list[tuple[int, int]] = []
        while len(pbi) > 1 or nxt < n:
            end = len(pbi)  # the current bracket is pbi[:end]
            group_start = nxt
            while nxt < n and players[nxt].score >= players[group_start].score:
                pbi.append(nxt)
                nxt += 1
            below = list(range(nxt, n))
            maybe_single = n % 2 == 1 and group_start < n and self.bye_score == players[group_start].score
            windowed = (
                end < len(pbi) and len(pbi) - end + len(below) >= WINDOW_BELOW and not (self.single or maybe_single)
            )
            done = None
            for window, guess in ((True, True), (True, False), (False, True), (False, False)):
                if (window and not windowed) or (guess and not GUESS_PAIRS):
                    continue
                done = self._bracket(pbi, end, mdps, group_start, below, window, guess)
                if done is not None:
                    self.windowed += window
                    break
                self.fell_back += 1
            assert done is not None
            found, pbi, mdps = done
            pairs += found
        return pairs

    def _bracket(
        self,
        gpbi: list[int],
        end: int,
        mdps: int,
        group_start: int,
        below: list[int],
        window: bool,
        guess: bool,
    ) -> tuple[list[tuple[int, int]], list[int], int] | None:
        """One bracket, ``gpbi[:end]``, with the next score group ``gpbi[end:]``, on a matching of its
        own. ``window`` False: the next score group and every player further down are in it, exactly
        bbpPairings' matching. ``window``: both are replaced by a few stand-ins who may meet anyone
        (those for the next group weigh as it does: a pair there, its score); that is a relaxation, kept
        only if the real players can take the stand-ins' places (``_realised``), else None.

        Returns the pairs made (indices into ``self.players``), the next bracket's players and its number
        of moved-down players."""
        n, w = self.n, self.wbits
        following = gpbi[end:]
        if window:
            ins = [self._stand_in(k, self.players[following[0]].score) for k in range(self._room(len(following), mdps))]
            far = [self._stand_in(len(ins) + k, -(10**6)) for k in range(self._room(len(below), mdps))]
            players = [self.players[g] for g in gpbi[:end]] + ins + far
            size = end + len(ins)
        else:
            players = [self.players[g] for g in gpbi] + [self.players[g] for g in below]
            size = len(gpbi)
        m = Matcher(len(players), self.weight_bits, record=size)
        levels = [m.weight(k << self.below_top) for k in range(4)]
        cand = [self.candidate(p) for p in players]
        for i in range(len(players)):
            one = players[i]
            for j in range(i):
                if i < size:  # both in the bracket or the next group
                    if i >= mdps:
                        continue  # this bracket's own weights, set below
                    key = (gpbi[j], gpbi[i])
                    if key in self.last:  # two moved-down players: what the bracket above left them
                        m.set(i, j, self.last[key])
                        continue
                if self.compatible(one, players[j]):
                    m.set_weight(i, j, levels[1 + (not cand[i]) + (not cand[j])])
        matched = [self.matched[g] for g in gpbi[:end]] + [False] * (len(players) - end)
        pairs: list[tuple[int, int]] = []
        pbi = list(range(size))
        group_vertex, next_vertex = mdps, end
        base: list[list[int]] = [[] for _ in pbi]
        for larger in range(mdps, len(pbi)):
            lo = players[pbi[larger]]
            cur, nx = larger < end, larger >= end
            row = [self.edge(players[pbi[smaller]], lo, cur, nx) for smaller in range(larger)]
            base[larger] = row
            v = pbi[larger]
            for smaller, weight in enumerate(row):
                m.set(v, pbi[smaller], weight)

        def ordered(small: int, large: int, small_rem: int, rem_pairs: int, base: list[list[int]] = base) -> int:
            weight = base[large][small]
            if weight:
                addend = ((small_rem < rem_pairs) << (2 * w)) - small_rem
                weight += addend << 1
            return weight

        def in_bracket(x: int, low: int = group_vertex, high: int = next_vertex) -> bool:
            return low <= x < high

        # Without moved-down players, the first matching would only say how many pairs the bracket
        # makes; when ``guess``, take it to be all but one at most, and check it after the next one.
        if not (guess and mdps == 0):
            m.compute()
        stable = m.matching()

        # Which moved-down players are paired in the bracket (the highest scores first).
        md_score = None
        left = paired_left = 0
        for i in range(mdps):
            v = pbi[i]
            if md_score is None or players[v].score < md_score:
                md_score = players[v].score
                left = paired_left = 0
                k = i
                while k < mdps and players[pbi[k]].score >= md_score:
                    left += 1
                    paired_left += in_bracket(stable[pbi[k]])
                    k += 1
            if not paired_left:
                continue
            if left <= paired_left:
                matched[v] = True
                continue
            left -= 1
            if not in_bracket(stable[v]):
                for o in range(mdps, end):
                    weight = base[o][i]
                    if weight:
                        m.set(v, pbi[o], weight | 1)
                m.compute()
                stable = m.matching()
            if in_bracket(stable[v]):
                matched[v] = True
                paired_left -= 1
                for o in range(mdps, end):
                    weight = base[o][i]
                    if weight:
                        m.set(v, pbi[o], (weight | (end - mdps)) + 1)

        # Their opponents: the first resident in order that leaves the best pairing (D.1).
        for i in range(mdps):
            v = pbi[i]
            if not matched[v]:
                continue
            addend = len(pbi)
            for o in range(end - 1, mdps - 1, -1):
                ov = pbi[o]
                if matched[ov]:
                    continue
                weight = base[o][i]
                if weight:
                    m.set(v, ov, weight + addend)
                    addend += 1
            m.compute()
            stable = m.matching()
            mate = stable[v]
            matched[mate] = True
            m.finalize(v, mate)
            pairs.append((v, mate))

        # The remainder (or the homogeneous bracket): S1 is its first ``rem_pairs`` players.
        if guess and mdps == 0:
            remainder, rem_pairs = list(range(end)), end // 2
        else:
            remainder = [o for o in range(mdps, end) if stable[pbi[o]] >= group_vertex]
            rem_pairs = sum(1 for o in remainder if stable[pbi[o]] < pbi[o])
        for o in remainder:
            for pi, p in enumerate(remainder):
                if o <= p:
                    break
                m.set(pbi[p], pbi[o], ordered(p, o, pi, rem_pairs))
        m.compute()
        stable = m.matching()
        if guess and mdps == 0 and sum(1 for o in remainder if stable[pbi[o]] < pbi[o]) != rem_pairs:
            return None  # fewer pairs than guessed: pair the bracket again, with its first matching
        exchanges = 0
        for o in remainder[:rem_pairs]:
            v = pbi[o]
            exchanges += stable[v] <= v or stable[v] >= next_vertex

        # Exchanges (D.2): which S1 players go to S2, the lowest first ...
        remaining = exchanges
        position = rem_pairs
        index = rem_pairs
        while position > 0 and remaining:
            opp_from = position
            index -= 1
            position -= 1
            p = remainder[position]
            v = pbi[p]
            if v < stable[v] < next_vertex:
                for o in remainder[opp_from:]:
                    weight = ordered(p, o, index, rem_pairs)
                    if weight:
                        m.set(v, pbi[o], weight - 1)
                m.compute()
                stable = m.matching()
            exchange = stable[v] <= v or stable[v] >= next_vertex
            remaining -= exchange
            for o in remainder[position + 1 :]:
                if exchange:
                    base[o][p] = 0
                m.set(v, pbi[o], ordered(p, o, index, rem_pairs))

        # ... and which S2 players come up to S1, the highest first.
        remaining = exchanges
        index = rem_pairs
        for position in range(rem_pairs, len(remainder)):
            if remaining <= 1:
                break
            p = remainder[position]
            v = pbi[p]
            already = v < stable[v] < next_vertex
            if not already:
                for o in remainder[position + 1 :]:
                    weight = ordered(p, o, index, rem_pairs)
                    if weight:
                        m.set(v, pbi[o], weight + 1)
                m.compute()
                stable = m.matching()
            if v < stable[v] < next_vertex:
                remaining -= 1
                for o in remainder[:position]:
                    base[p][o] = 0
                    m.set(v, pbi[o], 0)
                for o in range(end, len(pbi)):
                    base[o][p] = 0
                    m.set(v, pbi[o], 0)
            if not already:
                for o in remainder[position + 1 :]:
                    m.set(v, pbi[o], ordered(p, o, index, rem_pairs))
            index += 1

        # Fix S1 and S2; then each S1 player, in order, takes the first S2 player that still
        # leaves the best pairing (transpositions, D.1).
        for ri, p in enumerate(remainder):
            v = pbi[p]
            for o in remainder[ri + 1 :]:
                ov = pbi[o]
                if stable[v] <= v or stable[v] >= next_vertex or ov < stable[ov] < next_vertex:
                    base[o][p] = 0
                m.set(v, ov, base[o][p])
        # Where no pair across S1 and S2 is forbidden and nobody floats, players differ only by their
        # kind and the order can be settled on counts of kinds (_transpose_by_kind).
        fast = None
        if BY_KIND and exchanges == 0 and not (self.single or self._maybe_single(group_start)):
            stand_in = end if window and end < size else None  # the next group's first stand-in
            fast = self._transpose_by_kind(players, remainder, rem_pairs, stable, base, stand_in)
        for p, o in fast or []:
            matched[p] = matched[o] = True
            pairs.append((p, o))
        # Otherwise S1 players are taken S1_CHUNK at a time, the first one's order of S2 players weighing
        # more than all the later ones' together: one matching settles them as one at a time would.
        s1 = [] if fast is not None else [p for p in remainder if pbi[p] < stable[pbi[p]] < next_vertex]
        for start in range(0, len(s1), S1_CHUNK):
            chunk = s1[start : start + S1_CHUNK]
            settled = True
            for k, p in enumerate(chunk):
                v = pbi[p]
                scale = w * (len(chunk) - 1 - k)
                addend = 0
                best = None
                for o in reversed(remainder):
                    ov = pbi[o]
                    if o <= p or matched[ov]:
                        continue
                    weight = base[o][p]
                    if weight:
                        m.set(v, ov, weight + (addend << scale))
                        best = ov
                    addend += 1
                settled = settled and stable[v] == best
            # The matching in hand is already the best for the other criteria; if it gives every S1
            # player of the chunk the first S2 player it may take, nothing can change.
            if not settled:
                m.compute()
                stable = m.matching()
            for p in chunk:
                v = pbi[p]
                mate = stable[v]
                matched[v] = matched[mate] = True
                m.finalize(v, mate)
                pairs.append((v, mate))

        if window and not self._realised(stable, end, size, len(players), gpbi, below):
            return None
        # The next bracket: this one's unpaired players move down.
        single = n % 2 == 1 and group_start < n and self.bye_score == self.players[group_start].score
        new: list[int] = []
        mdps = 0
        for k, v in enumerate(pbi):
            if k < end and matched[v]:
                continue
            new.append(v)
            if k < end:
                mdps += 1
            if players[stable[v]].score < self.bye_score:
                single = False
        for k in range(end):
            self.matched[gpbi[k]] = matched[k]
        floating = new[:mdps]
        self.last = {}
        for x, a in enumerate(floating):
            for c in floating[:x]:
                kept = m.recorded(c, a)
                if kept is not None:
                    self.last[gpbi[c], gpbi[a]] = kept
        self.single = single
        if window:  # the next group stood in: it moves on whole
            return [(gpbi[a], gpbi[c]) for a, c in pairs], [gpbi[v] for v in new[:mdps]] + following, mdps
        return [(gpbi[a], gpbi[c]) for a, c in pairs], [gpbi[v] for v in new], mdps

    def _maybe_single(self, group_start: int) -> bool:
        """Whether C.9 may look at the next bracket's single downfloater (the bye's score is its score)."""
        return self.n % 2 == 1 and group_start < self.n and self.bye_score == self.players[group_start].score

    def _transpose_by_kind(
        self,
        players: list[_P],
        remainder: list[int],
        rem_pairs: int,
        stable: list[int],
        base: list[list[int]],
        stand_in: int | None,
    ) -> list[tuple[int, int]] | None:
        """Each S1 player in order takes the first S2 player that some best pairing allows (D.1), found
        without a matching: when every S1 player meets an S2 player, a pair's weight depends only on the
        two players' kinds (the players of a forbidden pair each a kind of their own), the best pairings
        are the best transportation plans between the kinds' counts, and a kind pair is allowed iff it is
        in the plan in hand or a cycle of no cost brings it in (a shortest path in the plan's residual
        graph). S2 players who float down are a row of the plan of their own when they float to the next
        group's stand-ins (``stand_in``: the first one's index; all weigh alike). None when that does not
        apply."""
        s1, s2 = remainder[:rem_pairs], remainder[rem_pairs:]
        paired = set(s2)
        if not s1 or any(stable[p] not in paired for p in s1):
            return None
        floaters = [o for o in s2 if stable[o] not in set(s1)]
        if floaters and (stand_in is None or any(stable[o] < stand_in or stable[o] >= len(base) for o in floaters)):
            return None
        first = {players[p].number for p in s1}
        second = {players[o].number for o in s2}
        alone = set()  # players of a forbidden pair across S1 and S2: each a kind of their own
        for x, y in self.forbidden:
            if (x in first and y in second) or (y in first and x in second):
                alone |= {x, y}
        ids: dict[object, int] = {}
        kind = {
            k: ids.setdefault(players[k].number if players[k].number in alone else players[k].kind, len(ids))
            for k in s1 + s2
        }
        float_row = len(ids)  # the S1 side's row for floating down
        count = len(ids) + 1
        if count > KINDS_AT_MOST:
            return None
        weight = [[0] * count for _ in range(count)]
        for p in s1:
            for o in s2:
                weight[kind[p]][kind[o]] = base[o][p]
        if floaters:
            assert stand_in is not None
            for o in s2:
                weight[float_row][kind[o]] = base[stand_in][o]
        plan = [[0] * count for _ in range(count)]
        for p in s1:
            plan[kind[p]][kind[stable[p]]] += 1
        for o in floaters:
            plan[float_row][kind[o]] += 1
        queues: dict[int, list[int]] = {}
        for o in s2:
            queues.setdefault(kind[o], []).append(o)
        heads = {b: 0 for b in queues}
        out: list[tuple[int, int]] = []
        for p in s1:
            a = kind[p]
            order = sorted((queues[b][heads[b]], b) for b in queues if heads[b] < len(queues[b]))
            for o, b in order:
                if not weight[a][b]:
                    continue
                if not plan[a][b] and not self._bring_in(a, b, plan, weight, count):
                    continue
                plan[a][b] -= 1
                heads[b] += 1
                out.append((p, o))
                break
            else:
                return None  # cannot happen while the plan in hand is a best one
        return out

    @staticmethod
    def _bring_in(a: int, b: int, plan: list[list[int]], weight: list[list[int]], count: int) -> bool:
        """Put one unit on (a, b) if a cycle of no cost allows it: a shortest path from b back to a, taking
        units off plan pairs (gaining their weight back) and putting units on others (losing theirs),
        must cost exactly weight[a][b]. Bellman-Ford over the kinds (S1 kinds 0.., S2 kinds count..)."""
        dist: dict[int, int] = {count + b: 0}  # absent: not reached
        back: dict[int, int] = {}
        for _ in range(2 * count):
            changed = False
            for x in range(count):
                for y in range(count):
                    here = count + y
                    if plan[x][y] and here in dist:  # S2 kind y -> S1 kind x: a unit taken off
                        cost = dist[here] + weight[x][y]
                        if x not in dist or cost < dist[x]:
                            dist[x], back[x], changed = cost, here, True
                    if weight[x][y] and x in dist:  # S1 kind x -> S2 kind y: a unit put on
                        cost = dist[x] - weight[x][y]
                        if here not in dist or cost < dist[here]:
                            dist[here], back[here], changed = cost, x, True
            if not changed:
                break
        if dist.get(a) != weight[a][b]:
            return False
        node = a
        while node != count + b:
            prev = back[node]
            if node < count:  # prev is an S2 kind: a unit taken off (node, prev)
                plan[node][prev - count] -= 1
            else:  # prev is an S1 kind: a unit put on (prev, node)
                plan[prev][node - count] += 1
            node = prev
        plan[a][b] += 1
        return True

    # -- roles and board order -------------------------------------------------------------------------

    def _neutral(self, p: _P, o: _P) -> str | None:
        if _compatible_prefs(p.pref, o.pref):
            if p.pref is not None:
                return p.pref
            if o.pref is not None:
                return _invert(o.pref)
            return None
        if p.absolute and (p.imbalance > o.imbalance or not o.absolute):
            return p.pref
        if o.absolute and (o.imbalance > p.imbalance or not p.absolute):
            return _invert(o.pref)
        if p.strong and not o.strong:
            return p.pref
        if o.strong and not p.strong:
            return _invert(o.pref)
        a, b = list(reversed(p.history)), list(reversed(o.history))
        for x, y in zip(a, b, strict=False):
            if x != y:
                return y  # alternate from the last round in which their roles differed (E.3)
        return None

    def role(self, p: _P, o: _P) -> str:
        """The role ``p`` gets against ``o`` (part E)."""
        chosen = self._neutral(p, o)
        if chosen is not None:
            return chosen
        higher_is_p = (p.score, -p.number) > (o.score, -o.number)
        if p.pref is None:
            top = p if higher_is_p else o
            top_role = self.initial if top.number % 2 == 1 else _invert(self.initial)
            assert top_role is not None
            return top_role if higher_is_p else _invert(top_role) or FIRST
        return p.pref if higher_is_p else _invert(o.pref) or FIRST

    def _boards(self, pairs: list[tuple[int, int]]) -> list[tuple[int, int | None]]:
        players = self.players
        seen: set[int] = set()
        boards: list[tuple[tuple[int, int, int], tuple[int, int | None]]] = []
        for a, b in pairs:
            seen.update((a, b))
            pa, pb = players[a], players[b]
            first, second = (pa, pb) if self.role(pa, pb) == FIRST else (pb, pa)
            high, low = (pa, pb) if (pa.raw, -pa.number) >= (pb.raw, -pb.number) else (pb, pa)
            boards.append(((-high.raw, -low.raw, high.number), (first.number, second.number)))
        boards.sort()
        out: list[tuple[int, int | None]] = [board for _, board in boards]
        for i in range(self.n):
            if i not in seen:
                if not players[i].eligible:  # C.2 is absolute: no second bye, whatever else it costs
                    raise PairingError("the bye would go to a player who has already had one")
                out.append((players[i].number, None))
        return out
