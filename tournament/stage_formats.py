"""Stage formats as strategies: the whole contract between a kind of stage and the rest of the system.

Each format is registered under a :class:`~tournament.models.Stage.Kind` (Tabbycat's draw generators behind
a factory are the model) and answers every question the services, the standings and the pages would
otherwise ask of the stage's kind: the options it takes, how it is drawn, how its next round is paired,
what happens when one of its matches closes, how its groups are ordered and who goes on, how it shows on
the pages, and what stage follows it. The seed's three formats pair everything at the draw; a
round-by-round system (Swiss, in :mod:`tournament.swiss.format`, registered by the app's ``ready``) pairs
each round from the standings so far. Nothing outside this module and a format's own package tests a
stage's kind (``tournament/tests/test_architecture.py`` checks it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from django.conf import settings
from django.utils import translation
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from tournament import standings
from tournament.errors import TournamentError
from tournament.models import Entry, Group, GroupMember, Match, Stage, Tournament
from tournament.round_plans import RoundPlan, Rows
from tournament.standings import Order


def check_not_withdrawn(stage: Stage, entries: Sequence[int]) -> None:
    """Refuse a pairing one of whose players has withdrawn since it was made."""
    if stage.tournament.entries.filter(pk__in=entries, withdrawn=True).exists():
        raise TournamentError(
            "stale_pairing", _("A player in this pairing has withdrawn since: unpair and pair the round again."), 409
        )


def round_match(
    stage: Stage, group: Group, number: int, order: int, pair: tuple[int, int], games: int, **extra: Any
) -> Match:
    """A published round's match (not yet saved): ``pair`` first and second, on board ``order`` of the round."""
    return Match(
        tournament_id=stage.tournament_id,
        group=group,
        round=number,
        order=order,
        first_id=pair[0],
        second_id=pair[1],
        games_planned=games,
        **extra,
    )


@dataclass(frozen=True)
class GroupPlan:
    """One group a draw makes: its entries in seating order, its kind, how many advance, games per pair."""

    keys: list[int]
    kind: str
    advance: int
    games: int
    pair_at_draw: bool = True  # False: a round-by-round format pairs each round with next_round


@dataclass(frozen=True)
class NextStage:
    kind: str
    name: str


class StageFormat:
    """The interface every stage format implements; the defaults are the seed's round-robin stages'."""

    kind: ClassVar[str]
    name_key: ClassVar[str] = "preliminary"  # its name (STAGE_NAMES) when a preset opens with it
    round_by_round: ClassVar[bool] = False  # True: pairings are made one round at a time (next_round)
    # True: plan_round is slow (a pairing program) and runs outside the stage's lock; its plan is written only if
    # plan_fingerprint is unchanged meanwhile (tournament.services.rounds)
    pairs_outside_lock: ClassVar[bool] = False
    playoffs: ClassVar[bool] = True  # ties that decide something are played off (otherwise tie-breaks and a lot)
    ranks_places: ClassVar[bool] = False  # a final: nobody goes on; the places the organizer chose are played off
    page_part: ClassVar[str] = ""  # its own part of the public page (a template), shown with page_context
    control_part: ClassVar[str] = ""  # its own panel in the control room (a template), with control_context
    # the buttons of its own panel: action name -> (stage, the posted form, actor) -> the message shown
    panel_actions: ClassVar[Mapping[str, Callable[[Stage, Any, Any], str]]] = {}
    # its own organizer pages linked from the control room's head: (URL name taking the tournament, label)
    control_pages: ClassVar[Sequence[tuple[str, Any]]] = ()
    urls: ClassVar[str] = ""  # the module of its own pages' URLs (included by the site's URLs)
    console_part: ClassVar[str] = ""  # its own part of a player's console (a template), with console_context
    # its own API routes under /api/: (prefix, the viewset's dotted path, basename)
    api_routes: ClassVar[Sequence[tuple[str, str, str]]] = ()
    withdrawal_policy: ClassVar[str] = ""  # a policy the format imposes on withdrawals ("" = the tournament's)
    # a player not checked in for a round sits it out with a zero-point bye (check-in before each round),
    # and one who arrives after the draw can still be entered (a late entry)
    absences_by_round: ClassVar[bool] = False

    competitors: ClassVar[str] = "players"  # what its tables rank (in a simulation's name)

    def default_options(self, rounds: int) -> dict[str, Any] | None:
        """Its first stage's options when an organizer creates a tournament with ``rounds`` rounds."""
        return None

    def simulated_options(self, rounds: int, given: dict[str, Any]) -> dict[str, Any] | None:
        """A simulation's options for it as a first stage (``tournament.simulate``)."""
        return {**(self.default_options(rounds) or {}), **given} or None

    def squad_size(self, options: dict[str, Any]) -> int:
        """Players per competitor in a simulated field."""
        return 1

    def simulated_field(self, tournament: Tournament, squads: list[list[Any]]) -> None:
        """What a simulated field needs before the players are entered (a team event: its teams)."""

    def notices(self, stage: Stage) -> list[str]:
        """Its own public notices of the stage (what the organizer changed that players should know)."""
        return []

    def byes(self, stage: Stage) -> list[tuple[int, str, str]]:
        """The stage's byes for a ``.rif`` export: (round, player, kind); none by default."""
        return []

    def console_context(self, player: Any, scope: set[int] | None = None) -> dict[str, Any]:
        """What its part of ``player``'s console shows (``console_part``), in the tournaments of ``scope`` only
        when given (a private link's session: ``games.access.link_scope``)."""
        return {}

    # -- making the stage

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The stage's options checked (refused with a TournamentError); the seed's formats take none."""
        if options:
            raise TournamentError("bad_options", _("Stage options are for the Swiss preset."))
        return {}

    def first_name(self) -> str:
        return stage_name(self.name_key)

    def draw(
        self, entries: Sequence[Entry], rng: random.Random, tournament: Tournament, stage: Stage
    ) -> list[GroupPlan]:
        """The groups of a stage drawn with ``rng`` (from the stage's recorded seed)."""
        raise NotImplementedError

    def recorded_at_draw(self, stage: Stage, seed: int) -> dict[str, Any]:
        """Stage options the draw with ``seed`` fixes and records (a lot drawn once, before anything can be
        exported); the service writes them into ``stage.options``. None by default."""
        return {}

    # -- rounds

    def planned_rounds(self, stage: Stage) -> int:
        """How many rounds are paired one at a time (0: every pairing is made at the draw)."""
        return 0

    def next_round(self, stage: Stage, group: Group) -> list[tuple[int, int]] | None:
        """The pairings of the group's next round, or None when the format made them all at the draw."""
        return None

    def before_pairing(self, stage: Stage, actor: Any) -> None:
        """Under the stage's lock, before its next round is planned: what the format fixes first (the Swiss
        system's absences from check-in, its first colour). Nothing by default."""

    def plan_round(self, stage: Stage, isolated: bool = False) -> RoundPlan:
        """The stage's next round as a draft: each top-level group's :meth:`next_round`, in group order
        (``isolated``: a pairing program may run in a child process, for the background task)."""
        boards: Rows = []
        for group in stage.groups.filter(parent=None).order_by("number"):
            boards += [[a, b] for a, b in self.next_round(stage, group) or []]
        return RoundPlan(boards, engine=self.kind)

    def plan_fingerprint(self, stage: Stage) -> str:
        """Everything :meth:`plan_round` depends on, for a format that plans outside the lock."""
        return ""

    def round_open(self, stage: Stage) -> bool:
        """Whether the current round still has something to finish (no next round is paired meanwhile)."""
        return (
            Match.objects.filter(group__stage=stage, group__parent=None)
            .exclude(status__in=[Match.Status.FINISHED, Match.Status.CANCELLED])
            .exists()
        )

    def round_finished(self, stage: Stage, number: int) -> bool:
        """Whether published round ``number`` is over (it closes)."""
        return not Match.objects.filter(
            group__stage=stage, round=number, status__in=[Match.Status.PENDING, Match.Status.CALLED]
        ).exists()

    def competitor_names(self, stage: Stage) -> dict[int, str]:
        """The names of what a round's boards pair (entries; a team event's teams)."""
        return dict(Entry.objects.filter(tournament_id=stage.tournament_id).values_list("pk", "player__name"))

    def edit_warnings(self, stage: Stage, rows: Rows, engine_rows: Rows) -> list[dict[str, Any]]:
        """What a manual change to a draft breaks: by default, a pair that has already met in the stage."""
        met = {
            frozenset(pair)
            for pair in Match.objects.filter(group__stage=stage)
            .exclude(status=Match.Status.CANCELLED)
            .values_list("first_id", "second_id")
        }
        return [
            {"code": "rematch", "entries": [a, b]}
            for a, b in rows
            if a is not None and b is not None and frozenset((a, b)) in met
        ]

    def warning_text(self, code: str) -> str:
        """A warning of :meth:`edit_warnings` in words."""
        return _("a rematch") if code == "rematch" else code

    def board_text(self, why: dict[str, Any]) -> str:
        """A draft board's reason (``RoundPlan.why``) in a few words for the round panel: none by default."""
        return ""

    def why_edited(self, stage: Stage, rows: Rows, why: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Why each board of an edited draft is paired so (by default, what the plan said)."""
        return why

    def publish_round(self, stage: Stage, number: int, rows: Rows, actor: Any) -> list[Match]:
        """Write a published round: each board a match in its players' group (a bye: no match; the format's
        standings count it)."""
        groups = {
            m.entry_id: m.group
            for m in GroupMember.objects.filter(group__stage=stage, group__parent=None).select_related("group")
        }
        entries = [e for pair in rows for e in pair if e is not None]
        if any(e not in groups for e in entries):
            raise TournamentError("stale_pairing", _("A player in this pairing is no longer in the stage."), 409)
        check_not_withdrawn(stage, entries)
        made = []
        for order, (first, second) in enumerate(rows):
            if first is None or second is None:
                continue
            group = groups[first]
            if groups[second].pk != group.pk:
                raise TournamentError("two_groups", _("Two players of different groups cannot be paired."), 409)
            made.append(round_match(stage, group, number, order, (first, second), group.games_per_pair))
        return Match.objects.bulk_create(made)

    def round_taken_back(self, stage: Stage, number: int) -> None:
        """After round ``number``'s matches were cancelled (unpaired): what else the format wrote for it."""

    def late_entry(self, stage: Stage, player: Any, actor: Any) -> Entry:
        """A player taken in after the draw (``absences_by_round`` formats: the Swiss system); others refuse."""
        raise TournamentError(
            "draw_made", _("The draw is made: only a Swiss takes a player in after it (redo the draw instead)."), 409
        )

    def close_lineups(self, stage: Stage, actor: Any) -> int:
        """Close the current round's lineups now (a team event); other formats have none."""
        raise TournamentError("no_lineups", _("This stage has no lineups."), 409)

    def match_closed(self, match: Match, *, corrected: bool, actor: Any) -> None:
        """A match of the stage finished (``corrected``: finished again after a correction). Nothing by
        default: the group's order is re-derived from the games anyway."""

    # -- order and qualifiers

    def group_order(self, group: Group) -> Order:
        """A top-level group's order (its playoffs included)."""
        return standings.group_order(group, final=self.ranks_places)

    def qualifiers(self, order: Order, stage: Stage) -> list[int]:
        """Who goes on from a decided group (nobody from a final; never a withdrawn player)."""
        return [] if self.ranks_places else standings.qualifiers(order)

    def next_stage_options(self, stage: Stage) -> dict[str, Any]:
        """Options the stage that takes this one's qualifiers starts with (besides its entries)."""
        return {}

    def following(self, stage: Stage, qualifiers: Sequence[int], tournament: Tournament) -> NextStage | None:
        """The stage that takes this one's qualifiers, or None when the tournament ends with this stage."""
        raise NotImplementedError

    # -- pages

    def tables(self, stage: Stage, after_round: int | None = None) -> list[dict[str, Any]]:
        """The stage's standings, a table per top-level group (pages, API, PDF, the simulation's report);
        ``after_round``: as they stood after that round."""
        return standings.stage_standings(stage, final=self.ranks_places, after_round=after_round)

    def printed_tables(self, stage: Stage) -> list[dict[str, Any]]:
        """Every player's standing as group tables, for a printed report (the simulation's)."""
        return self.tables(stage)

    def report_lines(self, table: dict[str, Any]) -> list[str]:
        """One of :meth:`printed_tables` as plain text lines (the simulation's report)."""
        lines = [f"-- {table['name']} ({table['kind']}, {table['advance']} advance)"]
        for row in table["rows"]:
            lines.append(
                f"{row['rank']:>3}  {row['player']:<10} {row['unit']:<6} P{row['played']:>2} "
                f"W{row['wins']} D{row['draws']} L{row['losses']}  {row['points']:>2} pts  {row['state']}"
            )
        return lines

    def page_context(self, stage: Stage) -> dict[str, Any]:
        """What the public page's part of the stage (``page_part``) shows besides its tables and crosstables."""
        return {}

    def control_context(self, stage: Stage, viewer: Any) -> dict[str, Any]:
        """What the format's panel in the control room (``control_part``) shows to ``viewer`` (its organizer)."""
        return {}

    def ranking_rows(self, stage: Stage) -> list[dict[str, Any]]:
        """The stage's order of places when no final table ranks the tournament (rank, player, unit, points),
        for the certificates and the final list: none by default."""
        return []


FORMATS: dict[str, StageFormat] = {}


def register(cls: type[StageFormat]) -> type[StageFormat]:
    FORMATS[cls.kind] = cls()
    return cls


def format_for(kind: str) -> StageFormat:
    return FORMATS[kind]


def format_of(stage: Stage) -> StageFormat:
    return FORMATS[stage.kind]


def format_urls() -> list[str]:
    """The URL modules of the registered formats' own pages."""
    return [f.urls for f in FORMATS.values() if f.urls]


def console_parts(player: Any, scope: set[int] | None = None) -> list[dict[str, Any]]:
    """The formats' own parts of a player's console: each a template and what it shows."""
    return [
        {"template": f.console_part, "context": f.console_context(player, scope)}
        for f in FORMATS.values()
        if f.console_part
    ]


def format_api_routes() -> list[tuple[str, Any, str]]:
    """The registered formats' own API routes, their viewsets imported."""
    return [
        (prefix, import_string(viewset), basename)
        for f in FORMATS.values()
        for prefix, viewset, basename in f.api_routes
    ]


def panel_action_names() -> set[str]:
    """Every registered format's own control-room actions."""
    return {name for f in FORMATS.values() for name in f.panel_actions}


def control_pages(tournament: Tournament) -> list[tuple[str, Any]]:
    """The organizer pages of the formats of the tournament's stages."""
    kinds = set(tournament.stages.values_list("kind", flat=True))
    return [page for kind, f in FORMATS.items() if kind in kinds for page in f.control_pages]


def stage_standings(stage: Stage, after_round: int | None = None) -> list[dict[str, Any]]:
    """The stage's group tables, as its format computes them (``after_round``: as they stood after it)."""
    return format_of(stage).tables(stage, after_round)


def group_order(group: Group) -> Order:
    """A top-level group's order, as its stage's format computes it."""
    return format_of(group.stage).group_order(group)


def round_by_round_kinds() -> list[str]:
    """The kinds of stage paired one round at a time (per-round check-in is for those)."""
    return [kind for kind, f in FORMATS.items() if f.round_by_round]


STAGE_NAMES = {
    "preliminary": pgettext_lazy("stage name", "Preliminary"),
    "second": pgettext_lazy("stage name", "Second stage, round %(n)s"),
    "final": pgettext_lazy("stage name", "Final"),
    "swiss": pgettext_lazy("stage name", "Swiss"),
    "teams": pgettext_lazy("stage name", "Team event"),
    "knockout": pgettext_lazy("stage name", "Knockout %(n)s"),
}


def stage_name(key: str, **params: Any) -> str:
    """A new stage's name, in the site's language (LANGUAGE_CODE) whoever's action made the stage, so one
    tournament's stages read alike; the organizer may rename a stage."""
    with translation.override(settings.LANGUAGE_CODE):
        return str(STAGE_NAMES[key]) % params if params else str(STAGE_NAMES[key])
