"""The registry of outside engines: Gomocup (pbrain protocol) programs the organizer registers as opponents.

An engine's command runs either our own engine (``builtin``: ``python -m engine pbrain``) or a program
under ``settings.ENGINES_DIR``; anything else is refused, so a form in the admin panel never becomes a
way to run an arbitrary program on the server. Each move starts the program afresh with its budget
(:func:`engine.gomocup.engine_move`), so a crash, an overrun or an illegal answer costs one game, which
the engine forfeits (:func:`games.services.computer.computer_turn`), and is counted here.

An outside program runs in a box (:mod:`engine.sandbox`): it reads only the system and its own folder,
writes only a private folder made for each run, and reaches no network — never the project, ``var/``, the
database or the secret key. Where no box can be made, outside engines are refused (:func:`box_missing`).
What an engine writes is never published as it came: of its ``ABOUT``, only the name and version.
"""

from __future__ import annotations

import functools
import logging
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from engine.gomocup import EngineFailure, EngineSpec, about, public_about
from engine.sandbox import Box, unavailable
from games.messages import translate
from games.models import Engine, default_engine_levels
from games.services.base import GameError

logger = logging.getLogger(__name__)

BUILTIN = "builtin"
ENGINE_RULES = ("renju", "freestyle", "standard")
LEVELS = ("1", "2", "3", "4", "5")
TURN_MS = (10, 120_000)  # the least and the most a level may give a move


@functools.cache
def box_missing() -> str:
    """Why outside engines cannot be boxed on this server (empty when they can); asked once per process."""
    return unavailable()


def engine_command(command: str) -> tuple[tuple[str, ...], str]:
    """The argv and working directory of a registered command, or :class:`GameError` if it may not run."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = []
    if not words:
        raise GameError("engine_command", _("Give the engine's command: builtin, or a program in the engines folder."))
    if words[0] == BUILTIN:
        return (sys.executable, "-m", "engine", "pbrain", *words[1:]), str(settings.BASE_DIR)
    folder = Path(settings.ENGINES_DIR).resolve()
    program = (folder / words[0]).resolve()
    if not program.is_relative_to(folder) or not program.is_file() or not os.access(program, os.X_OK):
        raise GameError(
            "engine_command",
            _("%(program)s is not a program in the engines folder (%(folder)s).")
            % {"program": words[0], "folder": folder},
        )
    return (str(program), *words[1:]), str(program.parent)


def clean_levels(levels: Any) -> dict[str, dict[str, int]]:
    """Each of the levels 1–5 with its budget: ``turn_ms`` (required), ``max_node`` and ``level`` (optional)."""
    if not isinstance(levels, dict) or set(map(str, levels)) != set(LEVELS):
        raise GameError("engine_levels", _("Give a budget for each of the levels 1 to 5."))
    cleaned: dict[str, dict[str, int]] = {}
    for key, budget in levels.items():
        turn_ms = budget.get("turn_ms") if isinstance(budget, dict) else None
        extra = set(budget) - {"turn_ms", "max_node", "level"} if isinstance(budget, dict) else set()
        numbers = [v for v in (budget.values() if isinstance(budget, dict) else ()) if type(v) is int and v >= 0]
        if (
            type(turn_ms) is not int
            or not TURN_MS[0] <= turn_ms <= TURN_MS[1]
            or extra
            or len(numbers) != len(budget)
            or budget.get("level", 1) not in range(1, 6)
        ):
            raise GameError(
                "engine_levels",
                _("Level %(level)s: turn_ms is %(low)s to %(high)s milliseconds; max_node and level are optional.")
                % {"level": key, "low": TURN_MS[0], "high": TURN_MS[1]},
            )
        cleaned[str(key)] = dict(budget)
    return dict(sorted(cleaned.items()))


def clean_rules(rules: Any) -> list[str]:
    if not isinstance(rules, list | tuple) or not rules or not set(rules) <= set(ENGINE_RULES):
        raise GameError("engine_rules", _("Choose the rules the engine plays: renju, freestyle, standard."))
    return [r for r in ENGINE_RULES if r in rules]


def _box(command: str, cwd: str) -> Box | None:
    """The box of an outside program (its own folder to read); none for our own engine. An outside program
    never runs unboxed: where no box can be made it is refused."""
    if shlex.split(command)[:1] == [BUILTIN]:
        return None
    missing = box_missing()
    if missing:
        raise GameError(
            "engine_unboxed",
            _("Outside engines run only in a box, and this server cannot make one: %(reason)s (docs/security.md).")
            % {"reason": missing},
        )
    return Box(read=(cwd,))


def engine_spec(engine: Engine, level: int, *, most_ms: int | None = None) -> EngineSpec:
    """How to run ``engine`` for a move at ``level``, within ``most_ms`` when the clock allows less."""
    argv, cwd = engine_command(engine.command)
    budget = engine.levels.get(str(level)) or {"turn_ms": 1000}
    turn_ms = budget["turn_ms"] if most_ms is None else max(10, min(budget["turn_ms"], most_ms))
    return EngineSpec(
        argv,
        turn_ms=turn_ms,
        max_node=budget.get("max_node", 0),
        level=budget.get("level", 0),
        cwd=cwd,
        box=_box(engine.command, cwd),
    )


def engine_check(command: str, rules: Any, levels: Any) -> tuple[list[str], dict[str, dict[str, int]], str]:
    """The rules and levels cleaned, and the engine's ``ABOUT`` answer (as it came: keep it for organizers,
    publish only :func:`engine.gomocup.public_about`); :class:`GameError` if any is wrong, the engine cannot be
    boxed, or it does not start and answer."""
    rules = clean_rules(rules)
    levels = clean_levels(levels if levels is not None else default_engine_levels())
    argv, cwd = engine_command(command)
    try:
        answer = about(EngineSpec(argv, cwd=cwd, box=_box(command, cwd)))
    except EngineFailure as failure:
        raise GameError(
            "engine_unusable", _("The engine did not answer ABOUT: %(reason)s") % {"reason": translate(failure)}
        ) from None
    return rules, levels, answer


def engine_register(
    *,
    name: str,
    command: str,
    rules: Any,
    levels: Any = None,
    enabled: bool = True,
    instance: Engine | None = None,
) -> Engine:
    """Register (or, with ``instance``, change) an engine after asking it ``ABOUT``: an engine that does not
    start and answer is refused with the reason."""
    name = name.strip()
    if not name:
        raise GameError("engine_name", _("Give the engine a name."))
    rules, levels, answer = engine_check(command, rules, levels)
    with transaction.atomic():
        engine = instance or Engine()
        if Engine.objects.filter(name=name).exclude(pk=engine.pk).exists():
            raise GameError("engine_name", _("There is already an engine named %(name)s.") % {"name": name})
        engine.name, engine.command, engine.rules, engine.levels = name, command.strip(), rules, levels
        engine.enabled, engine.about, engine.about_raw = enabled, public_about(answer), answer[:300]
        engine.save()
    return engine


def engine_failed(engine: Engine, failure: EngineFailure, where: str) -> None:
    """Count a failure against ``engine`` and keep the last one (``where``: "game 12", "analysis of game 12" …),
    with the engine's last lines, for the organizer."""
    output = " | ".join(failure.output[-5:])
    text = f"{where}: {failure} ({failure.kind})" + (f"; last output: {output}" if output else "")
    Engine.objects.filter(pk=engine.pk).update(
        failures=F("failures") + 1, last_failure=text[:500], last_failure_at=timezone.now()
    )
    logger.warning("engine %s failed: %s", engine.name, text)
