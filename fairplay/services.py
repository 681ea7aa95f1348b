"""Fair play's state changes: screening a finished online game, opening a case for the referees, their
decisions (two who agree), the player's appeal heard by a third, players' reports, and forgetting.

- **Screening** (:func:`screen_game`, the ``fairplay`` Celery queue): every finished online game of a
  tournament or a rated event, both players; each player's screenings in the event are judged together
  (:func:`review_event`), and above the threshold a case is opened — nothing else happens to anyone.
- **Decisions** (:func:`decide`): a tournament's referees and organizers, or the site's fair-play team, may
  decide; never the case's own player. An outcome stands when two referees agree on it; games annulled go
  through the games' own result corrections (standings and ratings follow, as for any correction).
- **Appeal** (:func:`appeal`, :func:`hear`): the player appeals once, a referee who did not decide hears it.
- **Reports** (:func:`report`): a player reports an opponent of one of their games, at most ``REPORTS_A_DAY``
  a day; a report adds to an open case, never opens one.
- **Forgetting** (:func:`forget_player`, :func:`purge_expired`): assessments are kept ``KEEP_DAYS`` after a
  case is decided (screenings without a case ``SCREENING_DAYS``) and deleted with the player's data.
"""

from __future__ import annotations

import functools
from datetime import date, timedelta
from typing import Any

from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from engine.protocols import Options
from engine.records import replay_actions
from fairplay.models import Appeal, Case, Decision, FocusLoss, Report, Screening
from fairplay.screening import MoveScreen, Settings, screen
from fairplay.stats import THRESHOLD, Calibration, judge, load, time_class
from games.access import event_of, may_organize
from games.enums import GameMode, GameStatus, ResultReason
from games.exports import recorded
from games.models import Game, Player
from games.selectors import position_view
from games.services import GameError, game_override
from games.time_control import find_time_control
from tournament.models import MatchGame, Tournament

FAIRPLAY_TEAM = "fairplay"  # a site-wide group whose members may review every case
KEEP_DAYS = 365
SCREENING_DAYS = 180
REPORTS_A_DAY = 3
AGREEING = 2  # referees who must agree on an outcome


@functools.lru_cache(maxsize=1)
def calibration() -> Calibration:
    return load()


def tournament_of(game: Game) -> Tournament | None:
    link = MatchGame.objects.filter(game=game).select_related("match__tournament").first()
    return link.match.tournament if link is not None else None


def time_class_of(spec: Any) -> str:
    """The class (fast, rapid, classical; "" untimed or unknown) of a game's or a tournament's time control."""
    try:
        tc = find_time_control(spec or None)
    except (ValueError, TypeError):  # a bad time control (ClockError is a ValueError)
        return ""
    if not tc.timed:
        return ""
    overtime = tc.ot_stones * (tc.ot_move_ms or 0)
    return time_class((tc.main_ms or 0) / 1000, tc.increment_ms / 1000, (tc.move_ms or 0) / 1000, overtime / 1000)


def screenable(game: Game, tournament: Tournament | None) -> bool:
    """A finished online game of a tournament (rated or not): the games screened."""
    return game.mode == GameMode.ONLINE and game.status == GameStatus.FINISHED and tournament is not None


def stones_and_times(game: Game) -> tuple[list[str], list[int | None], int]:
    """The game's stones in order, each stone's think time, and how many were placed under the opening rule
    (one, the first stone, in a game without a protocol)."""
    stones = recorded(game).stones.split()
    times: list[int | None] = [None] * len(stones)
    moves = list(game.moves.order_by("ply").values_list("text", "clock_ms", "move_number"))
    for _text, clock, number in moves:
        if number is not None and 0 < number <= len(times):
            times[number - 1] = (clock or {}).get("think_ms")
    fixed, options = 1, Options(**(game.protocol_options or {}))
    if game.protocol != "none":
        for ply in range(1, len(moves) + 1):
            if replay_actions(game.protocol, options, [t for t, _c, _n in moves[:ply]]).opening.finished:
                fixed = max([1, *(n for _t, _c, n in moves[:ply] if n is not None)])
                break
    return stones, times, fixed


def screen_game(game_id: int) -> list[Screening]:
    """Screen both players of a finished online game of a tournament; judge each player's event.

    The search (seconds of CPU) runs outside any transaction and only its result is written in one: on SQLite
    a transaction holds the database's write lock from its start (IMMEDIATE), so a screening inside one held
    every move of every game meanwhile (``bench/open.py --screening``: move p50 4 s in a 100-game round)."""
    game = Game.objects.select_related("black", "white").filter(pk=game_id).first()
    if game is None:
        return []
    tournament = tournament_of(game)
    if not screenable(game, tournament) or game.black is None or game.white is None:
        return []
    model = calibration()
    stones, times, fixed = stones_and_times(game)
    moves = screen(stones, game.rules, times, fixed, Settings(**model.settings))
    found = []
    with transaction.atomic():
        for color, player in (("black", game.black), ("white", game.white)):
            mine = [m for m in moves if m.color == color]
            band = model.band_for(player.rating, time_class_of(game.time_control))
            stats = judge(mine, band, model.rho)
            screening, _new = Screening.objects.update_or_create(
                game=game,
                player=player,
                defaults={
                    "tournament": tournament,
                    "color": color,
                    "band": band.label,
                    "settings": model.settings,
                    "moves": [m.to_dict() for m in mine],
                    "stats": stats.to_dict(),
                    "z": stats.z,
                },
            )
            found.append(screening)
            review_event(player, tournament)
    return found


def unscreened(limit: int) -> list[int]:
    """Finished online games of tournaments, ended over a minute ago, with no screening yet (a publish lost
    with the broker down, a worker stopped): the oldest first."""
    settled = timezone.now() - timedelta(minutes=1)
    return list(
        Game.objects.filter(
            mode=GameMode.ONLINE, status=GameStatus.FINISHED, finished_at__lt=settled, match_game__isnull=False
        )
        .exclude(pk__in=Screening.objects.values("game_id"))
        .order_by("finished_at")
        .values_list("pk", flat=True)[:limit]
    )


def event_moves(player: Player, tournament: Tournament | None) -> list[MoveScreen]:
    screenings = Screening.objects.filter(player=player, tournament=tournament).order_by("game_id")
    return [MoveScreen.from_dict(m) for s in screenings for m in s.moves]


def review_event(player: Player, tournament: Tournament | None) -> Case | None:
    """The player's screenings in the event judged together: a case opened above the threshold (or the open
    case brought up to date); below it, nothing."""
    model = calibration()
    event_class = time_class_of(tournament.time_control) if tournament is not None else ""
    stats = judge(event_moves(player, tournament), model.band_for(player.rating, event_class), model.rho)
    case = Case.objects.select_for_update().filter(player=player, tournament=tournament).first()
    if case is None and stats.z > THRESHOLD:
        case = Case.objects.create(player=player, tournament=tournament, z=stats.z, stats=stats.to_dict())
    elif case is not None and case.status == Case.Status.OPEN:
        case.z, case.stats = stats.z, stats.to_dict()
        case.save(update_fields=["z", "stats"])
    return case


# -- the referees -----------------------------------------------------------------------------------------


def on_team(user: Any) -> bool:
    return bool(user.is_authenticated and user.groups.filter(name=FAIRPLAY_TEAM).exists())


def may_review(user: Any, case: Case) -> bool:
    """The case's tournament's referees and organizers, and the site's fair-play team; never its player."""
    if not user.is_authenticated or case.player.user_id == user.pk:
        return False
    if on_team(user):
        return True
    tournament = case.tournament
    return tournament is not None and (
        may_organize(user, tournament) or tournament.referees.filter(pk=user.pk).exists()
    )


def reviewable(user: Any) -> list[Case]:
    """The cases ``user`` may review, the open ones and the appealed first."""
    cases = Case.objects.select_related("player", "tournament").exclude(player__user_id=user.pk)
    order = {Case.Status.OPEN: 0, Case.Status.APPEALED: 1, Case.Status.DECIDED: 2, Case.Status.CLOSED: 3}
    return sorted((c for c in cases if may_review(user, c)), key=lambda c: (order[Case.Status(c.status)], -c.z))


def _case(case_id: int, user: Any) -> Case:
    case = Case.objects.select_for_update().select_related("player", "tournament").filter(pk=case_id).first()
    if case is None or not may_review(user, case):
        raise GameError("no_case", _("There is no such case."), 404)
    return case


def _outcome(outcome: str) -> str:
    if outcome not in Case.Outcome.values:
        raise GameError("bad_outcome", _("The outcome is no action, a warning, games annulled or referred."))
    return outcome


@transaction.atomic
def decide(*, case_id: int, user: Any, outcome: str, note: str = "") -> Case:
    """A referee's decision; the case is decided when ``AGREEING`` referees agree on its outcome."""
    case = _case(case_id, user)
    outcome = _outcome(outcome)
    if case.status != Case.Status.OPEN:
        raise GameError("case_decided", _("This case is decided already."), 409)
    if Decision.objects.filter(case=case, referee=user, stage="first").exists():
        raise GameError("already_decided", _("You have decided this case; another referee must agree."), 409)
    Decision.objects.create(case=case, referee=user, stage="first", outcome=outcome, note=note[:2000])
    agreeing = Decision.objects.filter(case=case, stage="first", outcome=outcome)
    if agreeing.count() >= AGREEING:
        case.status, case.outcome = Case.Status.DECIDED, outcome
        case.grounds = grounds(case, [d.note for d in agreeing if d.note])
        case.decided_at = timezone.now()
        case.keep_until = date.today() + timedelta(days=KEEP_DAYS)
        if outcome == Case.Outcome.ANNULLED:
            annul(case, user)
        case.save()
    return case


def grounds(case: Case, notes: list[str]) -> str:
    """What the player is told: the numbers, and the referees' notes."""
    stats = case.stats
    numbers = _(
        "In %(choices)s real choices you matched the engine's move %(matched)s times where a player of your "
        "strength would match it about %(expected)s times (z = %(z)s)."
    ) % {
        "choices": stats.get("choices"),
        "matched": stats.get("matched"),
        "expected": stats.get("expected_match"),
        "z": stats.get("z"),
    }
    return "\n".join([numbers, *notes])


def annul(case: Case, actor: Any) -> None:
    """The case's games annulled: each a loss for the player, through the games' own correction (the results
    before are kept to restore them on appeal)."""
    before: dict[str, list[str]] = {}
    for screening in Screening.objects.filter(player=case.player, tournament=case.tournament).select_related("game"):
        game = screening.game
        before[str(game.pk)] = [game.result, game.result_reason]
        loser_black = screening.color == "black"
        game_override(
            game_id=game.pk,
            result="white" if loser_black else "black",
            reason=ResultReason.REFEREE,
            note=_("annulled for fair play (case %(n)s)") % {"n": case.pk},
            actor=actor,
            interface="web",
        )
    case.annulled = before


def restore(case: Case, actor: Any) -> None:
    for game_id, (result, reason) in case.annulled.items():
        game_override(
            game_id=int(game_id),
            result=result,
            reason=reason,
            note=_("restored on appeal (case %(n)s)") % {"n": case.pk},
            actor=actor,
            interface="web",
        )
    case.annulled = {}


@transaction.atomic
def appeal(*, case_id: int, user: Any, text: str) -> Appeal:
    """The player's appeal of their decided case (once)."""
    case = Case.objects.select_for_update().select_related("player").filter(pk=case_id).first()
    if case is None or not user.is_authenticated or case.player.user_id != user.pk:
        raise GameError("no_case", _("There is no such case."), 404)
    if case.status != Case.Status.DECIDED:
        raise GameError("not_decided", _("Only a decided case can be appealed, once."), 409)
    if not text.strip():
        raise GameError("reason_required", _("Say why you appeal."))
    case.status = Case.Status.APPEALED
    case.save(update_fields=["status"])
    return Appeal.objects.create(case=case, text=text.strip()[:4000])


@transaction.atomic
def hear(*, case_id: int, user: Any, outcome: str, note: str = "") -> Case:
    """The appeal heard by a referee who did not decide the case: the outcome upheld or changed; closed."""
    case = _case(case_id, user)
    outcome = _outcome(outcome)
    if case.status != Case.Status.APPEALED:
        raise GameError("not_appealed", _("This case has no appeal to hear."), 409)
    if Decision.objects.filter(case=case, referee=user, stage="first").exists():
        raise GameError("decided_it", _("You decided this case; another referee hears its appeal."), 403)
    Decision.objects.create(case=case, referee=user, stage="appeal", outcome=outcome, note=note[:2000])
    if outcome != case.outcome:
        if case.outcome == Case.Outcome.ANNULLED:
            restore(case, user)
        if outcome == Case.Outcome.ANNULLED:
            annul(case, user)
        case.outcome = outcome
        case.grounds = "\n".join([case.grounds, note]) if note else case.grounds
    case.status = Case.Status.CLOSED
    case.save()
    return case


# -- players ----------------------------------------------------------------------------------------------


@transaction.atomic
def report(*, game_id: int, reporter: Player, note: str = "") -> Report:
    """A player reports the opponent of one of their finished online games (``REPORTS_A_DAY`` a day)."""
    game = Game.objects.filter(pk=game_id, mode=GameMode.ONLINE).first()
    if game is None or reporter.pk not in (game.player_one_id, game.player_two_id):
        raise GameError("not_your_game", _("You can report only an opponent of your own game."), 403)
    if game.status != GameStatus.FINISHED:
        raise GameError("game_not_over", _("Report an opponent once the game is over."), 409)
    since = timezone.now() - timedelta(days=1)
    if Report.objects.filter(reporter=reporter, at__gte=since).count() >= REPORTS_A_DAY:
        raise GameError("too_many_reports", _("You have sent as many reports as a day allows."), 429)
    if Report.objects.filter(game=game, reporter=reporter).exists():
        raise GameError("already_reported", _("You have reported this game already."), 409)
    reported_id = game.player_two_id if reporter.pk == game.player_one_id else game.player_one_id
    found = Report.objects.create(game=game, reporter=reporter, reported_id=reported_id, note=note[:500])
    tournament = tournament_of(game)
    Case.objects.filter(player_id=reported_id, tournament=tournament, status=Case.Status.OPEN).update(
        reported=Report.objects.filter(reported_id=reported_id, game__match_game__match__tournament=tournament).count()
    )
    return found


def focus_lost(*, game_id: int, player: Player, ply: int) -> bool:
    """The game page of ``player`` lost the focus at ``ply``: kept once a turn, and only during the player's
    own turn of a running online game of an event, the games screened (anything else is ignored: the page
    cannot be trusted to say more)."""
    game = Game.objects.filter(pk=game_id, mode=GameMode.ONLINE, status__in=GameStatus.active()).first()
    if game is None or player.pk not in (game.player_one_id, game.player_two_id) or game.ply != ply:
        return False
    if event_of(game) is None:  # the same rule as the page's focus_signal (games.views)
        return False
    seat = 1 if player.pk == game.player_one_id else 2
    if position_view(game)["actor"] != seat:
        return False
    _found, created = FocusLoss.objects.get_or_create(game=game, player=player, ply=ply)
    return created


def reporter_record(reporter: Player) -> tuple[int, int]:
    """How the reporter's reports ended: (upheld, judged). A report is judged once the case about its player in
    its game's event has an outcome, and upheld unless that outcome was no action."""
    upheld = judged = 0
    for found in Report.objects.filter(reporter=reporter).select_related("game"):
        case = (
            Case.objects.filter(player_id=found.reported_id, tournament=tournament_of(found.game))
            .exclude(outcome="")
            .first()
        )
        if case is not None:
            judged += 1
            upheld += case.outcome != Case.Outcome.NO_ACTION
    return upheld, judged


def reporter_weight(upheld: int, judged: int) -> float:
    """A report's weight from its reporter's record, one upheld and one not to start: a new reporter's report
    weighs ½, one from a reporter whose reports were upheld weighs more, one whose were not, less."""
    return (upheld + 1) / (judged + 2)


def reports_about(case: Case) -> list[dict[str, Any]]:
    """The reports about the case's player in its event, each with its reporter's record and weight."""
    found = Report.objects.filter(reported_id=case.player_id, game__match_game__match__tournament=case.tournament)
    rows = []
    for one in found.select_related("reporter").order_by("at"):
        upheld, judged = reporter_record(one.reporter)
        rows.append({"report": one, "upheld": upheld, "judged": judged, "weight": reporter_weight(upheld, judged)})
    return rows


@transaction.atomic
def forget_player(player: Player) -> int:
    """Every assessment of the player and every report by or about them, deleted (with the player's data)."""
    deleted = 0
    for query in (
        Screening.objects.filter(player=player),
        FocusLoss.objects.filter(player=player),
        Case.objects.filter(player=player),
        Report.objects.filter(reporter=player),
        Report.objects.filter(reported=player),
    ):
        deleted += query.delete()[0]
    return deleted


@transaction.atomic
def purge_expired(today: date | None = None) -> int:
    """Cases past their keeping date, and screenings of no case older than ``SCREENING_DAYS``, deleted."""
    today = today or date.today()
    deleted = Case.objects.filter(keep_until__lt=today).delete()[0]
    cutoff = timezone.now() - timedelta(days=SCREENING_DAYS)
    open_cases = Case.objects.values_list("player_id", "tournament_id")
    old = Screening.objects.filter(created_at__lt=cutoff)
    for player_id, tournament_id in open_cases:
        old = old.exclude(player_id=player_id, tournament_id=tournament_id)
    return deleted + old.delete()[0]


def ensure_team() -> Group:
    return Group.objects.get_or_create(name=FAIRPLAY_TEAM)[0]
