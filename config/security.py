"""Hardening: expiring API tokens, rate limits on logins (the moves' limit is games.throttles.MoveThrottle).

Rate limits count in the cache (Redis when configured). If the cache is
unreachable the limits fail open and log it: a tournament in progress must
not stop because its rate limiter is down.
"""

from __future__ import annotations

import logging
import math
import time
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
from rest_framework.throttling import AnonRateThrottle

from config.authentication import token_expired
from tournament import lan

logger = logging.getLogger(__name__)


# -- tokens ------------------------------------------------------------------------


class LoginThrottle(AnonRateThrottle):
    """Token requests per client address: the TCP peer's, or the one header a configured proxy sets
    (``CLIENT_IP_HEADER``), never an ``X-Forwarded-For`` the client wrote itself."""

    scope = "login"

    def get_ident(self, request: Request) -> str:
        return client_address(request)


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
#
# No lockout: a lock that holds even against the right password lets anyone keep the organizer out all day.
# Failures are counted per (account, address) and per address; past a threshold each further failure makes
# that pair (or that address) wait 2, 4, 8 … seconds before its next try, up to LOGIN_DELAY_MAX_S. Someone
# guessing the organizer's password from a phone slows only that phone; the organizer elsewhere in the hall,
# and anyone at the server's own keyboard (loopback), is never held up.


def client_address(request: Any) -> str:
    """The client's address (tournament.lan.client_address); django-ratelimit's RATELIMIT_IP_META_KEY."""
    return lan.client_address(request)


def _client(request: HttpRequest | Request | None) -> str:
    return client_address(request)


def _local(request: Any) -> bool:
    """The server's own keyboard (never trusted behind a proxy on the same machine: TRUST_LOOPBACK)."""
    return lan.from_this_machine(request)


def _keys(request: Any, username: str) -> tuple[str, str]:
    name, address = username.strip().lower(), _client(request)
    return f"login-fail:pair:{name}:{address}", f"login-fail:addr:{address}"


def _wait_for(failures: int, free: int) -> int:
    """Seconds to wait after ``failures`` when ``free`` are allowed without one: 0, then 2, 4, 8 … capped."""
    if failures < free:
        return 0
    return int(min(settings.LOGIN_DELAY_MAX_S, 2 ** min(30, failures - free + 1)))


def login_blocked(request: Any, username: str) -> int:
    """Seconds this account-and-address pair (or this address) must still wait before trying again, else 0."""
    if _local(request):
        return 0
    pair, address = _keys(request, username)
    try:
        until = cache.get_many([f"{pair}:until", f"{address}:until"])
    except Exception:  # the cache is down: fail open
        logger.warning("login rate limit unavailable", exc_info=True)
        return 0
    latest = max(until.values(), default=0.0)
    return max(0, math.ceil(latest - time.time()))


def too_many_attempts(seconds: int) -> str:
    if seconds < 120:
        return _("Too many failed attempts from this device; try again in %(seconds)s seconds.") % {
            "seconds": max(1, seconds)
        }
    return _("Too many failed attempts; try again in %(minutes)s minutes.") % {"minutes": max(1, seconds // 60)}


def count_failure(sender: Any, credentials: dict[str, Any], request: Any = None, **_: Any) -> None:
    if _local(request):
        return
    window = settings.LOGIN_FAILURE_WINDOW_S
    pair, address = _keys(request, str(credentials.get("username", "")))
    limits = ((pair, settings.LOGIN_FAILURES_ALLOWED), (address, settings.LOGIN_FAILURES_PER_ADDRESS))
    for key, free in limits:
        try:
            failures = 1 if cache.add(key, 1, window) else cache.incr(key)
            wait = _wait_for(failures, free)
            if wait:
                cache.set(f"{key}:until", time.time() + wait, wait)
        except Exception:
            logger.warning("login rate limit unavailable", exc_info=True)


def forget_failures(sender: Any, request: Any, user: Any, **_: Any) -> None:
    pair, _address = _keys(request, user.get_username())
    try:
        cache.delete_many([pair, f"{pair}:until"])
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
