"""Template filters that show a rule set or an opening protocol by its name in the reader's language."""

from __future__ import annotations

from django import template

from games.messages import event_label, protocol_label, rules_label

register = template.Library()
register.filter("rules_label", rules_label)
register.filter("protocol_label", protocol_label)
register.filter("event_label", event_label)
