"""Rating lists in the organizer's panel: lists are set up here; ratings are computed, never typed in."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from ratings.models import ImportedTournament, RatingList
from ratings.services import recompute


@admin.register(RatingList)
class RatingListAdmin(admin.ModelAdmin[RatingList]):
    list_display = ["name", "category", "method", "organization", "computed_at"]
    readonly_fields = ["computed_at"]
    actions = ["recompute_lists"]

    @admin.action(description=_("Recompute the selected lists"))
    def recompute_lists(self, request: HttpRequest, queryset: QuerySet[RatingList]) -> None:
        for rating_list in queryset:
            recompute(rating_list=rating_list)
        messages.success(request, _("Recomputed."))


@admin.register(ImportedTournament)
class ImportedTournamentAdmin(admin.ModelAdmin[ImportedTournament]):
    list_display = ["name", "city", "end", "category", "rated"]
    list_filter = ["category", "rated"]
    search_fields = ["name"]

    def has_add_permission(self, request: Any) -> bool:
        return False
