"""Every URL pattern × every role, against the intended matrix.

Roles: an anonymous visitor, the player whose game it is, another player, a
referee of another tournament, and the organizer. Each request runs on a
fresh state (a rolled-back transaction), so one role's action cannot change
another's answer. A new URL pattern fails ``test_every_url_pattern_is_in_the_matrix``
until its intended answers are written down here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group as Role
from django.core.cache import cache
from django.db import models, transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from config.tests.contract import check_against_schema
from games.models import Game, Player
from games.services import game_act, game_create, game_offer_draw, game_report_result
from tournament import appeals, services
from tournament.models import Tournament
from tournament.services import rounds as cycle

pytestmark = pytest.mark.django_db
ROLES = ("anonymous", "player", "other_player", "other_referee", "organizer")
T01_H8 = ["g8", "a1", "i8", "c1", "h9", "e1", "h10", "k1", "h8"]


class World:
    """Users, two tournaments and the games the requests act on."""

    def __init__(self) -> None:
        users = get_user_model().objects
        self.users: dict[str, Any] = {}
        for name, role in [
            ("player", "player"),
            ("other_player", "player"),
            ("opponent", "player"),
            ("referee", "referee"),
            ("other_referee", "referee"),
            ("organizer", "organizer"),
        ]:
            user = users.create_user(name, password="walk-pass-1", is_staff=role == "organizer")
            user.groups.add(Role.objects.get(name=role))
            self.users[name] = user
        self.me = Player.objects.create(name="Me", user=self.users["player"])
        self.opponent = Player.objects.create(name="Opponent", user=self.users["opponent"])
        Player.objects.create(name="Other", user=self.users["other_player"])
        self.tournament = services.tournament_create(name="Walk open")
        services.publish(tournament=self.tournament)
        self.tournament.referees.add(self.users["referee"])
        elsewhere = services.tournament_create(name="Elsewhere")
        elsewhere.referees.add(self.users["other_referee"])
        # The organizer of another tournament on the same server (group host): a stranger to every one here.
        host = users.create_user("other_organizer", password="walk-pass-1")
        host.groups.add(Role.objects.get(name="host"))
        elsewhere.organizers.add(host)
        self.users["other_organizer"] = host
        self.draft = services.tournament_create(name="Draft cup")
        for n in range(4):
            services.register(tournament=self.tournament, player=Player.objects.create(name=f"E{n}"))
        # A second tournament under way, where the player has a game on a board (appeals, arena).
        self.played = services.tournament_create(name="Played cup")
        self.played.referees.add(self.users["referee"])
        for player in (self.me, self.opponent, Player.objects.create(name="P3"), Player.objects.create(name="P4")):
            services.register(tournament=self.played, player=player)
        stage = self.played.stages.get()
        services.draw_stage(stage=stage, seed=1)
        services.start_stage(stage=stage)
        self.played_game = (
            Game.objects.filter(match_game__match__tournament=self.played)
            .filter(models.Q(player_one=self.me) | models.Q(player_two=self.me))
            .first()
        )
        # A Swiss open with its first round published and not yet played.

        self.swiss = services.tournament_create(name="Swiss open", preset="swiss", stage_options={"rounds": 3})
        services.publish(tournament=self.swiss)
        for n in range(5):
            services.register(tournament=self.swiss, player=Player.objects.create(name=f"S{n}", rating=2000 + n))
        self.swiss_stage = self.swiss.stages.get()
        services.draw_stage(stage=self.swiss_stage, seed=1)
        services.start_stage(stage=self.swiss_stage)
        cycle.round_publish(stage=self.swiss_stage, number=cycle.round_pair(stage=self.swiss_stage).number)
        self.swiss_entry = self.swiss.entries.order_by("pk").first()
        # A stage of the test-only round-by-round format (tournament/tests/formats.py), its round 1 a draft.
        from tournament.services.rounds import round_pair
        from tournament.tests.formats import RoundsThenFinal

        self.cycle = services.tournament_create(name="Rounds cup", first_stage=RoundsThenFinal.kind)
        services.publish(tournament=self.cycle)
        for n in range(4):
            services.register(tournament=self.cycle, player=Player.objects.create(name=f"R{n}"))
        self.cycle_stage = self.cycle.stages.get()
        services.draw_stage(stage=self.cycle_stage, seed=1)
        services.start_stage(stage=self.cycle_stage)
        self.cycle_round = round_pair(stage=self.cycle_stage)
        self.cycle_entry = self.cycle_round.boards[0][0]
        # A team event, round 1 paired, lineups awaited; the player captains one team. And one not drawn yet.
        from tournament.teams.services import team_create

        options = {"boards": 2, "reserves": 0, "lineup_minutes": 30}
        self.teams = services.tournament_create(name="Team cup", preset="teams", stage_options=options)
        services.publish(tournament=self.teams)
        self.team_a = team_create(
            tournament=self.teams, name="A", players=[self.me, Player.objects.create(name="A2")], captain=self.me
        )
        team_create(tournament=self.teams, name="B", players=[Player.objects.create(name=f"B{n}") for n in (1, 2)])
        self.teams_stage = self.teams.stages.get()
        services.draw_stage(stage=self.teams_stage, seed=1)
        services.start_stage(stage=self.teams_stage)
        services.pair_next_round(stage=self.teams_stage)
        self.team_match = self.teams_stage.team_matches.get()
        self.teams_open = services.tournament_create(name="Team open", preset="teams")
        services.publish(tournament=self.teams_open)  # published, not drawn: teams may still be entered
        from ratings.models import RatingList

        self.rating_list = RatingList.objects.create(name="Walk list", method="elo", category="gomoku")

    @property
    def tossable(self) -> Any:
        """A best-of-three not yet on a board, in a tournament the other referee does not run."""
        from tournament.models import Match

        cached = getattr(self, "_tossable", None)
        if cached is not None and Match.objects.filter(pk=cached.pk).exists():  # same role's path and body
            return cached
        t = services.tournament_create(name="Toss cup", boards=1)
        for name in ("T1", "T2"):
            services.register(tournament=t, player=Player.objects.create(name=name))
        services.draw_stage(stage=t.stages.get(), seed=2)
        services.publish(tournament=t)  # a draft is hidden from all but its organizers: this walks the roles
        self._tossable = Match.objects.get(tournament=t)
        return self._tossable

    def ruled_game(self) -> Game:
        from games.services import game_rule

        assert self.played_game is not None
        return game_rule(game_id=self.played_game.pk, result="white", reason="referee", note="walk")

    def finished(self) -> Game:
        """The player's tournament game, finished (by a referee's ruling, made once)."""
        assert self.played_game is not None
        game = Game.objects.get(pk=self.played_game.pk)
        return game if game.status == "finished" else self.ruled_game()

    def appeal(self) -> Any:
        return appeals.appeal_file(game=self.ruled_game(), appellant=self.me, reason="walk")

    def game(self, kind: str) -> Game:
        """A fresh game in the state an action needs; the player is seat one unless said otherwise."""
        one, two = (self.opponent, self.me) if kind == "claimable" else (self.me, self.opponent)
        game = game_create(
            player_one=one,
            player_two=two,
            mode="otb" if kind in ("otb", "reported") else "online",
            forbidden_mode="claim" if kind == "claimable" else "auto",
            time_control="quick" if kind == "timed" else None,
        )
        game.referees.add(self.users["referee"])
        moves = {"claimable": T01_H8, "offered": ["h8", "h9"]}.get(kind, [])
        for ply, point in enumerate(moves):
            game = game_act(
                game_id=game.pk, player=one if ply % 2 == 0 else two, action=f"place {point}", expected_ply=ply
            )
        if kind == "offered":  # the opponent just moved (h9) and offers a draw; the player answers
            game_offer_draw(game_id=game.pk, player=self.opponent)
        if kind == "reported":
            game_report_result(game_id=game.pk, reporter=self.opponent, result="white", reason="resignation")
        if kind == "timed":
            game_act(game_id=game.pk, player=self.me, action="place h8", expected_ply=0)
        return game

    def called(self) -> Game:
        """An online game whose player has called the arbiter (its clock stopped)."""
        from games.services.arbiter import game_call_arbiter

        game = self.game("timed")
        game_call_arbiter(game_id=game.pk, player=self.me)
        return game

    def call(self) -> Any:
        return self.called().arbiter_calls.get()

    def private_key(self) -> str:
        from tournament.registration import access_key_new

        key = access_key_new(entry=self.swiss_entry).access_key
        assert key is not None
        return key

    def invitation(self) -> Any:
        """An invitation for the player (an account of their own) to a tournament they are not in."""
        from tournament.models import Invitation

        return Invitation.objects.get_or_create(tournament=self.draft, player=self.me)[0]

    def fair_case(self) -> Any:
        """A fair-play case about the player in the played tournament (fairplay), open."""
        from fairplay.models import Case

        return Case.objects.get_or_create(player=self.me, tournament=self.played, defaults={"z": 4.0})[0]

    def push_key(self) -> Any:
        """A relay push key of the played tournament (relay.feeds), made by its organizer."""
        from relay.models import PushToken

        organizer = self.users["organizer"]
        return PushToken.objects.get_or_create(
            tournament=self.played, label="feed", defaults={"digest": "0" * 64, "created_by": organizer}
        )[0]

    def my_entry(self) -> Any:
        return self.played.entries.get(player=self.me)

    def client(self, role: str) -> Client:
        client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
        if role != "anonymous":
            client.force_login(self.users[role])
        return client


A, P, OP, OR, ORG = ROLES
Expect = dict[str, set[int]]


def same(*codes: int) -> Expect:
    return {role: set(codes) for role in ROLES}


def matrix(
    anon: int | set[int],
    player: int | set[int],
    other: int | set[int],
    other_ref: int | set[int],
    organizer: int | set[int],
) -> Expect:
    def s(v: int | set[int]) -> set[int]:
        return v if isinstance(v, set) else {v}

    return {A: s(anon), P: s(player), OP: s(other), OR: s(other_ref), ORG: s(organizer)}


WRITE = matrix(401, 403, 403, 403, {200, 201})
ORGANIZER_ONLY = WRITE

# name -> (method, path builder, body builder, expected answers per role)
Case = tuple[str, Callable[[World], str], Callable[[World], dict[str, Any]], Expect]


def game_action(action: str, kind: str, body: dict[str, Any], expect: Expect) -> Case:
    return ("post", lambda w: f"/api/games/{w.game(kind).pk}/{action}/", lambda w: body, expect)


def t(path: str) -> Callable[[World], str]:
    return lambda w: path.format(t=w.tournament.pk, stage=w.tournament.stages.get().pk)


NONE: Callable[[World], dict[str, Any]] = lambda w: {}  # noqa: E731

CASES: dict[str, Case] = {
    "home": ("get", lambda w: "/", NONE, same(200)),
    "healthz": ("get", lambda w: "/healthz", NONE, same(200, 503)),
    "set_language": ("post", lambda w: "/i18n/setlang/", lambda w: {"language": "en"}, same(302)),
    "login": ("get", lambda w: "/accounts/login/", NONE, same(200)),
    "logout": ("post", lambda w: "/accounts/logout/", NONE, same(302)),
    "password_change": ("get", lambda w: "/accounts/password_change/", NONE, matrix(302, 200, 200, 200, 200)),
    "password_change_done": ("get", lambda w: "/accounts/password_change/done/", NONE, matrix(302, 200, 200, 200, 200)),
    "tournament": ("get", t("/t/{t}/"), NONE, same(200)),
    "page-standings": ("get", t("/t/{t}/standings/"), NONE, same(200)),
    "relay-multiboard": ("get", t("/t/{t}/relay/"), NONE, same(200)),
    "relay-screen": ("get", t("/t/{t}/relay/screen/"), NONE, same(200)),
    "fairplay-queue": ("get", lambda w: "/fairplay/", NONE, matrix(302, 404, 404, 200, 200)),
    "fairplay-mine": ("get", lambda w: "/fairplay/mine/", NONE, matrix(302, 200, 200, 200, 200)),
    "fairplay-case": ("get", lambda w: f"/fairplay/case/{w.fair_case().pk}/", NONE, matrix(302, 404, 404, 404, 200)),
    "fairplay-decide": (
        "post",
        lambda w: f"/fairplay/case/{w.fair_case().pk}/decide/",
        lambda w: {"outcome": "warning"},
        matrix(302, 404, 404, 404, 302),
    ),
    "fairplay-hear": (
        "post",
        lambda w: f"/fairplay/case/{w.fair_case().pk}/hear/",
        lambda w: {"outcome": "warning"},
        matrix(302, 404, 404, 404, 302),  # the organizer's: no appeal to hear (told so on the case's page)
    ),
    "fairplay-appeal": (  # the case's own player only; not decided yet (told so on their page)
        "post",
        lambda w: f"/fairplay/case/{w.fair_case().pk}/appeal/",
        lambda w: {"text": "I was at the club"},
        matrix(302, 302, 404, 404, 404),
    ),
    "relay-game": ("get", lambda w: f"/relay/{w.game('otb').pk}/", NONE, same(200)),
    "relay-games-rif": ("get", t("/t/{t}/relay/games.rif"), NONE, same(200)),
    "page-schedule": ("get", t("/t/{t}/schedule/"), NONE, same(200)),
    "tournament-call-sheet": ("get", t("/t/{t}/call-sheet/"), NONE, same(200)),
    "tournament-result-sheets": ("get", t("/t/{t}/result-sheets/"), NONE, same(200)),
    "tournament-standings-csv": ("get", t("/t/{t}/standings.csv"), NONE, same(200)),
    "tournament-records": ("get", t("/t/{t}/games.txt"), NONE, same(200)),
    "game": ("get", lambda w: f"/g/{w.game('online').pk}/", NONE, same(200)),
    "game-claim": ("get", lambda w: f"/g/{w.game('otb').pk}/claim/", NONE, matrix(302, 404, 404, 404, 200)),
    "relay-recorder": ("get", lambda w: f"/relay/{w.game('otb').pk}/record/", NONE, matrix(302, 404, 404, 404, 200)),
    "player-console": ("get", lambda w: "/me/", NONE, matrix(302, 200, 200, 200, 200)),
    "player-console-live": ("get", lambda w: "/me/live/", NONE, matrix(302, 200, 200, 200, 200)),
    "referee-console": ("get", lambda w: "/referee/", NONE, matrix(302, 404, 404, 200, 200)),
    "control-home": ("get", lambda w: "/organizer/", NONE, matrix(302, 404, 404, 404, 200)),
    "control-room": ("get", lambda w: f"/organizer/t/{w.tournament.pk}/", NONE, matrix(302, 404, 404, 404, 200)),
    "control-action": (
        "post",
        lambda w: f"/organizer/t/{w.tournament.pk}/call/",
        NONE,
        matrix(302, 404, 404, 404, 302),
    ),
    "referee-console-live": ("get", lambda w: "/referee/live/", NONE, matrix(302, 404, 404, 200, 200)),
    "api-root": ("get", lambda w: "/api/", NONE, same(200)),
    "schema": ("get", lambda w: "/api/schema/", NONE, same(200)),
    "api-docs": ("get", lambda w: "/api/docs/", NONE, same(200)),
    "api-redoc": ("get", lambda w: "/api/redoc/", NONE, same(200)),
    "favicon": ("get", lambda w: "/favicon.ico", NONE, same(301)),
    "api-token": ("post", lambda w: "/api/auth/token/", lambda w: {"username": "player", "password": "x"}, same(400)),
    "api-me": ("get", lambda w: "/api/me/", NONE, matrix(401, 200, 200, 200, 200)),
    "player-list": ("get", lambda w: "/api/players/", NONE, same(200)),
    "games-read-list": ("get", lambda w: "/api/games/", NONE, same(200)),
    "tournaments-read-list": ("get", lambda w: "/api/tournaments/", NONE, same(200)),
    "player-detail": ("get", lambda w: f"/api/players/{w.me.pk}/", NONE, same(200)),
    "engine-list": ("get", lambda w: "/api/engines/", NONE, same(200)),
    "engine-detail": ("get", lambda w: "/api/engines/999999/", NONE, same(404)),  # none registered in this world
    "game-events": (
        "get",
        lambda w: f"/api/games/{w.game('online').pk}/events/",
        NONE,
        matrix(403, 200, 403, 403, 200),
    ),
    "game-list": (
        "post",
        lambda w: "/api/games/",
        lambda w: {"player_one": w.me.pk, "player_two": w.opponent.pk},
        WRITE,
    ),
    "game-import-record": (
        "post",
        lambda w: "/api/games/import/",
        lambda w: {"text": '[Black "A"]\n[White "B"]\n\nh8 h9'},
        WRITE,
    ),
    "game-detail": ("get", lambda w: f"/api/games/{w.game('online').pk}/", NONE, same(200)),
    "game-record": ("get", lambda w: f"/api/games/{w.game('online').pk}/record/", NONE, same(200)),
    "game-move": game_action("move", "online", {"ply": 0, "point": "h8", "seat": 1}, matrix(401, 200, 403, 403, 200)),
    "game-pass-": game_action("pass", "online", {"ply": 0, "seat": 1}, matrix(401, 200, 403, 403, 200)),
    "game-resign": game_action("resign", "online", {"seat": 1}, matrix(401, 200, 403, 403, 200)),
    "game-offer-draw": game_action("offer-draw", "timed", {"seat": 1}, matrix(401, 200, 403, 403, 200)),
    "game-answer-draw": game_action(
        "answer-draw", "offered", {"accept": False, "seat": 1}, matrix(401, 200, 403, 403, 200)
    ),
    "game-claim-forbidden": game_action(
        "claim-forbidden", "claimable", {"move_number": 9}, matrix(401, 201, 403, 403, 201)
    ),
    "game-clock-action": game_action("clock", "timed", {"op": "pause"}, matrix(401, 403, 403, 403, 200)),
    "game-report-result": game_action(
        "report-result", "otb", {"result": "draw", "reason": "agreement", "seat": 1}, matrix(401, 201, 403, 403, 201)
    ),
    "game-confirm-result": game_action("confirm-result", "reported", {"seat": 1}, matrix(401, 200, 403, 403, 200)),
    "game-dispute-result": game_action("dispute-result", "reported", {"seat": 1}, matrix(401, 200, 403, 403, 200)),
    "game-rule": game_action(
        "rule", "reported", {"result": "draw", "reason": "referee"}, matrix(401, 403, 403, 403, 200)
    ),
    "game-override": game_action(
        "override", "reported", {"result": "draw", "reason": "referee", "note": "walk"}, ORGANIZER_ONLY
    ),
    "tournament-list": ("post", lambda w: "/api/tournaments/", lambda w: {"name": "New"}, WRITE),
    "tournament-detail": ("get", t("/api/tournaments/{t}/"), NONE, same(200)),
    "tournament-standings": ("get", t("/api/tournaments/{t}/standings/"), NONE, same(200)),
    "tournament-schedule": ("get", t("/api/tournaments/{t}/schedule/"), NONE, same(200)),
    "tournament-arena": ("get", t("/api/tournaments/{t}/arena/"), NONE, same(200)),
    "tournament-publish": ("post", t("/api/tournaments/{t}/publish/"), NONE, WRITE),
    "tournament-register": ("post", t("/api/tournaments/{t}/register/"), lambda w: {"name": "Late"}, WRITE),
    "tournament-invite": ("post", t("/api/tournaments/{t}/invite/"), lambda w: {"player": w.me.pk}, WRITE),
    "invitation-list": ("get", lambda w: "/api/invitations/", NONE, matrix(401, 200, 200, 200, 200)),
    "invitation-answer": (
        "post",
        lambda w: f"/api/invitations/{w.invitation().pk}/answer/",
        lambda w: {"accept": True},
        matrix(401, 200, 404, 404, 404),  # only the invited player's own account answers
    ),
    "console-invitation": (
        "post",
        lambda w: f"/me/invitations/{w.invitation().pk}/",
        lambda w: {"accept": "1"},
        same(302),  # the invited player is entered; anyone else is told there is no such invitation
    ),
    "tournament-import-players": (
        "post",
        t("/api/tournaments/{t}/import-players/"),
        lambda w: {"csv": "Newcomer,Club,\n"},
        WRITE,
    ),
    "tournament-draw": (
        "post",
        t("/api/tournaments/{t}/draw/"),
        lambda w: {"stage": w.tournament.stages.get().pk},
        WRITE,
    ),
    "tournament-undo-draw": (
        "post",
        t("/api/tournaments/{t}/undo-draw/"),
        lambda w: {"stage": w.tournament.stages.get().pk},
        matrix(401, 403, 403, 403, 409),
    ),
    "tournament-start-stage": (
        "post",
        t("/api/tournaments/{t}/start-stage/"),
        lambda w: {"stage": w.tournament.stages.get().pk},
        matrix(401, 403, 403, 403, 409),
    ),
    "tournament-arena-bout": (
        "post",
        lambda w: f"/api/tournaments/{w.played.pk}/arena-bout/",
        lambda w: {"holder": w.me.pk, "challenger": w.opponent.pk, "winner": w.opponent.pk},
        matrix(401, 403, 403, 403, 201),
    ),
    "tournament-colour-toss": (
        "post",
        lambda w: f"/api/tournaments/{w.tossable.tournament_id}/colour-toss/",
        lambda w: {"match": w.tossable.pk, "grabber": w.tossable.first_id, "guess": "odd", "count": 5},
        matrix(401, 403, 403, 403, 200),
    ),
    "tournament-appeal": (
        "post",
        lambda w: f"/api/tournaments/{w.played.pk}/appeal/",
        lambda w: {"game": w.ruled_game().pk, "reason": "the flag had not fallen"},
        matrix(401, 201, 403, 403, 403),
    ),
    "tournament-decide-appeal": (
        "post",
        lambda w: f"/api/tournaments/{w.played.pk}/decide-appeal/",
        lambda w: {
            "appeal": w.appeal().pk,
            "upheld": False,
            "decision": "ruling stands",
            "committee": [w.users[n].pk for n in ("referee", "other_referee", "organizer")],
        },
        ORGANIZER_ONLY,
    ),
    "tournament-correct-result": (
        "post",
        lambda w: f"/api/tournaments/{w.played.pk}/correct-result/",
        lambda w: {"game": w.finished().pk, "result": "draw", "reason": "referee", "note": "walk"},
        ORGANIZER_ONLY,
    ),
    # the new organizer and referee actions, with ids that do not exist: the roles are what is walked here
    # (tournament/tests cover what they do)
    "tournament-withdraw": (
        "post",
        lambda w: f"/api/tournaments/{w.played.pk}/withdraw/",
        lambda w: {"entry": 0, "reason": "walk"},
        matrix(401, 403, 403, 403, 404),
    ),
    "tournament-absent": (
        "post",
        lambda w: f"/api/tournaments/{w.played.pk}/absent/",
        lambda w: {"game": 0, "player": 0},
        matrix(401, 403, 403, 403, 400),
    ),
    "tournament-present": (
        "post",
        lambda w: f"/api/tournaments/{w.played.pk}/present/",
        lambda w: {"game": 0},
        matrix(401, 403, 403, 403, 404),
    ),
    "tournament-decide-playoff": (
        "post",
        lambda w: f"/api/tournaments/{w.played.pk}/decide-playoff/",
        lambda w: {"group": 0, "order": []},
        matrix(401, 403, 403, 403, 404),
    ),
    "tournament-advance": (
        "post",
        t("/api/tournaments/{t}/advance/"),
        lambda w: {"stage": w.tournament.stages.get().pk},
        matrix(401, 403, 403, 403, 409),
    ),
    "rating-lists": ("get", lambda w: "/ratings/", NONE, same(200)),
    "rating-list": ("get", lambda w: f"/ratings/{w.rating_list.pk}/?country=China&active=1", NONE, same(200)),
    "player-page": ("get", lambda w: f"/players/{w.me.pk}/", NONE, same(200)),
    "rating-list-list": ("get", lambda w: "/api/ratings/", NONE, same(200)),
    "rating-list-detail": ("get", lambda w: f"/api/ratings/{w.rating_list.pk}/", NONE, same(200)),
    "rating-list-table": ("get", lambda w: f"/api/ratings/{w.rating_list.pk}/table/?active=1", NONE, same(200)),
    "swiss-trf": ("get", lambda w: f"/t/{w.swiss.pk}/swiss/{w.swiss_stage.pk}.trf", NONE, same(200)),
    "swiss-round-sheet": ("get", lambda w: f"/t/{w.swiss.pk}/swiss/{w.swiss_stage.pk}/round/1/", NONE, same(200)),
    "swiss-crosstable": ("get", lambda w: f"/t/{w.swiss.pk}/swiss/{w.swiss_stage.pk}/crosstable/", NONE, same(200)),
    "swiss-detail": ("get", lambda w: f"/api/swiss/{w.swiss_stage.pk}/", NONE, same(200)),
    "team-event-detail": ("get", lambda w: f"/api/team-events/{w.teams_stage.pk}/", NONE, same(200)),
    "team-event-team": (
        "post",
        lambda w: f"/api/team-events/{w.teams_open.stages.get().pk}/team/",
        lambda w: {"name": "Walkers", "players": [{"name": "W1"}, {"name": "W2", "unit": "一中"}]},
        WRITE,
    ),
    "team-event-lineup": (
        "post",
        lambda w: f"/api/team-events/{w.teams_stage.pk}/lineup/",
        lambda w: {
            "team_match": w.team_match.pk,
            "team": w.team_a.pk,
            "entries": list(w.team_a.memberships.order_by("order").values_list("entry_id", flat=True)),
        },
        matrix(401, 200, 403, 403, 200),  # the captain, or the organizer
    ),
    "team-event-toss": (
        "post",
        lambda w: f"/api/team-events/{w.teams_stage.pk}/toss/",
        lambda w: {"team_match": w.team_match.pk, "grabber": w.team_a.pk, "guess": "odd", "count": 5},
        WRITE,
    ),
    "team-event-extra-game": (
        "post",
        lambda w: f"/api/team-events/{w.teams_stage.pk}/extra-game/",
        lambda w: {"order": [w.team_a.pk, w.team_a.pk + 1]},
        matrix(401, 403, 403, 403, 409),  # the organizer's; this event shares tied places (no extra game)
    ),
    "relay-detail": (
        "get",
        lambda w: f"/api/relay/{w.played_game.pk}/",
        NONE,
        matrix({200, 404}, 200, {200, 404}, {200, 404}, 200),
    ),
    "relay-record": (
        "get",
        lambda w: f"/api/relay/{w.played_game.pk}/record/?as=rif",
        NONE,
        matrix({200, 404}, 200, {200, 404}, {200, 404}, 200),
    ),
    "relay-enter": (
        "post",
        lambda w: f"/api/relay/{w.played_game.pk}/enter/",
        lambda w: {"ply": 0, "action": "place h8"},
        matrix(401, 403, {403, 404}, {403, 404}, 201),
    ),
    "relay-replace": (
        "post",
        lambda w: f"/api/relay/{w.played_game.pk}/replace/",
        lambda w: {"from_ply": 1, "actions": [], "reason": "a wrong stone"},
        matrix(401, 403, {403, 404}, {403, 404}, 400),  # the organizer's: nothing recorded yet to replace
    ),
    "fairplay-report": (  # an over-the-board game: nobody's to report here (fairplay/tests/test_cases.py)
        "post",
        lambda w: "/api/fairplay/report/",
        lambda w: {"game": w.played_game.pk, "note": "too fast"},
        matrix(401, 403, 403, 403, 403),
    ),
    "fairplay-focus": (  # the players' pages; not their turn in a running online game: not kept
        "post",
        lambda w: "/api/fairplay/focus/",
        lambda w: {"game": w.played_game.pk, "ply": 0},
        matrix(401, 200, 200, 403, 403),
    ),
    "relay-boards": ("get", lambda w: f"/api/relay/boards/{w.played.pk}/?screen=1", NONE, same(200)),
    "relay-push": (  # a push key only: no session, no user token, whoever holds them (relay/tests/test_relay_feeds.py)
        "post",
        lambda w: f"/api/relay/{w.played_game.pk}/push/",
        lambda w: {"record": "{place h8}"},
        same(401),
    ),
    "relay-upload": (
        "post",
        lambda w: "/api/relay/upload/",
        lambda w: {"tournament": w.played.pk, "records": [{"game": w.played_game.pk, "record": "{place h8}"}]},
        matrix(401, 403, 403, 403, 200),
    ),
    "relay-keys": (
        "post",
        lambda w: "/api/relay/keys/",
        lambda w: {"tournament": w.played.pk, "name": "the federation's feed"},
        matrix(401, 403, 403, 403, 201),
    ),
    "relay-revoke-key": (
        "post",
        lambda w: f"/api/relay/keys/{w.push_key().pk}/revoke/",
        NONE,
        matrix(401, 403, 403, 403, 200),
    ),
    "relay-delay": (
        "post",
        lambda w: "/api/relay/delay/",
        lambda w: {"stage": w.played.stages.get().pk, "minutes": 5},
        matrix(401, {403, 404}, {403, 404}, {403, 404}, 200),
    ),
    "rounds-detail": ("get", lambda w: f"/api/rounds/{w.cycle_stage.pk}/", NONE, same(200)),
    "rounds-pair": ("post", lambda w: f"/api/rounds/{w.cycle_stage.pk}/pair/", NONE, matrix(401, 403, 403, 403, 409)),
    "rounds-edit": (
        "post",
        lambda w: f"/api/rounds/{w.cycle_stage.pk}/edit/",
        lambda w: {"round": 1, "action": "flip", "first": w.cycle_entry, "reason": "walk"},
        WRITE,
    ),
    "rounds-publish": ("post", lambda w: f"/api/rounds/{w.cycle_stage.pk}/publish/", lambda w: {"round": 1}, WRITE),
    "rounds-unpair": ("post", lambda w: f"/api/rounds/{w.cycle_stage.pk}/unpair/", lambda w: {"round": 1}, WRITE),
    # a team event's round 1 awaits its lineups: the organizer closes them (its boards are made)
    "rounds-close-lineups": ("post", lambda w: f"/api/rounds/{w.teams_stage.pk}/close-lineups/", NONE, WRITE),
    "swiss-extra-game": (
        "post",
        lambda w: f"/api/swiss/{w.swiss_stage.pk}/extra-game/",
        lambda w: {"order": [w.swiss_entry.pk, w.swiss_entry.pk + 1]},
        matrix(401, 403, 403, 403, 409),  # the organizer's; this stage places complete ties by lot
    ),
    "swiss-configure": (
        "post",
        lambda w: f"/api/swiss/{w.swiss_stage.pk}/options/",
        lambda w: {"options": {"max_requested_byes": 2}},
        WRITE,
    ),
    "swiss-bye": (
        "post",
        lambda w: f"/api/swiss/{w.swiss_stage.pk}/bye/",
        lambda w: {"entry": w.swiss_entry.pk, "round": 2},
        matrix(401, 403, 403, 403, 400),  # round 2 of 3 is in the last two: no requested bye
    ),
    "swiss-late-entry": (
        "post",
        lambda w: f"/api/swiss/{w.swiss_stage.pk}/late-entry/",
        lambda w: {"name": "Latecomer", "rating": 1800},
        WRITE,
    ),
    "swiss-return-": (
        "post",
        lambda w: f"/api/swiss/{w.swiss_stage.pk}/return/",
        lambda w: {"entry": w.swiss_entry.pk},
        WRITE,
    ),
    # the computer opponent and the engine's analysis (games/tests/test_computer.py covers what they do)
    "practice": ("post", lambda w: "/me/practice/", lambda w: {"level": "2"}, matrix(302, 302, 302, 404, 404)),
    "game-practice": (
        "post",
        lambda w: "/api/games/practice/",
        lambda w: {"level": 2, "time_control": "untimed"},
        matrix(401, 201, 201, 403, 403),  # a player account; the referee and organizer here have none
    ),
    "game-analysis": (
        "post",
        lambda w: f"/api/games/{w.finished().pk}/analysis/",
        NONE,
        matrix(401, 202, 403, 403, 202),  # its players, its referees and organizers ask for it
    ),
    "game-analysis-read": ("get", lambda w: f"/api/games/{w.finished().pk}/analysis/", NONE, same(200)),  # "none"
    "game-analyse-position": (
        "post",
        lambda w: "/api/games/analyse-position/",
        lambda w: {"moves": "h8 g8 i8 a1 j8 a3 k9 a5 k10 o15"},
        matrix(401, 403, 403, 200, 200),
    ),
    # the event day: registration, check-in, private links, arbiter calls, projector, PDF sheets, backups
    "tournament-screen": ("get", t("/t/{t}/screen/"), NONE, same(200)),
    "tournament-pdf": ("get", t("/t/{t}/pdf/standings.pdf"), NONE, same(200)),
    "swiss-round-pdf": ("get", lambda w: f"/t/{w.swiss.pk}/swiss/{w.swiss_stage.pk}/round/1.pdf", NONE, same(200)),
    "self-register": ("get", t("/t/{t}/register/"), NONE, same(200)),
    "private-link": ("get", lambda w: f"/p/{w.private_key()}/", NONE, same(200)),
    "private-link-check-in": ("post", lambda w: f"/p/{w.private_key()}/check-in/", NONE, same(302)),
    "console-check-in": (
        "post",
        lambda w: f"/me/check-in/{w.my_entry().pk}/",
        NONE,
        matrix(302, 302, 404, 404, 404),  # the player's own entry (closed: a message); nobody else's
    ),
    "control-waiting": ("get", t("/organizer/t/{t}/waiting/"), NONE, matrix(302, 404, 404, 404, 200)),
    "control-players": ("get", t("/organizer/t/{t}/players/"), NONE, matrix(302, 404, 404, 404, 200)),
    "control-teams": ("get", lambda w: f"/organizer/t/{w.teams.pk}/teams/", NONE, matrix(302, 404, 404, 404, 200)),
    "team-page": ("get", lambda w: f"/t/{w.teams.pk}/team/{w.team_a.pk}/", NONE, same(200)),
    "team-trf": ("get", lambda w: f"/t/{w.teams.pk}/teams.trf", NONE, same(200)),
    "team-round-sheet": ("get", lambda w: f"/t/{w.teams.pk}/teams/round/1/", NONE, same(200)),
    "team-round-pdf": ("get", lambda w: f"/t/{w.teams.pk}/teams/round/1.pdf", NONE, same(200)),
    "lineup-post": (
        "post",
        lambda w: f"/me/lineup/{w.team_match.pk}/",
        NONE,
        matrix(302, 302, 404, 404, 404),  # the captain's form; anyone else finds no such form
    ),
    "player-slips": ("get", t("/organizer/t/{t}/players/slips/"), NONE, matrix(302, 404, 404, 404, 200)),
    "control-players-action": (
        "post",
        t("/organizer/t/{t}/players/links/"),
        NONE,
        matrix(302, 404, 404, 404, 302),
    ),
    "backup-download": ("post", lambda w: "/organizer/backup/", NONE, matrix(302, 404, 404, 404, 200)),
    "game-call-arbiter": (
        "post",
        lambda w: f"/g/{w.game('online').pk}/call-arbiter/",
        NONE,
        matrix(302, 302, 302, 404, 404),  # players (someone else's game: a message); no player account: 404
    ),
    "arbiter-answer": ("post", lambda w: f"/referee/calls/{w.call().pk}/answer/", NONE, same(302)),
    "tournament-check-in": (
        "post",
        lambda w: f"/api/tournaments/{w.swiss.pk}/check-in/",
        lambda w: {"entry": w.swiss_entry.pk},
        matrix(401, 404, 404, 404, 409),  # players check in only themselves (not entered here); closed now
    ),
    "game-call-arbiter-api": game_action("call-arbiter", "online", {"seat": 1}, matrix(401, 201, 403, 403, 201)),
    "game-answer-arbiter": (
        "post",
        lambda w: f"/api/games/{w.called().pk}/answer-arbiter/",
        NONE,
        matrix(401, 403, 403, 403, 200),
    ),
    "swiss-import-trf": (
        "post",
        lambda w: "/api/swiss/import-trf/",
        lambda w: {"trf": "012 Walk\nXXR 3\n" + "\n".join(f"001 {n:4d}      P{n}" for n in (1, 2, 3)) + "\n"},
        WRITE,
    ),
}


def url_names() -> set[str]:
    names: set[str] = set()

    def walk(patterns: list[Any], namespace: str = "") -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, f"{p.namespace}:" if p.namespace else namespace)
            elif isinstance(p, URLPattern) and p.name:
                names.add(namespace + p.name)

    walk(get_resolver().url_patterns)
    return names


def test_every_url_pattern_is_in_the_matrix() -> None:
    missing = {n for n in url_names() if not n.startswith("admin:")} - set(CASES)
    assert missing == set()


@pytest.fixture
def world(test_format: Any) -> World:
    cache.clear()
    return World()


@pytest.mark.parametrize("name", sorted(CASES))
def test_url_answers_each_role_as_intended(world: World, name: str) -> None:
    method, path_of, body_of, expected = CASES[name]
    answers = {}
    for role in ROLES:
        with transaction.atomic():
            path, body = path_of(world), body_of(world)
            client = world.client(role)
            response = client.get(path) if method == "get" else client.post(path, body, format="json")
            answers[role] = response.status_code
            if path.startswith("/api/") and response.status_code >= 400:
                assert response.json().get("message"), (role, response.content)
            if path.startswith("/api/") and path not in ("/api/", "/api/schema/", "/api/docs/", "/api/redoc/"):
                check_against_schema(method, path, response)  # the answer is what the schema documents
            transaction.set_rollback(True)
    assert {r: answers[r] for r in ROLES if answers[r] not in expected[r]} == {}, answers


# What an organizer of another tournament may do beyond a stranger: its own control room and console, and
# making tournaments of its own.
HOST_MAY = {"control-home", "tournament-list", "swiss-import-trf", "referee-console", "referee-console-live"}


def test_an_organizer_of_another_tournament_is_a_stranger_here(world: World) -> None:
    """Organizers per tournament: every URL answers the organizer of another tournament on the same server as
    it answers another player or another tournament's referee (no control room, action, PDF or backup)."""
    answers = {}
    for name in sorted(set(CASES) - HOST_MAY):
        method, path_of, body_of, expected = CASES[name]
        with transaction.atomic():
            path, body = path_of(world), body_of(world)
            client = world.client("other_organizer")
            response = client.get(path) if method == "get" else client.post(path, body, format="json")
            transaction.set_rollback(True)
        answers[name] = (response.status_code, expected[OP] | expected[OR])
    assert {name: got for name, (got, allowed) in answers.items() if got not in allowed} == {}
    assert len(answers) > 100


def test_every_api_operation_is_walked_and_checked_against_the_schema(world: World) -> None:
    from config.tests.contract import _document, _schema

    documented = {(m, p) for p, ops in _document()["paths"].items() for m in ops if p not in ("/api/schema/",)}
    walked = set()
    for method, path_of, _body, _expect in CASES.values():
        path = path_of(world)
        if path.startswith("/api/") and path not in ("/api/", "/api/schema/", "/api/docs/", "/api/redoc/"):
            walked.add((method, _schema().find_operation_by_path(method.upper(), path.split("?")[0]).path))
    assert documented - walked == set()


def test_draft_tournaments_are_hidden_from_everyone_but_the_organizer(world: World) -> None:
    answers = {role: world.client(role).get(f"/t/{world.draft.pk}/").status_code for role in ROLES}

    assert answers == {A: 404, P: 404, OP: 404, OR: 404, ORG: 200}


def test_admin_is_for_the_organizer_only(world: World) -> None:
    admin_pages = [
        "/admin/",
        "/admin/games/game/",
        "/admin/games/gameevent/",
        "/admin/tournament/tournament/",
        "/admin/tournament/stage/",
        "/admin/tournament/match/",
        "/admin/tournament/auditlog/",
        f"/admin/tournament/tournament/{world.tournament.pk}/change/",
        f"/admin/tournament/tournament/{world.tournament.pk}/import-players/",
    ]
    for page in admin_pages:
        answers = {role: world.client(role).get(page).status_code for role in ROLES}
        assert answers == {A: 302, P: 302, OP: 302, OR: 302, ORG: 200}, (page, answers)
    assert Tournament.objects.count() == 8  # the world's tournaments, none added by a GET
