"""No-shows recorded as no-shows: a player left out of the first draw for not checking in is announced as
such (not as having withdrawn) and the control room says why; with check-in before each Swiss round, the
draw leaves nobody out and round 1's absentees get its zero-point bye, shown as an absence everywhere."""

from __future__ import annotations

from datetime import UTC

import pytest
from django.test import Client
from django.utils import translation

from games.models import Player
from tournament import registration, services
from tournament.models import CheckIn, Entry, SwissBye
from tournament.selectors import notices
from tournament.services import TournamentError
from tournament.services import rounds as cycle
from tournament.tests.helpers import entered

pytestmark = pytest.mark.django_db


def test_a_player_left_out_for_not_checking_in_is_announced_as_a_no_show(organizer: Client) -> None:
    tournament = services.tournament_create(name="Check-in cup", check_in=CheckIn.FIRST)
    entries = entered(tournament, 6)
    for entry in entries[:5]:
        registration.check_in(entry=entry)
    services.draw_stage(stage=tournament.stages.get(order=1), seed=1)

    with translation.override("en"):
        said = notices(tournament)
    assert "P06 did not check in and is not playing." in said
    assert not any("withdrew" in line for line in said)
    page = organizer.get(f"/organizer/t/{tournament.pk}/players/").content.decode()
    assert 'class="warning no-show">did not check in<' in page


def test_check_in_before_each_round_leaves_nobody_out_of_the_draw_and_round_one_absentees_get_the_zero_bye(
    organizer: Client,
) -> None:
    tournament = services.tournament_create(
        name="Round check-in", preset="swiss", stage_options={"rounds": 4}, check_in=CheckIn.EACH_ROUND
    )
    services.publish(tournament=tournament)
    entries = entered(tournament, 6)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=5)  # nobody has checked in yet: the draw still takes all six
    assert not Entry.objects.filter(tournament=tournament, withdrawn=True).exists()
    services.start_stage(stage=stage)
    for entry in entries[:4]:
        registration.check_in(entry=entry)

    rnd = cycle.round_pair(stage=stage)

    absent = SwissBye.objects.filter(stage=stage, round=1, absent=True)
    assert sorted(b.entry_id for b in absent) == [entries[4].pk, entries[5].pk]
    assert {e for board in rnd.boards for e in board if e is not None} == {e.pk for e in entries[:4]}
    cycle.round_publish(stage=stage, number=1)
    public = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/t/{tournament.pk}/").content.decode()
    assert "Not playing this round (not checked in): P05, P06" in public
    assert "Byes asked for:" not in public
    room = organizer.get(f"/organizer/t/{tournament.pk}/").content.decode()
    assert "Zero-point bye, did not check in: P05, P06" in room


def test_certificates_are_printed_only_once_the_places_are_final(organizer: Client) -> None:
    from tournament.tests.helpers import play_all

    tournament = services.tournament_create(name="Cup", preset="swiss", stage_options={"rounds": 2})
    services.publish(tournament=tournament)
    entered(tournament, 4)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=2)
    services.start_stage(stage=stage)
    services.pair_next_round(stage=stage)
    play_all(tournament, lambda game: game.black)
    import io

    from pypdf import PdfReader

    running = organizer.get(f"/t/{tournament.pk}/pdf/certificates.pdf").content
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(running)).pages)
    assert "took place" not in text and "No places are known yet." in text  # after round 1 of 2


def test_a_check_in_deadline_typed_in_the_halls_time_closes_players_check_in_and_the_organizer_lets_a_late_one_in(
    organizer: Client,
) -> None:
    from datetime import datetime, timedelta

    from django.contrib.auth import get_user_model

    tournament = services.tournament_create(name="Open", preset="swiss", stage_options={"rounds": 3})
    entries = entered(tournament, 5)
    room = f"/organizer/t/{tournament.pk}/players/"
    organizer.post(f"{room}settings/", {"check_in": "first", "check_in_closes": "2026-12-03T09:00"})
    tournament.refresh_from_db()
    assert tournament.check_in_closes == datetime(2026, 12, 3, 1, 0, tzinfo=UTC)  # 09:00 in Beijing
    assert "09:00" in organizer.get(room).content.decode()  # shown back in the hall's time

    user = get_user_model().objects.create_user("late")
    Player.objects.filter(pk=entries[4].player_id).update(user=user)
    phone = Client(HTTP_ACCEPT_LANGUAGE="en")
    phone.force_login(user)
    after = tournament.check_in_closes + timedelta(minutes=1)
    with pytest.raises(TournamentError) as closed:
        registration.check_in(entry=entries[4], by_player=True, now=after)
    assert closed.value.code == "check_in_over" and "09:00" in closed.value.message
    registration.check_in(entry=entries[0], by_player=True, now=tournament.check_in_closes - timedelta(minutes=1))
    for entry in entries[1:4]:
        registration.check_in(entry=entry)  # the organizer may check in at any time
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=3)
    entries[4].refresh_from_db()
    assert entries[4].withdrawn and entries[4].withdrawal["reason"] == "did not check in"

    assert phone.post(f"{room}let-back-in/", {"entry": entries[4].pk}).status_code == 404  # a player: no such page
    assert phone.post(f"{room}settings/", {"check_in": "off"}).status_code == 404
    entries[4].refresh_from_db()
    tournament.refresh_from_db()
    assert entries[4].withdrawn and tournament.check_in == "first"  # nothing changed
    done = organizer.post(f"{room}let-back-in/", {"entry": entries[4].pk}, follow=True).content.decode()
    assert "P05 is let back in" in done
    entries[4].refresh_from_db()
    assert not entries[4].withdrawn
    services.start_stage(stage=stage)
    rnd = cycle.round_pair(stage=stage)
    assert entries[4].pk in {e for board in rnd.boards for e in board}  # paired from round 1, as a late entry
