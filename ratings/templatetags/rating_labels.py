"""Which rating lists a tournament feeds, for the organizer's control room (the tournament app never imports
ratings; its templates may ask)."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from ratings.services import category_of, lists_fed_by

register = template.Library()


@register.simple_tag
def rating_lists_fed(tournament: Any) -> SafeString:
    if not tournament.rated:
        return format_html(" · <span class='rated-note'>{}</span>", _("not rated"))
    lists = lists_fed_by(tournament)
    if not lists:
        category = _("renju") if category_of(tournament.rules) == "renju" else _("gomoku")
        return format_html(
            " · <span class='rated-note'>{}</span>",
            _("rated: the %(category)s lists (WHR and Elo) are made when it starts") % {"category": category},
        )
    links = format_html_join(
        ", ", "<a href='{}'>{}</a>", ((reverse("rating-list", args=[r.pk]), r.name) for r in lists)
    )
    return format_html(" · <span class='rated-note'>{} {}</span>", _("rated: feeds"), links)
