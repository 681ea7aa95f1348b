"""Live push, the publishing side: after a transaction that changed games commits, say so on Redis.

A change is announced as a topic (``game:12``, ``tournament:3``) on the Redis channel ``live``; the
socket server (``config/live.py``) reads the new state once per topic and language and sends it to
every page watching. Announcing costs one Redis PUBLISH per committed transaction, whatever the
number of watchers, and nothing when live push is off (``LIVE_PUSH``, on when Redis is configured).

A plain move (a stone or a pass after the opening, the game going on, nothing else changed in the
transaction) is announced with what it changed (:func:`game_moved`): the new move and the game's ply,
status, colours, clock and position, as the game's state shows them. A socket server that last sent the
state just before it adds the move to that state instead of reading the game again; any doubt (another
change of the game in the transaction, a state it did not send, a read under way) and it reads. The
message is ``["game:12", …]``, or ``{"topics": [...], "moves": {"game:12": {...}}}`` with moves (``{"origin":
…, "topics": …}`` from a socket server that has told its own watchers).

A socket server acting a player's move (config.live_acts) tells its own watchers itself
(:func:`delivered_here`): the message it publishes for the other processes carries its ``origin``, and its
own subscriber skips it, so a move on a socket does not come back through Redis to the process that made it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction

from games.selectors import clock_view, move_view, position_view

logger = logging.getLogger(__name__)
CHANNEL = "live"
_client: Any = None
_BOOT = uuid.uuid4().hex[:12]
_here = threading.local()  # .deliver: this thread's own watchers (delivered_here); .described: its last move
Deliver = Callable[[list[str], dict[str, Any]], None]


def origin() -> str:
    """This process, as the messages it delivered itself name it (a forked child is another process)."""
    return f"{_BOOT}:{os.getpid()}"


@contextmanager
def delivered_here(deliver: Deliver) -> Iterator[None]:
    """Within: the changes this thread commits are handed to ``deliver(topics, moves)`` as soon as they are
    committed, and published marked with :func:`origin` for the other processes only. ``deliver`` must not
    block: it is called in the committing thread (config.live keeps them for its event loop)."""
    _here.deliver, _here.described = deliver, None
    try:
        yield
    finally:
        _here.deliver, _here.described = None, None


def described(game: Any) -> dict[str, Any] | None:
    """Within :func:`delivered_here`: what the plain move that brought ``game`` to its ply changed
    (:func:`move_delta`), as it was committed and pushed; None for anything else."""
    known = getattr(_here, "described", None)
    if known is None or known[0] != (game.pk, game.ply):
        return None
    return dict(known[1])


def changed(topic: str) -> None:
    """Announce ``topic`` once the current transaction commits (at once outside a transaction).

    One announcement per transaction, whatever it changed; a rolled-back transaction announces nothing
    (Django drops its on-commit callbacks, and with them the pending topics).
    """
    if not settings.LIVE_PUSH:
        return
    conn = transaction.get_connection()
    if not conn.in_atomic_block:
        publish([topic])
        return
    registered = any(entry[1] is _flush for entry in conn.run_on_commit)
    if not registered:
        conn.live_topics = set()  # our own attributes on the connection
        conn.live_moves = {}
        transaction.on_commit(_flush)
    conn.live_topics.add(topic)
    if topic in conn.live_moves:  # the game changed again after its move: the move alone does not say it
        conn.live_moves[topic] = None


def game_changed(game: Any) -> None:
    """A game changed: its watchers and both players' consoles are told (and its referees' consoles: the
    socket server looks them up, config.live, only while one is watched)."""
    changed(f"game:{game.pk}")
    changed(f"player:{game.player_one_id}")
    changed(f"player:{game.player_two_id}")


def game_moved(game: Any, move: Any, state: Any) -> None:
    """``move`` was a plain move of ``game`` (now in ``state``, the game going on), announced already by
    :func:`game_changed`: say what it changed, unless the game changes again before the commit or the
    transaction holds a second move of it. Only in an outermost transaction: a move made inside a savepoint
    may be rolled back with it while the transaction commits, and must never be pushed (the game is read)."""
    if not settings.LIVE_PUSH:
        return
    conn = transaction.get_connection()
    topic = f"game:{game.pk}"
    if not conn.in_atomic_block or conn.savepoint_ids or topic not in getattr(conn, "live_topics", ()):
        return
    conn.live_moves[topic] = None if topic in conn.live_moves else (game, move, state)


def move_delta(game: Any, move: Any, state: Any) -> dict[str, Any]:
    """What a plain move changed in the game's state, as GameDetailSerializer shows each part."""
    return {
        "ply": game.ply,
        "status": game.status,
        "black": game.black_id,
        "white": game.white_id,
        "clock": clock_view(game),
        "position": position_view(game, state),
        "move": move_view(move),
    }


def _flush() -> None:
    conn = transaction.get_connection()
    topics: set[str] = getattr(conn, "live_topics", None) or set()
    moves = {topic: entry for topic, entry in (getattr(conn, "live_moves", None) or {}).items() if entry}
    conn.live_topics, conn.live_moves = set(), {}
    if not topics:
        return
    deltas = {}
    deliver = getattr(_here, "deliver", None)
    for topic, (game, move, state) in moves.items():
        try:
            deltas[topic] = move_delta(game, move, state)
        except Exception:  # the socket server reads the game instead
            logger.warning("could not describe the move of %s", topic, exc_info=True)
            continue
        if deliver is not None:  # kept for the act's reply (described), only where one is built
            _here.described = ((game.pk, game.ply), deltas[topic])
    if deliver is None:
        publish(sorted(topics), deltas)
        return
    try:
        deliver(sorted(topics), deltas)
    except Exception:  # the message below then reaches this process too
        logger.warning("could not tell this process's watchers of %s", sorted(topics), exc_info=True)
        publish(sorted(topics), deltas)
    else:
        publish(sorted(topics), deltas, origin=origin())


def key_digest(key: str) -> str:
    """How a session key or a private link's key is named between processes (never the key itself)."""
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def sockets_closed(*, sessions: Sequence[str] = (), links: Sequence[str] = ()) -> None:
    """Close, in every socket server, the live sockets opened with these session keys or private links (a
    session signed out, a link revoked or renewed), once the current transaction commits: a socket's right to
    its topic was checked when it connected, and must not outlive the session or link that gave it."""
    if not settings.LIVE_PUSH or not (sessions or links):
        return
    message = {"close": {"sessions": [key_digest(k) for k in sessions], "links": [key_digest(k) for k in links]}}
    transaction.on_commit(lambda: _send(message))


def publish(topics: list[str], moves: dict[str, Any] | None = None, origin: str | None = None) -> None:
    """Send the topics now; a Redis that cannot be reached loses only the push (pages still poll). ``origin``:
    the process that has told its own watchers already (its subscriber skips the message)."""
    message: Any = topics
    if moves or origin:  # the origin first: its own subscriber skips the message by its first bytes
        message = {**({"origin": origin} if origin else {}), "topics": topics, "moves": moves or {}}
    _send(message)


def _send(message: Any) -> None:
    global _client
    try:
        if _client is None:
            import redis

            _client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=0.3, socket_timeout=0.3)
        _client.publish(CHANNEL, json.dumps(message, cls=DjangoJSONEncoder))
    except Exception:
        logger.warning("live push unavailable", exc_info=True)
