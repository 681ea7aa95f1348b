"""Run a command with DATABASE_URL pointing at a throw-away PostgreSQL cluster.

``make test`` uses it for the second pass of the suite: the tests marked
``pg_django`` (concurrent writes through Django) run against PostgreSQL.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.postgres import ThrowawayPostgres  # noqa: E402


def main() -> int:
    cluster = ThrowawayPostgres().start()
    try:
        env = dict(os.environ, DATABASE_URL=cluster.url)
        return subprocess.call(sys.argv[1:], env=env, cwd=ROOT)
    finally:
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
