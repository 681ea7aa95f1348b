"""The relay in the organizer's panel: the delays are set here; the record, its corrections, the leases and
the push keys are read here, and changed only through the relay's API (every change kept)."""

from __future__ import annotations

from django.contrib import admin

from relay.models import Correction, Lease, LeaseChange, PushToken, RelayMove, StageDelay
from tournament.admin import ReadOnlyAdmin


@admin.register(StageDelay)
class StageDelayAdmin(admin.ModelAdmin[StageDelay]):
    list_display = ["stage", "minutes", "screen_live"]


@admin.register(RelayMove)
class RelayMoveAdmin(ReadOnlyAdmin):
    list_display = ["game", "ply", "text", "color", "foul", "entered_at", "entered_by"]
    list_filter = ["foul"]


@admin.register(Correction)
class CorrectionAdmin(ReadOnlyAdmin):
    list_display = ["game", "from_ply", "reason", "at", "by"]


@admin.register(Lease)
class LeaseAdmin(ReadOnlyAdmin):
    list_display = ["game", "holder", "since"]


@admin.register(LeaseChange)
class LeaseChangeAdmin(ReadOnlyAdmin):
    list_display = ["game", "previous", "holder", "at"]


@admin.register(PushToken)
class PushTokenAdmin(ReadOnlyAdmin):
    """Push keys are made and revoked through the API (the key is shown once, only its digest is kept)."""

    list_display = ["tournament", "label", "created_by", "created_at", "revoked_at"]
    exclude = ["digest"]
