"""Live push, the serving side: pages watch a topic over a WebSocket and receive each new state.

``/ws/live/?topic=game:12&lang=zh-hans`` (or ``tournament:3``). The server checks the session may see
the topic, sends the latest state it has, then every new one. One Redis subscription per process
(channel ``live``, see :mod:`games.live`) says which topics changed; for each, the new state is read
and rendered once per language and sent to every local watcher of it — the cost of a change does not
grow with the number of watchers beyond one send each. Changes that arrive while a topic is being
read are coalesced into one more read. A plain move comes with what it changed (games.live.game_moved):
if the state last sent is the one just before the move, the watchers are sent only what the move changed,
``{"topic": "game:12", "moved": {...}}`` (games.live.move_delta), without a read, and the page adds it
to the state it shows as :func:`with_move` does here (a page whose state is not the one just before it
fetches the game). A page that loses its socket reconnects and fetches once to catch up; while its socket
is open it polls only as a slow safety net.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import socket
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar
from urllib.parse import parse_qs, urlsplit

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.http.request import validate_host
from django.utils import timezone

from config.arrivals import Publisher, redis_client
from config.live_guard import CLOSE_ENDED, CLOSE_REFUSED, Admission, FrameGate, admit
from config.live_reads import game_tournament, referees_of, render, with_database
from relay.boards import delta

logger = logging.getLogger(__name__)
ACTS_FIRST_S = 2.0  # the longest a new socket waits for the moves queued before it
Send = Any  # the ASGI send callable
SEND_TIMEOUT_S = 5.0
P = ParamSpec("P")
T = TypeVar("T")


@dataclass(eq=False)
class Watcher:
    send: Send
    topic: str
    lang: str
    session: str = ""  # digests of the session and the private link it was opened with (config.live_guard)
    link: str = ""
    closed: bool = False

    async def close(self, code: int) -> None:
        """Close the socket (its session or link ended, or it was refused too often); the page may reconnect."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(Exception):
            await self.send({"type": "websocket.close", "code": code})

    async def push(self, text: str) -> None:
        if self.closed:
            return
        try:
            async with asyncio.timeout(SEND_TIMEOUT_S):  # no task of its own per send, as wait_for makes
                await self.send({"type": "websocket.send", "text": text})
        except Exception:  # a dead or too slow socket: drop it; the page reconnects and catches up
            self.closed = True


@dataclass
class Hub:
    watchers: dict[str, set[Watcher]] = field(default_factory=dict)
    latest: dict[tuple[str, str], str] = field(default_factory=dict)
    running: set[str] = field(default_factory=set)
    dirty: set[str] = field(default_factory=set)
    listener: asyncio.Task[None] | None = None
    tournament_of: dict[int, int | None] = field(default_factory=dict)  # game id -> its tournament (cached)
    kinds: Counter[str] = field(default_factory=Counter)  # watched topics of each kind ("game", "referee", …)
    shown: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # a game's state last sent
    pending: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # moves announced during a read
    unsent: dict[str, set[str]] = field(default_factory=dict)  # languages a read under way will still send
    acts_pending: int = 0  # moves sent on sockets (config.live_acts) received and not yet answered
    acts_quiet: asyncio.Event = field(default_factory=asyncio.Event)  # set while none is pending
    scoped: dict[str, set[str]] = field(default_factory=dict)  # player:12 -> the watched player:12@5, …
    timers: dict[str, asyncio.TimerHandle] = field(default_factory=dict)  # a relay's next coming of age
    # the arrival of the oldest socket move still waiting here, in the web processes' ledger: a flag waits for it
    arrivals: Publisher = field(
        default_factory=lambda: Publisher(redis_client(), f"live:{socket.gethostname()}:{os.getpid()}")
    )

    def ensure_listening(self) -> None:
        if self.listener is None or self.listener.done():
            self.listener = asyncio.get_running_loop().create_task(self._listen())

    async def _listen(self) -> None:
        import redis.asyncio as aioredis

        from games.live import CHANNEL, origin

        first, mine = True, json.dumps({"origin": origin()})[:-1].encode()  # how this process's messages begin
        while True:
            client = aioredis.from_url(settings.REDIS_URL)  # type: ignore[no-untyped-call]  # unannotated in redis-py
            pubsub = client.pubsub()
            try:
                await pubsub.subscribe(CHANNEL)
                if not first:
                    for topic in list(self.watchers):  # what changed while we were not listening
                        self.changed(topic)
                first = False
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        if message["data"].startswith(mine):
                            continue  # told here already (Committed), not even parsed
                        data = json.loads(message["data"])
                        if isinstance(data, dict) and "close" in data:
                            self.close_matching(data["close"])
                            continue
                        topics, moves = (data["topics"], data["moves"]) if isinstance(data, dict) else (data, {})
                        self.deliver(topics, moves)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("live push: Redis subscription lost; retrying", exc_info=True)
                await asyncio.sleep(1)
            finally:
                await pubsub.aclose()
                await client.aclose()

    def close_matching(self, ended: dict[str, list[str]]) -> None:
        """Close every socket here opened with a session or a private link that has ended (a sign-out, a link
        revoked or renewed: games.live.sockets_closed)."""
        sessions, links = set(ended.get("sessions", ())), set(ended.get("links", ()))
        for watching in list(self.watchers.values()):
            for watcher in list(watching):
                if (watcher.session and watcher.session in sessions) or (watcher.link and watcher.link in links):
                    asyncio.get_running_loop().create_task(watcher.close(CLOSE_ENDED))

    def deliver(self, topics: list[str], moves: dict[str, Any]) -> None:
        """A committed change, as games.live publishes it: from Redis, or from this process's own acts."""
        for topic in topics:
            self.changed(str(topic), moves.get(topic))

    def changed(self, topic: str, move: dict[str, Any] | None = None) -> None:
        """``topic`` changed: its watchers here are sent the new state, read once per language; or, for a
        plain move announced with what it changed (games.live.game_moved), the move alone, when the state
        they were last sent is the one just before it."""
        kind, _sep, ident = topic.partition(":")
        if kind == "game" and ident.isdigit():
            if self.kinds["tournament"] or self.kinds["relay"]:
                asyncio.get_running_loop().create_task(self._follow_game(int(ident)))
            if self.kinds["relaygame"]:  # a result entered: the relayed game shows it (and its sheet's record)
                self.changed(f"relaygame:{ident}")
            if self.kinds["referee"]:
                asyncio.get_running_loop().create_task(self._tell_referees(int(ident)))
        for scoped in self.scoped.get(topic, ()):  # player:12 changed: so did player:12@5
            self.changed(scoped)
        if topic not in self.watchers:
            return
        if topic in self.running:  # a read under way: a move is added after it, anything else reads again
            if move is not None:
                self.pending.setdefault(topic, []).append(move)
            else:
                self.dirty.add(topic)
            return
        if move is not None and self._add_move(topic, move):
            return
        self.running.add(topic)
        asyncio.get_running_loop().create_task(self._refresh(topic))

    async def welcome(self, watcher: Watcher) -> None:
        """A new watcher gets the latest state sent here; the first one of its topic and language has it read,
        unless a read under way will be sent to it (watchers arriving together cost one read)."""
        latest = self._latest(watcher.topic, watcher.lang)
        if latest is not None:
            await watcher.push(latest)
        elif watcher.lang not in self.unsent.get(watcher.topic, ()):
            self.changed(watcher.topic)

    def _latest(self, topic: str, lang: str) -> str | None:
        """The text of the last state sent for ``topic`` in ``lang`` (made from it after moves were added)."""
        text = self.latest.get((topic, lang))
        if text is None and (topic, lang) in self.shown:
            text = json.dumps({"topic": topic, "game": self.shown[(topic, lang)]}, cls=DjangoJSONEncoder)
            self.latest[(topic, lang)] = text
        return text

    def _add_move(self, topic: str, move: dict[str, Any]) -> bool:
        """Send the move to the topic's watchers as what it changed, ``{"topic": …, "moved": …}`` (the page adds
        it to the state it shows, as :func:`with_move` does; static/js/game.js), in every language at once;
        False (read the game) unless each language's last state sent is the one just before it."""
        langs = {w.lang for w in self.watchers[topic]}
        after: dict[str, dict[str, Any]] = {}
        for lang in langs:
            new = with_move(self.shown.get((topic, lang)), move)
            if new is None:
                return False
            after[lang] = new
        for lang, new in after.items():
            self.shown[(topic, lang)] = new
            self.latest.pop((topic, lang), None)  # its text is made again only for a new watcher
        text = json.dumps({"topic": topic, "moved": move}, cls=DjangoJSONEncoder)
        asyncio.get_running_loop().create_task(_push_all(list(self.watchers[topic]), text))
        return True

    async def _follow_game(self, game_id: int) -> None:
        """A game on a watched tournament's board changed: its boards list (moves, turn, clocks) did too."""
        if game_id not in self.tournament_of:
            self.tournament_of[game_id] = await sync_to_async(game_tournament, thread_sensitive=False)(game_id)
        tournament = self.tournament_of[game_id]
        if tournament is not None:
            self.changed(f"tournament:{tournament}")
            self.changed(f"relay:{tournament}")

    async def _tell_referees(self, game_id: int) -> None:
        """A game changed: the consoles of its referees watched here show it (looked up only while a
        referee's console is open, so a move costs nothing for them otherwise)."""
        referees = await sync_to_async(referees_of, thread_sensitive=False)(game_id)
        for referee in referees:
            self.changed(f"referee:{referee}")

    def _timed(self, topic: str, text: str) -> str:
        """A relay's state says when it next changes by itself (``refresh_at``: an entry coming of age after the
        delay): read it again then, whether or not anything is announced meanwhile. The state without it."""
        if not topic.startswith(RELAY_TOPICS):
            return text
        state = json.loads(text)
        at = state.pop("refresh_at", None)
        old = self.timers.pop(topic, None)
        if old is not None:
            old.cancel()
        if at is not None and topic in self.watchers:
            wait = max(0.0, at - time.time()) + 0.05
            self.timers[topic] = asyncio.get_running_loop().call_later(wait, self.changed, topic)
        return json.dumps(state)

    async def _refresh(self, topic: str) -> None:
        # A tournament's page is read at most once a second, however many of its games move meanwhile; a
        # multiboard at most twice a second.
        spacing = 1.0 if topic.startswith("tournament:") else 0.5 if topic.startswith("relay:") else 0.0
        try:
            while True:
                started = asyncio.get_running_loop().time()
                self.dirty.discard(topic)
                self.unsent[topic] = langs = {w.lang for w in self.watchers.get(topic, ())}
                for lang in sorted(langs):
                    text = await asyncio.get_running_loop().run_in_executor(_pool("live-reads", 1), render, topic, lang)
                    langs.discard(lang)
                    previous = self._latest(topic, lang)
                    if text is not None:
                        text = self._timed(topic, text)
                    if text is None or text == previous:
                        continue  # gone, or nothing new (a repeated announcement)
                    self.latest[(topic, lang)] = text
                    if topic.startswith("game:"):
                        self.shown[(topic, lang)] = json.loads(text)["game"]
                    targets = [w for w in self.watchers.get(topic, ()) if w.lang == lang]
                    await _push_all(targets, changes(topic, previous, text))
                self._add_pending(topic)
                if topic not in self.dirty:
                    return
                await asyncio.sleep(max(0.0, started + spacing - asyncio.get_running_loop().time()))
        except Exception:
            logger.exception("live push: could not render %s", topic)
        finally:
            self.running.discard(topic)
            self.pending.pop(topic, None)
            self.unsent.pop(topic, None)

    def _add_pending(self, topic: str) -> None:
        """The moves announced while ``topic`` was read: those the read already shows are dropped, the others
        added in turn; one that does not follow (a move missed, another change) and the topic is read again."""
        for move in self.pending.pop(topic, []):
            langs = {w.lang for w in self.watchers.get(topic, ())}
            if topic in self.dirty or not langs:
                return
            plies = [self.shown.get((topic, lang), {}).get("ply") for lang in langs]
            if all(isinstance(ply, int) and ply >= move["ply"] for ply in plies):
                continue  # read after the move was stored: already shown
            if not self._add_move(topic, move):
                self.dirty.add(topic)

    def add(self, watcher: Watcher) -> None:
        if watcher.topic not in self.watchers:
            self.kinds[watcher.topic.partition(":")[0]] += 1
        self.watchers.setdefault(watcher.topic, set()).add(watcher)
        base, at, _origin = watcher.topic.partition("@")
        if at:
            self.scoped.setdefault(base, set()).add(watcher.topic)

    def remove(self, watcher: Watcher) -> None:
        watching = self.watchers.get(watcher.topic)
        if watching is not None:
            watching.discard(watcher)
            if not watching:
                del self.watchers[watcher.topic]
                self.kinds[watcher.topic.partition(":")[0]] -= 1
                base, at, _origin = watcher.topic.partition("@")
                if at and self.scoped.get(base):
                    self.scoped[base].discard(watcher.topic)
                    if not self.scoped[base]:
                        del self.scoped[base]
                self.pending.pop(watcher.topic, None)
                timer = self.timers.pop(watcher.topic, None)
                if timer is not None:
                    timer.cancel()
                for lang, _name in settings.LANGUAGES:  # not a walk over every topic's states
                    self.latest.pop((watcher.topic, lang), None)
                    self.shown.pop((watcher.topic, lang), None)


RELAY_TOPICS = ("relay:", "relaygame:")


def changes(topic: str, previous: str | None, text: str) -> str:
    """What watchers already shown ``previous`` are sent: a multiboard's boards that changed (relay.boards.delta),
    anything else whole. A new watcher is sent the whole state (Hub.welcome)."""
    if previous is None or not topic.startswith("relay:"):
        return text
    return json.dumps({"topic": topic, **delta(json.loads(previous), json.loads(text))})


# What a plain move changes in a game's state (games.live.move_delta), besides adding itself to the moves.
MOVE_FIELDS = ("ply", "status", "black", "white", "clock", "position")


def with_move(state: dict[str, Any] | None, move: dict[str, Any]) -> dict[str, Any] | None:
    """``state`` (a game as GameDetailSerializer shows it) after the plain move ``move`` describes, or None
    when ``state`` is not the state just before it (another ply, another status, a call for the arbiter)."""
    if (
        state is None
        or state.get("ply") != move["ply"] - 1
        or move["move"].get("ply") != move["ply"]
        or len(state.get("moves", ())) != state["ply"]
        or state.get("status") != move["status"]
        or state.get("arbiter_call") is not None
    ):
        return None
    return {**state, **{name: move[name] for name in MOVE_FIELDS}, "moves": [*state["moves"], move["move"]]}


async def _push_all(targets: list[Watcher], text: str) -> None:
    """One after the other, in this task: uvicorn's send writes to the socket without waiting (it never
    suspends), so a task per watcher was only overhead; a send that did wait holds the rest at most
    ``SEND_TIMEOUT_S``."""
    for watcher in targets:
        await watcher.push(text)


_hubs: dict[asyncio.AbstractEventLoop, Hub] = {}


def hub() -> Hub:
    """The hub of the running event loop (one per server process; a test may run several in turn)."""
    loop = asyncio.get_running_loop()
    for old in [other for other in _hubs if other.is_closed()]:
        del _hubs[old]
    if loop not in _hubs:
        # The threads that check new sockets (asgiref's sync_to_async runs them in the loop's default
        # executor): few, so that the loop itself, which reads every frame and sends every push, is not
        # starved of the interpreter by a crowd of them at a round's start. Moves and reads have their own.
        loop.set_default_executor(ThreadPoolExecutor(max_workers=settings.LIVE_THREADS, thread_name_prefix="live"))
        _hubs[loop] = Hub()
        _hubs[loop].acts_quiet.set()
    return _hubs[loop]


def admitted(scope: dict[str, Any], topic: str, lang: str) -> Admission | None:
    """What the socket's session may do with ``topic`` (config.live_guard.admit), ``None`` when not even see it."""
    return with_database(admit, scope, topic, lang)


def _origin_allowed(scope: dict[str, Any]) -> bool:
    """Only our own pages may open a socket with the visitor's cookies (no cross-site reading)."""
    for name, value in scope.get("headers", []):
        if name == b"origin":
            host = urlsplit(value.decode("latin-1")).hostname or ""
            return validate_host(host, settings.ALLOWED_HOSTS)
    return True  # not a browser (a benchmark, a script): the session decides


async def websocket(scope: dict[str, Any], receive: Any, send: Send) -> None:
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    query = parse_qs(scope.get("query_string", b"").decode())
    topic = (query.get("topic") or [""])[0]
    lang = (query.get("lang") or [settings.LANGUAGE_CODE])[0].lower()
    if lang not in {code for code, _name in settings.LANGUAGES}:
        lang = settings.LANGUAGE_CODE
    here = hub()
    # A new socket is checked and sent its first state only while no move is waiting to be acted on: at a
    # round's start thousands connect as the first moves come, and the moves go first (docs/reliability.md).
    # Not longer than ACTS_FIRST_S, though: with a deep moves queue a busy server may never be quiet, and a
    # page must get in.
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(ACTS_FIRST_S):
            await here.acts_quiet.wait()
    admit_here = sync_to_async(admitted, thread_sensitive=False)
    admission = await admit_here(scope, topic, lang) if _origin_allowed(scope) else None
    if admission is None:
        await send({"type": "websocket.close", "code": CLOSE_REFUSED})
        return
    await send({"type": "websocket.accept"})
    watcher = Watcher(send, topic, lang, session=admission.session, link=admission.link)
    gate = FrameGate(admission)
    here.ensure_listening()
    here.add(watcher)
    try:
        await here.welcome(watcher)
        while not watcher.closed:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if message["type"] == "websocket.receive" and text is not None:  # a move on the game's socket
                refused = gate.refusal(text, lang)  # in the loop: no thread, no place in the moves' queue
                await watcher.push(refused if refused is not None else await _act(scope, watcher, text))
                if gate.spent:
                    await watcher.close(CLOSE_REFUSED)
    finally:
        here.remove(watcher)


async def _act(scope: dict[str, Any], watcher: Watcher, text: str) -> str:
    """One frame a player sent (config.live_acts), acted on in a thread: stamped when it reached the server.

    The acts have threads of their own: at a round's start thousands of sockets connect, each checked and
    welcomed in the shared threads, and a move must not wait behind them. With ``LIVE_ACT_QUEUE`` acts
    already waiting here, the frame is answered at once as busy, not acted on, and the client sends it by
    HTTP, to the web processes (static/js/game.js): one process's queue never holds the hall's moves."""
    from config.live_acts import act, busy

    here = hub()
    if here.acts_pending >= settings.LIVE_ACT_QUEUE:
        return busy(text, watcher.lang)
    at = timezone.now()
    # What the act commits is told to this process's watchers here, once the thread is done (before its
    # reply is sent), not back through Redis: no second wake-up of the loop from the thread.
    committed = Committed(asyncio.get_running_loop(), here)
    work = functools.partial(with_database, act, scope, watcher.topic, watcher.lang, text, at, committed)
    here.acts_pending += 1
    here.acts_quiet.clear()
    here.arrivals.started(id(work), at.timestamp())  # a flag waits for this move (games.flaghold)
    try:
        return await asyncio.get_running_loop().run_in_executor(_pool("live-acts", settings.LIVE_ACT_THREADS), work)
    finally:
        for topics, moves in committed.take():
            here.deliver(topics, moves)
        here.acts_pending -= 1
        here.arrivals.finished(id(work))
        here.arrivals.catch_up()
        if not here.acts_pending:
            here.acts_quiet.set()


class Committed:
    """What an act's thread commits (games.live.delivered_here), kept for the loop to tell this process's
    watchers when the act is done; once it has taken them (or stopped waiting: a cancelled act), what the
    thread still commits is handed to the loop at once."""

    def __init__(self, loop: asyncio.AbstractEventLoop, here: Hub) -> None:
        self.loop, self.here = loop, here
        self.changes: list[tuple[list[str], dict[str, Any]]] = []
        self.taken = False
        self.lock = threading.Lock()

    def __call__(self, topics: list[str], moves: dict[str, Any]) -> None:
        with self.lock:
            if not self.taken:
                self.changes.append((topics, moves))
                return
        self.loop.call_soon_threadsafe(self.here.deliver, topics, moves)

    def take(self) -> list[tuple[list[str], dict[str, Any]]]:
        with self.lock:
            self.taken = True
            changes, self.changes = self.changes, []
        return changes


_pools: dict[str, ThreadPoolExecutor] = {}


def _pool(name: str, threads: int) -> ThreadPoolExecutor:
    """This process's threads for one kind of work, made on first use, so that none waits behind another's
    queue: ``live-acts``, the moves sent on sockets (:func:`_act`); ``live-reads``, the states read for the
    watchers (:meth:`Hub._refresh`). New sockets are checked in the loop's default executor (:func:`hub`).

    At a round's start, reads shared the checks' one thread: 4,000 sockets connect in 8–14 s, and each topic's
    first state was read only once the checks queued before it were done, so a spectator accepted early
    waited for its board (and for the moves made meanwhile) until most sockets were in. With a thread of
    their own, the reads keep up with the checks (bench/open.py on PostgreSQL: the last first state 18 s after
    the last game was made instead of 22–24, the start's push p99 4.9 s instead of 10.8–11.7; docs/reliability.md)."""
    if name not in _pools:
        _pools[name] = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name)
    return _pools[name]
