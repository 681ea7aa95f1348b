"""A hostile stranger in the hall, and every role beside them, against every surface (docs/security.md):
self-registration, private links and slips, check-in, the arbiter call, the backup, the user admin, the
per-tournament control room and API, venue mode, CSV, PDF and API bodies. Each attack of the security
review is reproduced here and must fail; each test says which."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import stat
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.models import ArbiterCall, Player
from games.selectors import clock_of
from games.services import GameError, game_act, game_create
from games.services.arbiter import game_answer_arbiter, game_call_arbiter
from tournament import identity, registration, services
from tournament.demo import DEMO_PASSWORD
from tournament.models import CheckIn, Tournament
from tournament.roles import HOST, ORGANIZER, PLAYER, REFEREE, sync_roles
from tournament.tests.helpers import every_template

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    cache.clear()


def account(username: str, role: str | None = None, **fields: Any) -> Any:
    groups = sync_roles()
    user = User.objects.create_user(username, password="pw-Strong-2026", **fields)
    if role:
        user.groups.add(groups[role])
    if role == ORGANIZER:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
    return user


def signed_in(user: Any, address: str = "127.0.0.1") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR=address)
    client.force_login(user)
    return client


def open_registration(name: str = "Open", **fields: Any) -> Tournament:
    tournament = services.tournament_create(name=name, **fields)
    registration.registration_configure(tournament=tournament, check_in=CheckIn.FIRST, self_registration=True)
    return services.publish(tournament=tournament)


def register(tournament: Tournament, address: str = "192.168.1.20", **data: str) -> Any:
    return Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR=address).post(f"/t/{tournament.pk}/register/", data)


# -- self-registration and private links -----------------------------------------------------------------


def test_registering_with_a_known_players_name_and_unit_never_hands_out_their_account() -> None:
    """Critical: /t/<id>/register/ with a name and unit printed on every public page found that player and
    its link signed the stranger into the player's own account."""
    victim = account("zhang")
    owner = Player.objects.create(name="张三", unit="一中", user=victim, rating=2100)
    earlier = services.tournament_create(name="Last year")
    services.register(tournament=earlier, player=owner)
    tournament = open_registration()
    stranger = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="192.168.1.66")

    answer = stranger.post(f"/t/{tournament.pk}/register/", {"name": "张三", "unit": "一中"})
    entry = tournament.entries.get()
    stranger.post(answer["Location"])  # "open my games on this device"

    assert entry.player_id != owner.pk  # a new player, not the known one
    assert stranger.session.get("_auth_user_id") != str(victim.pk)
    assert registration.account_for_link(entry=entry) != victim
    me = stranger.get("/me/").content.decode()
    assert "Last year" not in me


def test_registering_twice_as_an_entered_player_is_refused_and_writes_nothing() -> None:
    tournament = open_registration()
    register(tournament, name="李四", unit="二中")
    before = (Player.objects.count(), tournament.entries.count())
    answer = register(tournament, address="192.168.1.21", name="李四", unit="二中")
    assert answer.status_code == 200 and "already entered" in answer.content.decode()
    assert (Player.objects.count(), tournament.entries.count()) == before


def test_a_stranger_never_becomes_the_organizer_who_also_plays() -> None:
    """Critical: an organizer with a player profile was taken over through self-registration."""
    boss = account("boss", ORGANIZER)
    Player.objects.create(name="王五", unit="棋社", user=boss)
    tournament = open_registration()
    stranger = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="192.168.1.66")
    answer = stranger.post(f"/t/{tournament.pk}/register/", {"name": "王五", "unit": "棋社"})
    stranger.post(answer["Location"], {"switch": "1"})
    assert stranger.get("/organizer/").status_code in (302, 404)
    assert stranger.get("/admin/").status_code == 302  # to the admin's login: not staff
    assert stranger.session.get("_auth_user_id") != str(boss.pk)


@pytest.mark.parametrize("kind", ["password", "staff", "referee"])
def test_a_slip_for_a_player_with_a_real_account_only_checks_in(kind: str) -> None:
    """Critical: a lost slip of a player with an account was that whole account, staff powers included."""
    real = account(f"real-{kind}", REFEREE if kind == "referee" else None, is_staff=kind == "staff")
    if kind == "staff":
        real.set_unusable_password()
        real.save()
    player = Player.objects.create(name="Holder", user=real)
    tournament = services.tournament_create(name="Slips", check_in=CheckIn.FIRST)
    entry = services.register(tournament=tournament, player=player)
    key = registration.access_key_new(entry=entry).access_key
    finder = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="192.168.1.70")

    page = finder.get(f"/p/{key}/").content.decode()
    finder.post(f"/p/{key}/")
    finder.post(f"/p/{key}/check-in/")

    assert "only checks in" in page
    assert "_auth_user_id" not in finder.session
    entry.refresh_from_db()
    assert entry.checked_in_round == 1  # the slip still does its job at the door


def test_a_link_account_has_no_staff_referee_or_other_rights() -> None:
    tournament = services.tournament_create(name="Links")
    entry = services.register(tournament=tournament, player=Player.objects.create(name="Linked"))
    user = registration.account_for_link(entry=registration.access_key_new(entry=entry))
    assert user is not None and identity.link_only(user)
    assert not user.is_staff and not user.is_superuser and not user.has_usable_password()
    assert set(user.groups.values_list("name", flat=True)) == {PLAYER}
    assert not user.has_perm("tournament.organize", tournament)
    assert not user.has_perm("games.override_result")


def test_opening_a_link_while_signed_in_asks_before_replacing_the_session() -> None:
    """Medium: an organizer who opened a player's link from the players page silently became that player."""
    boss = account("boss", ORGANIZER)
    tournament = services.tournament_create(name="Asked")
    entry = services.register(tournament=tournament, player=Player.objects.create(name="Player"))
    key = registration.access_key_new(entry=entry).access_key
    desk = signed_in(boss)

    page = desk.get(f"/p/{key}/").content.decode()
    desk.post(f"/p/{key}/")  # the plain button, no "switch": nothing changes
    assert "This device is signed in as" in page and desk.session["_auth_user_id"] == str(boss.pk)

    desk.post(f"/p/{key}/", {"switch": "1"})  # asked and answered
    assert desk.session["_auth_user_id"] != str(boss.pk)


def test_a_get_of_a_link_signs_nobody_in_or_out() -> None:
    """Low: GET /p/<key>/ acted (an image on another site could sign a browser in or out)."""
    tournament = services.tournament_create(name="Images")
    entry = services.register(tournament=tournament, player=Player.objects.create(name="Shown"))
    key = registration.access_key_new(entry=entry).access_key
    browser = Client()
    assert browser.get(f"/p/{key}/").status_code == 200
    assert "_auth_user_id" not in browser.session


def test_self_registration_is_throttled_per_address_and_names_are_cleaned(settings: Any) -> None:
    """Medium: 40 entries in 5 s from one client; right-to-left overrides and control characters in names."""
    settings.REGISTRATION_RATE = "3/m"
    tournament = open_registration()
    answers = [register(tournament, name=f"Bot {n}").status_code for n in range(5)]
    elsewhere = register(tournament, address="192.168.1.99", name="\u202eevil\u202c\x07 name\u200b")

    assert answers == [302, 302, 302, 429, 429]
    assert elsewhere.status_code == 302
    names = set(tournament.entries.values_list("player__name", flat=True))
    assert "evil name" in names and not any(ch in "".join(names) for ch in "\u202e\u202c\x07\u200b")


def test_a_self_declared_rating_is_unverified_until_the_organizer_confirms_it() -> None:
    """Medium: a self-declared rating of 4000 was taken for seeding."""
    tournament = open_registration()
    register(tournament, name="Boaster", rating="4000")
    entry = tournament.entries.select_related("player").get()
    assert entry.player.rating is None and entry.declared_rating == 4000

    registration.rating_confirm(entry=entry)
    entry.refresh_from_db()
    assert entry.player.rating == 4000 and entry.declared_rating is None


def test_a_tournament_name_over_the_api_is_cleaned_of_control_characters() -> None:
    boss = account("boss", ORGANIZER)
    api = APIClient()
    api.force_authenticate(boss)
    made = api.post("/api/tournaments/", {"name": "Cup\u202e\x07 2026"}, format="json")
    assert made.status_code == 201 and made.json()["name"] == "Cup 2026"


def test_drafts_are_hidden_from_strangers() -> None:
    """Low: /api/tournaments/ listed drafts and /t/<id>/register/ named them."""
    draft = services.tournament_create(name="Secret plans")
    anonymous = APIClient()
    listed = [t["name"] for t in anonymous.get("/api/tournaments/").json()["results"]]
    assert "Secret plans" not in listed
    assert anonymous.get(f"/api/tournaments/{draft.pk}/").status_code == 404
    assert Client().get(f"/t/{draft.pk}/register/").status_code == 404


# -- per-tournament organizers ---------------------------------------------------------------------------


def test_an_organizer_of_one_tournament_cannot_touch_another() -> None:
    """Medium: organizers were global; a second organizer acted on every tournament."""
    theirs_user = account("host-b", HOST)
    mine = services.tournament_create(name="Club A cup")
    services.register(tournament=mine, player=Player.objects.create(name="A1"))
    services.register(tournament=mine, player=Player.objects.create(name="A2"))
    theirs = services.tournament_create(name="Club B cup", actor=theirs_user)
    web = signed_in(theirs_user, "192.168.1.5")
    api = APIClient(REMOTE_ADDR="192.168.1.5")
    api.force_authenticate(theirs_user)

    assert web.get(f"/organizer/t/{theirs.pk}/").status_code == 200  # their own: yes
    for path in ("", "players/", "waiting/", "players/slips/"):
        assert web.get(f"/organizer/t/{mine.pk}/{path}").status_code == 404, path
    assert web.post(f"/organizer/t/{mine.pk}/publish/").status_code == 404
    assert web.get(f"/t/{mine.pk}/pdf/slips.pdf").status_code == 404
    assert api.post(f"/api/tournaments/{mine.pk}/publish/", {}, format="json").status_code in (403, 404)
    assert api.post(f"/api/tournaments/{mine.pk}/draw/", {"stage": 1}, format="json").status_code in (403, 404)
    assert web.post("/organizer/backup/").status_code == 404
    mine.refresh_from_db()
    assert mine.status == Tournament.Status.DRAFT and not mine.stages.exclude(status="pending").exists()
    listed = web.get("/organizer/").content.decode()
    assert "Club B cup" in listed and "Club A cup" not in listed


def test_an_organizer_adds_a_co_organizer_and_a_referee_from_the_control_room() -> None:
    host = account("host", HOST)
    helper = account("helper")
    ref = account("ref")
    tournament = services.tournament_create(name="Shared", actor=host)
    room = signed_in(host)
    room.post(f"/organizer/t/{tournament.pk}/staff-add/", {"username": "helper", "role": "organizer"})
    room.post(f"/organizer/t/{tournament.pk}/staff-add/", {"username": "ref", "role": "referee"})
    assert signed_in(helper).get(f"/organizer/t/{tournament.pk}/").status_code == 200
    assert tournament.referees.filter(pk=ref.pk).exists() and not ref.groups.filter(name=REFEREE).exists()
    linked = services.register(tournament=tournament, player=Player.objects.create(name="Kid"))
    link_user = registration.account_for_link(entry=registration.access_key_new(entry=linked))
    assert link_user is not None
    room.post(f"/organizer/t/{tournament.pk}/staff-add/", {"username": link_user.username, "role": "organizer"})
    assert not tournament.organizers.filter(pk=link_user.pk).exists()  # a link account is never staff


# -- backups ---------------------------------------------------------------------------------------------


def test_the_backup_is_a_logged_post_for_superusers_without_sessions_or_tokens(settings: Any) -> None:
    """High: the backup was a GET for any organizer and a set of live logins (sessions and tokens)."""
    boss = account("boss", ORGANIZER)
    root = User.objects.create_superuser("root", password="pw-Strong-2026")
    Token.objects.create(user=boss)
    session_client = Client(REMOTE_ADDR="127.0.0.1")
    session_client.force_login(boss)
    lan_boss = signed_in(boss, "192.168.1.5")

    assert lan_boss.post("/organizer/backup/").status_code == 404  # an organizer on the Wi-Fi: no
    assert signed_in(root, "192.168.1.9").get("/organizer/backup/").status_code == 302  # a GET does nothing
    answer = signed_in(root, "192.168.1.9").post("/organizer/backup/")

    assert answer.status_code == 200 and answer.content.startswith(b"SQLite format 3\x00")
    files = list(Path(settings.BACKUP_DIR).glob("backup-*"))
    assert len(files) == 1
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(Path(settings.BACKUP_DIR).stat().st_mode) == 0o700
    copy = sqlite3.connect(str(files[0]))
    try:
        sessions = copy.execute("SELECT count(*) FROM django_session").fetchone()[0]
        tokens = copy.execute("SELECT count(*) FROM authtoken_token").fetchone()[0]
        raw = files[0].read_bytes()
    finally:
        copy.close()
    assert (sessions, tokens) == (0, 0)
    assert session_client.session.session_key.encode() not in raw  # vacuumed: no stale page keeps it


# -- the user admin --------------------------------------------------------------------------------------


def test_an_organizer_cannot_raise_itself_or_touch_a_stronger_account() -> None:
    """High: the organizer group's auth.change_user let it set is_superuser and reset any password."""
    boss = account("boss", ORGANIZER)
    root = User.objects.create_superuser("root", password="pw-Strong-2026")
    other_boss = account("boss2", ORGANIZER)
    kid = account("kid", PLAYER)
    admin = signed_in(boss)
    organizer_group = Group.objects.get(name=ORGANIZER)

    for target in (boss, root, other_boss):
        assert admin.get(f"/admin/auth/user/{target.pk}/password/").status_code == 403
        admin.post(
            f"/admin/auth/user/{target.pk}/change/",
            {"username": target.username, "is_superuser": "on", "is_staff": "on", "groups": [organizer_group.pk]},
        )
    page = admin.get(f"/admin/auth/user/{kid.pk}/change/").content.decode()
    admin.post(
        f"/admin/auth/user/{kid.pk}/change/",
        {
            "username": "kid",
            "first_name": "Kid",
            "is_active": "on",
            "is_superuser": "on",
            "is_staff": "on",
            "groups": [organizer_group.pk],
            "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00",
        },
    )

    boss.refresh_from_db()
    kid.refresh_from_db()
    assert not boss.is_superuser and User.objects.get(pk=root.pk).check_password("pw-Strong-2026")
    assert 'name="is_superuser"' not in page and 'name="user_permissions"' not in page
    assert not kid.is_superuser and not kid.is_staff
    assert not kid.groups.filter(name=ORGANIZER).exists()
    assert admin.get(f"/admin/auth/user/{kid.pk}/password/").status_code == 200  # a player's: allowed


# -- venue mode ------------------------------------------------------------------------------------------


def test_venue_check_refuses_while_an_account_has_the_demo_password() -> None:
    """Critical: make venue served the demo accounts (organizer / demo-pass-2026) to the hall."""
    call_command("load_demo", verbosity=0)
    with pytest.raises(CommandError, match="demo password"):
        call_command("venue_check", verbosity=0)
    call_command("venue_check", "--lock-demo", verbosity=0)
    assert not Client().login(username="organizer", password=DEMO_PASSWORD)
    call_command("venue_check", verbosity=0)  # now it passes


def test_createorganizer_refuses_the_demo_password_and_makes_a_site_organizer(monkeypatch: Any) -> None:
    monkeypatch.setenv("ORG_PW", DEMO_PASSWORD)
    with pytest.raises(CommandError, match="demo password"):
        call_command("createorganizer", "--username", "chief", "--password-from", "ORG_PW")
    monkeypatch.setenv("ORG_PW", "a-Long-own-pass-2026")
    call_command("createorganizer", "--username", "chief", "--password-from", "ORG_PW")
    chief = User.objects.get(username="chief")
    assert (
        chief.is_staff and chief.groups.filter(name=ORGANIZER).exists() and chief.check_password("a-Long-own-pass-2026")
    )


@override_settings(VENUE=True, ALLOWED_HOSTS=["*"])
def test_in_venue_mode_the_admin_answers_the_servers_own_machine_only() -> None:
    assert Client(REMOTE_ADDR="192.168.1.40").get("/admin/login/").status_code == 404
    assert Client(REMOTE_ADDR="127.0.0.1").get("/admin/login/").status_code == 200


@pytest.mark.slow
def test_make_venue_does_not_start_with_demo_passwords(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL", "VENUE")},
        "VAR_DIR": str(tmp_path),
        "PORT": "18999",
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v0"], cwd=ROOT, env=env, check=True)
    create = "from django.contrib.auth.models import User; User.objects.create_user('organizer', password=%r)"
    subprocess.run([sys.executable, "manage.py", "shell", "-c", create % DEMO_PASSWORD], cwd=ROOT, env=env, check=True)
    done = subprocess.run(
        [sys.executable, "scripts/run.py", "--venue"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert "demo password" in done.stdout + done.stderr and "not started" in done.stdout


# -- arbiter calls ---------------------------------------------------------------------------------------


def online_game() -> tuple[Any, Player, Player]:
    one, two = Player.objects.create(name="One"), Player.objects.create(name="Two")
    game = game_create(player_one=one, player_two=two, mode="online", time_control="quick")
    return game_act(game_id=game.pk, player=one, action="place h8", expected_ply=0), one, two


def test_arbiter_calls_are_limited_per_player_and_game(settings: Any) -> None:
    """Medium: either player could call any number of times, each a free clock stop."""
    settings.ARBITER_CALLS_PER_GAME = 2
    game, one, two = online_game()
    referee = account("ref", REFEREE)
    game.referees.add(referee)
    at = timezone.now()
    for n in range(2):
        call = game_call_arbiter(game_id=game.pk, player=two, at=at + timedelta(seconds=10 * n))
        game_answer_arbiter(call_id=call.pk, actor=referee, justified=True, at=at + timedelta(seconds=10 * n + 1))
    with pytest.raises(GameError) as third:
        game_call_arbiter(game_id=game.pk, player=two, at=at + timedelta(seconds=30))
    assert third.value.code == "too_many_calls"
    assert game_call_arbiter(game_id=game.pk, player=one, at=at + timedelta(seconds=31)).pk  # the other's own two
    assert ArbiterCall.objects.filter(game=game).count() == 3


def test_a_call_on_ones_own_turn_is_charged_unless_ruled_justified() -> None:
    """Medium: on their own turn a player gained ~5 s of thinking per call."""
    game, _one, two = online_game()  # Two is to move: their clock runs
    referee = account("ref", REFEREE)
    game.referees.add(referee)
    at = timezone.now()
    view_before = clock_of(game)
    call = game_call_arbiter(game_id=game.pk, player=two, at=at)
    assert call.on_callers_turn
    game_answer_arbiter(call_id=call.pk, actor=referee, at=at + timedelta(seconds=20))
    game.refresh_from_db()
    charged = clock_of(game)
    assert charged.pause is None and charged.paused_since is None
    # the turn clock runs again from the moment of the call: the 20 s are Two's
    assert charged.turn_started <= int(at.timestamp() * 1000) + 1
    assert view_before.actor == charged.actor == 1

    other, _o1, two2 = online_game()
    other.referees.add(referee)
    justified = game_call_arbiter(game_id=other.pk, player=two2, at=at)
    game_answer_arbiter(call_id=justified.pk, actor=referee, justified=True, at=at + timedelta(seconds=20))
    other.refresh_from_db()
    assert clock_of(other).turn_started >= int((at + timedelta(seconds=20)).timestamp() * 1000) - 1


def test_a_practice_game_has_no_arbiter_to_call() -> None:
    from games.services.practice import practice_start

    human = Player.objects.create(name="Learner", user=account("learner", PLAYER))
    game = practice_start(player=human, level=1, seat=2)
    with pytest.raises(GameError) as refused:
        game_call_arbiter(game_id=game.pk, player=human)
    assert refused.value.code == "no_arbiter"


def test_the_arbiter_call_form_never_redirects_off_site() -> None:
    """Low: the form followed any next URL."""
    game, one, _two = online_game()
    user = account("one-user", PLAYER)
    Player.objects.filter(pk=one.pk).update(user=user)
    answer = signed_in(user).post(f"/g/{game.pk}/call-arbiter/", {"next": "https://evil.example/phish"})
    assert answer.status_code == 302 and answer["Location"] == "/me/"


# -- what comes out: CSV, PDF, API bodies, headers ---------------------------------------------------------


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised() -> None:
    """Low: a self-registered name became a formula in the organizer's spreadsheet."""
    tournament = services.tournament_create(name="Formulas", preset="seed")
    for name in ('=HYPERLINK("http://evil","x")', "+1", "@SUM(A1)", "-2", "Plain"):
        services.register(tournament=tournament, player=Player.objects.create(name=name))
    for n in range(3):
        services.register(tournament=tournament, player=Player.objects.create(name=f"Filler {n}"))
    services.draw_stage(stage=tournament.stages.get(), seed=1)
    services.publish(tournament=tournament)
    text = Client().get(f"/t/{tournament.pk}/standings.csv").content.decode("utf-8-sig")
    players = {row[3] for row in csv.reader(io.StringIO(text)) if len(row) > 3}
    assert '\'=HYPERLINK("http://evil","x")' in players and "'+1" in players and "'@SUM(A1)" in players
    assert "'-2" in players and "Plain" in players
    assert not any(p.startswith(("=", "+", "@", "-")) for p in players)


def test_a_pdf_is_rendered_once_per_state_and_renders_are_limited(settings: Any, monkeypatch: Any) -> None:
    """Low: PDFs were rendered afresh for every anonymous request, unthrottled."""
    from tournament import pdf

    renders: list[str] = []

    def render(request: Any, html: str) -> bytes:
        renders.append(html)
        return b"%PDF-1.7 test"

    monkeypatch.setattr(pdf, "_render", render)
    settings.PDF_RATE = "2/m"
    tournament = services.tournament_create(name="Sheets")
    services.publish(tournament=tournament)
    crowd = [Client(REMOTE_ADDR="192.168.1.80").get(f"/t/{tournament.pk}/pdf/standings.pdf") for _ in range(5)]
    assert [r.status_code for r in crowd] == [200] * 5 and len(renders) == 1  # one render, four from the cache
    greedy = Client(REMOTE_ADDR="192.168.1.81")
    statuses = [greedy.get(f"/t/{tournament.pk}/pdf/certificates.pdf?places={n}").status_code for n in range(1, 5)]
    assert statuses.count(429) >= 1 and statuses[:1] == [200]


def test_deeply_nested_json_is_a_bad_request_not_a_server_error() -> None:
    """Low: 200 KB of brackets answered 500 (RecursionError)."""
    user = account("nester", ORGANIZER)
    api = APIClient()
    api.force_authenticate(user)
    body = "[" * 100_000 + "]" * 100_000
    answer = api.post("/api/tournaments/", body, content_type="application/json")
    assert answer.status_code == 400 and answer.json()["message"]
    assert json.loads(json.dumps({"ok": 1}))  # the ordinary parser path is untouched


def test_every_page_carries_a_content_security_policy_without_inline_script() -> None:
    answer = Client().get("/")
    policy = answer["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
    inline = []
    for template in every_template():
        text = template.read_text()
        for piece in text.split("<script")[1:]:
            tag = piece.split(">", 1)[0]
            if "src=" not in tag and "application/json" not in tag:
                inline.append(template.name)
        if " onclick=" in text or " onload=" in text or " onerror=" in text or "javascript:" in text:
            inline.append(template.name)
    assert inline == []


def test_self_registrations_can_wait_for_the_organizers_approval() -> None:
    """Self-registration: entries optionally held for the organizer's approval (Tabbycat's way)."""
    tournament = open_registration()
    registration.registration_configure(
        tournament=tournament, check_in=CheckIn.FIRST, self_registration=True, registration_approval=True
    )
    for n in range(3):
        services.register(tournament=tournament, player=Player.objects.create(name=f"Known {n}"))
    answer = register(tournament, name="Walk-in")
    entry = tournament.entries.get(player__name="Walk-in")
    phone = Client(HTTP_ACCEPT_LANGUAGE="en")
    page = phone.get(answer["Location"]).content.decode()
    phone.post(f"{answer['Location']}check-in/")

    assert entry.pending and "awaits the organizer's approval" in page
    entry.refresh_from_db()
    assert entry.checked_in_round == 0  # not before approval
    with pytest.raises(GameError) as refused:
        services.draw_stage(stage=tournament.stages.get())
    assert refused.value.code == "pending_entries"
    registration.entry_approve(entry=entry)
    registration.check_in(entry=entry)
    entry.refresh_from_db()
    assert not entry.pending and entry.checked_in_round == 1


def test_behind_a_proxy_on_the_same_machine_loopback_is_trusted_for_nothing(settings: Any) -> None:
    """With HTTPS behind a local proxy every request comes from 127.0.0.1: then loopback earns no exemption
    (login waits apply, the venue admin stays closed, a site organizer gets no backup)."""
    settings.TRUST_LOOPBACK = False
    settings.VENUE = True
    settings.ALLOWED_HOSTS = ["*"]
    account("target")
    boss = account("boss", ORGANIZER)
    proxied = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="127.0.0.1")
    for _attempt in range(5):
        proxied.post("/accounts/login/", {"username": "target", "password": "wrong"})
    blocked = proxied.post("/accounts/login/", {"username": "target", "password": "pw-Strong-2026"})

    assert b"Too many failed attempts" in blocked.content
    assert Client(REMOTE_ADDR="127.0.0.1").get("/admin/login/").status_code == 404
    assert signed_in(boss, "127.0.0.1").post("/organizer/backup/").status_code == 404


def test_behind_a_proxy_limits_count_the_clients_address_from_its_header(settings: Any) -> None:
    settings.CLIENT_IP_HEADER = "X-Real-IP"
    settings.REGISTRATION_RATE = "2/m"
    tournament = open_registration()

    def via_proxy(client_ip: str, name: str) -> Any:  # the proxy on this machine: every peer is 127.0.0.1
        return Client(HTTP_X_REAL_IP=client_ip, REMOTE_ADDR="127.0.0.1").post(
            f"/t/{tournament.pk}/register/", {"name": name}
        )

    one = [via_proxy("203.0.113.7", f"A{n}") for n in range(3)]
    other = via_proxy("203.0.113.8", "B")
    assert [r.status_code for r in one] == [302, 302, 429] and other.status_code == 302


def test_staff_changes_with_bad_input_are_refused_in_words_and_change_nothing() -> None:
    from tournament import staff

    host = account("host", HOST)
    tournament = services.tournament_create(name="Careful", actor=host)
    for username, role, code in (("nobody", "organizer", "no_account"), ("host", "captain", "bad_role")):
        with pytest.raises(GameError) as refused:
            staff.staff_add(tournament=tournament, username=username, role=role, actor=host)
        assert refused.value.code == code and refused.value.message
    with pytest.raises(GameError) as last:
        staff.staff_remove(tournament=tournament, user_id=host.pk, role="organizer", actor=host)
    assert last.value.code == "last_organizer"
    room = signed_in(host).post(f"/organizer/t/{tournament.pk}/staff-add/", {"username": "", "role": "x"}, follow=True)
    assert room.status_code == 200 and "Unknown role" in room.content.decode()
    assert list(tournament.organizers.all()) == [host] and not tournament.referees.exists()


ODD_NUMBERS = ["²", "١٢", "9" * 5000, "-1", "1e3", " 7"]


@pytest.mark.parametrize("odd", ODD_NUMBERS)
def test_odd_numbers_in_addresses_and_forms_are_refused_not_a_server_error(odd: str) -> None:
    """``"²".isdigit()`` is true and ``int("²")`` fails; so does ``int`` of 5,000 digits: each was a 500."""
    from urllib.parse import quote

    from config.live_guard import admit

    player = account("oddity", PLAYER)
    Player.objects.create(name="Oddity", user=player)
    token = Token.objects.create(user=player)
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en", HTTP_AUTHORIZATION=f"Token {token.key}")
    move = api.post(f"/api/games/{quote(odd)}/move/", {"ply": 0, "point": "h8"}, format="json")
    assert move.status_code == 404 and move.json()["code"] == "not_found"
    assert api.post(f"/api/games/{quote(odd)}/resign/", {}, format="json").status_code == 404

    tournament = services.publish(tournament=services.tournament_create(name="Odd"))
    assert Client().get(f"/t/{tournament.pk}/screen/", {"seconds": odd}).status_code == 200
    assert admit({"headers": []}, f"game:{odd}") is None

    organizer = signed_in(account("odd-organizer", ORGANIZER))
    for action, field in (("start", "stage"), ("answer-call", "call"), ("staff-remove", "user")):
        answer = organizer.post(f"/organizer/t/{tournament.pk}/{action}/", {field: odd})
        assert answer.status_code in (302, 404), (action, answer.status_code)


@pytest.mark.parametrize("odd", ["²", "١٢", "9" * 5000, "1e3"])  # not a number, whatever the reader strips
def test_odd_numbers_in_the_swiss_team_and_rating_forms_are_refused_not_a_crash(odd: str) -> None:
    """The same odd numbers in the readers behind the Swiss control panel, a captain's lineup and the team
    and RenjuNet imports: refused, or read as nothing, never a ValueError."""
    from urllib.parse import urlencode

    from django.http import QueryDict

    from ratings.renjunet import _tournament_end
    from tournament.errors import TournamentError
    from tournament.swiss.control import _int
    from tournament.teams.selectors import _id
    from tournament.teams.views import _number, _player_lines

    form = QueryDict(urlencode({"round": odd}))
    with pytest.raises(TournamentError):
        _int(form, "round")
    assert _number(odd) == _id(odd) == 0
    with pytest.raises(TournamentError):
        _player_lines(f"Ann, Club, {odd}")
    assert _tournament_end({"year": odd, "month": "3"}) is None
