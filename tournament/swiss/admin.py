"""The Swiss system's rows in the admin (registered when the format is, by ``TournamentConfig.ready``)."""

from __future__ import annotations

from django.contrib import admin

from tournament.admin import ReadOnlyAdmin
from tournament.models import SwissBye


@admin.register(SwissBye)
class SwissByeAdmin(ReadOnlyAdmin):
    list_display = ["stage", "round", "entry", "kind", "requested", "late"]
    list_filter = ["kind"]
