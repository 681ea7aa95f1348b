"""Live parts that hold forms (the player's check-in, the arbiter's "answered", the control room's waiting
list) change only when their content changes: the CSRF field travels empty and the page fills it, so a
poll of an unchanged part is a 304 and nothing is swapped under a finger."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games.models import Player
from tournament import services
from tournament.models import CheckIn

pytestmark = pytest.mark.django_db


def test_the_consoles_live_part_with_a_check_in_form_is_the_same_on_every_fetch_and_a_304_after() -> None:
    tournament = services.tournament_create(name="Check-in cup", check_in=CheckIn.FIRST)
    user = get_user_model().objects.create_user("phone", password="pw-Strong-2026")
    entry = services.register(tournament=tournament, player=Player.objects.create(name="P01", user=user))
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)

    first, second = client.get("/me/live/"), client.get("/me/live/")
    assert f"/me/check-in/{entry.pk}/" in first.content.decode()
    assert first.content == second.content
    assert re.search(rb'name="csrfmiddlewaretoken" value=""', first.content)
    assert client.get("/me/live/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304

    page = client.get("/me/").content.decode()  # the whole page: the real token, for the part and the form
    token = re.search(r'data-csrf="([^"]+)"', page)
    assert token and re.search(r'name="csrfmiddlewaretoken" value="[^"]+" data-live-csrf', page)

    strict = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    strict.force_login(user)
    given = re.search(r'data-csrf="([^"]+)"', strict.get("/me/").content.decode())
    assert given  # what static/js/live.js puts into the empty field of a fetched part
    sent = strict.post(f"/me/check-in/{entry.pk}/", {"csrfmiddlewaretoken": given.group(1)})
    assert sent.status_code == 302
    entry.refresh_from_db()
    assert entry.checked_in_round == 1
