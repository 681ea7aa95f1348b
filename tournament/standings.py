"""Standings computed from the games, in a fixed number of queries per stage.

A group's order is its table (points, then the tournament's tie-breaks);
a tie that straddles a cut (the number who advance, or a place the final
plays off) is settled by the playoff groups hanging under it, recursively:
a playoff that ends level again has a playoff of its own.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q

from games.enums import GameStatus
from tournament import formats
from tournament.models import Group, GroupMember, Match, MatchGame, Stage, Tournament


@dataclass(frozen=True)
class MatchRow:
    status: str
    best_of: bool
    first_id: int
    second_id: int
    winner_id: int | None


@dataclass
class StageData:
    """Everything a stage's standings need, loaded in five queries."""

    tournament: Tournament
    stage: Stage
    groups: dict[int, Group]
    members: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    matches: dict[int, list[MatchRow]] = field(default_factory=lambda: defaultdict(list))
    games: dict[int, list[formats.Played]] = field(default_factory=lambda: defaultdict(list))
    children: dict[int, list[Group]] = field(default_factory=lambda: defaultdict(list))
    entries: dict[int, Any] = field(default_factory=dict)  # entry id -> (name, unit)


def load_stage(stage: Stage, root: Group | None = None) -> StageData:
    """The stage's groups, members, matches and finished games; only one playoff tree with ``root``."""
    stage = Stage.objects.select_related("tournament").get(pk=stage.pk)
    scope = Q(stage=stage) if root is None else Q(pk=root.pk) | Q(root=root)
    groups = {g.pk: g for g in Group.objects.filter(scope).order_by("number")}
    data = StageData(stage.tournament, stage, groups)
    for g in groups.values():
        if g.parent_id is not None:
            data.children[g.parent_id].append(g)
    ids = list(groups)
    # Plain rows rather than model instances: building thousands of instances was most of the time.
    for group_id, entry_id, name, unit, player_id in (
        GroupMember.objects.filter(group_id__in=ids)
        .order_by("position")
        .values_list("group_id", "entry_id", "entry__player__name", "entry__player__unit", "entry__player_id")
    ):
        data.members[group_id].append(entry_id)
        data.entries[entry_id] = (name, unit, player_id)
    for row in (
        Match.objects.filter(group_id__in=ids)
        .order_by("round", "order")
        .values_list("group_id", "status", "best_of", "first_id", "second_id", "winner_id")
    ):
        data.matches[row[0]].append(MatchRow(*row[1:]))
    player_entry = {v[2]: k for k, v in data.entries.items()}
    for link in MatchGame.objects.filter(match__group_id__in=ids, game__status=GameStatus.FINISHED).values(
        "match__group_id", "game__black__id", "game__white__id", "game__result"
    ):
        black, white = player_entry.get(link["game__black__id"]), player_entry.get(link["game__white__id"])
        if black is not None and white is not None and link["game__result"]:
            data.games[link["match__group_id"]].append(formats.Played(black, white, link["game__result"]))
    return data


@dataclass
class Order:
    """A group's ranking: blocks of players still level, and what is left to decide."""

    group: Group
    blocks: list[list[int]]
    unplayed: bool  # matches of the group itself still to play
    pending: bool  # a playoff is under way
    undecided: list[list[int]]  # ties that straddle a cut and have no playoff yet
    playoff_parent: dict[frozenset[int], Group]
    rows: dict[Any, formats.Row]


def cuts_for(group: Group, stage: Stage, tournament: Tournament, size: int) -> list[int]:
    if stage.kind == Stage.Kind.ROUND_ROBIN:  # the final: the places the organizer plays off
        chosen = tournament.final_playoff_places or list(range(1, size))
        return [p for p in chosen if 0 < p < size]
    return [group.advance] if 0 < group.advance < size else []


def _resolve(
    group: Group, members: list[int], cuts: list[int], data: StageData
) -> tuple[list[list[int]], list[tuple[list[int], Group]], bool]:
    matches = data.matches[group.pk]
    unfinished = any(m.status != Match.Status.FINISHED for m in matches)
    if len(matches) == 1 and matches[0].best_of:
        match = matches[0]
        if match.winner_id is None:
            blocks: list[list[int]] = [list(members)]
        else:
            loser = match.second_id if match.winner_id == match.first_id else match.first_id
            blocks = [[match.winner_id], [loser]]
    else:
        scoring = formats.Scoring(data.tournament.win_points, data.tournament.draw_points, data.tournament.loss_points)
        tiebreaks = data.tournament.tiebreak if group.kind != Group.Kind.PLAYOFF else []
        ranked = formats.ranked_blocks(members, data.games[group.pk], scoring, tiebreaks)
        blocks = [[int(p) for p in b] for b in ranked]  # type: ignore[call-overload]
    if unfinished:
        return blocks, [], True
    out: list[list[int]] = []
    undecided: list[tuple[list[int], Group]] = []
    pending = False
    place = 0
    for block in blocks:
        inner = [c - place for c in cuts if place < c < place + len(block)]
        if len(block) > 1 and inner:
            playoffs = [p for p in data.children[group.pk] if set(data.members[p.pk]) == set(block)]
            if not playoffs:
                undecided.append((block, group))
                out.append(block)
            else:
                sub_blocks, sub_undecided, sub_pending = _resolve(playoffs[-1], block, inner, data)
                pending = pending or sub_pending
                out += sub_blocks
                undecided += sub_undecided
        else:
            out.append(block)
        place += len(block)
    return out, undecided, pending


def order_in(group: Group, data: StageData) -> Order:
    members = data.members[group.pk]
    cuts = cuts_for(group, data.stage, data.tournament, len(members))
    unplayed = any(m.status != Match.Status.FINISHED for m in data.matches[group.pk])
    blocks, undecided, pending = _resolve(group, members, cuts, data)
    scoring = formats.Scoring(data.tournament.win_points, data.tournament.draw_points, data.tournament.loss_points)
    rows = formats.table(members, data.games[group.pk], scoring)
    return Order(
        group,
        blocks,
        unplayed,
        pending and not unplayed,
        [b for b, _ in undecided],
        {frozenset(b): g for b, g in undecided},
        rows,
    )


def group_order(group: Group) -> Order:
    """One top-level group's order, loading only that group and its playoffs."""
    data = load_stage(group.stage, root=group)
    return order_in(data.groups[group.pk], data)


def resolved(order: Order) -> list[int]:
    return [p for block in order.blocks for p in block]


def stage_standings(stage: Stage) -> list[dict[str, Any]]:
    """Every top-level group of the stage as a table (constant number of queries)."""
    data = load_stage(stage)
    tables = []
    for group in data.groups.values():
        if group.parent_id is not None:
            continue
        order = order_in(group, data)
        places = formats.places(order.blocks)
        decided = not order.unplayed and not order.pending and not order.undecided
        in_tie = {p for b in order.undecided for p in b}
        if order.pending:
            in_tie |= {p for b in order.blocks if len(b) > 1 for p in b}
        qualified = (
            set(resolved(order)[: group.advance]) if decided and data.stage.kind != Stage.Kind.ROUND_ROBIN else set()
        )
        rows = []
        for block in order.blocks:
            for entry in block:
                row = order.rows[entry]
                if entry in in_tie and (order.undecided or order.pending):
                    state = "playoff pending"
                elif not decided:
                    state = ""
                elif data.stage.kind == Stage.Kind.ROUND_ROBIN:
                    state = "final"
                else:
                    state = "qualified" if entry in qualified else "eliminated"
                name, unit, _player = data.entries[entry]
                rows.append(
                    {
                        "rank": places[entry],
                        "entry": entry,
                        "player": name,
                        "unit": unit,
                        "played": row.played,
                        "wins": row.wins,
                        "draws": row.draws,
                        "losses": row.losses,
                        "points": row.points,
                        "tiebreaks": {"sonneborn_berger": row.sb, "white_wins": row.white_wins},
                        "state": state,
                    }
                )
        tables.append(
            {
                "group": group.pk,
                "name": group.name,
                "kind": group.kind,
                "advance": group.advance,
                "decided": decided,
                "rows": rows,
            }
        )
    return tables
