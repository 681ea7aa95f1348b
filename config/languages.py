"""The language a page speaks: chosen per device and per person.

A device's choice is Django's language cookie, set by the switch in every page's header. A signed-in person's
choice is also kept on their account (:class:`config.models.Preference`) and followed on any device that has
made no choice of its own: a player who picked Russian on the laptop finds the phone in Russian when they sign
in there. Without either, the browser's Accept-Language decides (Django's LocaleMiddleware), then the site's
LANGUAGE_CODE. The preference travels in the session from sign-in, so no page pays a query for it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views.i18n import set_language as django_set_language

from config.models import Preference

SESSION_KEY = "preferred_language"


def known(code: str | None) -> str | None:
    """``code`` if it is one of the site's languages (any case), else None."""
    code = (code or "").lower()
    return code if code in {c for c, _name in settings.LANGUAGES} else None


def on_login(sender: Any, request: HttpRequest | None, user: Any, **_kwargs: Any) -> None:
    """``user_logged_in``: the person's own language goes into the new session."""
    if request is None or not hasattr(request, "session"):
        return
    language = Preference.objects.filter(user=user).values_list("language", flat=True).first()
    if known(language):
        request.session[SESSION_KEY] = language


def set_language(request: HttpRequest) -> HttpResponse:
    """The header's switch: Django's view sets this device's cookie; a signed-in person keeps it as theirs."""
    response = django_set_language(request)
    language = known(request.POST.get("language")) if request.method == "POST" else None
    if language is None:  # Django would keep any language it has a catalogue of, "de" too: not one of ours
        response.cookies.pop(settings.LANGUAGE_COOKIE_NAME, None)
    elif request.user.is_authenticated:
        with transaction.atomic():
            Preference.objects.update_or_create(user=request.user, defaults={"language": language})
        request.session[SESSION_KEY] = language
    return response


class PreferenceMiddleware:
    """After the session and the account are known: the person's language where the device chose none."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not known(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)) and hasattr(request, "session"):
            language = known(request.session.get(SESSION_KEY))
            if language and language != request.LANGUAGE_CODE:
                translation.activate(language)
                request.LANGUAGE_CODE = language
        response: HttpResponse = self.get_response(request)
        return response
