from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

from engine.gomocup import public_about
from games.enums import GameResult, Interface, ResultReason
from games.models import (
    Engine,
    FollowUp,
    ForbiddenClaim,
    Game,
    GameEvent,
    Move,
    Player,
    ResultReport,
    ServerFreeze,
)
from games.services import GameError, game_override
from games.services.engines import ENGINE_RULES, engine_check


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin[Player]):
    list_display = ["name", "unit", "rating", "user"]
    search_fields = ["name", "unit"]


class EngineForm(forms.ModelForm):  # type: ignore[type-arg]
    """An engine is saved only once it starts and answers ABOUT, with a command that may run (see
    :mod:`games.services.engines`)."""

    rules = forms.MultipleChoiceField(
        label=_("Rules it plays"), choices=[(r, r) for r in ENGINE_RULES], widget=forms.CheckboxSelectMultiple
    )

    class Meta:
        model = Engine
        fields = ["name", "command", "rules", "levels", "enabled"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        try:
            data["rules"], data["levels"], answer = engine_check(
                data.get("command", ""), data.get("rules"), data.get("levels")
            )
            self.instance.about, self.instance.about_raw = public_about(answer), answer[:300]
        except GameError as exc:
            raise forms.ValidationError(exc.message) from None
        return data


@admin.register(Engine)
class EngineAdmin(admin.ModelAdmin[Engine]):
    form = EngineForm
    list_display = ["name", "command", "enabled", "about", "about_raw", "failures", "last_failure_at"]
    readonly_fields = ["about", "about_raw", "failures", "last_failure", "last_failure_at"]


class MoveInline(admin.TabularInline[Move, Any]):
    model = Move
    extra = 0
    can_delete = False
    readonly_fields = fields = ("ply", "text", "player_number", "color", "move_number", "foul", "created_at")


class OverrideForm(forms.Form):
    result = forms.ChoiceField(label=_("Result"), choices=GameResult.choices)
    reason = forms.ChoiceField(label=_("Reason"), choices=ResultReason.choices, initial=ResultReason.REFEREE)
    note = forms.CharField(label=_("Why"), max_length=500, widget=forms.Textarea(attrs={"rows": 3}))


@admin.register(Game)
class GameAdmin(admin.ModelAdmin[Game]):
    list_display = ["id", "player_one", "player_two", "rules", "protocol", "status", "result", "result_reason"]
    list_filter = ["status", "rules", "protocol", "mode"]
    inlines = [MoveInline]
    readonly_fields = [
        "ply",
        "status",
        "result",
        "result_reason",
        "result_detail",
        "black",
        "white",
        "finished_at",
        "clock",
        "deadline",
        "clock_version",
        "adjudicated_by",
    ]
    actions = ["override_result"]

    @admin.action(description=_("Override the result (with a reason)"), permissions=["override"])
    def override_result(self, request: HttpRequest, queryset: Any) -> HttpResponse | None:
        """The organizer's correction: every selected game gets the result, the reason and the note."""
        form = OverrideForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            for game in queryset:
                try:
                    game_override(game_id=game.pk, actor=request.user, interface=Interface.ADMIN, **form.cleaned_data)
                except GameError as exc:
                    self.message_user(request, f"#{game.pk}: {exc.message}", messages.ERROR)
                else:
                    self.message_user(request, f"#{game.pk}: {_('result overridden')}", messages.SUCCESS)
            return None
        return render(
            request,
            "admin/games/override.html",
            {
                **self.admin_site.each_context(request),
                "form": form,
                "games": queryset,
                "title": _("Override the result"),
                "action": "override_result",
                "selected": request.POST.getlist(helpers.ACTION_CHECKBOX_NAME),
            },
        )

    def has_override_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("games.override_result"))


@admin.register(ForbiddenClaim)
class ForbiddenClaimAdmin(admin.ModelAdmin[ForbiddenClaim]):
    list_display = ["game", "move_number", "point", "status", "verdict", "created_at"]
    readonly_fields = ["explanation"]


@admin.register(ResultReport)
class ResultReportAdmin(admin.ModelAdmin[ResultReport]):
    list_display = ["game", "reporter", "result", "reason", "status", "created_at", "answered_at"]
    list_filter = ["status", "reason"]
    readonly_fields = [
        "game",
        "reporter",
        "reported_by",
        "result",
        "reason",
        "record",
        "status",
        "note",
        "answered_by",
        "answered_at",
    ]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # reports are settled by new events, never removed


@admin.register(GameEvent)
class GameEventAdmin(admin.ModelAdmin[GameEvent]):
    list_display = ["game", "kind", "actor", "interface", "created_at"]
    list_filter = ["kind"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # the log is append-only

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(FollowUp)
class FollowUpAdmin(admin.ModelAdmin[FollowUp]):
    """What followed each ended game; a failed one (with its error) is tried again by the sweeper."""

    list_display = ["game", "correction", "created_at", "done_at", "attempts"]
    list_filter = [("done_at", admin.EmptyFieldListFilter)]
    readonly_fields = ["game", "correction", "actor", "created_at", "done_at", "attempts", "error"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ServerFreeze)
class ServerFreezeAdmin(admin.ModelAdmin[ServerFreeze]):
    """Each stop of the whole server found in the heartbeat, and how many clocks it was credited to (read only)."""

    list_display = ["__str__", "since_ms", "until_ms", "clocks", "detected_by", "created_at"]
    readonly_fields = ["since_ms", "until_ms", "clocks", "detected_by", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
