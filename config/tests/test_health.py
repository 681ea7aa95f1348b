from typing import Any

import pytest
from django.test import Client, override_settings

from devtools.processes import free_port


@pytest.mark.django_db
def test_healthz_reports_stopped_redis_as_failed(client: Client) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"

    with override_settings(REDIS_URL=dead, HEALTHZ_TIMEOUT_S=1):
        response = client.get("/healthz")

    body = response.json()
    assert response.status_code == 503
    assert body["ok"] is False
    assert body["database"] == {"ok": True}
    assert body["redis"]["ok"] is False
    assert "Connection" in body["redis"]["reason"]
    assert body["celery"]["ok"] is False


@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
@pytest.mark.celery
def test_healthz_all_ok_with_redis_and_worker(client: Client, redis_server: Any, celery_worker_process: Any) -> None:
    with override_settings(REDIS_URL=redis_server.url):
        response = client.get("/healthz")

    assert response.status_code == 200, response.json()
    assert response.json() == {"ok": True, "database": {"ok": True}, "redis": {"ok": True}, "celery": {"ok": True}}


@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
def test_healthz_reports_missing_worker(client: Client) -> None:
    # A Redis with no worker attached: a fresh server so no session worker answers.
    from devtools.processes import EmbeddedRedis

    lonely = EmbeddedRedis().start()
    try:
        with override_settings(REDIS_URL=lonely.url, HEALTHZ_TIMEOUT_S=1):
            response = client.get("/healthz")
    finally:
        lonely.stop()

    assert response.status_code == 503
    assert response.json()["celery"] == {"ok": False, "reason": "no Celery worker answered the ping"}
