"""A server several organizers share (docs/security.md, "Players belong where they were entered"): a second
organizer (group ``host``) tries every way into a player, a game or a draft of another organizer's event —
adding the player by name and unit, by CSV, by id through the API, in a team, as a Swiss late entry, by a
TRF file; signing in with its own links; renaming and re-rating — and every try must fail. Each test names
the attack of the review (issue 59) it reproduces."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from games.models import Game, Player
from tournament import registration, services
from tournament.models import CheckIn, Entry, Invitation
from tournament.roles import HOST, ORGANIZER, sync_roles
from tournament.services import rounds as cycle
from tournament.swiss import trf
from tournament.swiss.state import FIRST, SECOND, RoundRecord, SwissPlayer, SwissState

pytestmark = pytest.mark.django_db
User = get_user_model()
PASSWORD = "pw-Strong-2026"
PRINT_HOSTS = "import django; django.setup(); from django.conf import settings as s; print(s.ALLOWED_HOSTS)"


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    cache.clear()


def account(username: str, role: str | None = None) -> Any:
    groups = sync_roles()
    user = User.objects.create_user(username, password=PASSWORD, is_staff=role == ORGANIZER)
    if role:
        user.groups.add(groups[role])
    return user


def web(user: Any | None, address: str = "192.168.1.30") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR=address)
    if user is not None:
        client.force_login(user)
    return client


def api(user: Any | None, address: str = "192.168.1.30") -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR=address)
    if user is not None:
        client.force_authenticate(user)
    return client


class TwoHosts:
    """Host B runs an online round robin under way, with a player who registered themselves by the public
    form and opened their games with the link it gave; host A runs its own tournament, not drawn yet."""

    def __init__(self) -> None:
        self.host_a = account("host-a", HOST)
        self.host_b = account("host-b", HOST)
        self.theirs = services.tournament_create(
            name="Club B open", actor=self.host_b, mode="online", time_control="quick"
        )
        registration.registration_configure(
            tournament=self.theirs, check_in=CheckIn.OFF, self_registration=True, actor=self.host_b
        )
        services.publish(tournament=self.theirs, actor=self.host_b)
        self.victim_phone = web(None, "192.168.1.77")
        answer = self.victim_phone.post(f"/t/{self.theirs.pk}/register/", {"name": "王小明", "unit": "七中"})
        self.victim_phone.post(answer["Location"])  # "open my games on this device": the victim's session
        self.victim = Player.objects.get(name="王小明")
        for n in (1, 2, 3):
            registration.entry_add(tournament=self.theirs, name=f"B{n}", actor=self.host_b)
        stage = self.theirs.stages.get()
        services.draw_stage(stage=stage, seed=1, actor=self.host_b)
        services.start_stage(stage=stage, actor=self.host_b)
        self.victims_game = (
            Game.objects.filter(
                match_game__match__tournament=self.theirs, status="playing", player_one=self.victim
            ).first()
            or Game.objects.filter(
                match_game__match__tournament=self.theirs, status="playing", player_two=self.victim
            ).first()
        )
        self.mine = services.tournament_create(name="Club A cup", actor=self.host_a)
        self.room = web(self.host_a)
        self.room_api = api(self.host_a)

    def entries_of_victim(self) -> int:
        return Entry.objects.filter(player=self.victim).count()


@pytest.fixture
def two() -> TwoHosts:
    return TwoHosts()


def test_a_victims_game_exists_and_their_own_link_plays_it(two: TwoHosts) -> None:
    """The world of these tests is real: the victim's own session (their link) may move in their game."""
    game = two.victims_game
    assert game is not None
    seat = 1 if game.player_one_id == two.victim.pk else 2
    answer = two.victim_phone.get(f"/api/games/{game.pk}/")
    assert answer.status_code == 200
    assert two.victim.owner == two.host_b  # kept by the organizer whose form they registered on
    assert seat in (1, 2)


def test_adding_by_the_victims_public_name_and_unit_makes_a_new_player(two: TwoHosts) -> None:
    """High (1): /organizer/t/<own>/players/add/ with the victim's name and unit attached the victim."""
    two.room.post(f"/organizer/t/{two.mine.pk}/players/add/", {"name": "王小明", "unit": "七中"})

    entry = two.mine.entries.get()
    assert entry.player_id != two.victim.pk
    assert entry.player.owner == two.host_a
    assert two.entries_of_victim() == 1


def test_a_csv_import_with_the_victims_name_makes_a_new_player(two: TwoHosts) -> None:
    """High (1): the CSV import found players by name and unit."""
    two.room.post(f"/organizer/t/{two.mine.pk}/players/import/", {"csv": "王小明,七中,2400\nA2,,\n"})

    assert two.mine.entries.count() == 2
    assert not two.mine.entries.filter(player=two.victim).exists()
    assert two.entries_of_victim() == 1
    two.victim.refresh_from_db()
    assert two.victim.rating is None  # the file's rating went to A's own new player


def test_the_api_refuses_entering_another_organizers_player_by_id(two: TwoHosts) -> None:
    """High (1): POST /api/tournaments/<own>/register/ with {"player": <victim>}."""
    answer = two.room_api.post(f"/api/tournaments/{two.mine.pk}/register/", {"player": two.victim.pk}, format="json")

    assert answer.status_code == 403
    assert answer.json()["code"] == "not_your_player"
    assert two.entries_of_victim() == 1
    by_name = two.room_api.post(
        f"/api/tournaments/{two.mine.pk}/register/", {"name": "王小明", "unit": "七中"}, format="json"
    )
    assert by_name.status_code == 201 and by_name.json()["player"] != two.victim.pk


def test_a_team_lineup_with_the_victims_name_makes_a_new_player(two: TwoHosts) -> None:
    """High (1): a team entered by the players' names and units attached the victim (API and control room)."""
    options = {"boards": 2, "reserves": 0}
    by_api = services.tournament_create(name="A teams", preset="teams", actor=two.host_a, stage_options=options)
    by_page = services.tournament_create(name="A teams 2", preset="teams", actor=two.host_a, stage_options=options)
    answer = two.room_api.post(
        f"/api/team-events/{by_api.stages.get().pk}/team/",
        {"name": "A", "players": [{"name": "王小明", "unit": "七中"}, {"name": "A2"}]},
        format="json",
    )
    page = two.room.post(f"/organizer/t/{by_page.pk}/teams/", {"name": "B", "players": "王小明,七中\nB2"})

    assert answer.status_code == 201 and page.status_code == 302
    for teams in (by_api, by_page):
        assert teams.entries.count() == 2 and not teams.entries.filter(player=two.victim).exists()
    assert two.entries_of_victim() == 1


def test_a_swiss_late_entry_of_the_victim_is_refused_by_id_and_new_by_name(two: TwoHosts) -> None:
    """High (1): a Swiss late entry attached any player by id, and by name through the control room."""
    swiss = services.tournament_create(name="Club A Swiss", preset="swiss", actor=two.host_a, stage_options={})
    for n in range(4):
        registration.entry_add(tournament=swiss, name=f"S{n}", actor=two.host_a)
    stage = swiss.stages.get()
    services.draw_stage(stage=stage, seed=1, actor=two.host_a)
    services.start_stage(stage=stage, actor=two.host_a)

    by_id = two.room_api.post(f"/api/swiss/{stage.pk}/late-entry/", {"player": two.victim.pk}, format="json")
    two.room.post(f"/organizer/t/{swiss.pk}/swiss-late/", {"stage": stage.pk, "name": "王小明", "unit": "七中"})

    assert by_id.status_code == 403 and by_id.json()["code"] == "not_your_player"
    assert not swiss.entries.filter(player=two.victim).exists()
    assert two.entries_of_victim() == 1


def test_a_trf_import_naming_the_victim_makes_a_new_player(two: TwoHosts) -> None:
    """High (1): a TRF file found its players by name."""
    state = SwissState(
        "Club A from TRF",
        3,
        [
            SwissPlayer(1, "王小明", 2100, rounds=[RoundRecord(2, FIRST, "1")]),
            SwissPlayer(2, "A2", 2000, rounds=[RoundRecord(1, SECOND, "0")]),
        ],
    )
    answer = two.room_api.post("/api/swiss/import-trf/", {"trf": trf.write(state)}, format="json")

    assert answer.status_code == 201, answer.content
    assert Entry.objects.filter(player=two.victim).count() == 1
    assert Player.objects.filter(name="王小明", owner=two.host_a).exists()


def test_the_links_of_my_own_tournament_never_sign_in_the_victim(two: TwoHosts) -> None:
    """High (1): after attaching the victim, the host read their key from its players page and signed a fresh
    phone into the victim's link account, which then resigned the victim's game in the other tournament."""
    two.room.post(f"/organizer/t/{two.mine.pk}/players/add/", {"name": "王小明", "unit": "七中"})
    two.room.post(f"/organizer/t/{two.mine.pk}/players/links/")
    victims_account = two.victim.user
    assert victims_account is not None
    for entry in two.mine.entries.all():
        phone = web(None, "192.168.1.99")
        phone.post(f"/p/{entry.access_key}/")
        assert phone.session.get("_auth_user_id") != str(victims_account.pk)
        game = two.victims_game
        assert game is not None
        resigned = phone.post(f"/api/games/{game.pk}/resign/", {}, content_type="application/json")
        assert resigned.status_code in (401, 403)
    game = Game.objects.get(pk=two.victims_game.pk) if two.victims_game else None
    assert game is not None and game.status == "playing"


def test_a_link_reaches_only_its_organizers_tournaments_even_for_a_shared_player() -> None:
    """High (1), the link half: a register player a site organizer entered in two hosts' events. Host A's link
    signs them in, and that session neither moves nor resigns in host B's game, nor lists it on /me/; host B's
    own link does."""
    site = account("federation", ORGANIZER)
    host_a, host_b = account("host-a", HOST), account("host-b", HOST)
    shared = Player.objects.create(name="Register player", unit="Federation")  # the register: no keeper
    theirs = services.tournament_create(name="B online", actor=host_b, mode="online", time_control="quick")
    mine = services.tournament_create(name="A cup", actor=host_a)
    for tournament, others in ((theirs, ("B1", "B2", "B3")), (mine, ("A1",))):
        services.register(tournament=tournament, player=shared, actor=site)
        for name in others:
            registration.entry_add(tournament=tournament, name=name, actor=site)
    stage = theirs.stages.get()
    services.draw_stage(stage=stage, seed=3)
    services.start_stage(stage=stage)
    game = Game.objects.filter(match_game__match__tournament=theirs, status="playing").filter(
        player_one=shared
    ).first() or Game.objects.get(match_game__match__tournament=theirs, status="playing", player_two=shared)
    a_link = registration.access_key_new(entry=mine.entries.get(player=shared), actor=host_a).access_key
    b_link = registration.access_key_new(entry=theirs.entries.get(player=shared), actor=host_b).access_key

    phone_a = web(None, "192.168.1.91")
    phone_a.post(f"/p/{a_link}/")
    seat = 1 if game.player_one_id == shared.pk else 2
    refused = phone_a.post(f"/api/games/{game.pk}/resign/", {"seat": seat}, content_type="application/json")
    console = phone_a.get("/me/").content.decode()

    assert refused.status_code == 403 and refused.json()["code"] == "link_scope"
    assert f"/g/{game.pk}/" not in console
    assert Game.objects.get(pk=game.pk).status == "playing"
    phone_b = web(None, "192.168.1.92")
    phone_b.post(f"/p/{b_link}/")
    assert f"/g/{game.pk}/" in phone_b.get("/me/").content.decode()
    assert phone_b.post(f"/api/games/{game.pk}/resign/", {}, content_type="application/json").status_code == 200


def test_renaming_or_re_rating_a_shared_player_is_refused_and_the_other_tournament_keeps_the_name() -> None:
    """High (1): the host renamed the shared player and changed their rating from its own players page, and the
    other tournament showed the new name."""
    site = account("federation", ORGANIZER)
    host_a, host_b = account("host-a", HOST), account("host-b", HOST)
    shared = Player.objects.create(name="Li Lei", unit="Club", rating=2100)
    mine = services.tournament_create(name="A cup", actor=host_a)
    theirs = services.tournament_create(name="B cup", actor=host_b)
    services.publish(tournament=theirs)
    for tournament in (mine, theirs):
        services.register(tournament=tournament, player=shared, actor=site)
    entry = mine.entries.get(player=shared)

    answer = web(host_a).post(
        f"/organizer/t/{mine.pk}/players/edit/", {"entry": entry.pk, "name": "Renamed", "unit": "X", "rating": 900}
    )
    page = web(None).get(f"/t/{theirs.pk}/").content.decode()
    players_page = web(host_a).get(f"/organizer/t/{mine.pk}/players/").content.decode()

    shared.refresh_from_db()
    assert answer.status_code == 302
    assert (shared.name, shared.unit, shared.rating) == ("Li Lei", "Club", 2100)
    assert "Renamed" not in page
    assert "only a site organizer" in players_page


def test_an_organizer_edits_its_own_player_and_a_co_organizer_within_the_one_tournament() -> None:
    """What still works: the host corrects a typo of its own player; a co-organizer of that one tournament too;
    the same co-organizer not once the player also plays in an event only the host runs."""
    host, helper = account("host-a", HOST), account("helper", HOST)
    mine = services.tournament_create(name="A cup", actor=host)
    mine.organizers.add(helper)
    entry = registration.entry_add(tournament=mine, name="Zhang Sna", unit="Club", rating=1500, actor=host)

    registration.entry_edit(entry=entry, name="Zhang San", unit="Club", rating=1550, actor=helper)
    entry.player.refresh_from_db()
    assert (entry.player.name, entry.player.rating) == ("Zhang San", 1550)

    later = services.tournament_create(name="A cup 2", actor=host)
    services.register(tournament=later, player=entry.player, actor=host)  # the host keeps its players
    with pytest.raises(services.TournamentError) as refused:
        registration.entry_edit(entry=entry, name="Zhang Sun", unit="Club", actor=helper)
    assert refused.value.code == "not_your_player"
    registration.entry_edit(entry=entry, name="Zhang Sun", unit="Club", actor=host)


def test_a_self_declared_rating_is_confirmed_only_where_it_shows_in_no_one_elses_event() -> None:
    """Ratings claims stay unverified until a site organizer or the player's own organizer confirms them."""
    site = account("federation", ORGANIZER)
    host_a, host_b = account("host-a", HOST), account("host-b", HOST)
    shared = Player.objects.create(name="Shared")
    mine = services.tournament_create(name="A cup", actor=host_a)
    theirs = services.tournament_create(name="B cup", actor=host_b)
    for tournament in (mine, theirs):
        services.register(tournament=tournament, player=shared, actor=site)
    entry = mine.entries.get(player=shared)
    Entry.objects.filter(pk=entry.pk).update(declared_rating=2600)

    with pytest.raises(services.TournamentError):
        registration.rating_confirm(entry=entry, actor=host_a)
    shared.refresh_from_db()
    assert shared.rating is None
    registration.rating_confirm(entry=entry, actor=site)
    shared.refresh_from_db()
    assert shared.rating == 2600


def test_a_player_with_an_account_of_their_own_is_invited_and_enters_only_by_accepting() -> None:
    """The way a host reaches a player it does not keep: an invitation the player accepts, signed in as
    themselves; the host's answer is the same whoever the player is."""
    host = account("host-a", HOST)
    person = account("wang")
    me = Player.objects.create(name="Wang", user=person)
    kept = Player.objects.create(name="Kept elsewhere", owner=account("host-b", HOST))
    for player in (me, kept):  # both play in a published event elsewhere: their numbers are public
        elsewhere = services.tournament_create(name=f"Where {player.name} plays")
        services.publish(tournament=elsewhere)
        services.register(tournament=elsewhere, player=player)
    mine = services.tournament_create(name="A cup", actor=host)

    first = api(host).post(f"/api/tournaments/{mine.pk}/invite/", {"player": me.pk}, format="json")
    second = api(host).post(f"/api/tournaments/{mine.pk}/invite/", {"player": kept.pk}, format="json")

    nobody = api(host).post(f"/api/tournaments/{mine.pk}/invite/", {"player": 999_999}, format="json")
    assert (nobody.status_code, nobody.json()["code"]) == (404, "no_player")  # a clear refusal, nothing written
    assert first.status_code == second.status_code == 201
    assert first.json()["entry"] is None and second.json()["entry"] is None
    assert not mine.entries.exists()
    invitation = Invitation.objects.get(player=me)
    assert (
        api(host).post(f"/api/invitations/{invitation.pk}/answer/", {"accept": True}, format="json").status_code == 404
    )
    listed = api(person).get("/api/invitations/").json()
    assert [i["tournament"] for i in listed] == [mine.pk]
    assert (
        api(person)
        .post(f"/api/invitations/{invitation.pk}/answer/", {"accept": True}, format="json")
        .json()["accepted"]
    )
    assert mine.entries.get().player == me
    assert not Invitation.objects.get(player=kept).accepted  # nobody can accept for a player without an account


def test_someone_signed_in_with_their_own_account_registers_as_themselves(two: TwoHosts) -> None:
    """Self-registration by a person with a password enters their own player, not a stranger's new one."""
    person = account("zhao")
    me = Player.objects.create(name="Zhao", unit="Home", user=person)
    open_cup = services.tournament_create(name="Open cup", actor=two.host_a)
    registration.registration_configure(tournament=open_cup, check_in=CheckIn.OFF, self_registration=True)
    services.publish(tournament=open_cup)

    web(person).post(f"/t/{open_cup.pk}/register/", {"name": "Anything", "unit": ""})

    assert open_cup.entries.get().player == me


# -- drafts, players, staff, throttles, hosts ----------------------------------------------------------------


def test_a_draft_swiss_round_is_hidden_from_the_api_with_its_reasons_and_editor() -> None:
    """Medium/low (3): anonymous GET /api/swiss/<stage>/ returned an unpublished round's boards, the edit's
    reason and the organizer's username."""
    host = account("secretive-host", HOST)
    swiss = services.tournament_create(name="Swiss", preset="swiss", actor=host, stage_options={"rounds": 3})
    services.publish(tournament=swiss)
    for n in range(6):
        registration.entry_add(tournament=swiss, name=f"S{n}", rating=2000 + n, actor=host)
    stage = swiss.stages.get()
    services.draw_stage(stage=stage, seed=1)
    services.start_stage(stage=stage)
    draft = cycle.round_pair(stage=stage, actor=host)
    first, second = draft.boards[0][0], draft.boards[1][0]
    cycle.round_edit(
        stage=stage,
        number=1,
        action="swap",
        first=first,
        second=second,
        reason="keep S1 away from his coach",
        actor=host,
    )

    for client in (api(None), api(account("stranger")), api(account("other-host", HOST))):
        text = json.dumps(client.get(f"/api/swiss/{stage.pk}/").json())
        assert "keep S1 away" not in text and "secretive-host" not in text
        assert client.get(f"/api/swiss/{stage.pk}/").json()["rounds"] == []
        assert client.get(f"/api/rounds/{stage.pk}/").status_code in (200, 404)
        assert "keep S1 away" not in client.get(f"/api/rounds/{stage.pk}/").content.decode()
    own = api(host).get(f"/api/swiss/{stage.pk}/").json()
    assert own["rounds"][0]["edits"][0]["reason"] == "keep S1 away from his coach"


def test_a_draft_tournaments_players_are_not_public() -> None:
    """Low (7): the draft answered 404, its entrants were served on /api/players/<id>/ and /players/<id>/."""
    host = account("host-a", HOST)
    draft = services.tournament_create(name="Secret draft", actor=host)
    entry = registration.entry_add(tournament=draft, name="Hidden Entrant", unit="Secret club", actor=host)
    pk = entry.player_id

    for client in (web(None), web(account("stranger")), web(account("other-host", HOST))):
        assert client.get(f"/api/players/{pk}/").status_code == 404
        assert client.get(f"/players/{pk}/").status_code == 404
        assert "Hidden Entrant" not in client.get("/api/players/").content.decode()
    assert web(host).get(f"/api/players/{pk}/").status_code == 200
    services.publish(tournament=draft)
    assert web(None).get(f"/api/players/{pk}/").status_code == 200


def test_adding_a_referee_gives_no_group_and_refusals_do_not_tell_accounts_apart() -> None:
    """Low (6): staff-add put the account in the server-wide referee group, and its two refusals told a
    missing username from a link-only one."""
    host = account("host-a", HOST)
    ref = account("ref")
    mine = services.tournament_create(name="A cup", actor=host)
    room = web(host)
    room.post(f"/organizer/t/{mine.pk}/staff-add/", {"username": "ref", "role": "referee"})
    linked = registration.entry_add(tournament=mine, name="Kid", actor=host)
    link_user = registration.account_for_link(entry=registration.access_key_new(entry=linked))
    assert link_user is not None

    missing = room.post(f"/organizer/t/{mine.pk}/staff-add/", {"username": "nobody-here", "role": "referee"})
    link = room.post(f"/organizer/t/{mine.pk}/staff-add/", {"username": link_user.username, "role": "referee"})
    said = [
        [str(m) for m in r.wsgi_request._messages]  # type: ignore[attr-defined]
        for r in (missing, link)
    ]

    assert mine.referees.filter(pk=ref.pk).exists() and not ref.groups.exists()
    assert said[0][0].replace("nobody-here", "X") == said[1][0].replace(link_user.username, "X")
    other = services.tournament_create(name="Elsewhere", actor=account("host-b", HOST))
    assert web(ref).get("/referee/").status_code == 200  # the console of its own tournament
    assert other.pk not in [t.pk for t in web(ref).get("/referee/").context["tournaments"]]


def test_the_token_endpoints_limit_ignores_a_forwarded_for_the_client_writes() -> None:
    """Low (5): DRF keyed its throttle on X-Forwarded-For; a new value each try never met a 429."""
    account("target")
    answers = []
    for n in range(15):
        client = APIClient(REMOTE_ADDR="192.168.1.50", HTTP_X_FORWARDED_FOR=f"10.0.{n}.1")
        answers.append(client.post("/api/auth/token/", {"username": f"u{n}", "password": "x"}).status_code)
    assert 429 in answers


def test_testserver_is_not_an_allowed_host_of_a_running_server() -> None:
    """Low (8): 'testserver' was accepted as a Host and a socket Origin in production."""
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings as s; print(s.ALLOWED_HOSTS)",
        ],
        capture_output=True,
        text=True,
        env={"DJANGO_SETTINGS_MODULE": "config.settings", "PATH": "/usr/bin:/bin", "VAR_DIR": str(settings.VAR_DIR)},
        cwd=str(settings.BASE_DIR),
    )
    assert result.returncode == 0, result.stderr
    assert "testserver" not in result.stdout and "127.0.0.1" in result.stdout


def test_a_link_neither_checks_in_nor_appeals_in_another_organizers_event() -> None:
    """High (1), the link half beyond the game: a register player in two hosts' events, both with check-in
    open. Host A's link checks them in at A's event only: B's check-in (the console's button and the API) and
    an appeal in B's event are refused, and B's check-in button is not on the link's console."""
    site = account("federation", ORGANIZER)
    host_a, host_b = account("host-a", HOST), account("host-b", HOST)
    shared = Player.objects.create(name="Register player")
    events = []
    for host in (host_a, host_b):
        tournament = services.tournament_create(name=f"{host.username} cup", actor=host, check_in=CheckIn.FIRST)
        services.publish(tournament=tournament)
        services.register(tournament=tournament, player=shared, actor=site)
        events.append(tournament)
    mine, theirs = events
    a_link = registration.access_key_new(entry=mine.entries.get(player=shared), actor=host_a).access_key
    phone = web(None, "192.168.1.93")
    phone.post(f"/p/{a_link}/")
    their_entry = theirs.entries.get(player=shared)

    console = phone.get("/me/").content.decode()
    by_button = phone.post(f"/me/check-in/{their_entry.pk}/")
    by_api = phone.post(f"/api/tournaments/{theirs.pk}/check-in/", {}, content_type="application/json")
    appeal = phone.post(
        f"/api/tournaments/{theirs.pk}/appeal/", {"game": 1, "reason": "x"}, content_type="application/json"
    )
    own = phone.post(f"/api/tournaments/{mine.pk}/check-in/", {}, content_type="application/json")

    assert f"/me/check-in/{their_entry.pk}/" not in console
    assert by_button.status_code == 404 and by_api.status_code == 404 and appeal.status_code in (403, 404)
    their_entry.refresh_from_db()
    assert their_entry.checked_in_round == 0
    assert own.status_code == 200 and mine.entries.get(player=shared).checked_in_round == 1
