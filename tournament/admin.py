"""The organizer's control room: tournaments with stages and entries inline, and the run actions."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _

from games.services import GameError
from tournament import services
from tournament.models import AuditLog, Entry, Group, Match, Stage, Tournament


class StageInline(admin.TabularInline):
    model = Stage
    extra = 0
    fields = ["order", "name", "kind", "status", "draw_seed"]
    readonly_fields = ["status", "draw_seed"]


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    autocomplete_fields = ["player"]


def _run(modeladmin: Any, request: Any, queryset: Any, fn: Any, label: str) -> None:
    for obj in queryset:
        try:
            fn(obj, request.user)
        except GameError as exc:
            modeladmin.message_user(request, f"{obj}: {exc.message}", messages.ERROR)
        else:
            modeladmin.message_user(request, f"{obj}: {label}", messages.SUCCESS)


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "status", "preset", "boards", "start_date", "venue"]
    inlines = [StageInline, EntryInline]
    filter_horizontal = ["referees"]
    actions = ["publish"]

    @admin.action(description=_("Publish"))
    def publish(self, request: Any, queryset: Any) -> None:
        _run(self, request, queryset, lambda t, u: services.publish(tournament=t, actor=u), "published")


@admin.register(Stage)
class StageAdmin(admin.ModelAdmin):
    list_display = ["tournament", "order", "name", "kind", "status", "draw_seed"]
    actions = ["draw", "undo_draw", "start", "advance"]

    @admin.action(description=_("Draw groups"))
    def draw(self, request: Any, queryset: Any) -> None:
        _run(self, request, queryset, lambda s, u: services.draw_stage(stage=s, actor=u), "drawn")

    @admin.action(description=_("Undo the draw"))
    def undo_draw(self, request: Any, queryset: Any) -> None:
        _run(self, request, queryset, lambda s, u: services.undo_draw(stage=s, actor=u), "draw undone")

    @admin.action(description=_("Start the stage"))
    def start(self, request: Any, queryset: Any) -> None:
        _run(self, request, queryset, lambda s, u: services.start_stage(stage=s, actor=u), "started")

    @admin.action(description=_("Advance (close the stage, open the next)"))
    def advance(self, request: Any, queryset: Any) -> None:
        _run(self, request, queryset, lambda s, u: services.advance(stage=s, actor=u), "advanced")


@admin.register(Group)
class GroupAdmin(admin.ModelAdmin):
    list_display = ["stage", "name", "kind", "advance", "parent"]
    actions = ["create_playoffs"]

    @admin.action(description=_("Create playoffs for undecided ties"))
    def create_playoffs(self, request: Any, queryset: Any) -> None:
        _run(self, request, queryset, lambda g, u: services.create_playoffs(group=g, actor=u), "checked")


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["tournament", "group", "round", "first", "second", "board", "status", "winner"]
    list_filter = ["status", "tournament"]


@admin.register(AuditLog)
class AuditLogAdmin(admin.ModelAdmin):
    list_display = ["tournament", "action", "actor", "created_at"]
    list_filter = ["action"]

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False
