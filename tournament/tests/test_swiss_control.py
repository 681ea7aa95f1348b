"""The Swiss part of the control room, as the organizer clicks through it: create a Swiss, set it up,
pair, change the draft with a reason, publish; refusals come back as messages."""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import Player
from tournament import services
from tournament.models import AuditLog, Round, Stage, Tournament
from tournament.swiss.selectors import SwissOptions

pytestmark = pytest.mark.django_db


def test_a_swiss_is_created_set_up_paired_edited_and_published_from_the_control_room(organizer: Client) -> None:
    organizer.post(
        "/organizer/",
        {
            "name": "Anji Open",
            "boards": 10,
            "rules": "renju",
            "protocol": "soosorv",
            "forbidden_mode": "claim",
            "time_control": "quick",
            "mode": "otb",
            "preset": "swiss",
            "rounds": 7,
        },
    )
    tournament = Tournament.objects.get(name="Anji Open")
    stage = tournament.stages.get()
    assert (stage.kind, SwissOptions.of(stage).rounds) == (Stage.Kind.SWISS, 7)
    for n in range(6):
        services.register(tournament=tournament, player=Player.objects.create(name=f"A{n}", rating=2000 - n))
    room = f"/organizer/t/{tournament.pk}/"
    organizer.post(
        f"{room}swiss-settings/",
        {
            "stage": stage.pk,
            "rounds": 5,
            "games": 2,
            "accelerate_shown": "1",
            "pab": "draw",
            "late_score": "half",
            "tiebreak": ["sonneborn_berger", "buchholz", "", "buchholz"],
            "advance": 0,
            "then": "",
            "unit_rounds": 1,
            "max_requested_byes": 2,
            "no_byes_last": 1,
            "rules": "2017",
        },
    )
    options = SwissOptions.of(Stage.objects.get(pk=stage.pk))
    assert (options.rounds, options.games, options.pab, options.late_score) == (5, 2, "draw", "half")
    assert options.rules == "2017"  # the organizer chose the Dutch rules in force until January 2026
    page = organizer.post(f"{room}swiss-settings/", {"stage": stage.pk, "rules": "1992"}, follow=True).content.decode()
    assert "The Swiss option rules has a wrong value." in page
    assert SwissOptions.of(Stage.objects.get(pk=stage.pk)).rules == "2017"  # nothing half-written
    assert options.tiebreaks == ("sonneborn_berger", "buchholz") and not options.accelerate

    organizer.post(f"{room}draw/", {"stage": stage.pk})
    organizer.post(f"{room}start/", {"stage": stage.pk})
    page = organizer.post(f"{room}round-pair/", {"stage": stage.pk}, follow=True).content.decode()
    assert "Round 1 paired" in page
    rnd = Round.objects.get(stage=stage)
    assert rnd.engine == "py4swiss-dutch"
    first, second = rnd.boards[0]
    page = organizer.post(
        f"{room}round-edit/",
        {"stage": stage.pk, "round": 1, "change": "flip", "first": first, "reason": ""},
        follow=True,
    ).content.decode()
    assert "Say why the pairing is changed." in page
    page = organizer.post(
        f"{room}round-edit/",
        {"stage": stage.pk, "round": 1, "change": "flip", "first": first, "reason": "asked for"},
        follow=True,
    ).content.decode()
    assert "Round 1 changed" in page and "asked for" in page
    assert Round.objects.get(stage=stage).boards[0] == [second, first]
    organizer.post(f"{room}round-publish/", {"stage": stage.pk, "round": 1})
    assert Round.objects.get(stage=stage).status == Round.Status.PUBLISHED
    page = organizer.post(f"{room}swiss-settings/", {"stage": stage.pk, "rounds": 9}, follow=True).content.decode()
    assert "Once a round is paired" in page
    assert AuditLog.objects.filter(action="round_edit", data__reason="asked for").exists()


def test_the_round_sheet_gives_the_allocated_bye_its_points(organizer: Client) -> None:
    tournament = services.tournament_create(name="Odd field", preset="swiss", stage_options={"rounds": 3})
    stage = tournament.stages.get()
    for n in range(5):
        services.register(tournament=tournament, player=Player.objects.create(name=f"P{n}", rating=2000 - n))
    room = f"/organizer/t/{tournament.pk}/"
    for step in ("draw", "start", "round-pair"):
        organizer.post(f"{room}{step}/", {"stage": stage.pk})
    organizer.post(f"{room}round-publish/", {"stage": stage.pk, "round": 1})

    sheet = organizer.get(f"/t/{tournament.pk}/swiss/{stage.pk}/round/1/").content.decode()
    bye_row = next(row for row in sheet.split("<tr>") if ">bye<" in row)

    assert "1 (bye)" in bye_row
