"""Site-wide views: the home page and the health check."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.defaults import page_not_found
from django.views.defaults import server_error as default_server_error

from config import health


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """Report each dependency; HTTP 200 only when all of them are ok."""
    database = health.probe_database()
    redis_probe = health.probe_redis()
    # Without Redis there is no broker, so the worker cannot be reached either.
    celery = health.probe_celery() if redis_probe.ok else health.Probe(False, "broker (Redis) is down")
    checks = {"database": database, "redis": redis_probe, "celery": celery}
    healthy = all(probe.ok for probe in checks.values())
    body = {"ok": healthy, **{name: probe.as_dict() for name, probe in checks.items()}}
    return JsonResponse(body, status=200 if healthy else 503)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """404: JSON with a code and a message under /api/, the usual page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"code": "not_found", "message": _("There is nothing at this address.")}, status=404)
    return page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """500: JSON under /api/ (never a traceback), the usual page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"code": "server_error", "message": _("Something went wrong on our side.")}, status=500)
    return default_server_error(request)


def live_push(request: HttpRequest) -> dict[str, str]:
    """Context processor: where pages open their live-push socket (empty: they poll)."""
    from django.conf import settings

    return {"live_url": settings.LIVE_URL if settings.LIVE_PUSH else ""}


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico before reading the page's icon link."""
    from django.shortcuts import redirect
    from django.templatetags.static import static

    return redirect(static("favicon.svg"), permanent=True)
