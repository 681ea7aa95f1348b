"""Hardening: expiring API tokens, rate limits on logins and on moves.

Rate limits count in the cache (Redis when configured). If the cache is
unreachable the limits fail open and log it: a tournament in progress must
not stop because its rate limiter is down.
"""

from __future__ import annotations

import logging
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle

from config.authentication import token_expired

logger = logging.getLogger(__name__)


# -- tokens ------------------------------------------------------------------------


class LoginThrottle(AnonRateThrottle):
    scope = "login"


class ObtainToken(ObtainAuthToken):
    """A token for a username and password; an expired token is replaced by a fresh one."""

    throttle_classes = [LoginThrottle]

    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = request.data if hasattr(request.data, "get") else {}
        username = str(data.get("username", ""))
        blocked = login_blocked(request, username)
        if blocked:
            raise exceptions.Throttled(wait=blocked, detail=too_many_attempts(blocked))
        serializer = self.get_serializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        user = serializer.validated_data["user"]
        token, created = Token.objects.get_or_create(user=user)
        if not created and token_expired(token):
            token.delete()
            token = Token.objects.create(user=user)
        return Response({"token": token.key})


# -- failed logins ----------------------------------------------------------------


def _client(request: HttpRequest | Request | None) -> str:
    if request is None:
        return "unknown"
    meta = getattr(request, "META", {})
    return str(meta.get("REMOTE_ADDR", "unknown"))


def _keys(request: Any, username: str) -> list[str]:
    return [f"login-fail:user:{username.strip().lower()}", f"login-fail:addr:{_client(request)}"]


def login_blocked(request: Any, username: str) -> int:
    """Seconds to wait when the account or the address has too many recent failures, else 0."""
    try:
        counts = cache.get_many(_keys(request, username))
    except Exception:  # the cache is down: fail open
        logger.warning("login rate limit unavailable", exc_info=True)
        return 0
    account, address = _keys(request, username)
    if (
        counts.get(account, 0) >= settings.LOGIN_FAILURES_ALLOWED
        or counts.get(address, 0) >= settings.LOGIN_FAILURES_PER_ADDRESS
    ):
        return settings.LOGIN_FAILURE_WINDOW_S
    return 0


def too_many_attempts(seconds: int) -> str:
    return _("Too many failed attempts; try again in %(minutes)s minutes.") % {"minutes": max(1, seconds // 60)}


def count_failure(sender: Any, credentials: dict[str, Any], request: Any = None, **_: Any) -> None:
    for key in _keys(request, str(credentials.get("username", ""))):
        try:
            if not cache.add(key, 1, settings.LOGIN_FAILURE_WINDOW_S):
                cache.incr(key)
        except Exception:
            logger.warning("login rate limit unavailable", exc_info=True)


def forget_failures(sender: Any, request: Any, user: Any, **_: Any) -> None:
    try:
        cache.delete(_keys(request, user.get_username())[0])
    except Exception:
        logger.warning("login rate limit unavailable", exc_info=True)


class RateLimitedLoginMixin(forms.Form):
    def clean(self) -> dict[str, Any]:
        blocked = login_blocked(getattr(self, "request", None), str(self.data.get("username", "")))
        if blocked:
            raise forms.ValidationError(too_many_attempts(blocked), code="too_many_attempts")
        return super().clean() or self.cleaned_data


class LoginForm(RateLimitedLoginMixin, AuthenticationForm):
    pass


class AdminLoginForm(RateLimitedLoginMixin, AdminAuthenticationForm):
    pass


# -- moves --------------------------------------------------------------------------


class MoveThrottle(ScopedRateThrottle):
    """Per-user limit on game actions (``THROTTLE_MOVES``); fails open if the cache is down."""

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method in ("GET", "HEAD", "OPTIONS"):  # pages poll the game every second
            return True
        try:
            return bool(super().allow_request(request, view))
        except Exception:
            logger.warning("move rate limit unavailable", exc_info=True)
            return True
