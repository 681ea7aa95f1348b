"""Fixtures shared by the tournament tests."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client


@pytest.fixture
def organizer() -> Client:
    """The demo tournament loaded, and a client signed in as its organizer."""
    from django.core.management import call_command

    call_command("load_demo", verbosity=0)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(get_user_model().objects.get(username="organizer"))
    return client
