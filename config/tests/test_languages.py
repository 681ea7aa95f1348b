"""A language chosen per device and per person: the header's switch sets the device's cookie and, for a
signed-in person, keeps the choice on their account, which any device without a choice of its own follows
from sign-in on. A stranger cannot set anyone else's choice, nor a language the site does not have."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client

from config.models import Preference

PASSWORD = "languages-pass-1"
pytestmark = pytest.mark.django_db


def person(username: str) -> Any:
    return get_user_model().objects.create_user(username, password=PASSWORD)


def device(accept: str = "en") -> Client:
    return Client(HTTP_ACCEPT_LANGUAGE=accept)


def signed_in(user: Any, accept: str = "en") -> Client:
    client = device(accept)
    answer = client.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
    assert answer.status_code == 302
    return client


def lang_of(client: Client, path: str = "/") -> str:
    page = client.get(path).content.decode()
    return page.split('<html lang="', 1)[1].split('"', 1)[0]


def test_a_persons_choice_follows_them_to_a_device_that_made_none() -> None:
    user = person("traveller")
    laptop = signed_in(user)
    assert lang_of(laptop) == "en"
    laptop.post("/i18n/setlang/", {"language": "ru", "next": "/"})
    assert lang_of(laptop) == "ru"
    assert Preference.objects.get(user=user).language == "ru"
    phone = device("zh-hans")  # a new phone asking for Chinese: Chinese until they sign in
    assert lang_of(phone) == "zh-hans"
    phone.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
    assert lang_of(phone) == "ru"
    assert lang_of(phone, "/accounts/login/") == "ru"


def test_a_devices_own_choice_stands_over_the_persons() -> None:
    user = person("sharer")
    Preference.objects.create(user=user, language="ja")
    hall_screen = device()
    hall_screen.post("/i18n/setlang/", {"language": "zh-hant", "next": "/"})  # chosen before anyone signed in
    hall_screen.post("/accounts/login/", {"username": user.username, "password": PASSWORD})
    assert lang_of(hall_screen) == "zh-hant"
    assert Preference.objects.get(user=user).language == "ja"  # the device's choice was not theirs


def test_a_stranger_switching_sets_only_their_own_device() -> None:
    someone = person("someone")
    Preference.objects.create(user=someone, language="ja")
    stranger = device()
    stranger.post("/i18n/setlang/", {"language": "ru", "next": "/", "user": someone.pk})
    assert lang_of(stranger) == "ru"
    assert Preference.objects.get(user=someone).language == "ja"
    assert Preference.objects.count() == 1
    assert lang_of(signed_in(someone)) == "ja"


@pytest.mark.parametrize("bad", ["xx", "", "zh-hans' onload='x", "de"])
def test_a_language_the_site_does_not_have_changes_nothing(bad: str) -> None:
    user = person("prober")
    client = signed_in(user)
    client.post("/i18n/setlang/", {"language": "ja", "next": "/"})
    client.post("/i18n/setlang/", {"language": bad, "next": "/"})
    assert Preference.objects.get(user=user).language == "ja"
    assert lang_of(client) == "ja"


def test_the_switch_does_not_send_anyone_off_the_site() -> None:
    answer = device().post("/i18n/setlang/", {"language": "ja", "next": "https://evil.example/"})
    assert answer.status_code == 302
    assert not answer["Location"].startswith("https://evil.example")


def test_the_switch_needs_the_pages_csrf_token() -> None:
    user = person("forged")
    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    assert client.post("/i18n/setlang/", {"language": "ru", "next": "/"}).status_code == 403
    assert not Preference.objects.filter(user=user).exists()


def test_every_language_is_offered_in_the_header() -> None:
    page = device().get("/").content.decode()
    for code, _name in settings.LANGUAGES:
        assert f'<option value="{code}"' in page
