"""An engine author against the server (issue 59, medium 2): a registered engine script read ``../secret_key``
and, through the SQLite file, a staff password hash, and answered them as its ABOUT line, which anonymous
``GET /api/engines/`` then showed. Outside engines now run in a box (engine.sandbox): here a hostile engine
tries to read the secret key, the database and a file of the project, and to open network connections —
each refused — and what it writes is never published as it came. The same engine run without the box reads
them all: the box is what makes the difference."""

from __future__ import annotations

import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings
from rest_framework.test import APIClient

import engine
from engine.gomocup import EngineSpec, about, about_fields
from engine.sandbox import landlock_abi
from games.models import Engine
from games.services import GameError
from games.services import engines as registry
from games.services.engines import engine_command, engine_register

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(landlock_abi() < 1, reason="this kernel has no Landlock: outside engines are refused here"),
]
SPY = Path(engine.__file__).parent / "tests" / "engines" / "spy.py"
SYSTEM_PYTHON = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or "/usr/bin/python3"


@pytest.fixture
def listener() -> Iterator[str]:
    """A TCP port on this machine that accepts connections (as the server's web and Redis ports do)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    try:
        yield f"127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()


@pytest.fixture
def server_files(tmp_path: Path) -> dict[str, Path]:
    """The server's secrets as a deployment has them: ``var/secret_key`` and the SQLite database beside the
    engines folder, and a file of the project itself."""
    var = tmp_path / "var"
    (var / "engines").mkdir(parents=True)
    (var / "secret_key").write_text("the-servers-secret-key")
    (var / "db.sqlite3").write_bytes(b"SQLite format 3\x00pbkdf2_sha256$staff-hash")
    shutil.copy(SPY, var / "engines" / "spy.py")
    program = var / "engines" / "spy"
    program.write_text(f'#!/bin/sh\nexec {SYSTEM_PYTHON} "$(dirname "$0")/spy.py" "$@"\n')
    program.chmod(0o755)
    return {
        "engines": var / "engines",
        "secret": var / "secret_key",
        "database": var / "db.sqlite3",
        "project": Path(settings.BASE_DIR) / "manage.py",
    }


def spy_command(files: dict[str, Path], *addresses: str) -> str:
    return " ".join(["spy", str(files["secret"]), str(files["database"]), str(files["project"]), *addresses])


def test_a_boxed_engine_reads_no_secret_file_and_reaches_no_network(
    server_files: dict[str, Path], listener: str
) -> None:
    with override_settings(ENGINES_DIR=server_files["engines"]):
        spy = engine_register(name="Spy", command=spy_command(server_files, listener, "8.8.8.8:53"), rules=["renju"])
    got = about_fields(spy.about_raw)

    assert [got[f"t{n}"].split("(")[0] for n in range(5)] == ["DENIED"] * 5, got
    assert spy.about == "Spy 1"
    listed = APIClient().get("/api/engines/").json()
    assert [e["about"] for e in listed] == ["Spy 1"]


def test_the_same_engine_without_the_box_reads_them_all(server_files: dict[str, Path], listener: str) -> None:
    """The control: the files and the port are really there, and only the box keeps the engine from them."""
    with override_settings(ENGINES_DIR=server_files["engines"]):
        argv, cwd = engine_command(spy_command(server_files, listener))
    got = about_fields(about(EngineSpec(argv, cwd=cwd)))

    assert got["t0"] == "READ:" + b"the-servers-secret-key".hex()
    assert got["t1"].startswith("READ:") and got["t2"].startswith("READ:")
    assert got["t3"] == "CONNECTED"


def test_a_boxed_engine_writes_only_its_private_folder(server_files: dict[str, Path]) -> None:
    """Nothing of the server's is writable either: a run's private folder is its HOME and TMPDIR, gone after."""
    target = server_files["secret"].parent / "planted"
    script = server_files["engines"] / "writer"
    script.write_text(
        f'#!/bin/sh\necho x > "{target}" 2>/dev/null; echo x > "$TMPDIR/mine" && '
        f'exec {SYSTEM_PYTHON} "$(dirname "$0")/spy.py" "$TMPDIR/mine"\n'
    )
    script.chmod(0o755)
    with override_settings(ENGINES_DIR=server_files["engines"]):
        writer = engine_register(name="Writer", command="writer", rules=["renju"])

    assert not target.exists()
    assert about_fields(writer.about_raw)["t0"] == "READ:" + b"x\n".hex()


def test_outside_engines_are_refused_where_no_box_can_be_made(
    server_files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "box_missing", lambda: "this kernel has no Landlock")
    with override_settings(ENGINES_DIR=server_files["engines"]):
        with pytest.raises(GameError) as refused:
            engine_register(name="Spy", command="spy", rules=["renju"])
        ours = engine_register(name="Ours", command="builtin", rules=["renju"])  # our own engine is not boxed

    assert refused.value.code == "engine_unboxed" and "no Landlock" in refused.value.message
    assert list(Engine.objects.values_list("name", flat=True)) == [ours.name]


def test_what_an_engine_says_of_itself_is_published_only_as_a_short_clean_name_and_version(
    server_files: dict[str, Path],
) -> None:
    script = server_files["engines"] / "loud"
    script.write_text(
        "#!/bin/sh\nread line\n"
        'echo \'name="<img src=x onerror=alert(1)>Loud engine with a very long name that goes on and on", '
        'version="2 https://evil.example/?k=AAAA", author="Mallory"\'\n'
    )
    script.chmod(0o755)
    with override_settings(ENGINES_DIR=server_files["engines"]):
        loud = engine_register(name="Loud", command="loud", rules=["renju"])

    assert "<" not in loud.about and "https" not in loud.about and "Mallory" not in loud.about
    assert len(loud.about) <= 61
    assert "Mallory" in loud.about_raw  # kept for the organizer
    public: Any = APIClient().get("/api/engines/").json()[0]
    assert public["about"] == loud.about
