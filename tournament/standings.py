"""Standings computed from the games, in a fixed number of queries per stage.

A group's order is its table (points, then the tournament's tie-breaks);
a tie that straddles a cut (the number who advance, or a place the final
plays off) is settled by the playoff groups hanging under it, recursively:
a playoff that ends level again has a playoff of its own.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

from django.db.models import Q

from games.enums import GameResult, GameStatus
from games.models import Game
from tournament import formats
from tournament.models import Group, GroupMember, Match, MatchGame, Stage, TieDecider, Tournament


@dataclass(frozen=True)
class MatchRow:
    status: str
    best_of: bool
    first_id: int
    second_id: int
    winner_id: int | None
    round: int = 0


class EntryInfo(NamedTuple):
    name: str
    unit: str
    player_id: int


@dataclass
class StageData:
    """Everything a stage's standings need, loaded in five queries."""

    tournament: Tournament
    stage: Stage
    groups: dict[int, Group]
    final: bool  # a final: nobody goes on, the organizer's chosen places are played off (the stage's format says)
    members: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    matches: dict[int, list[MatchRow]] = field(default_factory=lambda: defaultdict(list))
    games: dict[int, list[formats.Played]] = field(default_factory=lambda: defaultdict(list))
    children: dict[int, list[Group]] = field(default_factory=lambda: defaultdict(list))
    entries: dict[int, EntryInfo] = field(default_factory=dict)  # entry id -> name, unit, player id
    withdrawn: set[int] = field(default_factory=set)  # entries out of this stage's qualification
    draw_runs: dict[int, int] = field(default_factory=dict)  # playoff group -> drawn games in a row at its end
    # a round robin's rests with an odd number (its ``bye`` option): group -> entry -> points from its rests
    rest_points: dict[int, dict[int, int]] = field(default_factory=dict)


def load_stage(stage: Stage, root: Group | None = None, *, final: bool, through: int | None = None) -> StageData:
    """The stage's groups, members, matches and finished games; only one playoff tree with ``root``.
    ``final``: the stage is a final (its format's ``ranks_places``). ``through``: only the groups' own rounds
    up to that one (the standings as they stood after it: no playoff, which comes after every round)."""
    stage = Stage.objects.select_related("tournament").get(pk=stage.pk)
    scope = Q(stage=stage) if root is None else Q(pk=root.pk) | Q(root=root)
    if through is not None:
        scope &= Q(parent__isnull=True)
    groups = {g.pk: g for g in Group.objects.filter(scope, void=False).order_by("number")}
    data = StageData(stage.tournament, stage, groups, final)
    for g in groups.values():
        if g.parent_id is not None:
            data.children[g.parent_id].append(g)
    ids = list(groups)
    # Plain rows rather than model instances: building thousands of instances was most of the time.
    for group_id, entry_id, name, unit, player_id, withdrawn, withdrawn_at in (
        GroupMember.objects.filter(group_id__in=ids)
        .order_by("position")
        .values_list(
            "group_id",
            "entry_id",
            "entry__player__name",
            "entry__player__unit",
            "entry__player_id",
            "entry__withdrawn",
            "entry__withdrawn_stage__order",
        )
    ):
        data.members[group_id].append(entry_id)
        data.entries[entry_id] = EntryInfo(name, unit, player_id)
        if withdrawn and (withdrawn_at is None or withdrawn_at <= stage.order):
            data.withdrawn.add(entry_id)
    rounds = Q() if through is None else Q(round__lte=through)
    for row in (
        Match.objects.filter(rounds, group_id__in=ids)
        .exclude(status=Match.Status.CANCELLED)
        .order_by("round", "order")
        .values_list("group_id", "status", "best_of", "first_id", "second_id", "winner_id", "round")
    ):
        data.matches[row[0]].append(MatchRow(*row[1:]))
    player_entry = {info.player_id: entry for entry, info in data.entries.items()}
    runs: dict[int, list[str]] = defaultdict(list)
    for link in (
        MatchGame.objects.filter(match__group_id__in=ids, game__status=GameStatus.FINISHED, counted=True)
        .filter(Q() if through is None else Q(match__round__lte=through))
        .exclude(match__status=Match.Status.CANCELLED)
        .order_by("match__round", "match__order", "number")
        .values("match__group_id", "game__black__id", "game__white__id", "game__result")
    ):
        black, white = player_entry.get(link["game__black__id"]), player_entry.get(link["game__white__id"])
        if black is not None and white is not None and link["game__result"]:
            result = cast(formats.Result, link["game__result"])
            data.games[link["match__group_id"]].append(formats.Played(black, white, result))
            runs[link["match__group_id"]].append(link["game__result"])
    _count_rests(data)
    for group_id, results in runs.items():
        if groups[group_id].kind == Group.Kind.PLAYOFF:
            data.draw_runs[group_id] = len(results) - len(
                "".join("d" if r == GameResult.DRAW else "x" for r in results).rstrip("d")
            )
    return data


REST_VALUES = ("zero", "win", "draw")  # what a round robin's rest scores (a stage's ``bye`` option)


def _count_rests(data: StageData) -> None:
    """With an odd number in a round robin, the player who rests in a round scores as the stage says (``bye``:
    a game won or drawn for each game a pair plays; "zero", the default: nothing), once the round is over."""
    value = data.stage.options.get("bye", "zero")
    if value not in ("win", "draw"):
        return
    per_game = data.tournament.win_points if value == "win" else data.tournament.draw_points
    for group in data.groups.values():
        members = [m for m in data.members[group.pk] if m not in data.withdrawn]
        if group.kind != Group.Kind.ROUND_ROBIN or len(data.members[group.pk]) % 2 == 0:
            continue
        by_round: dict[int, list[MatchRow]] = defaultdict(list)
        for match in data.matches[group.pk]:
            by_round[match.round].append(match)
        points = data.rest_points.setdefault(group.pk, {})
        for matches in by_round.values():
            if any(m.status != Match.Status.FINISHED for m in matches):
                continue  # a rest counts once its round is over
            playing = {p for m in matches for p in (m.first_id, m.second_id)}
            for member in members:
                if member not in playing:
                    points[member] = points.get(member, 0) + per_game * group.games_per_pair


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
    awaiting: list[tuple[Group, list[int]]] = field(default_factory=list)  # ties playoffs could not break
    used: set[int] = field(default_factory=set)  # the playoff groups this order rests on
    withdrawn: list[int] = field(default_factory=list)  # at the end of the order, never qualified
    decided_by: dict[int, str] = field(default_factory=dict)  # entry -> "lot" / "organizer"
    advance: int = 0  # how many go on (fewer when a withdrawn qualifier's place is not refilled)


def cuts_for(group: Group, data: StageData, size: int, advance: int | None = None) -> list[int]:
    tournament = data.tournament
    if data.final:  # the places the organizer plays off
        chosen = tournament.final_playoff_places or list(range(1, size))
        return [p for p in chosen if 0 < p < size]
    advance = group.advance if advance is None else advance
    return [advance] if 0 < advance < size else []


@dataclass
class _Resolution:
    blocks: list[list[int]]
    undecided: list[tuple[list[int], Group]] = field(default_factory=list)
    pending: bool = False
    awaiting: list[tuple[Group, list[int]]] = field(default_factory=list)
    used: set[int] = field(default_factory=set)
    decided_by: dict[int, str] = field(default_factory=dict)


def _stalled(group: Group, data: StageData) -> bool:
    """A playoff whose last games were all drawn, as many in a row as the tournament allows."""
    limit = data.tournament.playoff_draw_limit
    return group.kind == Group.Kind.PLAYOFF and limit > 0 and data.draw_runs.get(group.pk, 0) >= limit


def _resolve(group: Group, members: list[int], cuts: list[int], data: StageData) -> _Resolution:
    """Blocks of ``members`` in ``group``, with the ties its playoffs (recursively) settle."""
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
        rests = data.rest_points.get(group.pk, {})
        ranked = formats.ranked_blocks(members, data.games[group.pk], scoring, tiebreaks, rests)
        blocks = [[cast(int, p) for p in b] for b in ranked]  # the keys are the members' entry ids
    # Withdrawn players keep their games but leave the order: others take their places.
    blocks = [b for b in ([p for p in block if p not in data.withdrawn] for block in blocks) if b]
    if unfinished:
        return _Resolution(blocks, pending=True)
    out = _Resolution([])
    place = 0
    for block in blocks:
        inner = [c - place for c in cuts if place < c < place + len(block)]
        if len(block) > 1 and inner:
            playoffs = [p for p in data.children[group.pk] if set(data.members[p.pk]) - data.withdrawn == set(block)]
            if playoffs:
                sub = _resolve(playoffs[-1], block, inner, data)
                out.used |= sub.used | {playoffs[-1].pk}
                out.pending = out.pending or sub.pending
                out.blocks += sub.blocks
                out.undecided += sub.undecided
                out.awaiting += sub.awaiting
                out.decided_by.update(sub.decided_by)
            elif _stalled(group, data):
                order = [p for p in group.decision.get("order", []) if p in block]
                if sorted(order) == sorted(block):
                    out.blocks += [[p] for p in order]
                    out.decided_by.update({p: str(group.decision.get("by", TieDecider.LOT)) for p in block})
                else:
                    out.awaiting.append((group, block))
                    out.blocks.append(block)
            else:
                out.undecided.append((block, group))
                out.blocks.append(block)
        else:
            out.blocks.append(block)
        place += len(block)
    return out


def order_in(group: Group, data: StageData) -> Order:
    members = data.members[group.pk]
    active = [m for m in members if m not in data.withdrawn]
    scoring = formats.Scoring(data.tournament.win_points, data.tournament.draw_points, data.tournament.loss_points)
    rows = formats.table(members, data.games[group.pk], scoring, data.rest_points.get(group.pk, {}))
    advance = group.advance
    if not data.tournament.replace_withdrawn and not data.final:
        # a withdrawn player's qualifying place stays empty: one fewer goes on for each such player
        advance -= sum(
            1
            for w in members
            if w in data.withdrawn and 1 + sum(rows[m].points > rows[w].points for m in active) <= group.advance
        )
    cuts = cuts_for(group, data, len(active), advance)
    unplayed = any(m.status != Match.Status.FINISHED for m in data.matches[group.pk])
    res = _resolve(group, members, cuts, data)
    withdrawn = [m for m in members if m in data.withdrawn]
    return Order(
        group,
        res.blocks + ([withdrawn] if withdrawn else []),
        unplayed,
        (res.pending or bool(res.awaiting)) and not unplayed,
        [b for b, _ in res.undecided],
        {frozenset(b): g for b, g in res.undecided},
        rows,
        res.awaiting,
        res.used,
        withdrawn,
        res.decided_by,
        max(advance, 0),
    )


def group_order(group: Group, *, final: bool) -> Order:
    """One top-level group's order, loading only that group and its playoffs (``final``: as in load_stage)."""
    data = load_stage(group.stage, root=group, final=final)
    return order_in(data.groups[group.pk], data)


def resolved(order: Order) -> list[int]:
    """The order, withdrawn players last."""
    return [p for block in order.blocks for p in block]


def decided(order: Order) -> bool:
    return not order.unplayed and not order.pending and not order.undecided and not order.awaiting


def qualifiers(order: Order) -> list[int]:
    """Who goes on from a decided group (never a withdrawn player)."""
    return [p for p in resolved(order) if p not in order.withdrawn][: order.advance]


def stage_standings(stage: Stage, *, final: bool, after_round: int | None = None) -> list[dict[str, Any]]:
    """Every top-level group of the stage as a table (constant number of queries; ``final``: as in load_stage;
    ``after_round``: as the tables stood after that round, nobody yet qualified while rounds remained)."""
    data = load_stage(stage, final=final, through=after_round)
    later = after_round is not None and Match.objects.filter(group__stage=stage, round__gt=after_round).exists()
    tables = []
    for group in data.groups.values():
        if group.parent_id is not None:
            continue
        order = order_in(group, data)
        places = formats.places(order.blocks)
        is_decided = decided(order) and not later
        in_tie = {p for b in order.undecided for p in b} | {p for _g, b in order.awaiting for p in b}
        if order.pending:
            in_tie |= {p for b in order.blocks if len(b) > 1 for p in b}
        qualified = set(qualifiers(order)) if is_decided and not data.final else set()
        rows = []
        for block in order.blocks:
            for entry in block:
                row = order.rows[entry]
                if entry in order.withdrawn:
                    state = "withdrawn"
                elif later:  # rounds followed: nothing was decided yet as of this one
                    state = ""
                elif entry in in_tie and (order.undecided or order.pending):
                    state = "playoff pending"
                elif not is_decided:
                    state = ""
                elif data.final:
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
                        "tiebreaks": row.tiebreaks,
                        "state": state,
                        "decided_by": order.decided_by.get(entry, ""),
                    }
                )
        tables.append(
            {
                "group": group.pk,
                "name": group.name,
                "kind": group.kind,
                "advance": group.advance,
                "decided": is_decided,
                "awaiting_decision": bool(order.awaiting),
                "rows": rows,
            }
        )
    return tables


def winner_index(game: Game, match: Match) -> int | None:
    """0 if the match's first player won ``game``, 1 if the second did, None for a draw."""
    if game.result == GameResult.DRAW:
        return None
    winner = game.black_id if game.result == GameResult.BLACK else game.white_id
    return 0 if winner == match.first.player_id else 1


def games_won(match: Match) -> list[int]:
    """The finished games each side of a match has won that count (first, second): a bracket's score. Needs
    the match's games prefetched (``match_games__game``) and its players (``first``, ``second``)."""
    wins = [0, 0]
    for link in match.match_games.all():
        if link.counted and link.game.status == GameStatus.FINISHED:
            side = winner_index(link.game, match)
            if side is not None:
                wins[side] += 1
    return wins
