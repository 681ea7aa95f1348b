"""Pairing bracket by bracket from the top (bbpPairings' order of decisions), each choice fixed before the
next: which moved-down players are paired (C.6, C.7), their opponents, the exchanges between S1 and S2
(D.2), then each S1 player's opponent (the transpositions, D.1). Every decision is a change of weights
and one more maximum-weight matching over the bracket and the players below it; the terms are those of
the glossary in ``__init__.py``."""

from __future__ import annotations

from collections.abc import Callable

from tournament.swiss.dutch.players import Player, stand_in
from tournament.swiss.dutch.rounds import Round
from tournament.swiss.dutch.transport import transpose_by_kind
from tournament.swiss.matcher import Matcher

Pairs = list[tuple[int, int]]
Next = tuple[Pairs, list[int], int]  # pairs made, the next bracket's players, its moved-down count


def pair_brackets(rnd: Round) -> Pairs:
    """Every bracket in turn; returns pairs of indices into ``rnd.players``."""
    players, n = rnd.players, rnd.n
    bracket: list[int] = []  # the current bracket (moved-down players, residents), then the next score group
    nxt = 0
    while nxt < n and players[nxt].score >= players[0].score:
        bracket.append(nxt)
        nxt += 1
    rnd.matched = [False] * n
    rnd.last = {}
    rnd.windowed = rnd.fell_back = 0
    moved_down = 0
    pairs: Pairs = []
    while len(bracket) > 1 or nxt < n:
        end = len(bracket)  # the current bracket is bracket[:end]
        group_start = nxt
        while nxt < n and players[nxt].score >= players[group_start].score:
            bracket.append(nxt)
            nxt += 1
        below = list(range(nxt, n))
        windowed = (
            end < len(bracket)
            and len(bracket) - end + len(below) >= rnd.shortcuts.window_below
            and not (rnd.single or rnd.maybe_single(group_start))
        )
        found, bracket, moved_down = _pair_one(rnd, bracket, end, moved_down, group_start, below, windowed)
        pairs += found
    return pairs


def _pair_one(
    rnd: Round, bracket: list[int], end: int, mdps: int, group_start: int, below: list[int], windowed: bool
) -> Next:
    """One bracket, by the quickest method that gives its pairing (the shortcuts check themselves)."""
    for window, guess in ((True, True), (True, False), (False, True), (False, False)):
        if (window and not windowed) or (guess and not rnd.shortcuts.guess_pairs):
            continue
        done = Bracket(rnd, bracket, end, mdps, group_start, below, window).pair(guess)
        if done is not None:
            rnd.windowed += window
            return done
        rnd.fell_back += 1
    raise AssertionError("the full method always pairs a bracket")


class Bracket:
    """One bracket, ``gpbi[:end]``, with the next score group ``gpbi[end:]``, on a matching of its own.

    ``window`` False: the next score group and every player further down are in it, exactly bbpPairings'
    matching. ``window``: both are replaced by a few stand-ins who may meet anyone (those for the next
    group weigh as it does: a pair there, its score); that is a relaxation, kept only if the real players
    can take the stand-ins' places (``Round.realised``), else :meth:`pair` returns None.

    Vertices of the matching: the bracket's players ``0 .. end-1`` (its ``mdps`` moved-down players
    first), then the next score group (or its stand-ins) up to ``size``, then the players further down
    (or theirs)."""

    def __init__(
        self,
        rnd: Round,
        gpbi: list[int],
        end: int,
        mdps: int,
        group_start: int,
        below: list[int],
        window: bool,
    ) -> None:
        self.rnd, self.gpbi, self.end, self.mdps = rnd, gpbi, end, mdps
        self.group_start, self.below, self.window = group_start, below, window
        self.w = rnd.wbits
        following = gpbi[end:]
        if window:
            room_next = rnd.room(len(following), mdps)
            ins = [stand_in(k, rnd.players[following[0]].score) for k in range(room_next)]
            far = [stand_in(len(ins) + k, -(10**6)) for k in range(rnd.room(len(below), mdps))]
            self.players: list[Player] = [rnd.players[g] for g in gpbi[:end]] + ins + far
            self.size = end + len(ins)
        else:
            self.players = [rnd.players[g] for g in gpbi] + [rnd.players[g] for g in below]
            self.size = len(gpbi)
        self.m = Matcher(len(self.players), rnd.weight_bits, record=self.size)
        self.matched = [rnd.matched[g] for g in gpbi[:end]] + [False] * (len(self.players) - end)
        self.pairs: Pairs = []
        self.stable: list[int] = []
        self._weigh_leaving()
        self.base = self._weigh_bracket()

    # -- the weights -------------------------------------------------------------------------------------

    def _weigh_leaving(self) -> None:
        """Pairs that are not the bracket's own: with players further down, and between two moved-down
        players (what the bracket above left them); only completion and the bye count there (C.4, C.5)."""
        rnd, m, players, size, mdps = self.rnd, self.m, self.players, self.size, self.mdps
        levels = [m.weight(k << rnd.below_top) for k in range(4)]
        cand = [rnd.candidate(p) for p in players]
        compatible, last, gpbi = rnd.compatible, rnd.last, self.gpbi
        for i in range(len(players)):
            if mdps <= i < size:
                continue  # the bracket's own weights (_weigh_bracket)
            one = players[i]
            for j in range(i):
                if i < size:
                    key = (gpbi[j], gpbi[i])
                    if key in last:
                        m.set(i, j, last[key])
                        continue
                if compatible(one, players[j]):
                    m.set_weight(i, j, levels[1 + (not cand[i]) + (not cand[j])])

    def _weigh_bracket(self) -> list[list[int]]:
        """Every criterion's weight of the pairs in the bracket and the next score group; ``base[large]
        [small]`` (the larger vertex first) is kept, as the decisions below change the matcher's copy."""
        rnd, m, players, end = self.rnd, self.m, self.players, self.end
        base: list[list[int]] = [[] for _ in range(self.size)]
        for larger in range(self.mdps, self.size):
            lo = players[larger]
            cur, nx = larger < end, larger >= end
            row = [rnd.edge(players[smaller], lo, cur, nx) for smaller in range(larger)]
            base[larger] = row
            for smaller, weight in enumerate(row):
                m.set(larger, smaller, weight)
        return base

    def _ordered(self, small: int, large: int, small_rem: int, rem_pairs: int) -> int:
        """A remainder pair's weight with the order of S1 (the first ``rem_pairs``) added below the criteria."""
        weight = self.base[large][small]
        if weight:
            weight += (((small_rem < rem_pairs) << (2 * self.w)) - small_rem) << 1
        return weight

    def _in_bracket(self, vertex: int) -> bool:
        """Is this vertex one of the bracket's residents?"""
        return self.mdps <= vertex < self.end

    def _match(self) -> None:
        self.m.compute()
        self.stable = self.m.matching()

    def _fix(self, v: int, mate: int) -> None:
        self.matched[v] = self.matched[mate] = True
        self.m.finalize(v, mate)
        self.pairs.append((v, mate))

    # -- the decisions, in order -------------------------------------------------------------------------

    def pair(self, guess: bool) -> Next | None:
        """The bracket's pairs, the next bracket and its moved-down count; None when a shortcut (``guess``:
        the bracket pairs all but one at most; the window) does not hold."""
        guessed = guess and self.mdps == 0
        # Without moved-down players, the first matching would only say how many pairs the bracket makes;
        # when ``guess``, take it to be all but one at most, and check it after the next one.
        if guessed:
            self.stable = self.m.matching()
        else:
            self._match()
        self._choose_moved_down()
        self._pair_moved_down()
        remainder, rem_pairs = self._remainder(guessed)
        self._match()
        if guessed and sum(1 for o in remainder if self.stable[o] < o) != rem_pairs:
            return None  # fewer pairs than guessed: pair the bracket again, with its first matching
        exchanges = sum(self.stable[v] <= v or self.stable[v] >= self.end for v in remainder[:rem_pairs])
        self._exchange_from_s1(remainder, rem_pairs, exchanges)
        self._exchange_from_s2(remainder, rem_pairs, exchanges)
        self._fix_halves(remainder)
        self._transpose(remainder, rem_pairs, exchanges)
        if self.window and not self.rnd.realised(
            self.stable, self.end, self.size, len(self.players), self.gpbi, self.below
        ):
            return None
        return self._next_bracket()

    def _choose_moved_down(self) -> None:
        """Which moved-down players are paired in the bracket: as many as can be (C.6), the highest scores
        first (C.7)."""
        players, mdps = self.players, self.mdps
        md_score = None
        left = paired_left = 0
        for i in range(mdps):
            if md_score is None or players[i].score < md_score:
                md_score = players[i].score
                left, paired_left = self._paired_of_score(i, md_score)
            if not paired_left:
                continue
            if left <= paired_left:
                self.matched[i] = True
                continue
            left -= 1
            if not self._in_bracket(self.stable[i]):
                self._reweigh_moved_down(i, lambda weight: weight | 1)
                self._match()
            if self._in_bracket(self.stable[i]):
                self.matched[i] = True
                paired_left -= 1
                self._reweigh_moved_down(i, lambda weight: (weight | (self.end - mdps)) + 1)

    def _paired_of_score(self, first: int, score: int) -> tuple[int, int]:
        """How many moved-down players from ``first`` on have ``score``, and how many of them the matching in
        hand pairs in the bracket."""
        left = paired = 0
        k = first
        while k < self.mdps and self.players[k].score >= score:
            left += 1
            paired += self._in_bracket(self.stable[k])
            k += 1
        return left, paired

    def _reweigh_moved_down(self, i: int, change: Callable[[int], int]) -> None:
        for o in range(self.mdps, self.end):
            weight = self.base[o][i]
            if weight:
                self.m.set(i, o, change(weight))

    def _pair_moved_down(self) -> None:
        """The paired moved-down players' opponents: the first resident in order that leaves the best pairing
        (D.1)."""
        matched, base, m = self.matched, self.base, self.m
        for i in range(self.mdps):
            if not matched[i]:
                continue
            addend = self.size
            for o in range(self.end - 1, self.mdps - 1, -1):
                if matched[o]:
                    continue
                weight = base[o][i]
                if weight:
                    m.set(i, o, weight + addend)
                    addend += 1
            self._match()
            self._fix(i, self.stable[i])

    def _remainder(self, guessed: bool) -> tuple[list[int], int]:
        """The remainder (or the homogeneous bracket) and its number of pairs: S1 is its first ``rem_pairs``
        players. Their weights get the order of S1."""
        if guessed:
            remainder, rem_pairs = list(range(self.end)), self.end // 2
        else:
            stable = self.stable
            remainder = [o for o in range(self.mdps, self.end) if stable[o] >= self.mdps]
            rem_pairs = sum(1 for o in remainder if stable[o] < o)
        for o in remainder:
            for pi, p in enumerate(remainder):
                if o <= p:
                    break
                self.m.set(p, o, self._ordered(p, o, pi, rem_pairs))
        return remainder, rem_pairs

    def _exchange_from_s1(self, remainder: list[int], rem_pairs: int, exchanges: int) -> None:
        """Exchanges (D.2): which S1 players go to S2, the lowest first ..."""
        m, end = self.m, self.end
        remaining = exchanges
        for position in range(rem_pairs - 1, -1, -1):
            if not remaining:
                break
            p = remainder[position]
            if p < self.stable[p] < end:
                for o in remainder[position + 1 :]:
                    weight = self._ordered(p, o, position, rem_pairs)
                    if weight:
                        m.set(p, o, weight - 1)
                self._match()
            exchange = self.stable[p] <= p or self.stable[p] >= end
            remaining -= exchange
            for o in remainder[position + 1 :]:
                if exchange:
                    self.base[o][p] = 0
                m.set(p, o, self._ordered(p, o, position, rem_pairs))

    def _exchange_from_s2(self, remainder: list[int], rem_pairs: int, exchanges: int) -> None:
        """... and which S2 players come up to S1, the highest first."""
        m, end, base = self.m, self.end, self.base
        remaining = exchanges
        for position in range(rem_pairs, len(remainder)):
            if remaining <= 1:
                break
            p = remainder[position]
            already = p < self.stable[p] < end
            if not already:
                for o in remainder[position + 1 :]:
                    weight = self._ordered(p, o, position, rem_pairs)
                    if weight:
                        m.set(p, o, weight + 1)
                self._match()
            if p < self.stable[p] < end:
                remaining -= 1
                for o in remainder[:position]:
                    base[p][o] = 0
                    m.set(p, o, 0)
                for o in range(end, self.size):
                    base[o][p] = 0
                    m.set(p, o, 0)
            if not already:
                for o in remainder[position + 1 :]:
                    m.set(p, o, self._ordered(p, o, position, rem_pairs))

    def _fix_halves(self, remainder: list[int]) -> None:
        """S1 and S2 fixed: a pair within S1 or within S2 is no longer allowed."""
        stable, end, base, m = self.stable, self.end, self.base, self.m
        for ri, p in enumerate(remainder):
            for o in remainder[ri + 1 :]:
                if stable[p] <= p or stable[p] >= end or o < stable[o] < end:
                    base[o][p] = 0
                m.set(p, o, base[o][p])

    def _transpose(self, remainder: list[int], rem_pairs: int, exchanges: int) -> None:
        """Each S1 player, in order, takes the first S2 player that still leaves the best pairing
        (transpositions, D.1)."""
        rnd = self.rnd
        # Where no pair across S1 and S2 is forbidden and nobody floats, players differ only by their kind
        # and the order can be settled on counts of kinds (transport.py).
        fast = None
        if rnd.shortcuts.by_kind and exchanges == 0 and not (rnd.single or rnd.maybe_single(self.group_start)):
            first_stand_in = self.end if self.window and self.end < self.size else None
            fast = transpose_by_kind(
                rnd.forbidden,
                self.players,
                (remainder, rem_pairs),
                self.stable,
                self.base,
                first_stand_in,
                rnd.shortcuts.kinds_at_most,
            )
        for p, o in fast or []:
            self.matched[p] = self.matched[o] = True
            self.pairs.append((p, o))
        if fast is not None:
            return
        # Otherwise S1 players are taken s1_chunk at a time, the first one's order of S2 players weighing
        # more than all the later ones' together: one matching settles them as one at a time would.
        s1 = [p for p in remainder if p < self.stable[p] < self.end]
        chunk = rnd.shortcuts.s1_chunk
        for start in range(0, len(s1), chunk):
            self._settle(s1[start : start + chunk], remainder)

    def _settle(self, chunk: list[int], remainder: list[int]) -> None:
        matched, base, m, w = self.matched, self.base, self.m, self.w
        settled = True
        for k, p in enumerate(chunk):
            scale = w * (len(chunk) - 1 - k)
            addend = 0
            best = None
            for o in reversed(remainder):
                if o <= p or matched[o]:
                    continue
                weight = base[o][p]
                if weight:
                    m.set(p, o, weight + (addend << scale))
                    best = o
                addend += 1
            settled = settled and self.stable[p] == best
        # The matching in hand is already the best for the other criteria; if it gives every S1 player of
        # the chunk the first S2 player it may take, nothing can change.
        if not settled:
            self._match()
        for p in chunk:
            self._fix(p, self.stable[p])

    def _next_bracket(self) -> Next:
        """This bracket's unpaired players move down to the next one; what the round keeps of it."""
        rnd, end, gpbi, stable, players = self.rnd, self.end, self.gpbi, self.stable, self.players
        single = rnd.maybe_single(self.group_start)
        new: list[int] = []
        mdps = 0
        for v in range(self.size):
            if v < end and self.matched[v]:
                continue
            new.append(v)
            if v < end:
                mdps += 1
            if players[stable[v]].score < rnd.bye_score:
                single = False
        for k in range(end):
            rnd.matched[gpbi[k]] = self.matched[k]
        floating = new[:mdps]
        rnd.last = {}
        for x, a in enumerate(floating):
            for c in floating[:x]:
                kept = self.m.recorded(c, a)
                if kept is not None:
                    rnd.last[gpbi[c], gpbi[a]] = kept
        rnd.single = single
        pairs = [(gpbi[a], gpbi[c]) for a, c in self.pairs]
        if self.window:  # the next group stood in: it moves on whole
            return pairs, [gpbi[v] for v in floating] + gpbi[end:], mdps
        return pairs, [gpbi[v] for v in new], mdps
