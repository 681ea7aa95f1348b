"""The transpositions of a bracket without exchanges or forbidden pairs across S1 and S2, settled on
counts of kinds instead of one matching per S1 player (``Bracket._transpose``).

When every S1 player meets an S2 player, a pair's weight depends only on the two players' kinds (the
players of a forbidden pair each a kind of their own), the best pairings are the best transportation
plans between the kinds' counts, and a kind pair is allowed iff it is in the plan in hand or a cycle of
no cost brings it in (a shortest path in the plan's residual graph)."""

from __future__ import annotations

from tournament.swiss.dutch.players import Player


def transpose_by_kind(
    forbidden: set[tuple[int, int]],
    players: list[Player],
    halves: tuple[list[int], int],
    stable: list[int],
    base: list[list[int]],
    stand_in: int | None,
    kinds_at_most: int,
) -> list[tuple[int, int]] | None:
    """Each S1 player in order takes the first S2 player that some best pairing allows (D.1), found
    without a matching. ``halves``: the remainder and its number of pairs (S1 is its first players).
    S2 players who float down are a row of the plan of their own when they float to the next group's
    stand-ins (``stand_in``: the first one's index; all weigh alike). None when that does not apply."""
    remainder, rem_pairs = halves
    s1, s2 = remainder[:rem_pairs], remainder[rem_pairs:]
    paired = set(s2)
    if not s1 or any(stable[p] not in paired for p in s1):
        return None
    firsts = set(s1)
    floaters = [o for o in s2 if stable[o] not in firsts]
    if floaters and (stand_in is None or any(stable[o] < stand_in or stable[o] >= len(base) for o in floaters)):
        return None
    kind = _kinds(forbidden, players, s1, s2)
    float_row = max(kind.values()) + 1  # the S1 side's row for floating down
    count = float_row + 1
    if count > kinds_at_most:
        return None
    weight = [[0] * count for _ in range(count)]
    plan = [[0] * count for _ in range(count)]
    for p in s1:
        for o in s2:
            weight[kind[p]][kind[o]] = base[o][p]
        plan[kind[p]][kind[stable[p]]] += 1
    if floaters:
        assert stand_in is not None
        for o in s2:
            weight[float_row][kind[o]] = base[stand_in][o]
    for o in floaters:
        plan[float_row][kind[o]] += 1
    return _take_in_order(s1, s2, kind, plan, weight)


def _kinds(forbidden: set[tuple[int, int]], players: list[Player], s1: list[int], s2: list[int]) -> dict[int, int]:
    """Each remainder player's kind, numbered from 0; a player of a forbidden pair across S1 and S2 is a kind
    of their own."""
    first = {players[p].number for p in s1}
    second = {players[o].number for o in s2}
    alone = set()
    for x, y in forbidden:
        if (x in first and y in second) or (y in first and x in second):
            alone |= {x, y}
    ids: dict[object, int] = {}
    return {
        k: ids.setdefault(players[k].number if players[k].number in alone else players[k].kind, len(ids))
        for k in s1 + s2
    }


def _take_in_order(
    s1: list[int], s2: list[int], kind: dict[int, int], plan: list[list[int]], weight: list[list[int]]
) -> list[tuple[int, int]] | None:
    """S1 players in order, each with the first S2 player (in order) that a best plan allows."""
    count = len(plan)
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
            if not plan[a][b] and not _bring_in(a, b, plan, weight, count):
                continue
            plan[a][b] -= 1
            heads[b] += 1
            out.append((p, o))
            break
        else:
            return None  # cannot happen while the plan in hand is a best one
    return out


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
