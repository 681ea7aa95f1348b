"""A server process's heap after start-up (config.heap): what Django and the apps loaded is frozen out of
the collector's passes, and the young passes are spaced. Each case runs in a fresh interpreter, as a
server process does, so the test process's own collector is left as it is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

REPORT = """
import gc, json
print(json.dumps({"frozen": gc.get_freeze_count(), "walked": len(gc.get_objects()), "young": gc.get_threshold()[0]}))
"""


def run(setup: str) -> dict[str, int]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    out = subprocess.run(
        [sys.executable, "-c", setup + REPORT], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def test_without_it_a_loaded_process_has_every_object_walked_by_a_full_collection() -> None:
    plain = run("import django; django.setup(); import config.urls\n")
    assert plain["frozen"] == 0 and plain["young"] == 700
    assert plain["walked"] > 50_000  # Django, DRF, Celery and the apps: what each full pass walks


def test_the_live_push_server_freezes_what_it_loaded_and_spaces_the_young_passes() -> None:
    from config.heap import YOUNG_THRESHOLD

    live = run("import config.asgi\n")  # as uvicorn loads it
    assert live["frozen"] > 50_000
    assert live["walked"] < live["frozen"] / 10  # a full pass now walks only what was made since
    assert live["young"] == YOUNG_THRESHOLD


def test_a_celery_worker_freezes_what_it_loaded_once_ready() -> None:
    from config.heap import YOUNG_THRESHOLD

    worker = run(
        "import django; django.setup(); from config.celery import app; app.loader.import_default_modules()\n"
        "from celery.signals import worker_ready; worker_ready.send(sender=None)\n"
    )
    assert worker["frozen"] > 50_000 and worker["walked"] < worker["frozen"] / 10
    assert worker["young"] == YOUNG_THRESHOLD


def test_a_web_worker_freezes_what_it_loaded_once_it_has_loaded_the_application() -> None:
    from config.heap import YOUNG_THRESHOLD

    web = run(
        "from unittest import mock\n"
        "from gunicorn.workers.gthread import ThreadWorker\n"
        "from config.gunicorn_worker import StampingThreadWorker\n"
        "worker = StampingThreadWorker.__new__(StampingThreadWorker)\n"
        "def load(self):\n"
        "    import django; django.setup(); import config.wsgi, config.urls\n"
        "with mock.patch.object(ThreadWorker, 'load_wsgi', load), mock.patch('config.heartbeat.start'):\n"
        "    worker.load_wsgi()\n"
    )
    assert web["frozen"] > 50_000 and web["walked"] < web["frozen"] / 10
    assert web["young"] == YOUNG_THRESHOLD
