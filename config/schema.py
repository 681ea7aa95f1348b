"""The OpenAPI schema: one contract in English (``?lang=zh-hans`` for Chinese), every error documented.

Every API refusal has the same body, ``{"code": …, "message": …}`` (plus
``fields`` for invalid input, see :func:`config.api.exception_handler`); the
hook below documents it for each status an operation can answer with, and
names the stable codes a client can branch on.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils import translation
from drf_spectacular.views import SpectacularAPIView

ERRORS: dict[str, tuple[str, list[str]]] = {
    "400": (
        "Invalid input, or an action the rules or the tournament refuse.",
        [
            "invalid",
            "parse_error",
            "bad_action",
            "bad_setup",
            "bad_record",
            "bad_result",
            "bad_claim",
            "bad_seat",
            "protocol",
            "occupied",
            "forbidden",
            "same_player",
            "not_in_game",
            "bad_csv",
            "bad_order",
            "bad_policy",
            "bad_preset",
            "bad_toss",
            "bad_winner",
            "reason_required",
            "too_few",
            "unit_full",
            "same_group",
            "bad_name",
            "bad_rating",
            "bad_check_in",
            "bad_form",
            "bad_entry",
            "bad_clock",
            "bad_ply",
            "bad_delay",
            "label_required",
            "unmatched_record",
            "bad_outcome",
        ],
    ),
    "401": ("Not signed in, or the token is unknown or expired.", ["not_authenticated", "authentication_failed"]),
    "403": (
        "Signed in, but not allowed: not your game, not its referee, not an organizer.",
        [
            "permission_denied",
            "not_your_game",
            "not_referee",
            "not_organizer",
            "not_allowed",
            "not_white",
            "own_report",
            "not_recorder",
            "live_position",
            "decided_it",
        ],
    ),
    "404": (
        "No such object (or one you may not see).",
        [
            "not_found",
            "no_game",
            "no_match",
            "no_stage",
            "no_entry",
            "no_group",
            "no_appeal",
            "no_call",
            "no_key",
            "no_case",
        ],
    ),
    "409": (
        "The state has moved on: a stale ply, a game over or over the board, a stage already under way.",
        [
            "stale_ply",
            "time_over",
            "game_over",
            "over_the_board",
            "not_your_turn",
            "offer_pending",
            "clock_stopped",
            "clock_started",
            "report_pending",
            "report_disputed",
            "stage_started",
            "stage_held",
            "next_stage_started",
            "too_late",
            "previous_reopened",
            "draw_made",
            "not_drawn",
            "not_running",
            "already_entered",
            "registration_closed",
            "check_in_closed",
            "withdrawn",
            "conflict",
            "lease_held",
            "online_game",
            "recorded_at_board",
            "case_decided",
            "already_decided",
            "not_decided",
            "not_appealed",
            "game_not_over",
            "already_reported",
        ],
    ),
    "413": ("The request body is too large.", ["too_large"]),
    "415": (
        "The body's media type is not one the operation reads (JSON, a form; a record as text).",
        ["unsupported_media_type"],
    ),
    "429": ("Too many requests; retry after the Retry-After header's seconds.", ["throttled", "too_many_reports"]),
    "503": ("The database is unavailable; retry after the Retry-After header's seconds.", ["unavailable"]),
}

ERROR_SCHEMA = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {
        "code": {"type": "string", "description": "stable, for programs"},
        "message": {"type": "string", "description": "for people, in the request's language"},
        "fields": {"type": "object", "description": "invalid input: the messages per field"},
    },
}


def document_errors(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the Error schema and every error status on every operation."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    reference = {"$ref": "#/components/schemas/Error"}
    for methods in result.get("paths", {}).values():
        for operation in methods.values():
            responses = operation.setdefault("responses", {})
            for status, (text, codes) in ERRORS.items():
                responses.setdefault(
                    status,
                    {
                        "description": f"{text} Codes: {', '.join(codes)}.",
                        "content": {"application/json": {"schema": reference}},
                    },
                )
    return result


class SchemaView(SpectacularAPIView):
    """The schema in English unless ``?lang=`` asks for another language (descriptions are translated)."""

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.GET.get("lang"):
            return super().dispatch(request, *args, **kwargs)
        with translation.override("en"):
            response = super().dispatch(request, *args, **kwargs)
            if hasattr(response, "render"):
                response.render()  # lazy texts are rendered now, in English
        return response
