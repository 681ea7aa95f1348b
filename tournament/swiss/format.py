"""The Swiss system as a stage format: everyone in one group, each round paired from the results so far by
the FIDE Dutch system (:mod:`tournament.swiss`), reviewed and published by the organizer; no playoffs (the
tie-breaks and a recorded lot order the players); the top ``advance`` go on to the ``then`` stage, if any.

Registered in :data:`tournament.stage_formats.FORMATS` by ``TournamentConfig.ready``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _

from tournament.models import Entry, Group, Match, Round, Stage, SwissBye, Tournament, WithdrawalPolicy
from tournament.round_plans import RoundPlan, Rows
from tournament.stage_formats import GroupPlan, NextStage, StageFormat, register, stage_name
from tournament.standings import Order
from tournament.swiss import selectors as swiss
from tournament.swiss import services
from tournament.swiss.control import SWISS_ACTIONS, WARNING_TEXT, swiss_control
from tournament.swiss.selectors import SwissOptions, check_options, initial_colour


@register
class SwissSystem(StageFormat):
    kind = Stage.Kind.SWISS
    name_key = "swiss"
    round_by_round = True
    pairs_outside_lock = True  # the pairing program may think for seconds on a large field
    playoffs = False
    absences_by_round = True
    page_part = "tournament/_swiss.html"
    control_part = "tournament/_swiss_control.html"
    panel_actions = SWISS_ACTIONS
    urls = "tournament.swiss.urls"
    api_routes = (("swiss", "tournament.swiss.api.SwissViewSet", "swiss"),)

    def default_options(self, rounds: int) -> dict[str, Any] | None:
        return {"rounds": rounds}

    def notices(self, stage: Stage) -> list[str]:
        corrected = stage.tournament.audit.filter(action="swiss_correction_after_pairing").values_list(
            "data", flat=True
        )
        return [
            str(_("A result of round %(round)s was corrected after the next round was paired; that pairing stands."))
            % {"round": data.get("round")}
            for data in corrected
            if data.get("stage", stage.pk) == stage.pk
        ]

    def byes(self, stage: Stage) -> list[tuple[int, str, str]]:
        return [
            (bye.round, str(bye.entry.player), bye.kind)  # as the games name players
            for bye in SwissBye.objects.filter(stage=stage)
            .select_related("entry__player")
            .order_by("round", "entry__player__name")
        ]

    withdrawal_policy = WithdrawalPolicy.FORFEIT  # results stand, the player is no longer paired

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return check_options(options)

    def draw(
        self, entries: Sequence[Entry], rng: random.Random, tournament: Tournament, stage: Stage
    ) -> list[GroupPlan]:
        options = SwissOptions.of(stage)
        keys = [e.pk for e in entries]
        advance = min(options.advance, len(keys)) if options.then else 0
        return [GroupPlan(keys, Group.Kind.SWISS, advance=advance, games=options.games, pair_at_draw=False)]

    def recorded_at_draw(self, stage: Stage, seed: int) -> dict[str, Any]:
        """The initial colour (FIDE C.04.3 E.5) by its lot from the draw's seed, recorded at the draw: a TRF
        exported before round 1 already says it, so another pairing program re-pairs round 1 the same."""
        if SwissOptions.of(stage).first_colour:
            return {}
        return {"first_colour": initial_colour(seed)}

    def planned_rounds(self, stage: Stage) -> int:
        return SwissOptions.of(stage).rounds

    # -- its parts of the one round lifecycle (tournament.services.rounds)

    def before_pairing(self, stage: Stage, actor: Any) -> None:
        services.mark_absent(stage, actor)
        services.fix_once(stage)

    def plan_round(self, stage: Stage, isolated: bool = False) -> RoundPlan:
        return services.plan(stage, isolated)

    def plan_fingerprint(self, stage: Stage) -> str:
        return services.fingerprint(swiss.load(stage))

    def edit_warnings(self, stage: Stage, rows: Rows, engine_rows: Rows) -> list[dict[str, Any]]:
        return services.edit_warnings(swiss.load(stage), rows, engine_rows)

    def warning_text(self, code: str) -> str:
        return str(WARNING_TEXT[code]()) if code in WARNING_TEXT else code

    def why_edited(self, stage: Stage, rows: Rows, why: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return services.why_edited(stage, rows)

    def publish_round(self, stage: Stage, number: int, rows: Rows, actor: Any) -> list[Match]:
        return services.publish(stage, number, rows)

    def round_taken_back(self, stage: Stage, number: int) -> None:
        services.taken_back(stage, number)

    def late_entry(self, stage: Stage, player: Any, actor: Any) -> Entry:
        return services.swiss_late_entry(stage=stage, player=player, actor=actor)

    def match_closed(self, match: Match, *, corrected: bool, actor: Any) -> None:
        if corrected:  # a game of a finished match finished again
            services.swiss_round_corrected(match, actor)

    def group_order(self, group: Group) -> Order:
        return swiss.swiss_order(group)

    def next_stage_options(self, stage: Stage) -> dict[str, Any]:
        return {"seeded": True}  # the qualifiers are in the Swiss order of merit: the knockout is seeded by it

    def following(self, stage: Stage, qualifiers: Sequence[int], tournament: Tournament) -> NextStage | None:
        then = SwissOptions.of(stage).then
        if not then or len(qualifiers) < 2:
            return None
        if then == Stage.Kind.KNOCKOUT:
            return NextStage(Stage.Kind.KNOCKOUT, stage_name("knockout", n=stage.order + 1))
        return NextStage(Stage.Kind.ROUND_ROBIN, stage_name("final"))

    def tables(self, stage: Stage, after_round: int | None = None) -> list[dict[str, Any]]:
        return []  # no group tables: the Swiss standings are the page's "swiss" part

    def printed_tables(self, stage: Stage) -> list[dict[str, Any]]:
        """The Swiss standings in the shape of one group's table (for printing and the final ranking)."""
        table = swiss.standings(stage)
        rows = [
            {
                **row,
                "points": row["score_text"],
                "wins": 0,
                "draws": 0,
                "losses": 0,
                "state": "withdrawn" if row["withdrawn"] else "",
            }
            for row in table["rows"]
        ]
        return [{"name": stage.name, "kind": "swiss", "advance": 0, "rows": rows, "columns": table["columns"]}]

    def report_lines(self, table: dict[str, Any]) -> list[str]:
        heads = "  ".join(f"{c['short']:>6}" for c in table["columns"])
        lines = [f"rank  {'player':<10} {'unit':<6} score  {heads}"]
        for row in table["rows"]:
            values = "  ".join(f"{v:>6}" for v in row["tiebreak_texts"])
            decided = f"  ({row['decided_by']})" if row["decided_by"] else ""
            lines.append(
                f"{row['rank']:>4}  {row['player']:<10} {row['unit']:<6} {row['points']:>5}  {values}{decided}"
            )
        return lines

    def page_context(self, stage: Stage) -> dict[str, Any]:
        """The standings with the tie-breaks and the latest round's boards, pushed live on every change. Kept
        small (a 300-player open with every round and the crosstable made 380 kB a push); why each board is
        paired so, earlier rounds and the crosstable have their pages."""
        data = swiss.load(stage)
        published = [r.number for r in data.rounds if r.status != Round.Status.DRAFT]
        current = swiss.rounds_view(stage, data, only=published[-1], viewer=None) if published else []
        context = {
            "table": swiss.standings(stage, data),
            "current": current[0] if current else None,
            "earlier": published[:-1],
            "options": data.options,
        }
        return context

    def control_context(self, stage: Stage, viewer: Any) -> dict[str, Any]:
        return swiss_control(stage, viewer)

    def ranking_rows(self, stage: Stage) -> list[dict[str, Any]]:
        """The Swiss standings, withdrawn players left out."""
        return [
            {"rank": r["rank"], "player": r["player"], "unit": r["unit"], "points": r["score_text"]}
            for r in swiss.standings(stage)["rows"]
            if not r["withdrawn"]
        ]
