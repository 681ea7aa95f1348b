"""ASGI: the live-push sockets (``/ws/live/``, :mod:`config.live`) and, for completeness, Django's pages.

``make run`` serves pages and the API with gunicorn (its workers stamp each request's arrival for the
clocks) and this application with uvicorn for the sockets only.
"""

import os
from typing import Any

from django.core.asgi import get_asgi_application

from config import heap, heartbeat

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_application = get_asgi_application()
heartbeat.start("live")  # a stop of the whole server is found by any process that runs again
heap.after_startup()  # what is loaded now is never walked by the collector again


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "websocket":
        from config.live import websocket

        if scope.get("path", "").rstrip("/") == "/ws/live":
            await websocket(scope, receive, send)
        else:
            await receive()
            await send({"type": "websocket.close", "code": 4404})
        return
    await django_application(scope, receive, send)
