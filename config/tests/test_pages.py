import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import translation

from games.models import Game, GameEvent
from tournament.demo import demo_accounts
from tournament.roles import sync_roles


@pytest.mark.django_db
def test_home_page_in_chinese_by_default(client: Client) -> None:
    response = client.get("/")

    assert response.status_code == 200
    assert 'lang="zh-hans"' in response.content.decode()


@pytest.mark.django_db
def test_home_page_switches_to_english(client: Client) -> None:
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})

    response = client.get("/")

    assert 'lang="en"' in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("/api/schema/", ["openapi: 3", "/api/games/{id}/move/:", "/api/tournaments/"]),
        ("/api/docs/", ["swagger-ui", '<script src="/api/docs/?script=">']),  # its script a file (the CSP)
        ("/api/docs/?script=", ["/api/schema/", "SwaggerUIBundle"]),
        ("/admin/login/", ['name="username"', 'name="password"', "csrfmiddlewaretoken"]),
    ],
)
def test_public_entry_points_answer(client: Client, url: str, expected: list[str]) -> None:
    response = client.get(url)

    assert response.status_code == 200
    text = response.content.decode()
    assert [part for part in expected if part not in text] == []


@pytest.mark.django_db
def test_load_demo_is_idempotent() -> None:
    from django.core.management import call_command

    call_command("load_demo")
    call_command("load_demo")

    assert User.objects.count() == len(demo_accounts()) == 25
    assert User.objects.filter(groups__name="player").count() == 22
    assert User.objects.filter(groups__name="referee").count() == 2
    assert list(User.objects.filter(is_staff=True).values_list("username", flat=True)) == ["organizer"]


@pytest.mark.django_db
def test_api_token_and_whoami_for_demo_player(client: Client) -> None:
    from django.core.management import call_command

    call_command("load_demo")

    token = client.post("/api/auth/token/", {"username": "player01", "password": "demo-pass-2026"}).json()
    response = client.get("/api/me/", HTTP_AUTHORIZATION=f"Token {token['token']}")

    from games.models import Player

    player01 = Player.objects.get(user__username="player01")
    assert response.json() == {"username": "player01", "roles": ["player"], "player": player01.pk}


@pytest.mark.django_db
def test_roles_are_groups() -> None:
    groups = sync_roles()

    assert sorted(groups) == ["host", "organizer", "player", "referee"]
    assert set(groups["host"].permissions.values_list("codename", flat=True)) == {"add_tournament"}


@pytest.mark.django_db
def test_organizer_sees_games_in_admin(client: Client) -> None:
    from django.core.management import call_command

    call_command("load_demo")
    client.login(username="organizer", password="demo-pass-2026")

    games = client.get("/admin/games/game/")
    events = client.get("/admin/games/gameevent/")

    assert games.status_code == events.status_code == 200
    shown = games.content.decode()
    assert all(f"/admin/games/game/{pk}/change/" in shown for pk in Game.objects.values_list("pk", flat=True)[:20])
    with translation.override("zh-hans"):
        created = str(GameEvent.Kind.CREATED.label)  # an event's kind shown by its label, in the page's language
    assert created in events.content.decode()


@pytest.mark.django_db
def test_home_page_speaks_chinese_and_english(client: Client) -> None:
    chinese = client.get("/").content.decode()
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    english = client.get("/").content.decode()

    assert "五子棋与连珠比赛" in chinese
    assert "Renju tournaments" in english and "五子棋与连珠比赛" not in english
