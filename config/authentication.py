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


def token_expired(token: Token) -> bool:
    return bool(timezone.now() - token.created > timedelta(hours=settings.API_TOKEN_HOURS))


class ExpiringTokenAuthentication(TokenAuthentication):
    """``Authorization: Token …``, valid for ``API_TOKEN_HOURS`` after it was issued."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        user, token = super().authenticate_credentials(key)
        if token_expired(token):
            raise exceptions.AuthenticationFailed(_("The token has expired; ask for a new one."))
        return user, token
