"""The organizer's control room: tournaments with stages and entries inline, and the run actions."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.functional import Promise
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from games.access import is_organizer, may_organize
from games.services import GameError
from tournament import services
from tournament.models import AuditLog, Entry, Group, Match, Round, Stage, Tournament
from tournament.registration import import_entries, import_summary
from tournament.services.outcomes import group_sync
from tournament.withdrawals import entry_withdraw


class StageInline(admin.TabularInline[Stage, Any]):
    model = Stage
    extra = 0
    fields = ["order", "name", "kind", "status", "draw_seed"]
    readonly_fields = ["status", "draw_seed"]


class EntryInline(admin.TabularInline[Entry, Any]):
    model = Entry
    extra = 0
    autocomplete_fields = ["player"]
    fields = ["player", "seed", "withdrawn"]
    readonly_fields = ["withdrawn"]  # withdrawals go through the service (Entries: "Withdraw" actions)


def _run(modeladmin: Any, request: Any, queryset: Any, fn: Any, label: str | Promise) -> None:
    for obj in queryset:
        try:
            fn(obj, request.user)
        except GameError as exc:
            modeladmin.message_user(request, f"{obj}: {exc.message}", messages.ERROR)
        else:
            modeladmin.message_user(request, f"{obj}: {label}", messages.SUCCESS)


class CsvForm(forms.Form):
    csv = forms.CharField(label=_("Players (CSV: name, unit, rating)"), widget=forms.Textarea(attrs={"rows": 12}))


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin[Tournament]):
    list_display = ["name", "status", "preset", "boards", "start_date", "venue", "links"]
    inlines = [StageInline, EntryInline]
    filter_horizontal = ["referees", "organizers"]
    actions = ["publish"]

    def get_queryset(self, request: HttpRequest) -> Any:
        """A tournament organizer sees the tournaments it runs; a site organizer all."""
        queryset = super().get_queryset(request)
        if is_organizer(request.user):
            return queryset
        return queryset.filter(organizers__pk=request.user.pk or 0)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        allowed = super().has_change_permission(request, obj)
        return allowed and (obj is None or may_organize(request.user, obj))

    @admin.display(description=_("Pages and exports"))
    def links(self, obj: Tournament) -> str:
        return format_html(
            '<a href="{}">{}</a> · <a href="{}">{}</a> · <a href="{}">CSV</a> · <a href="{}">{}</a> · '
            '<a href="{}">{}</a> · <a href="{}">{}</a>',
            reverse("tournament", args=[obj.pk]),
            _("public page"),
            reverse("admin:tournament_import_players", args=[obj.pk]),
            _("import players"),
            reverse("tournament-standings-csv", args=[obj.pk]),
            reverse("tournament-records", args=[obj.pk, "txt"]),
            _("records"),
            reverse("tournament-call-sheet", args=[obj.pk]),
            _("call sheet"),
            reverse("tournament-result-sheets", args=[obj.pk]),
            _("result sheets"),
        )

    def get_urls(self) -> list[Any]:
        extra = [
            path(
                "<int:pk>/import-players/",
                self.admin_site.admin_view(self.import_players),
                name="tournament_import_players",
            )
        ]
        return extra + super().get_urls()

    def import_players(self, request: HttpRequest, pk: int) -> HttpResponse:
        tournament = get_object_or_404(Tournament, pk=pk)
        if not self.has_change_permission(request, tournament):
            raise PermissionDenied
        form = CsvForm(request.POST or None)
        if form.is_valid():
            try:
                report = import_entries(tournament=tournament, text=form.cleaned_data["csv"], actor=request.user)
            except GameError as exc:
                form.add_error("csv", exc.message)
            else:
                self.message_user(request, import_summary(report), messages.SUCCESS)
                return redirect("admin:tournament_tournament_change", pk)
        return render(
            request,
            "admin/tournament/import_players.html",
            {
                **self.admin_site.each_context(request),
                "form": form,
                "tournament": tournament,
                "title": _("Import players"),
            },
        )

    @admin.action(description=_("Publish"))
    def publish(self, request: Any, queryset: Any) -> None:
        _run(self, request, queryset, lambda t, u: services.publish(tournament=t, actor=u), "published")


@admin.register(Stage)
class StageAdmin(admin.ModelAdmin[Stage]):
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


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin[Entry]):
    list_display = ["player", "tournament", "seed", "withdrawn"]
    list_filter = ["tournament", "withdrawn"]
    search_fields = ["player__name", "player__unit"]
    fields = ["tournament", "player", "seed", "withdrawn", "withdrawn_stage", "withdrawal"]
    readonly_fields = ["withdrawn", "withdrawn_stage", "withdrawal"]
    autocomplete_fields = ["player"]
    actions = ["withdraw", "withdraw_forfeit", "withdraw_annul"]

    @admin.action(description=_("Withdraw (the tournament's policy)"))
    def withdraw(self, request: Any, queryset: Any) -> None:
        _run(self, request, queryset, lambda e, u: entry_withdraw(entry=e, actor=u), _("withdrawn"))

    @admin.action(description=_("Withdraw: remaining games forfeited"))
    def withdraw_forfeit(self, request: Any, queryset: Any) -> None:
        _run(self, request, queryset, lambda e, u: entry_withdraw(entry=e, policy="forfeit", actor=u), _("withdrawn"))

    @admin.action(description=_("Withdraw: games annulled if fewer than half were played"))
    def withdraw_annul(self, request: Any, queryset: Any) -> None:
        _run(self, request, queryset, lambda e, u: entry_withdraw(entry=e, policy="annul", actor=u), _("withdrawn"))


@admin.register(Group)
class GroupAdmin(admin.ModelAdmin[Group]):
    list_display = ["stage", "name", "kind", "advance", "parent"]
    actions = ["create_playoffs"]

    @admin.action(description=_("Create playoffs for undecided ties"))
    def create_playoffs(self, request: Any, queryset: Any) -> None:
        _run(self, request, queryset, lambda g, u: group_sync(group=g, actor=u), "checked")


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin[Match]):
    list_display = ["tournament", "group", "round", "first", "second", "board", "status", "winner"]
    list_filter = ["status", "tournament"]


@admin.register(AuditLog)
class AuditLogAdmin(admin.ModelAdmin[AuditLog]):
    list_display = ["tournament", "action", "actor", "created_at"]
    list_filter = ["action"]

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


class ReadOnlyAdmin(admin.ModelAdmin[Any]):
    """Rows the services keep: shown, never added, changed or deleted here (the round cycle changes them)."""

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    """Every round-by-round format's rounds (the one round lifecycle, tournament.services.rounds)."""

    list_display = ["stage", "number", "status", "engine", "paired_at", "published_at", "closed_at"]
    list_filter = ["status"]
