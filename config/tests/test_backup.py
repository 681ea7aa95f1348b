"""Backup and restore as an organizer uses them: `manage.py backup` while games are being played (a separate
process writing moves the whole time), `manage.py restore` into a new, empty database, and every row of every
table equal to the backup's; a restore over a database that holds anything is refused without --force."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

PLAYER = """
import os, sys, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from games.models import Player
from games.services import game_act, game_create
one, two = Player.objects.get_or_create(name="Writer A")[0], Player.objects.get_or_create(name="Writer B")[0]
points = [f"{c}{r}" for r in range(1, 16) for c in "abcdefghijklmno"]
games, stop = 0, __import__("pathlib").Path(sys.argv[1])
while not stop.exists():  # until the test has taken its backups
    game = game_create(player_one=one, player_two=two, rules="freestyle", mode="online")
    games += 1
    for ply in range(8):  # four stones each: never a five
        point = points[(ply * 7) % len(points)]
        game = game_act(game_id=game.pk, player=one if ply % 2 == 0 else two, action=f"place {point}", expected_ply=ply)
    if games == 1:
        print("under way", flush=True)  # the first game is in: the test may start its backups
print(games)
"""


def manage(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=check
    )


def rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    db = sqlite3.connect(str(path))
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        return {t: db.execute(f'SELECT * FROM "{t}" ORDER BY rowid').fetchall() for t in tables}
    finally:
        db.close()


def test_a_backup_taken_while_moves_are_played_restores_into_an_empty_database_row_for_row(tmp_path: Path) -> None:
    base = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "LIVE_PUSH")}
    live = {**base, "VAR_DIR": str(tmp_path / "live"), "DATABASE_URL": f"sqlite:///{tmp_path / 'live.sqlite3'}"}
    manage(live, "migrate", "--no-input", "-v0")
    empty = tmp_path / "empty.sqlite3"  # a database just migrated, as on a new machine
    shutil.copyfile(tmp_path / "live.sqlite3", empty)
    manage(live, "load_demo")
    stop = tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, "-c", PLAYER, str(stop)], cwd=ROOT, env=live, stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "under way"  # its first game is in
        backups = [tmp_path / f"during-{n}.sqlite3" for n in range(3)]
        for path in backups:  # three backups while the moves go on
            assert "backup written" in manage(live, "backup", str(path)).stdout
    finally:
        stop.touch()
        played, _ = writer.communicate(timeout=60)
    assert writer.returncode == 0 and int(played.split()[-1]) > 0

    for path in backups:
        snapshot = sqlite3.connect(str(path))
        try:
            assert snapshot.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            # one consistent moment: every game's ply is the number of its moves (a torn copy would differ)
            torn = snapshot.execute(
                "SELECT g.id FROM games_game g LEFT JOIN games_move m ON m.game_id = g.id "
                "GROUP BY g.id HAVING g.ply != COUNT(m.id)"
            ).fetchall()
        finally:
            snapshot.close()
        assert torn == []

    fresh = {**base, "VAR_DIR": str(tmp_path / "fresh"), "DATABASE_URL": f"sqlite:///{tmp_path / 'fresh.sqlite3'}"}
    shutil.copyfile(empty, tmp_path / "fresh.sqlite3")  # migrated once above: the same as migrating again
    restored = manage(fresh, "restore", str(backups[-1]))

    assert "restored" in restored.stdout
    assert rows(tmp_path / "fresh.sqlite3") == rows(backups[-1])  # every table, every row
    again = manage(fresh, "restore", str(backups[0]), check=False)
    assert again.returncode != 0 and "not empty" in again.stderr and "--force" in again.stderr
    assert rows(tmp_path / "fresh.sqlite3") == rows(backups[-1])  # the refusal changed nothing
    forced = manage(fresh, "restore", "--force", str(backups[0]))
    assert "restored" in forced.stdout and rows(tmp_path / "fresh.sqlite3") == rows(backups[0])


def test_restore_refuses_what_is_not_a_backup_and_names_it(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")},
        "VAR_DIR": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    manage(env, "migrate", "--no-input", "-v0")
    junk = tmp_path / "notes.txt"
    junk.write_text("this is not a database")
    answer = manage(env, "restore", str(junk), check=False)
    assert answer.returncode != 0 and "is not a backup made by this program" in answer.stderr
    missing = manage(env, "restore", str(tmp_path / "nothing.sqlite3"), check=False)
    assert missing.returncode != 0 and "there is no file" in missing.stderr
