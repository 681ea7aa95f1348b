import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config import env

ROOT = Path(__file__).resolve().parents[2]


def _django_setup(**overrides: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings", **overrides)
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("url", ["mysql://x@y/z", "not a url", "postgres://host:notaport/db", "postgres://"])
def test_env_database_malformed_url_names_the_variable(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("DATABASE_URL", url)

    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        env.env_database("DATABASE_URL", Path("/tmp/x.sqlite3"))


def test_env_database_postgres_url_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://u:p@db.example:5433/gomoku")

    config = env.env_database("DATABASE_URL", Path("/tmp/x.sqlite3"))

    assert (config["ENGINE"], config["HOST"], config["PORT"], config["NAME"]) == (
        "django.db.backends.postgresql",
        "db.example",
        5433,
        "gomoku",
    )


def test_env_database_default_is_sqlite_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)

    config = env.env_database("DATABASE_URL", Path("/tmp/x.sqlite3"))

    assert (config["ENGINE"], config["NAME"]) == ("config.sqlite", "/tmp/x.sqlite3")


def test_startup_refuses_malformed_database_url() -> None:
    result = _django_setup(DATABASE_URL="mysql://nope")

    assert result.returncode != 0
    assert "DATABASE_URL must be a sqlite:/// or postgres:// URL" in result.stderr


@pytest.mark.parametrize(
    ("name", "value"),
    [("DEBUG", "maybe"), ("REDIS_URL", "http://x"), ("LANGUAGE_CODE", "fr"), ("TIME_ZONE", "Mars/Base")],
)
def test_startup_refuses_malformed_variable(name: str, value: str) -> None:
    result = _django_setup(**{name: value})

    assert result.returncode != 0
    assert name in result.stderr.splitlines()[-1]


def test_env_bool_reads_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLAG", "Yes")

    assert env.env_bool("FLAG", False) is True


def test_local_secret_key_is_created_once(tmp_path: Path) -> None:
    first = env.local_secret_key(tmp_path / "var" / "secret_key")

    assert env.local_secret_key(tmp_path / "var" / "secret_key") == first
    assert len(first) >= 50
