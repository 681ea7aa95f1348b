"""The Celery app (after Celery's examples/django/proj/celery.py)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("gomoku")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="system.echo")
def echo(value: object) -> object:
    """Return ``value``: proves a round trip through broker, worker and backend."""
    return value
