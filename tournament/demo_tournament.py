"""The demo tournaments: one in the seed's format, part-way through its preliminary stage, a team event
with its first round played, and a double-elimination knockout part-way through its brackets.

The 22 demo players (accounts ``player01`` … ``player22``) are drawn into
groups with a fixed seed and about half of the preliminary games are played
with seeded results, so a new user sees real tables, boards and a live
schedule at once. In the team event (four schools, four boards and a reserve, a round robin) ``player01``
captains the first team, so the captain's lineup form is on that console for round 2.
Idempotent: an existing demo tournament is left as it is.
"""

from __future__ import annotations

import random

from django.contrib.auth import get_user_model

from games.enums import GameStatus
from games.models import Game, Player
from games.services import game_confirm_result, game_report_result
from tournament import services
from tournament.demo import PLAYER_COUNT
from tournament.models import Tournament
from tournament.teams.services import close_lineups_now, team_create

DEMO_NAME = "校园五子棋赛 Campus Gomoku Open (demo)"
DEMO_TEAMS_NAME = "校际团体赛 Inter-school Team Cup (demo)"
DEMO_DOUBLE_NAME = "双败淘汰赛 Double Elimination Cup (demo)"
UNITS = [
    "一中 No.1 Middle School",
    "实验中学 Experimental School",
    "外国语学校 Foreign Languages School",
    "师大附中 Normal University High",
    "少年宫 Children's Palace",
]


def demo_record(winner: str, rng: random.Random) -> str:
    """A short record in which ``winner`` makes a five on a random row (the loser's stones wander below)."""
    letters = "abcdefghijklmno"
    row, col = rng.randint(6, 14), rng.randint(0, 10)
    five = [f"{letters[col + i]}{row}" for i in range(5)]
    other = [f"{letters[(col + 2 * i) % 15]}{row - 4}" for i in range(5)]  # never four in a row
    if winner == "black":
        moves = [m for pair in zip(five, other, strict=True) for m in pair][:-1]
    else:
        moves = [m for pair in zip(other, five, strict=True) for m in pair]
    return " ".join(moves)


def load_demo_tournament(seed: int = 2026) -> Tournament:
    existing = Tournament.objects.filter(name=DEMO_NAME).first()
    if existing is not None:
        return existing
    rng = random.Random(seed)
    users = get_user_model().objects
    tournament = services.tournament_create(name=DEMO_NAME, preset="seed", venue="体育馆 Gym")
    tournament.referees.set(users.filter(username__in=["referee1", "referee2"]))
    for n in range(1, PLAYER_COUNT + 1):
        user = users.filter(username=f"player{n:02d}").first()
        player = Player.objects.filter(user=user).first() if user else None
        if player is None:
            player = Player.objects.create(
                name=f"棋手 Player {n:02d}", unit=UNITS[n % len(UNITS)], rating=rng.randint(1300, 2200), user=user
            )
        services.register(tournament=tournament, player=player)
    services.publish(tournament=tournament)
    stage = tournament.stages.get(order=1)
    services.draw_stage(stage=stage, seed=seed)
    services.start_stage(stage=stage)
    for _wave in range(4):  # about half of the preliminary games
        play_called_games(tournament, rng)
    return tournament


def play_called_games(tournament: Tournament, rng: random.Random) -> None:
    """Every game called and not finished gets a seeded result, reported by black and confirmed by white."""
    for game in Game.objects.filter(
        match_game__match__tournament=tournament, status__in=GameStatus.active()
    ).select_related("black", "white"):
        roll = rng.random()
        result, reason = ("draw", "agreement") if roll < 0.15 else (rng.choice(["black", "white"]), "five")
        record = demo_record(result, rng) if reason == "five" else ""
        assert game.black is not None and game.white is not None  # colours are known once a game is called
        game_report_result(game_id=game.pk, reporter=game.black, result=result, reason=reason, record=record)
        game_confirm_result(game_id=game.pk, player=game.white)


def load_demo_team_event(seed: int = 2026) -> Tournament:
    """Four schools' teams (four boards and a reserve) in a round robin: round 1 played from the standing
    orders, round 2 paired with its lineups awaited (an hour to send them)."""
    existing = Tournament.objects.filter(name=DEMO_TEAMS_NAME).first()
    if existing is not None:
        return existing
    rng = random.Random(seed + 1)
    options = {"boards": 4, "reserves": 1, "system": "round_robin", "lineup_minutes": 60}
    tournament = services.tournament_create(
        name=DEMO_TEAMS_NAME, preset="teams", venue="体育馆 Gym", stage_options=options
    )
    captain = Player.objects.filter(user__username="player01").first()
    for number, unit in enumerate(UNITS[:4]):
        school = unit.split(" ")[0]
        squad = [
            Player.objects.create(name=f"{school} {n}", unit=unit, rating=rng.randint(1400, 2100)) for n in range(1, 6)
        ]
        if number == 0 and captain is not None:
            squad[0] = captain
        team_create(tournament=tournament, name=school, players=squad, captain=squad[0])
    services.publish(tournament=tournament)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=seed)
    services.start_stage(stage=stage)
    services.pair_next_round(stage=stage)
    close_lineups_now(stage)  # round 1 from the standing orders
    play_called_games(tournament, rng)
    services.pair_next_round(stage=stage)
    return tournament


def load_demo_double_elimination(seed: int = 2026) -> Tournament:
    """Eight players in a double-elimination knockout (single games): three rounds played (the winners'
    bracket to its final, the losers' bracket under way), the fourth published and on the boards."""
    existing = Tournament.objects.filter(name=DEMO_DOUBLE_NAME).first()
    if existing is not None:
        return existing
    rng = random.Random(seed + 2)
    tournament = services.tournament_create(
        name=DEMO_DOUBLE_NAME, preset="double", venue="体育馆 Gym", stage_options={"best_of": 1}
    )
    for n in range(1, 9):
        player = Player.objects.create(
            name=f"双败 Player {n}", unit=UNITS[n % len(UNITS)], rating=rng.randint(1500, 2300)
        )
        services.register(tournament=tournament, player=player)
    services.publish(tournament=tournament)
    stage = tournament.stages.get()
    services.draw_stage(stage=stage, seed=seed)
    services.start_stage(stage=stage)
    games = Game.objects.filter(match_game__match__tournament=tournament, status__in=GameStatus.active())
    for _round in range(3):
        services.pair_next_round(stage=stage)
        while games.exists():  # a drawn single game is followed by another
            play_called_games(tournament, rng)
    services.pair_next_round(stage=stage)
    return tournament
