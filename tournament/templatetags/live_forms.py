"""``{% live_csrf %}``: the CSRF field of a form inside a live part (static/js/live.js).

A live part is fetched again or pushed whenever its content changes, and compared with what the page
shows. Django masks the CSRF token afresh on every render, so a part holding a form would differ on
every fetch: swapped in again and again (a tap during the swap lands on a detached form), never a 304,
its alert re-announced. Inside a live part the field is therefore written empty, and the page fills it
from the token it was given once (``data-csrf`` on the live node). Rendered as part of the whole page
(with a request), the field carries the real token, so the form works without JavaScript too."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html

register = template.Library()


@register.simple_tag(takes_context=True)
def live_csrf(context: Any) -> str:
    token = "" if context.get("live_fragment") else context.get("csrf_token") or ""
    return format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}" data-live-csrf>', token)
