"""The team event as a stage format: one group with every team's players, the rounds paired team against
team (round robin, double round robin or Swiss), each team match's boards ordinary matches; ranked by game
points, match points and the RIF Team Championship's tie-breaks. It ends the tournament.

Registered in :data:`tournament.stage_formats.FORMATS` by ``TournamentConfig.ready``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext_lazy

from tournament import lots
from tournament.models import Entry, Group, Match, Stage, TeamMember, Tournament, WithdrawalPolicy
from tournament.round_plans import RoundPlan, Rows
from tournament.stage_formats import GroupPlan, NextStage, StageFormat, register
from tournament.standings import Order
from tournament.teams import scoring
from tournament.teams import services as teams
from tournament.teams.options import TeamOptions, check_options
from tournament.teams.selectors import team_rounds, team_stage, team_units
from tournament.teams.views import captain_lineups


@register
class TeamEvent(StageFormat):
    kind = Stage.Kind.TEAMS
    name_key = "teams"
    round_by_round = True  # a round's boards pair teams; publishing writes team matches with lineups
    playoffs = False
    ranks_places = True  # nobody goes on: the team standings are the result
    page_part = "tournament/_teams.html"
    control_pages = (("control-teams", gettext_lazy("Teams")),)
    urls = "tournament.teams.urls"
    api_routes = (("team-events", "tournament.teams.api.TeamEventViewSet", "team-event"),)
    console_part = "tournament/_team_lineups.html"

    competitors = "teams"

    def simulated_options(self, rounds: int, given: dict[str, Any]) -> dict[str, Any] | None:
        return {"system": "swiss", "boards": 4, "rounds": rounds, "lineup_minutes": 0, **given}

    def squad_size(self, options: dict[str, Any]) -> int:
        return int(options.get("boards", TeamOptions.boards)) + 1  # the boards and one reserve

    def simulated_field(self, tournament: Tournament, squads: list[list[Any]]) -> None:
        for number, squad in enumerate(squads, start=1):
            teams.team_create(tournament=tournament, name=f"队{number:03d}", players=squad)

    def console_context(self, player: Any, scope: set[int] | None = None) -> dict[str, Any]:
        return {"lineups": captain_lineups(player, scope)}

    withdrawal_policy = WithdrawalPolicy.FORFEIT  # the boards played stand; the player sits out the rest

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return check_options(options)

    def draw(
        self, entries: Sequence[Entry], rng: random.Random, tournament: Tournament, stage: Stage
    ) -> list[GroupPlan]:
        order = {
            e: (t, o)
            for e, t, o in TeamMember.objects.filter(team__tournament=tournament).values_list(
                "entry_id", "team_id", "order"
            )
        }
        keys = sorted((e.pk for e in entries if e.pk in order), key=lambda k: order[k])
        return [GroupPlan(keys, Group.Kind.TEAMS, advance=0, games=1, pair_at_draw=False)]

    def recorded_at_draw(self, stage: Stage, seed: int) -> dict[str, Any]:
        """The teams' pairing order, fixed at the draw: by the ratings at the start, by a lot from the draw's
        seed that keeps teams of one country apart in the last ``apart_last`` rounds (tournament.lots), or as
        the organizer fixed it in advance (``numbers``)."""
        options = TeamOptions.of(stage)
        order = teams.team_order(stage.tournament, options.boards)
        if options.order == "fixed":
            names = dict(stage.tournament.teams.values_list("pk", "name"))
            return {"team_order": lots.fixed_order(order, names.__getitem__, options.numbers)}
        if options.order != "lot":
            return {"team_order": order}
        units = team_units(stage.tournament)
        double = options.system == "double_round_robin"
        drawn = lots.drawn_apart(
            order,
            lambda team: units.get(team, ""),
            options.apart_last,
            lambda drawn_order: teams.round_robin_rounds(drawn_order, double),
            random.Random(f"{seed}-team-lot"),
        )
        gave_way = [[number, a, b] for number, a, b in drawn.gave_way]
        return {"team_order": drawn.order, "lot": {"draws": drawn.draws, "gave_way": gave_way}}

    def planned_rounds(self, stage: Stage) -> int:
        return teams.planned_rounds(stage)

    # -- its parts of the one round lifecycle (tournament.services.rounds): the boards of a draft are teams

    def plan_round(self, stage: Stage, isolated: bool = False) -> RoundPlan:
        return teams.plan_team_round(stage)

    def round_open(self, stage: Stage) -> bool:
        return teams.team_round_open(stage) or super().round_open(stage)

    def round_finished(self, stage: Stage, number: int) -> bool:
        return not teams.team_round_open(stage, number) and super().round_finished(stage, number)

    def competitor_names(self, stage: Stage) -> dict[int, str]:
        return dict(stage.tournament.teams.values_list("pk", "name"))

    def edit_warnings(self, stage: Stage, rows: Rows, engine_rows: Rows) -> list[dict[str, Any]]:
        return teams.rematches(stage, rows)

    def publish_round(self, stage: Stage, number: int, rows: Rows, actor: Any) -> list[Match]:
        return teams.publish_team_round(stage, number, rows, actor)

    def round_taken_back(self, stage: Stage, number: int) -> None:
        teams.team_round_taken_back(stage, number)

    def close_lineups(self, stage: Stage, actor: Any) -> int:
        return teams.close_lineups_now(stage, actor=actor)

    def group_order(self, group: Group) -> Order:
        """The players in their teams' order (the stage is decided when every round is played)."""
        stage = group.stage
        rows = teams.team_standings(stage)
        results = teams.team_results(stage)
        unplayed = len({m for m in stage.team_matches.values_list("round", flat=True)}) < self.planned_rounds(
            stage
        ) or not all(r.complete for r in results)
        members = dict(TeamMember.objects.filter(team__tournament=stage.tournament).values_list("entry_id", "team_id"))
        rank = {row.team: row.rank for row in rows}
        keys = sorted(group.members.values_list("pk", flat=True), key=lambda e: (rank.get(members.get(e, 0), 0), e))
        return Order(group, [[k] for k in keys], unplayed, False, [], {}, {})

    def following(self, stage: Stage, qualifiers: Sequence[int], tournament: Tournament) -> NextStage | None:
        return None

    def tables(self, stage: Stage, after_round: int | None = None) -> list[dict[str, Any]]:
        return []  # no group tables: the team standings are the page's "teams" part

    def report_lines(self, table: dict[str, Any]) -> list[str]:
        lines = [f"rank  {'team':<8} played  W D L  match  game"]
        for row in table["rows"]:
            decided = f"  ({row['decided_by']})" if row["decided_by"] else ""
            lines.append(
                f"{row['rank']:>4}  {row['player']:<8} {row['played']:>6}  {row['wins']} {row['draws']} "
                f"{row['losses']}  {scoring.value_text('match_points', round(2 * row['points'])):>5}  "
                f"{row['game_points']:>4}{decided}"
            )
        return lines

    def page_context(self, stage: Stage) -> dict[str, Any]:
        """The team standings, the latest round's team matches with their boards, the board prizes (lineups
        as the public sees them: only once both are in or the deadline has passed)."""
        rounds = team_rounds(stage)
        return {**team_stage(stage), "current": rounds[-1] if rounds else None}

    def printed_tables(self, stage: Stage) -> list[dict[str, Any]]:
        """The team standings in the shape of one group's table (points: match points; game points shown)."""
        names = dict(stage.tournament.teams.values_list("pk", "name"))
        rows = [
            {
                "rank": row.rank,
                "entry": row.team,
                "team": row.team,
                "player": names.get(row.team, ""),
                "unit": "",
                "played": row.played,
                "wins": row.won,
                "draws": row.drawn,
                "losses": row.lost,
                "points": scoring.points_value("match_points", row.match_points),
                "game_points": scoring.points_value("game_points", row.game_points),
                "tiebreaks": {name: scoring.points_value(name, value) for name, value in row.values.items()},
                "state": "final",
                "decided_by": row.decided_by,
            }
            for row in teams.team_standings(stage)
        ]
        return [{"group": None, "name": stage.name, "kind": "teams", "advance": 0, "decided": False, "rows": rows}]
