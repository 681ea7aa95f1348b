"""The double-elimination knockout (tournament/double_elimination/): the bracket's arithmetic held against
what double elimination means (everyone but the champion out after exactly two lost matches, 2n - 2 matches
or one more for the reset, places by how late a player went out), and a whole event run through the one
round API by an organizer — with the bracket reset, a flip allowed and a swap refused, a withdrawal walked
over — while a rival organizer, a player and a stranger are refused."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from games.models import Game, Player
from tournament.double_elimination import bracket
from tournament.double_elimination import format as double
from tournament.errors import TournamentError
from tournament.models import AuditLog, Entry, Match, Round, Tournament
from tournament.services import draw_stage, pair_next_round, publish, register, start_stage, tournament_create
from tournament.stage_formats import format_of
from tournament.tests.browser import account
from tournament.tests.helpers import OPEN, correct, win

SLOT = re.compile(r"^(W|L)(\d+)-\d+$|^GF2?$")


def run(seeds: list[int], pick: Any) -> tuple[bracket.State, list[tuple[str, int, int, int]]]:
    """Play a bracket out with ``pick(slot, a, b)`` naming each winner: the final state and every match
    played (slot, first, second, winner), in the order played."""
    played: dict[str, bracket.Played] = {}
    log: list[tuple[str, int, int, int]] = []
    for _step in range(4 * len(seeds) + 4):
        found = bracket.state(seeds, played)
        if found.complete:
            return found, log
        assert found.ready, "an incomplete bracket with nothing to play"
        for name in found.ready:
            a, b = found.players[name]
            assert a and b and a != b
            won = pick(name, a, b)
            played[name] = bracket.Played(a, b, won)
            log.append((name, a, b, won))
    raise AssertionError("the bracket never completed")


def elimination_key(name: str) -> tuple[int, int]:
    """How late a match comes in the event (a later elimination is a better place), from its name alone."""
    if name == "GF2":
        return (3, 0)
    if name == "GF":
        return (2, 0)
    found = SLOT.match(name)
    assert found is not None and found.group(1) == "L", name  # nobody goes out in the winners' bracket
    return (1, int(found.group(2)))


@pytest.mark.parametrize("players", [*range(2, 34), 48, 64])
def test_everyone_but_the_champion_goes_out_after_exactly_two_lost_matches(players: int) -> None:
    rng = random.Random(players)
    seeds = [100 + n for n in range(players)]
    found, log = run(seeds, lambda _name, a, b: rng.choice([a, b]))
    losses: dict[int, int] = {}
    second_loss: dict[int, str] = {}
    for name, a, b, won in log:
        lost = b if won == a else a
        losses[lost] = losses.get(lost, 0) + 1
        if losses[lost] == 2:
            second_loss[lost] = name
    champion = bracket.champion(found)
    assert champion is not None and losses.get(champion, 0) <= 1
    assert {e for e in seeds if e != champion} == set(second_loss)
    assert all(losses[e] == 2 for e in second_loss)
    reset = any(name == "GF2" for name, *_rest in log)
    assert len(log) == 2 * players - 2 + int(reset)
    if reset:  # the losers' champion won the first final: the last match is the reset
        assert log[-1][0] == "GF2" and {log[-1][1], log[-1][2]} == {log[-2][1], log[-2][2]}
    # the places: the champion, then by how late the second loss came (shared within one losers' round)
    blocks = bracket.places(found, seeds)
    assert blocks[0] == [champion] and sorted(e for b in blocks for e in b) == sorted(seeds)
    keys = [{elimination_key(second_loss[e]) for e in block} for block in blocks[1:]]
    assert all(len(k) == 1 for k in keys)  # a shared place is one round's losers
    flat = [next(iter(k)) for k in keys]
    assert flat == sorted(flat, reverse=True) and len(set(flat)) == len(flat)


@pytest.mark.parametrize("players", [3, 4, 5, 8, 13, 16, 31])
def test_when_the_stronger_always_wins_the_top_seeds_take_the_top_places(players: int) -> None:
    seeds = list(range(1, players + 1))  # seed s is entry s: the lower number is the stronger
    found, log = run(seeds, lambda _name, a, b: min(a, b))
    blocks = bracket.places(found, seeds)
    assert blocks[:3] == [[1], [2], [3]]
    if players >= 4:
        assert blocks[3] == [4]
    met = [(name, {a, b}) for name, a, b, _w in log if {a, b} == {1, 2}]
    assert [name for name, _pair in met] == [f"W{(bracket.bracket_size(players).bit_length() - 1)}-1", "GF"]
    first_round = [s.sources for s in bracket.slots(players) if s.name.startswith("W1-")]
    size = bracket.bracket_size(players)
    assert all(int(a[1]) + int(b[1]) == size + 1 for a, b in first_round)  # seed s meets seed size + 1 - s


def test_the_losers_champion_winning_the_final_resets_the_bracket() -> None:
    seeds = [1, 2, 3, 4]

    def pick(name: str, a: int, b: int) -> int:
        if name == "GF":
            return b  # the losers' champion wins the first final
        return min(a, b)

    found, log = run(seeds, pick)
    gf = next(x for x in log if x[0] == "GF")
    gf2 = next(x for x in log if x[0] == "GF2")
    assert {gf[1], gf[2]} == {gf2[1], gf2[2]} == {1, 2}
    assert bracket.champion(found) == gf2[3] == 1 and bracket.places(found, seeds)[:2] == [[1], [2]]


def test_a_withdrawn_player_loses_their_next_match_by_walkover() -> None:
    seeds = [1, 2, 3, 4]
    played = {"W1-1": bracket.Played(1, 4, 1), "W1-2": bracket.Played(2, 3, 2)}
    found = bracket.state(seeds, played, withdrawn=frozenset({2}))
    assert found.winner["W2-1"] == 1 and found.loser["W2-1"] == 2
    assert found.ready == ["L1-1"]  # 4 v 3; 2 goes out by walkover in L2 against its winner


# -- the format through the one round API


def client(user: Any) -> APIClient:
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    api.force_authenticate(user)
    return api


def create(api: APIClient, players: int, best_of: int = 3) -> tuple[int, int]:
    made = api.post(
        "/api/tournaments/",
        {"name": "Double cup", "preset": "double", "stage_options": {"best_of": best_of}},
        format="json",
    )
    assert made.status_code == 201, made.content
    tid, stage = made.json()["id"], made.json()["stages"][0]["id"]
    for n in range(players):
        entered = api.post(f"/api/tournaments/{tid}/register/", {"name": f"DE{n}", "rating": 2200 - 10 * n})
        assert entered.status_code in (200, 201), entered.content
    assert api.post(f"/api/tournaments/{tid}/publish/").status_code == 200
    assert api.post(f"/api/tournaments/{tid}/draw/", {"stage": stage, "seed": 3}, format="json").status_code == 200
    assert api.post(f"/api/tournaments/{tid}/start-stage/", {"stage": stage}, format="json").status_code == 200
    return tid, stage


def play(tournament_id: int, winner_of: Any) -> None:
    """Play every open game: ``winner_of(match)`` names the entry that wins each game of ``match``."""
    for _n in range(200):
        games = list(Game.objects.filter(match_game__match__tournament_id=tournament_id, status__in=OPEN))
        if not games:
            return
        for game in games:
            match = Match.objects.get(match_games__game=game)
            entry = Entry.objects.select_related("player").get(pk=winner_of(match))
            win(game, entry.player)
    raise AssertionError("games never ran out")


@pytest.mark.django_db
def test_an_event_is_run_through_the_round_api_to_its_bracket_reset_and_places() -> None:
    boss = account("boss", "organizer")
    api = client(boss)
    tid, stage = create(api, players=5)
    rating = dict(Entry.objects.filter(tournament_id=tid).values_list("pk", "player__rating"))
    slots_of: dict[int, str] = {}
    for rounds in range(1, 20):
        paired = api.post(f"/api/rounds/{stage}/pair/")
        if paired.status_code == 409:
            assert paired.json()["code"] == "all_rounds_paired"
            break
        assert paired.status_code == 201, paired.content
        draft = paired.json()["rounds"][0]
        assert all(b["text"] for b in draft["boards"])  # each board says which match of the bracket it is
        if rounds == 1:  # the results make the pairings: a swap is refused, a flip is not
            assert draft["boards"][0]["text"] == "Winners' bracket, round 1, match 2"  # seeds 4 and 5
            a, b = draft["boards"][0]["first"], draft["boards"][1]["first"] if len(draft["boards"]) > 1 else None
            if b is not None:
                refused = api.post(
                    f"/api/rounds/{stage}/edit/", {"round": 1, "action": "swap", "first": a, "second": b, "reason": "x"}
                )
                assert (refused.status_code, refused.json()["code"]) == (409, "bracket_fixed")
            flipped = api.post(
                f"/api/rounds/{stage}/edit/", {"round": 1, "action": "flip", "first": a, "reason": "seat"}
            )
            assert flipped.status_code == 200, flipped.content
            assert flipped.json()["rounds"][0]["boards"][0]["second"] == a
        published = api.post(f"/api/rounds/{stage}/publish/", {"round": draft["number"]})
        assert published.status_code == 200, published.content
        for board, why in zip(draft["boards"], draft["why"], strict=True):
            pair = [board["first"], board["second"]]
            match = Match.objects.get(group__stage_id=stage, round=draft["number"], first_id__in=pair)
            assert match.best_of and match.games_planned == 3
            slots_of[match.pk] = why["slot"]

        def winner_of(match: Match) -> int:
            favourite = max((match.first_id, match.second_id), key=rating.__getitem__)
            if slots_of[match.pk] == "GF":  # the losers' champion takes the first final: the bracket resets
                return match.second_id
            return favourite

        play(tid, winner_of)
    assert sorted(set(slots_of.values()), key=list(slots_of.values()).index)[-2:] == ["GF", "GF2"]
    assert len(slots_of) == 2 * 5 - 2 + 1  # every match of five players and the reset
    done = api.post(f"/api/tournaments/{tid}/advance/", {"stage": stage}, format="json")
    assert done.status_code == 200, done.content
    assert Tournament.objects.get(pk=tid).status == Tournament.Status.FINISHED
    table = api.get(f"/api/tournaments/{tid}/standings/").json()[0]["groups"][0]["rows"]
    by_rating = sorted(rating, key=rating.__getitem__, reverse=True)
    assert [row["entry"] for row in table[:3]] == by_rating[:3]  # the favourite won the reset
    assert [row["rank"] for row in table] == [1, 2, 3, 4, 5]
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/t/{tid}/")
    text = page.content.decode()
    assert page.status_code == 200 and "Bracket reset" in text and "Losers&#x27; bracket" in text
    assert f"Winner: {Entry.objects.get(pk=by_rating[0]).player.name}" in text


@pytest.mark.django_db
def test_strangers_rivals_and_players_cannot_drive_the_bracket_and_bad_options_are_refused() -> None:
    boss = account("boss", "organizer")
    tid, stage = create(client(boss), players=4)
    before = (Round.objects.count(), Match.objects.count(), AuditLog.objects.count())
    assert APIClient().post(f"/api/rounds/{stage}/pair/").status_code == 401
    rival = client(account("rival", "host")).post(f"/api/rounds/{stage}/pair/")
    assert (rival.status_code, rival.json()["code"]) == (403, "not_organizer")
    assert client(account("someone", "player")).post(f"/api/rounds/{stage}/pair/").status_code == 403
    assert (Round.objects.count(), Match.objects.count(), AuditLog.objects.count()) == before
    for options in ({"best_of": 2}, {"best_of": "3"}, {"seeding": "age"}, {"rounds": 3}):
        with pytest.raises(TournamentError):
            tournament_create(name="x", first_stage="double_elim", stage_options=options)
    refused = client(boss).post(
        "/api/tournaments/", {"name": "y", "preset": "double", "stage_options": {"best_of": 4}}, format="json"
    )
    assert refused.status_code == 400 and "best_of" in refused.json()["message"]


@pytest.mark.django_db
def test_a_player_who_withdraws_is_walked_over_and_still_placed() -> None:
    boss = account("boss", "organizer")
    api = client(boss)
    tid, stage = create(api, players=4, best_of=1)
    first = api.post(f"/api/rounds/{stage}/pair/").json()["rounds"][0]
    api.post(f"/api/rounds/{stage}/publish/", {"round": 1})
    play(tid, lambda m: m.first_id)
    leaving = first["boards"][0]["first"]  # won round 1; withdraws before the winners' final
    gone = api.post(f"/api/tournaments/{tid}/withdraw/", {"entry": leaving, "reason": "ill"}, format="json")
    assert gone.status_code == 200, gone.content
    second = api.post(f"/api/rounds/{stage}/pair/").json()["rounds"][0]
    assert leaving not in {e for b in second["boards"] for e in (b["first"], b["second"])}
    for _n in range(6):
        api.post(f"/api/rounds/{stage}/publish/", {"round": second["number"]})
        play(tid, lambda m: m.first_id)
        nxt = api.post(f"/api/rounds/{stage}/pair/")
        if nxt.status_code == 409:
            break
        second = nxt.json()["rounds"][0]
    assert api.post(f"/api/tournaments/{tid}/advance/", {"stage": stage}, format="json").status_code == 200
    rows = api.get(f"/api/tournaments/{tid}/standings/").json()[0]["groups"][0]["rows"]
    assert leaving in {r["entry"] for r in rows} and rows[0]["entry"] != leaving


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["double_elim", "knockout"])
def test_a_game_still_on_the_board_scores_nothing_in_the_bracket(kind: str) -> None:
    """Both brackets (this format's and the seed's best-of-three knockout) count finished games only: a game
    under way is not a win for white."""
    tournament = tournament_create(name="Bracket", first_stage=kind, preset="double")
    for n in range(4):
        register(tournament=tournament, player=Player.objects.create(name=f"B{n}", rating=2000 - n))
    publish(tournament=tournament)
    stage = tournament.stages.get()
    draw_stage(stage=stage, seed=1)
    start_stage(stage=stage)
    if kind == "double_elim":
        pair_next_round(stage=stage)

    def scores() -> list[list[int]]:
        context = format_of(stage).page_context(stage)
        boxes = [b for side in context.get("sides", []) for column in side["columns"] for b in column]
        boxes += [b for column in context.get("columns", []) for b in column["boxes"]]
        return [b["wins"] for b in boxes if b.get("match", True)]

    assert Game.objects.filter(match_game__match__tournament=tournament, status__in=OPEN).exists()
    assert {tuple(w) for w in scores()} == {(0, 0)}
    game = Game.objects.filter(match_game__match__tournament=tournament, status__in=OPEN).order_by("pk").first()
    assert game is not None
    win(game, game.white)
    assert sorted(sum(w) for w in scores())[-1] == 1


def first_wins(match: Match) -> int:
    return match.first_id


@pytest.mark.django_db
def test_a_result_corrected_after_the_bracket_went_on_never_seats_a_player_twice() -> None:
    """Five players: seeds 4 and 5 play W1-2, whose loser walks over in L1-1 (seed 8 is a bye). Once the
    next round is played (W2-1 by the old winner, L2-1 by the old loser), W1-2 is corrected: the matches
    played stand, the bracket goes on from them, no round seats a player twice, and it ends with a
    champion."""
    tournament = tournament_create(name="Corrected", first_stage="double_elim", stage_options={"best_of": 1})
    for n in range(5):
        register(tournament=tournament, player=Player.objects.create(name=f"C{n}", rating=2000 - n))
    publish(tournament=tournament)
    stage = tournament.stages.get()
    draw_stage(stage=stage, seed=1)
    start_stage(stage=stage)
    pair_next_round(stage=stage)
    play(tournament.pk, first_wins)  # W1-2: seed 4 beats seed 5
    w12 = Match.objects.get(group__stage=stage, round=1, order=1)
    pair_next_round(stage=stage)
    play(tournament.pk, first_wins)  # W2-1: seed 1 beats seed 4
    game = Game.objects.get(match_game__match=w12)
    correct(game, Entry.objects.get(pk=w12.second_id).player, confirm="the scoresheet was read the wrong way round")
    assert Match.objects.get(pk=w12.pk).winner_id == w12.second_id  # the correction stands
    for _round in range(8):
        try:
            made = pair_next_round(stage=stage)
        except TournamentError as exc:
            assert exc.code == "all_rounds_paired"
            break
        seated = [e for m in made for e in (m.first_id, m.second_id)]
        assert len(seated) == len(set(seated))  # nobody on two boards
        play(tournament.pk, first_wins)
    assert format_of(stage).group_order(stage.groups.get()).unplayed is False


@pytest.mark.django_db
def test_every_public_sheet_of_a_finished_bracket_answers(client: Any) -> None:
    """The standings (page, CSV, PDF), the records (text, .rif), the call and result sheets, the projector
    and the certificates of a finished double elimination: each answers, the winner named where places are."""
    boss = account("boss", "organizer")
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    api.force_authenticate(boss)
    tid, stage = create(api, players=3, best_of=1)
    for _n in range(8):
        paired = api.post(f"/api/rounds/{stage}/pair/")
        if paired.status_code == 409:
            break
        api.post(f"/api/rounds/{stage}/publish/", {"round": paired.json()["rounds"][0]["number"]})
        play(tid, first_wins)
    assert api.post(f"/api/tournaments/{tid}/advance/", {"stage": stage}, format="json").status_code == 200
    winner = api.get(f"/api/tournaments/{tid}/standings/").json()[0]["groups"][0]["rows"][0]["player"]
    for name, args in (
        ("tournament", [tid]),
        ("page-standings", [tid]),
        ("tournament-standings-csv", [tid]),
        ("tournament-records", [tid, "txt"]),
        ("tournament-records", [tid, "rif"]),
        ("tournament-call-sheet", [tid]),
        ("tournament-result-sheets", [tid]),
        ("tournament-screen", [tid]),
        ("tournament-pdf", [tid, "standings"]),
        ("tournament-pdf", [tid, "certificates"]),
    ):
        answer = client.get(reverse(name, args=args), HTTP_ACCEPT_LANGUAGE="en")
        assert answer.status_code == 200, (name, args)
        if name in ("tournament", "tournament-standings-csv"):
            assert winner in answer.content.decode()


@pytest.mark.django_db
def test_a_round_never_seats_a_player_on_two_boards_even_when_the_bracket_names_them_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A corrected result can leave one player in two ready matches (the matches played stand): the round
    pairs the earlier one only, and the other waits."""
    tournament = tournament_create(name="Twice", first_stage="double_elim")
    for n in range(5):
        register(tournament=tournament, player=Player.objects.create(name=f"T{n}"))
    publish(tournament=tournament)
    stage = tournament.stages.get()
    draw_stage(stage=stage, seed=1)
    start_stage(stage=stage)
    twice = bracket.State(
        players={"L2-1": (4, 3), "L2-2": (6, 4), "W3-1": (1, 2)},
        winner={},
        loser={},
        ready=["W3-1", "L2-1", "L2-2"],
        complete=False,
    )
    monkeypatch.setattr(double, "load", lambda _stage: (stage.groups.get(), [1, 2, 3, 4, 6], twice, set()))
    plan = format_of(stage).plan_round(stage)
    assert plan.boards == [[1, 2], [4, 3]] and [w["slot"] for w in plan.why] == ["W3-1", "L2-1"]
