"""Two organizers pressing "pair" at the same moment, in threads (test_swiss_races.py runs it in a fresh
process on SQLite, and in the test process on PostgreSQL)."""

from __future__ import annotations

import threading

from django.db import connection

from games.models import Player
from tournament import services
from tournament.models import Round
from tournament.services import rounds as cycle


def two_at_once() -> list[str]:
    tournament = services.tournament_create(name="Race open", preset="swiss", stage_options={"rounds": 5})
    for n in range(12):
        services.register(tournament=tournament, player=Player.objects.create(name=f"R{n}", rating=2000 + n))
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=4)
    services.start_stage(stage=stage)
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def press() -> None:
        try:
            barrier.wait()
            cycle.round_pair(stage=stage)
            outcomes.append("paired")
        except services.TournamentError as exc:
            outcomes.append(exc.code)
        except Exception as exc:  # noqa: BLE001 - reported to the test, which fails on it
            outcomes.append(f"{type(exc).__name__}: {exc}")
        finally:
            connection.close()

    threads = [threading.Thread(target=press) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    outcomes.append(f"drafts={Round.objects.filter(stage=stage).count()}")
    return sorted(outcomes)
