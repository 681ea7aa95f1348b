"""A round to pair by the Dutch system: its players as the criteria see them, whether it can be completed,
the weight of each pair (one bit field per criterion, the most important highest), and, once paired, each
pair's roles and the board order (part E). The brackets themselves are paired in ``bracket.py``."""

from __future__ import annotations

from tournament.swiss.dutch.players import (
    DOWN,
    NONE,
    UP,
    PairingError,
    Player,
    Shortcuts,
    bits,
    compatible_prefs,
    invert,
)
from tournament.swiss.matcher import Matcher
from tournament.swiss.state import FIRST, SECOND, SwissPlayer, SwissState


class Round:
    def __init__(self, state: SwissState, shortcuts: Shortcuts) -> None:
        self.state = state
        self.shortcuts = shortcuts
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
        self.bye_score = 0
        self.single = False  # C.9 may weigh the single downfloater of this bracket as the bye's
        self.played_rank: dict[int, int] = {}
        # Kept by the brackets (bracket.py) as they go: who is paired, the weights left between players who
        # float on together, how many brackets were windowed and how many fell back to the full method.
        self.matched: list[bool] = []
        self.last: dict[tuple[int, int], int] = {}
        self.windowed = self.fell_back = 0

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

    def _make(self, player: SwissPlayer) -> Player:
        history = [r.colour for r in player.rounds if r.played and r.colour]
        firsts = history.count(FIRST)
        difference = firsts - (len(history) - firsts)
        repeated = history[-1] if len(history) > 1 and history[-1] == history[-2] else None
        if difference > 0:
            pref: str | None = SECOND
        elif difference < 0:
            pref = FIRST
        elif history:
            pref = invert(history[-1])
        else:
            pref = None
        absolute = abs(difference) > 1 or repeated is not None
        points = self.state.points
        eligible = not any(not r.played and r.result and points.points(r.result) >= points.win for r in player.rounds)
        return Player(
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

    def compatible(self, a: Player, b: Player) -> bool:
        if (min(a.number, b.number), max(a.number, b.number)) in self.forbidden:
            return False
        if not (a.absolute and b.absolute and a.pref == b.pref):
            return True
        return self.last_round and (a.score > self.top_threshold or b.score > self.top_threshold)

    # -- the pairing ---------------------------------------------------------------------------------

    def prepare(self) -> None:
        """Before the brackets: the weights' layout, whether the round completes, and (odd fields) the
        lowest score the bye can go to (C.5) and the order C.9 gives the players of that score."""
        players, n = self.players, self.n
        self._layout()
        odd = n % 2 == 1
        # Most fields are paired in order at a glance (_greedy_over); only when that fails (or when the
        # whole field shares one score, where C.9 needs the matching itself) is the full matching computed.
        quick = self._quick_bye_score() if odd else (0 if self._greedy_over(list(range(n))) else None)
        if quick is not None and not (odd and quick >= players[0].score):
            self.bye_score = quick
        else:
            self._full_completion(odd)
        if odd:  # C.9: the bye to the one it leaves with the fewest unplayed games (most played, rank 0)
            counts = sorted((p.played for p in players if p.score == self.bye_score), reverse=True)
            for rank, games in enumerate(counts):
                self.played_rank[games] = rank

    def round_one(self) -> list[tuple[int, int]] | None:
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

    def room(self, count: int, mdps: int) -> int:
        """How many stand-ins for ``count`` players: a few more than can float down to them, and of the
        same parity as the players they stand for."""
        room = min(count, self.shortcuts.window_stand_ins + 2 * mdps)
        return room + (count - room) % 2

    def realised(self, stable: list[int], end: int, size: int, total: int, gpbi: list[int], below: list[int]) -> bool:
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
            total += bits(size) + 1
        self.sgs = max(total, bits(self.n * max(total, 1)) + 1)
        self.wbits = bits(self.n) + 2
        w, s = self.wbits, self.sgs
        below_top = w + s + w + s + w + 4 * w
        if self.played_rounds >= 1:
            below_top += 2 * w + 2 * s
        if self.played_rounds >= 2:
            below_top += 2 * w + 2 * s
        below_top += 3 * w + 1 + self.shortcuts.s1_chunk * w
        self.below_top = below_top
        self.weight_bits = below_top + 2  # the top field (C.4, C.5) holds up to 3

    def candidate(self, p: Player) -> bool:
        return p.eligible and p.score <= self.bye_score

    def edge(self, h: Player, lo: Player, in_current: bool, in_next: bool) -> int:
        """The weight of pairing ``h`` (ranked higher) with ``lo``: each criterion a field, highest first.
        Two players are told apart only by what the criteria read (``Player.kind``), so weights are cached by
        kind; whether they may meet at all is asked of the pair."""
        if (min(h.number, lo.number), max(h.number, lo.number)) in self.forbidden:
            return 0
        key = (h.kind, lo.kind, in_current, in_next, self.single)
        found = self._edges.get(key)
        if found is None:
            found = self._edges[key] = self._edge(h, lo, in_current, in_next)
        return found

    def _edge(self, h: Player, lo: Player, in_current: bool, in_next: bool) -> int:
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
        return r << (3 * w + 1 + self.shortcuts.s1_chunk * w)  # room for the order of transpositions and exchanges

    def _colour_bits(self, r: int, p: Player, o: Player, mask: bool) -> int:
        w = self.wbits
        # C.10 topscorers' colour difference beyond 2
        r = (r << w) | (mask and (not p.absolute_imbalance or not o.absolute_imbalance or p.pref != o.pref))
        # C.11 topscorers' same role three times in a row
        if p.imbalance == o.imbalance:
            third = p.repeated is None or p.repeated != o.repeated
        else:
            third = (o if p.imbalance > o.imbalance else p).repeated != invert(p.pref)
        r = (r << w) | (mask and (not p.absolute or not o.absolute or p.pref != o.pref or third))
        # C.12 colour preferences, C.13 strong ones
        r = (r << w) | (mask and compatible_prefs(p.pref, o.pref))
        strong = (
            (not p.strong and not p.absolute)
            or (not o.strong and not o.absolute)
            or (p.absolute and o.absolute)
            or p.pref != o.pref
        )
        return (r << w) | (mask and strong)

    def _float_counts(self, r: int, h: Player, lo: Player, mask: bool, fh: int, fl: int) -> int:
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

    def _float_scores(self, r: int, h: Player, lo: Player, mask: bool, fh: int, fl: int) -> int:
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

    def maybe_single(self, group_start: int) -> bool:
        """Whether C.9 may look at the next bracket's single downfloater (the bye's score is its score)."""
        return self.n % 2 == 1 and group_start < self.n and self.bye_score == self.players[group_start].score

    # -- roles and board order -------------------------------------------------------------------------

    def _neutral(self, p: Player, o: Player) -> str | None:
        if compatible_prefs(p.pref, o.pref):
            if p.pref is not None:
                return p.pref
            if o.pref is not None:
                return invert(o.pref)
            return None
        if p.absolute and (p.imbalance > o.imbalance or not o.absolute):
            return p.pref
        if o.absolute and (o.imbalance > p.imbalance or not p.absolute):
            return invert(o.pref)
        if p.strong and not o.strong:
            return p.pref
        if o.strong and not p.strong:
            return invert(o.pref)
        a, b = list(reversed(p.history)), list(reversed(o.history))
        for x, y in zip(a, b, strict=False):
            if x != y:
                return y  # alternate from the last round in which their roles differed (E.3)
        return None

    def role(self, p: Player, o: Player) -> str:
        """The role ``p`` gets against ``o`` (part E)."""
        chosen = self._neutral(p, o)
        if chosen is not None:
            return chosen
        higher_is_p = (p.score, -p.number) > (o.score, -o.number)
        if p.pref is None:
            top = p if higher_is_p else o
            top_role = self.initial if top.number % 2 == 1 else invert(self.initial)
            assert top_role is not None
            return top_role if higher_is_p else invert(top_role) or FIRST
        return p.pref if higher_is_p else invert(o.pref) or FIRST

    def boards(self, pairs: list[tuple[int, int]]) -> list[tuple[int, int | None]]:
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
