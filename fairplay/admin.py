"""Fair play in the organizer's panel, read only: cases are decided on the referees' pages (two who agree)."""

from __future__ import annotations

from django.contrib import admin

from fairplay.models import Appeal, Case, Decision, Report, Screening
from tournament.admin import ReadOnlyAdmin


@admin.register(Screening)
class ScreeningAdmin(ReadOnlyAdmin):
    list_display = ["game", "player", "band", "z", "created_at"]


@admin.register(Case)
class CaseAdmin(ReadOnlyAdmin):
    list_display = ["player", "tournament", "status", "outcome", "z", "opened_at"]
    list_filter = ["status", "outcome"]


@admin.register(Decision)
class DecisionAdmin(ReadOnlyAdmin):
    list_display = ["case", "referee", "stage", "outcome", "at"]


@admin.register(Appeal)
class AppealAdmin(ReadOnlyAdmin):
    list_display = ["case", "at"]


@admin.register(Report)
class ReportAdmin(ReadOnlyAdmin):
    list_display = ["game", "reporter", "reported", "at"]
