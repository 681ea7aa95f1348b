"""API authentication (kept apart from views: DRF imports it while loading its own views)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from games.prepared import Prepared


def token_expired(token: Token) -> bool:
    return bool(timezone.now() - token.created > timedelta(hours=settings.API_TOKEN_HOURS))


_TOKEN: Prepared[Token] = Prepared(lambda key: Token.objects.select_related("user", "user__player").filter(key=key))


class ExpiringTokenAuthentication(TokenAuthentication):
    """``Authorization: Token …``, valid for ``API_TOKEN_HOURS`` after it was issued. The user's player is
    read with the token (one query, not two, for a move: games.access.player_of), by SQL compiled once."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        token = _TOKEN.first(key)
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        if token_expired(token):
            raise exceptions.AuthenticationFailed(_("The token has expired; ask for a new one."))
        return token.user, token
