"""A WSGI application that answers ``ok`` at once, served by our gunicorn worker in the tests of the worker's
own loop (config/tests/test_gunicorn_worker.py): the worker itself is what is tried, not Django."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import django

django.setup()  # the worker starts the heartbeat, which imports the games app


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]
