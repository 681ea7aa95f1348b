from django.contrib import admin

from games.models import ForbiddenClaim, Game, GameEvent, Move, Player, ResultReport


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "unit", "rating", "user"]
    search_fields = ["name", "unit"]


class MoveInline(admin.TabularInline):
    model = Move
    extra = 0
    can_delete = False
    readonly_fields = ["ply", "text", "player_number", "color", "move_number", "foul", "created_at"]
    fields = readonly_fields


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["id", "player_one", "player_two", "rules", "protocol", "status", "result", "result_reason"]
    list_filter = ["status", "rules", "protocol", "mode"]
    inlines = [MoveInline]
    readonly_fields = ["ply", "status", "result", "result_reason", "result_detail", "black", "white", "finished_at"]


@admin.register(ForbiddenClaim)
class ForbiddenClaimAdmin(admin.ModelAdmin):
    list_display = ["game", "move_number", "point", "status", "verdict", "created_at"]
    readonly_fields = ["explanation"]


@admin.register(ResultReport)
class ResultReportAdmin(admin.ModelAdmin):
    list_display = ["game", "reporter", "result", "reason", "status", "created_at", "answered_at"]
    list_filter = ["status", "reason"]
    readonly_fields = ["game", "reporter", "reported_by", "result", "reason", "record", "status", "note",
                       "answered_by", "answered_at"]

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False  # reports are settled by new events, never removed


@admin.register(GameEvent)
class GameEventAdmin(admin.ModelAdmin):
    list_display = ["game", "kind", "actor", "interface", "created_at"]
    list_filter = ["kind"]

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False  # the log is append-only

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False
