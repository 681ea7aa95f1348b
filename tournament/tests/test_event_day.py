"""The event day through the services and the pages: registration, check-in (by the organizer, by a
private link, from the console), who is left out of a draw or a Swiss round, private links revoked,
self-registration, arbiter calls that stop and restart an online clock, and rated tournaments that have
lists to feed on a fresh install."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from games.enums import GameStatus
from games.models import ArbiterCall, Game, GameEvent, Player
from games.selectors import clock_of
from games.services import GameError, game_act, game_create
from games.services.arbiter import game_answer_arbiter, game_call_arbiter
from ratings.models import Rating, RatingList
from tournament import registration, services
from tournament.checkin import absent, check_in_round
from tournament.demo_tournament import DEMO_NAME
from tournament.models import AuditLog, CheckIn, Entry, GroupMember, Round, Stage, SwissBye, Tournament
from tournament.services import rounds as cycle
from tournament.tests.helpers import entered, pdf_text_and_fonts, play_round

pytestmark = pytest.mark.django_db


def test_players_not_checked_in_are_left_out_of_the_first_draw_and_the_page_says_who(organizer: Client) -> None:
    tournament = services.tournament_create(name="Check-in cup", check_in=CheckIn.FIRST)
    entries = entered(tournament, 6)
    room = f"/organizer/t/{tournament.pk}/players/"
    for entry in entries[:2]:  # the organizer ticks two
        organizer.post(f"{room}check-in/", {"entry": entry.pk})
    key = registration.access_key_new(entry=entries[2]).access_key
    phone = Client(HTTP_ACCEPT_LANGUAGE="en")
    landing = phone.get(f"/p/{key}/").content.decode()  # the player scans the QR code on their slip
    assert "Check in for round 1" in landing
    phone.post(f"/p/{key}/check-in/")
    assert "You are checked in for round 1." in phone.get(f"/p/{key}/").content.decode()
    console_user = get_user_model().objects.create_user("p4", password="pw-Strong-2026")
    Player.objects.filter(pk=entries[3].player_id).update(user=console_user)
    console = Client(HTTP_ACCEPT_LANGUAGE="en")
    console.force_login(console_user)
    assert f"/me/check-in/{entries[3].pk}/" in console.get("/me/").content.decode()  # the console's button
    console.post(f"/me/check-in/{entries[3].pk}/")

    page = organizer.get(room).content.decode()
    assert "2 players not checked in:" in page and "P05, P06" in page.replace("\n", "")

    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=3)

    drawn = set(GroupMember.objects.filter(group__stage=stage).values_list("entry_id", flat=True))
    assert drawn == {e.pk for e in entries[:4]}
    left_out = Entry.objects.filter(pk__in=[entries[4].pk, entries[5].pk])
    assert all(e.withdrawn and e.withdrawal["reason"] == "did not check in" for e in left_out)
    assert AuditLog.objects.filter(tournament=tournament, action="absent_at_check_in").exists()
    assert check_in_round(tournament) is None  # closed once drawn
    with pytest.raises(GameError) as closed:
        registration.check_in(entry=entries[4])
    assert closed.value.code == "check_in_closed"


def test_a_swiss_player_not_checked_in_for_a_round_gets_a_zero_point_bye_until_they_check_in() -> None:
    tournament = services.tournament_create(
        name="Round check-in", preset="swiss", stage_options={"rounds": 4}, check_in=CheckIn.EACH_ROUND
    )
    entries = entered(tournament, 6)
    for entry in entries:
        registration.check_in(entry=entry)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=5)
    services.start_stage(stage=stage)
    rnd = cycle.round_pair(stage=stage)
    assert not SwissBye.objects.filter(stage=stage, absent=True).exists()
    cycle.round_publish(stage=stage, number=rnd.number)
    play_round(stage, random.Random(1))
    assert check_in_round(tournament) == 2
    for entry in entries[:4]:  # two do not come back for round 2
        registration.check_in(entry=entry)

    second = cycle.round_pair(stage=stage)

    absent = SwissBye.objects.filter(stage=stage, round=2, absent=True)
    assert sorted(b.entry_id for b in absent) == [entries[4].pk, entries[5].pk]
    assert all(b.kind == SwissBye.Kind.ZERO for b in absent)
    paired = {e for board in second.boards for e in board if e is not None}
    assert paired == {e.pk for e in entries[:4]}
    cycle.round_unpair(stage=stage, number=2)  # unpaired: the absence is judged again at the next pairing
    assert not SwissBye.objects.filter(stage=stage, round=2).exists()
    registration.check_in(entry=entries[4])
    registration.check_in(entry=entries[5])
    third = cycle.round_pair(stage=stage)
    assert {e for board in third.boards for e in board if e is not None} == {e.pk for e in entries}


def test_a_new_private_link_revokes_the_old_one_and_signs_its_sessions_out() -> None:
    tournament = services.tournament_create(name="Links")
    entry = entered(tournament, 2)[0]
    old = registration.access_key_new(entry=entry).access_key
    phone = Client(HTTP_ACCEPT_LANGUAGE="en")
    assert phone.get(f"/p/{old}/").status_code == 200
    assert phone.get("/me/").status_code == 302  # a GET signs nobody in
    assert phone.post(f"/p/{old}/")["Location"] == "/me/"  # the button does
    assert phone.get("/me/").status_code == 200  # signed in as the player, no password

    new = registration.access_key_new(entry=entry).access_key

    assert new != old
    assert phone.get("/me/").status_code == 302  # the session opened with the old link is over
    gone = phone.get(f"/p/{old}/")
    assert gone.status_code == 404 and "This link does not work" in gone.content.decode()
    assert Client().get(f"/p/{new}/").status_code == 200
    registration.access_key_revoke(entry=entry)
    assert Client().get(f"/p/{new}/").status_code == 404


def test_self_registration_opens_closes_and_gives_the_player_their_link() -> None:
    tournament = services.tournament_create(name="Open doors")
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    hidden = page.post(f"/t/{tournament.pk}/register/", {"name": "Walk-in"})
    assert hidden.status_code == 404 and not tournament.entries.exists()  # a draft, registration not opened
    services.publish(tournament=tournament)
    closed = page.post(f"/t/{tournament.pk}/register/", {"name": "Walk-in"}, follow=True).content.decode()
    assert "Registration for this tournament is closed." in closed and not tournament.entries.exists()

    registration.registration_configure(
        tournament=tournament,
        check_in=CheckIn.OFF,
        self_registration=True,
        registration_closes=timezone.now() + timedelta(hours=1),
    )
    answer = page.post(f"/t/{tournament.pk}/register/", {"name": "Walk-in", "unit": "Club"})
    entry = tournament.entries.get()
    assert answer.status_code == 302 and answer["Location"] == f"/p/{entry.access_key}/"
    too_long = page.post(f"/t/{tournament.pk}/register/", {"name": "x" * 51}).content.decode()
    assert "at most 50" in too_long.lower() or "50 characters" in too_long
    assert tournament.entries.count() == 1

    later = timezone.now() + timedelta(hours=2)
    assert not registration.registration_open(tournament, now=later)
    with pytest.raises(GameError) as refused:
        registration.self_register(tournament=tournament, name="Too late", now=later)
    assert refused.value.code == "registration_closed"


def test_the_organizer_adds_edits_and_removes_entries_and_refusals_say_why(organizer: Client) -> None:
    tournament = services.tournament_create(name="Entries")
    room = f"/organizer/t/{tournament.pk}/players/"
    organizer.post(f"{room}add/", {"name": "Li Lei", "unit": "一中", "rating": "1600"})
    entry = tournament.entries.get()
    twice = organizer.post(f"{room}add/", {"name": "Li Lei", "unit": "一中"}, follow=True).content.decode()
    assert "Li Lei (一中) is already entered." in twice
    long_name = organizer.post(f"{room}add/", {"name": "名" * 60}, follow=True).content.decode()
    assert "at most 50 characters" in long_name and tournament.entries.count() == 1

    organizer.post(f"{room}edit/", {"entry": entry.pk, "name": "Li Lei", "unit": "二中", "rating": "1650"})
    entry.player.refresh_from_db()
    assert (entry.player.unit, entry.player.rating) == ("二中", 1650)
    organizer.post(f"{room}remove/", {"entry": entry.pk})
    assert not tournament.entries.exists() and Player.objects.filter(name="Li Lei").exists()

    for n in range(2):
        organizer.post(f"{room}add/", {"name": f"Q{n}"})
    services.draw_stage(stage=tournament.stages.get(), seed=1)
    after = organizer.post(f"{room}remove/", {"entry": tournament.entries.first().pk}, follow=True).content.decode()
    assert "The draw is made: withdraw" in after and tournament.entries.count() == 2


def test_a_csv_file_upload_in_gb18030_is_read_and_its_repeats_reported(organizer: Client) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    tournament = services.tournament_create(name="Upload")
    text = "姓名,单位,等级分\n张三,一中,1500\n李四,一中,\n张三,一中,1500\n"
    upload = SimpleUploadedFile("players.csv", text.encode("gb18030"), content_type="text/csv")

    page = organizer.post(
        f"/organizer/t/{tournament.pk}/players/import/", {"file": upload}, follow=True
    ).content.decode()

    assert "2 players entered." in page and "row 4 repeats row 2 (张三 (一中))" in page
    assert sorted(tournament.entries.values_list("player__name", flat=True)) == ["张三", "李四"]


def online_game(**fields: Any) -> tuple[Game, Player, Player]:
    one, two = Player.objects.create(name="One"), Player.objects.create(name="Two")
    game = game_create(player_one=one, player_two=two, mode="online", time_control="quick", **fields)
    game = game_act(game_id=game.pk, player=one, action="place h8", expected_ply=0)
    return game, one, two


def test_an_arbiter_call_stops_both_clocks_until_a_referee_answers() -> None:
    game, one, two = online_game()
    referee = get_user_model().objects.create_user("ref")
    game.referees.add(referee)
    at = timezone.now()
    assert clock_of(game).status == "running" and game.deadline is not None

    call = game_call_arbiter(game_id=game.pk, player=two, note="he keeps talking", at=at)
    again = game_call_arbiter(game_id=game.pk, player=one, at=at + timedelta(seconds=1))

    game.refresh_from_db()
    assert again.pk == call.pk and call.paused_clock  # one open call per game
    assert clock_of(game).pause == "referee" and game.deadline is None  # nobody's time runs
    assert GameEvent.objects.filter(game=game, kind="arbiter_call").count() == 1
    with pytest.raises(GameError) as stranger:
        game_answer_arbiter(call_id=call.pk, actor=get_user_model().objects.create_user("someone"))
    assert stranger.value.code == "not_referee"

    answered = game_answer_arbiter(
        call_id=call.pk, actor=referee, answer="warned", justified=True, at=at + timedelta(minutes=3)
    )

    game.refresh_from_db()
    assert answered.answered_by == referee and clock_of(game).pause is None and game.deadline is not None
    assert game.deadline > at + timedelta(minutes=3)  # a justified call's three minutes cost nobody time
    assert GameEvent.objects.get(game=game, kind="arbiter_answered").data["resumed"] is True


def test_a_call_that_stops_no_clock_shows_in_every_state_until_it_is_answered() -> None:
    """A call made while a draw offer has the clocks stopped pauses nothing; play goes on after the offer,
    and each answer to a move names the open call until a referee answers it."""
    from games.serializers import GameStateSerializer
    from games.services import game_answer_draw, game_offer_draw

    game, one, two = online_game()
    game_offer_draw(game_id=game.pk, player=one)
    call = game_call_arbiter(game_id=game.pk, player=two, note="noise")
    game_answer_draw(game_id=game.pk, player=two, accept=False)
    assert not call.paused_clock

    moved = game_act(game_id=game.pk, player=two, action="place h9", expected_ply=1)

    shown = GameStateSerializer(moved).data["arbiter_call"]
    assert shown is not None and shown["id"] == call.pk and shown["note"] == "noise"
    game_answer_arbiter(call_id=call.pk, actor=get_user_model().objects.create_superuser("boss"))
    moved = game_act(game_id=game.pk, player=one, action="place j9", expected_ply=2)
    assert GameStateSerializer(moved).data["arbiter_call"] is None and moved.ply == 3


def test_an_arbiter_call_over_the_board_is_logged_without_a_clock_and_only_players_call() -> None:
    one, two = Player.objects.create(name="A"), Player.objects.create(name="B")
    game = game_create(player_one=one, player_two=two, mode="otb")
    call = game_call_arbiter(game_id=game.pk, player=one)
    assert not call.paused_clock and ArbiterCall.objects.filter(game=game, answered_at__isnull=True).exists()
    with pytest.raises(GameError) as outsider:
        game_call_arbiter(game_id=game.pk, player=Player.objects.create(name="C"))
    assert outsider.value.code == "not_your_game"


def test_the_control_room_and_the_referee_console_show_the_call_and_answer_it(organizer: Client) -> None:
    tournament = Tournament.objects.get(name=DEMO_NAME)  # the demo tournament: games on the boards
    game = Game.objects.filter(match_game__match__tournament=tournament, status__in=GameStatus.active()).first()
    assert game is not None
    call = game_call_arbiter(game_id=game.pk, player=game.player_one, note="clock")
    waiting = organizer.get(f"/organizer/t/{tournament.pk}/waiting/").content.decode()
    assert "Arbiter called" in waiting and game.player_one.name in waiting
    console = organizer.get("/referee/").content.decode()
    assert f"/referee/calls/{call.pk}/answer/" in console

    organizer.post(f"/organizer/t/{tournament.pk}/answer-call/", {"call": call.pk})

    assert ArbiterCall.objects.get(pk=call.pk).answered_at is not None
    assert "Nothing is waiting." in organizer.get(f"/organizer/t/{tournament.pk}/waiting/").content.decode()


def test_a_rated_tournament_created_in_the_control_room_feeds_lists_made_at_its_start(organizer: Client) -> None:
    from ratings.tasks import rate_and_recompute

    RatingList.objects.all().delete()
    organizer.post(
        "/organizer/",
        {
            "name": "Rated Swiss",
            "boards": 4,
            "rules": "freestyle",
            "protocol": "none",
            "forbidden_mode": "claim",
            "time_control": "quick",
            "mode": "otb",
            "preset": "swiss",
            "rounds": 3,
            "rated": "on",
        },
    )
    tournament = Tournament.objects.get(name="Rated Swiss")
    assert tournament.rated
    room = organizer.get(f"/organizer/t/{tournament.pk}/").content.decode()
    assert "rated: the gomoku lists (WHR and Elo) are made when it starts" in room
    entered(tournament, 6)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=2)

    lists = RatingList.objects.filter(category="gomoku")
    assert sorted(lists.values_list("method", flat=True)) == ["elo", "whr"]
    assert "rated: feeds" in organizer.get(f"/organizer/t/{tournament.pk}/").content.decode()
    services.start_stage(stage=stage)
    rng = random.Random(4)
    for _round in range(3):
        services.pair_next_round(stage=stage)
        play_round(stage, rng)
    services.advance(stage=stage)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED

    assert rate_and_recompute(tournament.pk) == 2  # what the task does once the finish commits
    for rating_list in lists:
        assert Rating.objects.filter(rating_list=rating_list).count() == 6
    assert "尚无等级分表" not in Client().get("/ratings/").content.decode()
    from tournament.swiss.selectors import standings

    first, second = standings(stage)["rows"][:2]
    certificates = organizer.get(f"/t/{tournament.pk}/pdf/certificates.pdf?places=2")
    text, _fonts = pdf_text_and_fonts(certificates.content)
    assert text.count("took place") == 2 and "took place 1" in text and "took place 2" in text
    assert text.index(first["player"]) < text.index("took place 1") < text.index(second["player"])


def test_the_pdf_sheets_carry_the_chinese_text_in_an_embedded_font(organizer: Client) -> None:
    tournament = Tournament.objects.get(name=DEMO_NAME)  # the demo: 校园五子棋赛, players 棋手 Player 01 …
    registration.access_keys_fill(tournament=tournament)
    for kind in ("call-sheet", "result-sheets", "standings", "certificates", "slips"):
        response = organizer.get(f"/t/{tournament.pk}/pdf/{kind}.pdf", HTTP_ACCEPT_LANGUAGE="zh-hans")
        assert response.status_code == 200 and response["Content-Type"] == "application/pdf", kind
        text, fonts = pdf_text_and_fonts(response.content)
        assert "校园五子棋赛" in text or kind == "certificates", kind  # no place known yet: a note
        assert fonts, kind  # every font is in the file: it prints the same on a machine without it
    assert Client().get(f"/t/{tournament.pk}/pdf/slips.pdf").status_code == 404  # private links: organizer only


def test_the_projector_page_shows_the_boards_and_the_standings_with_the_halls_link() -> None:
    tournament = Tournament.objects.create(name="Screen", status=Tournament.Status.PUBLISHED)
    Stage.objects.create(tournament=tournament, order=1, name="S", kind=Stage.Kind.GROUPS)
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/t/{tournament.pk}/screen/?seconds=20").content.decode()
    assert 'data-seconds="20"' in page and 'data-part="boards"' in page and 'data-part="standings"' in page
    assert "<svg" in page and f"/t/{tournament.pk}/" in page  # the QR code of the tournament's page


def test_swiss_rounds_are_unchanged_without_check_in() -> None:
    tournament = services.tournament_create(name="No check-in", preset="swiss", stage_options={"rounds": 3})
    entered(tournament, 5)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=5)
    services.start_stage(stage=stage)
    cycle.round_pair(stage=stage)
    assert not SwissBye.objects.filter(absent=True).exists()
    assert Round.objects.get(stage=stage).number == 1


def test_the_api_checks_a_player_in_themselves_and_the_organizer_anyone() -> None:
    from rest_framework.test import APIClient

    tournament = services.tournament_create(name="API check-in", check_in=CheckIn.FIRST)
    services.publish(tournament=tournament)
    mine, other = entered(tournament, 2)
    user = get_user_model().objects.create_user("me-api", password="pw-Strong-2026")
    Player.objects.filter(pk=mine.player_id).update(user=user)
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)

    answer = client.post(f"/api/tournaments/{tournament.pk}/check-in/", {}, format="json")
    refused = client.post(f"/api/tournaments/{tournament.pk}/check-in/", {"entry": other.pk}, format="json")

    assert answer.status_code == 200 and answer.json()["checked_in"] and answer.json()["round"] == 1
    assert refused.status_code == 403 and refused.json()["code"] == "not_allowed"
    organizer = get_user_model().objects.create_superuser("boss-api")
    client.force_login(organizer)
    assert client.post(f"/api/tournaments/{tournament.pk}/check-in/", {"entry": other.pk}, format="json").json()[
        "checked_in"
    ]
    undone = client.post(f"/api/tournaments/{tournament.pk}/check-in/", {"entry": mine.pk, "undo": True}, format="json")
    assert undone.json()["checked_in"] is False
    assert list(absent(tournament.entries.all(), 1)) == [Entry.objects.get(pk=mine.pk)]


def test_the_control_rooms_backup_download_is_the_database_and_is_kept(organizer: Client, settings: Any) -> None:
    import sqlite3
    from pathlib import Path

    answer = organizer.post("/organizer/backup/")  # the organizer at the server's own machine (127.0.0.1)

    assert answer.status_code == 200 and answer.content.startswith(b"SQLite format 3\x00")
    kept = list(Path(settings.BACKUP_DIR).glob("backup-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == answer.content
    copy = sqlite3.connect(str(kept[0]))
    try:
        names = {row[0] for row in copy.execute("SELECT name FROM tournament_tournament")}
    finally:
        copy.close()
    assert names == set(Tournament.objects.values_list("name", flat=True))  # the demo tournament is in it
    assert Client().get("/organizer/backup/").status_code == 302  # signed-out: to the login page
