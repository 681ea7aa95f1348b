"""Registration and check-in: entries added, edited, imported and removed by the organizer, players
registering themselves while it is open, check-in by the organizer or by the player, and each player's
private link (Tabbycat's way: a secret URL that signs them in without a password; a new key revokes it).

Every function is one transaction; a refusal is a :class:`TournamentError` in the user's language and
changes nothing (an import with one bad row enters nobody)."""

from __future__ import annotations

import csv
import io
import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import Group as AuthGroup
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.access import may_organize, player_in
from games.live import sockets_closed
from games.models import Player
from games.services import GameError
from games.services.players import check_name
from tournament.checkin import check_in_round
from tournament.identity import check_may_edit, keeper_for_new, link_only, player_for_entry
from tournament.models import NO_SHOW, CheckIn, Entry, Stage, Tournament
from tournament.roles import PLAYER
from tournament.services import TournamentError, audit, register
from tournament.stage_formats import format_of, round_by_round_kinds

MAX_IMPORT_ROWS = 2000


def _entries_open(tournament: Tournament) -> None:
    if tournament.stages.exclude(status=Stage.Status.PENDING).exists():
        raise TournamentError(
            "draw_made",
            _("Entries close when the first draw is made; in a Swiss, add a late entry instead."),
            409,
        )


def _rating(text: str | int | None, where: str = "") -> int | None:
    if text is None or text == "":
        return None
    try:
        value = int(str(text).strip())
    except ValueError:
        raise TournamentError(
            "bad_rating", _("%(where)sthe rating %(value)s is not a whole number.") % {"where": where, "value": text}
        ) from None
    if not 0 <= value <= 4000:
        raise TournamentError(
            "bad_rating", _("%(where)sthe rating %(value)s is outside 0–4000.") % {"where": where, "value": value}
        )
    return value


@transaction.atomic
def entry_add(
    *, tournament: Tournament, name: str, unit: str = "", rating: str | int | None = None, actor: Any = None
) -> Entry:
    """Enter a player by name and unit (the same person as before if both match and ``actor`` keeps them, else
    a new player of its own: tournament.identity); refused once drawn."""
    _entries_open(tournament)
    name, unit = check_name(name, unit)
    if Entry.objects.filter(tournament=tournament, player__name=name, player__unit=unit).exists():
        raise TournamentError(
            "already_entered", _("%(name)s is already entered.") % {"name": f"{name} ({unit})" if unit else name}, 409
        )
    player = player_for_entry(actor=actor, tournament=tournament, name=name, unit=unit, rating=_rating(rating))
    return register(tournament=tournament, player=player, actor=actor)


@transaction.atomic
def entry_edit(*, entry: Entry, name: str, unit: str = "", rating: str | int | None = None, actor: Any = None) -> Entry:
    """Correct an entered player's name, unit or rating (the rating only before the first draw fixes it); only
    when the change shows in no tournament ``actor`` does not run (tournament.identity.may_edit)."""
    entry = Entry.objects.select_for_update().select_related("player", "tournament").get(pk=entry.pk)
    check_may_edit(actor, entry.player)
    name, unit = check_name(name, unit)
    clash = Player.objects.filter(name=name, unit=unit).exclude(pk=entry.player_id)
    if Entry.objects.filter(tournament=entry.tournament, player__in=clash).exists():
        raise TournamentError("already_entered", _("%(name)s is already entered.") % {"name": name}, 409)
    player = entry.player
    value = _rating(rating)
    changed = {"name": (player.name, name), "unit": (player.unit, unit), "rating": (player.rating, value)}
    player.name, player.unit = name, unit
    if entry.rating is None:  # not fixed yet
        player.rating = value
    player.save(update_fields=["name", "unit", "rating"])
    audit(entry.tournament, "entry_edit", actor, entry=entry.pk, **{k: list(v) for k, v in changed.items()})
    return entry


@transaction.atomic
def entry_remove(*, entry: Entry, actor: Any = None) -> None:
    """Take an entry back before the first draw (the player stays in the player list); afterwards a player
    withdraws instead, so the games played keep their opponent."""
    entry = Entry.objects.select_for_update().select_related("tournament", "player").get(pk=entry.pk)
    tournament = entry.tournament
    if tournament.stages.exclude(status=Stage.Status.PENDING).exists():
        raise TournamentError(
            "draw_made", _("The draw is made: withdraw %(name)s instead.") % {"name": entry.player.name}, 409
        )
    audit(tournament, "entry_remove", actor, entry=entry.pk, player=entry.player_id)
    entry.delete()


# -- CSV import -------------------------------------------------------------------------


@dataclass
class ImportReport:
    """What an import did: who was entered, who was already in, and the file's repeated rows."""

    entered: list[Entry] = field(default_factory=list)
    already: list[str] = field(default_factory=list)  # names already entered before the import
    repeated: list[str] = field(default_factory=list)  # "row 14 repeats row 2 (Zhang San)"


def import_summary(report: ImportReport) -> str:
    """One line for the organizer: how many were entered, and every name not entered and why."""
    parts = [_("%(n)s players entered.") % {"n": len(report.entered)}]
    if report.already:
        parts.append(_("Already entered, left as they were: %(names)s.") % {"names": ", ".join(report.already)})
    if report.repeated:
        parts.append(_("Entered once: %(rows)s.") % {"rows": "; ".join(report.repeated)})
    return " ".join(parts)


def _label(name: str, unit: str) -> str:
    return f"{name} ({unit})" if unit else name


@transaction.atomic
def import_entries(*, tournament: Tournament, text: str, actor: Any = None) -> ImportReport:
    """CSV rows ``name,unit,rating`` (a header row optional, comma or tab separated).

    All or nothing: every row is read first, and if any is wrong the import is refused with every
    problem row named (nobody is entered). A row that repeats an earlier one (same name and unit) is
    entered once and reported; a player already entered is reported and left as they are."""
    _entries_open(tournament)
    dialect: Any = csv.excel_tab if "\t" in text and "," not in text else csv.excel
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff")), dialect))
    if len(rows) > MAX_IMPORT_ROWS:
        raise TournamentError("bad_csv", _("At most %(n)s rows can be imported at once.") % {"n": MAX_IMPORT_ROWS})
    problems: list[str] = []
    wanted: list[tuple[str, str, int | None]] = []
    seen: dict[tuple[str, str], int] = {}
    report = ImportReport()
    for number, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if number == 1 and cells[0].lower() in ("name", "姓名", "名字"):
            continue
        where = _("Row %(n)s: ") % {"n": number}
        if len(cells) > 3 and any(cells[3:]):
            problems.append(where + _("at most three columns: name, unit, rating."))
            continue
        try:
            name, unit = check_name(cells[0], cells[1] if len(cells) > 1 else "")
            rating = _rating(cells[2] if len(cells) > 2 else "", where="")
        except GameError as exc:
            problems.append(where + exc.message)
            continue
        key = (name, unit)
        if key in seen:
            report.repeated.append(
                _("row %(n)s repeats row %(first)s (%(name)s)")
                % {"n": number, "first": seen[key], "name": _label(*key)}
            )
            continue
        seen[key] = number
        wanted.append((name, unit, rating))
    if problems:
        raise TournamentError(
            "bad_csv",
            _("Nobody was entered; correct these rows and import again: %(problems)s")
            % {"problems": " · ".join(problems)},
        )
    for name, unit, rating in wanted:
        if Entry.objects.filter(tournament=tournament, player__name=name, player__unit=unit).exists():
            report.already.append(_label(name, unit))
            continue
        player = player_for_entry(actor=actor, tournament=tournament, name=name, unit=unit, rating=rating)
        report.entered.append(register(tournament=tournament, player=player, actor=actor))
    audit(
        tournament,
        "import",
        actor,
        entered=[e.pk for e in report.entered],
        already=report.already,
        repeated=report.repeated,
    )
    return report


# -- self-registration -----------------------------------------------------------------


def registration_open(tournament: Tournament, now: datetime | None = None) -> bool:
    """Players may register themselves: the organizer allows it, the closing time has not passed, the
    tournament is published or still a draft, and the first draw is not made."""
    now = now or timezone.now()
    if not tournament.self_registration or tournament.status == Tournament.Status.FINISHED:
        return False
    if tournament.registration_closes is not None and now >= tournament.registration_closes:
        return False
    return not tournament.stages.exclude(status=Stage.Status.PENDING).exists()


@transaction.atomic
def self_register(
    *,
    tournament: Tournament,
    name: str,
    unit: str = "",
    rating: str | int | None = None,
    now: datetime | None = None,
    user: Any = None,
) -> Entry:
    """A player registering on the tournament's page; they get their private link at once.

    Someone signed in with an account of their own (a password) enters as themselves: their own player (made
    now from the form if they have none) — the one way, with an accepted invitation, that a person who keeps
    themselves joins a tournament. Anyone else is always a new player, kept by the tournament's organizer: a
    name and a unit are public, so they prove nothing, and finding an existing player by them would hand a
    stranger that player's account. A name and unit already entered here is refused. A rating given here is
    only *declared*: kept on the entry, shown to the organizer as unverified, and used for nothing until
    confirmed."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if not registration_open(tournament, now):
        raise TournamentError("registration_closed", _("Registration for this tournament is closed."), 409)
    _entries_open(tournament)
    name, unit = check_name(name, unit)
    declared = _rating(rating)
    player = _own_player(user, name, unit)
    taken = Entry.objects.filter(tournament=tournament, player__name=name, player__unit=unit)
    if player is not None:
        taken = Entry.objects.filter(tournament=tournament, player=player)
    if taken.exists():
        raise TournamentError(
            "already_entered",
            _(
                "%(name)s is already entered. If that is you and you have lost your link, ask the organizer "
                "for a new one."
            )
            % {"name": _label(name, unit) if player is None else _label(player.name, player.unit)},
            409,
        )
    if player is None:
        player = Player.objects.create(name=name, unit=unit, owner=keeper_for_new(None, tournament))
    entry = register(tournament=tournament, player=player, actor=user if player.user_id else None)
    entry.declared_rating = declared
    entry.pending = tournament.registration_approval
    entry.save(update_fields=["declared_rating", "pending"])
    by = user if player.user_id else None
    audit(tournament, "self_register", by, entry=entry.pk, declared_rating=declared, pending=entry.pending)
    return access_key_new(entry=entry, actor=None)


def _own_player(user: Any, name: str, unit: str) -> Player | None:
    """The player of ``user`` when it signs in with an account of its own (made now if it has none); ``None``
    for anyone else (nobody, or a private link's session)."""
    if user is None or not getattr(user, "is_authenticated", False) or link_only(user):
        return None
    player = Player.objects.filter(user=user).first()
    if player is None:
        player = Player.objects.create(name=name, unit=unit, user=user)
    return player


@transaction.atomic
def entry_approve(*, entry: Entry, actor: Any = None) -> Entry:
    """The organizer accepts a self-registration that waited for approval: the player is entered."""
    entry = Entry.objects.select_for_update().select_related("player", "tournament").get(pk=entry.pk)
    if entry.pending:
        entry.pending = False
        entry.save(update_fields=["pending"])
        audit(entry.tournament, "approve", actor, entry=entry.pk)
    return entry


@transaction.atomic
def rating_confirm(*, entry: Entry, actor: Any = None) -> Entry:
    """The organizer accepts a self-declared rating: it becomes the player's rating (before the first draw)."""
    entry = Entry.objects.select_for_update().select_related("player", "tournament").get(pk=entry.pk)
    if entry.declared_rating is None:
        raise TournamentError("no_declared_rating", _("%(name)s declared no rating.") % {"name": entry.player.name})
    _entries_open(entry.tournament)
    check_may_edit(actor, entry.player)  # a claim stays unverified where it would show in others' events
    player = entry.player
    player.rating = entry.declared_rating
    player.save(update_fields=["rating"])
    audit(entry.tournament, "rating_confirm", actor, entry=entry.pk, rating=entry.declared_rating)
    entry.declared_rating = None
    entry.save(update_fields=["declared_rating"])
    return entry


# -- check-in ----------------------------------------------------------------------------


@transaction.atomic
def check_in(*, entry: Entry, actor: Any = None, by_player: bool = False, now: datetime | None = None) -> Entry:
    """The player is here for the round being checked in for (idempotent)."""
    entry = Entry.objects.select_for_update().select_related("tournament", "player").get(pk=entry.pk)
    number = check_in_round(entry.tournament)
    if number is None:
        raise TournamentError("check_in_closed", _("Check-in is not open now."), 409)
    if entry.withdrawn:
        raise TournamentError("withdrawn", _("%(name)s has withdrawn.") % {"name": entry.player.name}, 409)
    if entry.pending:
        raise TournamentError(
            "pending", _("%(name)s's registration awaits the organizer's approval.") % {"name": entry.player.name}, 409
        )
    closes = entry.tournament.check_in_closes
    if by_player and closes is not None and (now or timezone.now()) >= closes and entry.checked_in_round < number:
        raise TournamentError(
            "check_in_over", _("Check-in closed at %(time)s: please see the organizer.") % {"time": _local(closes)}, 409
        )
    if entry.checked_in_round < number:
        entry.checked_in_round = number
        entry.checked_in_at = now or timezone.now()
        entry.save(update_fields=["checked_in_round", "checked_in_at"])
        audit(entry.tournament, "check_in", actor, entry=entry.pk, round=number, by="player" if by_player else "")
    return entry


def _local(moment: datetime) -> str:
    return timezone.localtime(moment).strftime("%H:%M")


@transaction.atomic
def let_back_in(*, entry: Entry, actor: Any = None) -> Entry:
    """A late arrival left out of the first draw for not checking in, let back in with one action: in a Swiss
    first stage, entered as a late entry (paired from the next round, the rounds missed scored as the stage
    says); a group or knockout draw cannot take a player in afterwards, so it is refused there."""
    entry = Entry.objects.select_for_update().select_related("tournament", "player").get(pk=entry.pk)
    if not entry.withdrawn or entry.withdrawal.get("reason") != NO_SHOW:
        raise TournamentError(
            "not_a_no_show", _("%(name)s was not left out for not checking in.") % {"name": entry.player.name}
        )
    stage = entry.tournament.stages.filter(order=1).first()
    under_way = (Stage.Status.DRAWN, Stage.Status.RUNNING)
    if stage is None or not format_of(stage).absences_by_round or stage.status not in under_way:
        raise TournamentError(
            "draw_made", _("The draw is made: only a Swiss takes a player in after it (redo the draw instead)."), 409
        )
    entry.withdrawn = False
    entry.withdrawal = {**entry.withdrawal, "let_back_in": timezone.now().isoformat()}
    entry.save(update_fields=["withdrawn", "withdrawal"])
    format_of(stage).late_entry(stage, entry.player, actor)
    audit(entry.tournament, "let_back_in", actor, entry=entry.pk)
    return entry


@transaction.atomic
def check_in_undo(*, entry: Entry, actor: Any = None) -> Entry:
    """Marked here by mistake: back to not checked in for the open round."""
    entry = Entry.objects.select_for_update().select_related("tournament").get(pk=entry.pk)
    number = check_in_round(entry.tournament)
    if number is None:
        raise TournamentError("check_in_closed", _("Check-in is not open now."), 409)
    if entry.checked_in_round >= number:
        entry.checked_in_round = number - 1
        entry.checked_in_at = None
        entry.save(update_fields=["checked_in_round", "checked_in_at"])
        audit(entry.tournament, "check_in_undo", actor, entry=entry.pk, round=number)
    return entry


def check_in_as(*, tournament: Tournament, user: Any, entry_id: int | None = None, undo: bool = False) -> Entry:
    """A check-in asked for by ``user``: the organizer checks in (or, with ``undo``, out) any entry; a player
    only themselves."""
    organizer = may_organize(user, tournament)
    if organizer and entry_id is not None:
        entry = tournament.entries.filter(pk=entry_id).first()
    else:
        player = player_in(user, tournament.pk)
        entry = tournament.entries.filter(player=player).first() if player is not None else None
        if entry is not None and entry_id not in (None, entry.pk):
            raise TournamentError("not_allowed", _("You check in only yourself."), 403)
    if entry is None:
        raise TournamentError("no_entry", _("There is no such player in this tournament."), 404)
    if undo:
        if not organizer:
            raise TournamentError("not_organizer", _("Only the organizer may do this."), 403)
        return check_in_undo(entry=entry, actor=user)
    return check_in(entry=entry, actor=user, by_player=not organizer)


# -- private links ---------------------------------------------------------------------


@transaction.atomic
def access_key_new(*, entry: Entry, actor: Any = None) -> Entry:
    """A new private link for the player; the old one (if any) stops working at once."""
    entry = Entry.objects.select_for_update().select_related("tournament").get(pk=entry.pk)
    had = bool(entry.access_key)
    if entry.access_key:
        sockets_closed(links=[entry.access_key])  # the sockets the old link opened close with it
    entry.access_key = secrets.token_urlsafe(18)
    entry.save(update_fields=["access_key"])
    audit(entry.tournament, "link_new" if had else "link", actor, entry=entry.pk)
    return entry


@transaction.atomic
def access_key_revoke(*, entry: Entry, actor: Any = None) -> Entry:
    entry = Entry.objects.select_for_update().select_related("tournament").get(pk=entry.pk)
    if entry.access_key:
        sockets_closed(links=[entry.access_key])
    entry.access_key = None
    entry.save(update_fields=["access_key"])
    audit(entry.tournament, "link_revoke", actor, entry=entry.pk)
    return entry


@transaction.atomic
def access_keys_fill(*, tournament: Tournament, actor: Any = None) -> int:
    """Private links for every entry that has none (for printing the players' slips); returns how many."""
    missing = list(Entry.objects.select_for_update().filter(tournament=tournament, access_key__isnull=True))
    for entry in missing:
        entry.access_key = secrets.token_urlsafe(18)
        entry.save(update_fields=["access_key"])
    if missing:
        audit(tournament, "links", actor, entries=[e.pk for e in missing])
    return len(missing)


def entry_by_key(key: str) -> Entry | None:
    if not key or len(key) > 40:
        return None
    return Entry.objects.select_related("tournament", "player").filter(access_key=key).first()


@transaction.atomic
def account_for_link(*, entry: Entry) -> User | None:
    """The account a private link signs in: the player's link-only account, made on first use; ``None``
    when the player has a real account (it is signed in with its password; the link still checks in)."""
    player = Player.objects.select_for_update().get(pk=entry.player_id)
    if player.user_id is not None:
        user = User.objects.get(pk=player.user_id)
        return user if link_only(user) else None
    username = f"p{player.pk}"
    while User.objects.filter(username=username).exists():
        username = f"p{player.pk}-{secrets.token_hex(3)}"
    user = User.objects.create(username=username, first_name=player.name[:150])
    user.set_unusable_password()
    user.save(update_fields=["password"])
    group, _created = AuthGroup.objects.get_or_create(name=PLAYER)
    user.groups.add(group)
    player.user = user
    player.save(update_fields=["user"])
    return user


@transaction.atomic
def registration_configure(
    *,
    tournament: Tournament,
    check_in: str,
    self_registration: bool,
    registration_closes: datetime | None = None,
    registration_approval: bool | None = None,
    check_in_closes: datetime | None = None,
    actor: Any = None,
) -> Tournament:
    """The registration and check-in settings."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if check_in not in CheckIn.values:
        raise TournamentError("bad_check_in", _("Unknown check-in setting %(value)s.") % {"value": check_in})
    if check_in == CheckIn.EACH_ROUND and not tournament.stages.filter(kind__in=round_by_round_kinds()).exists():
        raise TournamentError("bad_check_in", _("Check-in before each round is for Swiss stages."))
    tournament.check_in = check_in
    tournament.self_registration = self_registration
    tournament.registration_closes = registration_closes
    tournament.check_in_closes = check_in_closes
    if registration_approval is not None:
        tournament.registration_approval = registration_approval
    tournament.save(
        update_fields=[
            "check_in",
            "self_registration",
            "registration_closes",
            "registration_approval",
            "check_in_closes",
        ]
    )
    audit(
        tournament,
        "registration_settings",
        actor,
        check_in=check_in,
        self_registration=self_registration,
        closes=registration_closes.isoformat() if registration_closes else None,
        check_in_closes=check_in_closes.isoformat() if check_in_closes else None,
        approval=tournament.registration_approval,
    )
    return tournament
