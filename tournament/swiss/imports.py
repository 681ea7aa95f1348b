"""A tournament started from a TRF file: its players (the file's pairing numbers kept), every round already
played (each game an over-the-board result, each bye a bye), the prohibited pairs and the acceleration.
All or nothing: one transaction."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from games.models import Player
from games.services import game_override
from tournament import services
from tournament.identity import keeper_for_new, player_for_entry
from tournament.models import Entry, Match, Round, Stage, SwissBye
from tournament.services.common import next_game
from tournament.swiss import trf
from tournament.swiss.selectors import swiss_group
from tournament.swiss.state import FIRST

_RESULTS = {  # the first player's TRF result -> (winner role, reason)
    "1": ("first", "referee"),
    "W": ("first", "referee"),
    "0": ("second", "referee"),
    "L": ("second", "referee"),
    "=": ("", "agreement"),
    "D": ("", "agreement"),
    "+": ("first", "forfeit"),
    "-": ("second", "forfeit"),
}


@transaction.atomic
def tournament_from_trf(*, text: str, name: str = "", actor: Any = None) -> Any:
    state = trf.read(text)
    pab = {10: "win", 5: "draw", 0: "loss"}.get(state.points.pab, "win")
    options: dict[str, Any] = {
        "rounds": max(state.total_rounds, state.rounds_played + 1),
        "pab": pab,
        "rules": state.rules,
    }
    numbers = state.by_number()
    if state.forbidden:
        options["prohibited"] = [list(p) for p in sorted(state.forbidden)]  # pairing numbers, mapped below
    tournament = services.tournament_create(
        name=(name or state.name or "TRF")[:200], preset="swiss", actor=actor, stage_options=options
    )
    entries: dict[int, Entry] = {}
    taken: set[int] = set()
    for player in state.players:
        person = player_for_entry(
            actor=actor, tournament=tournament, name=player.name or f"#{player.number}", rating=player.rating or None
        )
        if person.pk in taken:  # a namesake in the same file is another person
            person = Player.objects.create(
                name=person.name, rating=player.rating or None, owner=keeper_for_new(actor, tournament)
            )
        taken.add(person.pk)
        entries[player.number] = services.register(
            tournament=tournament, player=person, seed=player.number, actor=actor
        )
    stage = tournament.stages.get(order=1)
    fixed: dict[str, Any] = {
        "first_colour": state.first_colour,
        "pairing_numbers": [[entries[n].pk, n] for n in sorted(entries)],  # the file's, whatever the ratings
    }
    if state.forbidden:
        fixed["prohibited"] = [sorted((entries[a].pk, entries[b].pk)) for a, b in sorted(state.forbidden)]
    if state.accelerations:
        fixed["accelerate"] = True
        fixed["group_a"] = sorted(entries[n].pk for n, values in state.accelerations.items() if any(values))
    services.draw_stage(stage=stage, seed=0, actor=actor)
    Stage.objects.filter(pk=stage.pk).update(options={**stage.options, **fixed})
    stage.refresh_from_db()
    services.start_stage(stage=stage, actor=actor)
    group = swiss_group(stage)
    assert group is not None
    for rnd in range(1, state.rounds_played + 1):
        boards: list[list[int | None]] = []
        for player in state.players:
            record = player.rounds[rnd - 1]
            if record.opponent is None:
                kind = record.result if record.result in SwissBye.Kind.values else SwissBye.Kind.ZERO
                SwissBye.objects.create(stage=stage, round=rnd, entry=entries[player.number], kind=kind)
                if kind == SwissBye.Kind.PAIRING:
                    boards.append([entries[player.number].pk, None])
                continue
            if record.colour != FIRST:
                continue
            other = numbers[record.opponent]
            match = Match.objects.create(
                tournament=tournament,
                group=group,
                round=rnd,
                order=len(boards),
                first=entries[player.number],
                second=entries[other.number],
                games_planned=1,
            )
            boards.append([entries[player.number].pk, entries[other.number].pk])
            game = next_game(match, tournament)
            winner, reason = _RESULTS.get(record.result, ("", "agreement"))
            result = "draw" if not winner else "black" if winner == "first" else "white"
            game_override(game_id=game.pk, result=result, reason=reason, note="imported from a TRF file", actor=actor)
        boards.sort(key=lambda b: b[1] is None)
        Round.objects.create(
            stage=stage,
            number=rnd,
            status=Round.Status.CLOSED,
            engine="trf-import",
            engine_boards=boards,
            boards=boards,
        )
    nxt = state.rounds_played + 1
    for number, kind in state.preassigned.items():
        SwissBye.objects.create(stage=stage, round=nxt, entry=entries[number], kind=kind, requested=True)
    for number in state.absent - set(state.preassigned):
        SwissBye.objects.create(stage=stage, round=nxt, entry=entries[number], kind=SwissBye.Kind.ZERO, requested=True)
    services.audit(tournament, "trf_import", actor, players=len(entries), rounds=state.rounds_played)
    return tournament
