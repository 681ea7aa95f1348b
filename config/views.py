"""Site-wide views: the home page and the health check."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from config import health


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """Report each dependency; HTTP 200 only when all of them are ok."""
    database = health.probe_database()
    redis_probe = health.probe_redis()
    # Without Redis there is no broker, so the worker cannot be reached either.
    celery = (
        health.probe_celery()
        if redis_probe.ok
        else health.Probe(False, "broker (Redis) is down")
    )
    checks = {"database": database, "redis": redis_probe, "celery": celery}
    healthy = all(probe.ok for probe in checks.values())
    body = {"ok": healthy, **{name: probe.as_dict() for name, probe in checks.items()}}
    return JsonResponse(body, status=200 if healthy else 503)
