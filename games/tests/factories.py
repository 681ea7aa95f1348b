"""Test factories: accounts (with a role), players, and games made through the service that makes them."""

from __future__ import annotations

from typing import Any

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from games.models import Game, Player


class UserFactory(factory.django.DjangoModelFactory):
    """An account; ``role="player"|"referee"|"organizer"`` puts it in that group (organizers are staff)."""

    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True  # role() saves what it changes

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("pw-test-1")

    @factory.post_generation
    def role(self, create: bool, extracted: str | None, **kwargs: Any) -> None:
        if not create or not extracted:
            return
        group, _created = Group.objects.get_or_create(name=extracted)
        self.groups.add(group)
        if extracted == "organizer":
            self.is_staff = True
            self.save(update_fields=["is_staff"])


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    name = factory.Sequence(lambda n: f"Player {n}")
    unit = "Demo club"


class GameFactory(factory.django.DjangoModelFactory):
    """A game between two new players, made by :func:`games.services.game_create` (so its clock, opening
    and events are what the service makes); any of the service's arguments may be given."""

    class Meta:
        model = Game

    player_one = factory.SubFactory(PlayerFactory)
    player_two = factory.SubFactory(PlayerFactory)
    rules = "freestyle"

    @classmethod
    def _create(cls, model_class: type[Game], *args: Any, **kwargs: Any) -> Game:
        from games.services import game_create

        return game_create(**kwargs)
