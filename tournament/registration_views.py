"""Pages for registration and check-in: the control room's players page (add, edit, import, remove, check
in, private links, the registration and check-in settings), the players' slips with their QR codes, the
public self-registration form, and the private link a player scans (it signs them in and checks them in).

Each form calls one service of :mod:`tournament.registration`; a refusal comes back as a message in the
user's language and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST
from django_ratelimit.core import is_ratelimited

from games.access import may_organize, organizer_or_404, player_in, visible_players
from games.models import NAME_MAX, UNIT_MAX
from games.parsing import whole
from games.services import GameError
from tournament import lan, registration
from tournament.checkin import check_in_round
from tournament.identity import editable_players, link_only
from tournament.invitations import invitation_answer, invite
from tournament.middleware import SESSION_LINK  # the key a session was signed in with; a new key ends it
from tournament.models import CheckIn, Entry, Stage, Tournament


class EntryForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=NAME_MAX)
    unit = forms.CharField(label=gettext_lazy("Unit (club, school or class)"), max_length=UNIT_MAX, required=False)
    rating = forms.IntegerField(label=gettext_lazy("Rating"), min_value=0, max_value=4000, required=False)


class InviteForm(forms.Form):
    player = forms.IntegerField(
        label=gettext_lazy("Player number (on their public page, /players/<number>/)"), min_value=1
    )


class ImportForm(forms.Form):
    csv = forms.CharField(
        label=gettext_lazy("Players, one a line: name, unit, rating"),
        widget=forms.Textarea(attrs={"rows": 8, "placeholder": "张三,一中,1500"}),
        required=False,
    )
    file = forms.FileField(label=gettext_lazy("or a CSV file"), required=False)


class RegistrationSettingsForm(forms.Form):
    check_in = forms.ChoiceField(label=gettext_lazy("Check-in"), choices=CheckIn.choices)
    self_registration = forms.BooleanField(label=gettext_lazy("Players may register themselves"), required=False)
    registration_closes = forms.DateTimeField(
        label=gettext_lazy("Self-registration closes"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )
    registration_approval = forms.BooleanField(
        label=gettext_lazy("Self-registrations wait for my approval"), required=False
    )
    check_in_closes = forms.DateTimeField(
        label=gettext_lazy("Players' own check-in closes (you can still check in a late arrival)"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )


def public_url(request: HttpRequest, path: str) -> str:
    """The URL a phone in the hall can open: on the venue's network address in LAN mode, else this host."""
    if settings.VENUE:
        found = lan.urls(settings.PUBLIC_PORT, path)
        if found:
            return found[0]
    return request.build_absolute_uri(path)


def qr(url: str, scale: int = 4) -> str:
    return mark_safe(lan.qr_svg(url, scale))  # noqa: S308 - segno's own SVG of a URL we built


@login_required
def control_players(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    user = organizer_or_404(request, tournament)
    entries = list(tournament.entries.select_related("player").order_by("withdrawn", "player__name", "pk"))
    number = check_in_round(tournament)
    drawn = tournament.stages.exclude(status=Stage.Status.PENDING).exists()
    register_url = public_url(request, reverse("self-register", args=[tournament.pk]))
    rows = [
        {
            "entry": e,
            "here": number is not None and e.checked_in_round >= number,
            "link": public_url(request, reverse("private-link", args=[e.access_key])) if e.access_key else "",
        }
        for e in entries
    ]
    context = {
        "tournament": tournament,
        "rows": rows,
        "active": sum(1 for e in entries if not e.withdrawn),
        "check_in_round": number,
        "missing": [e for e in entries if number is not None and e.checked_in_round < number and not e.withdrawn],
        "drawn": drawn,
        "add_form": EntryForm(),
        "invite_form": InviteForm(),
        "invitations": tournament.invitations.filter(accepted__isnull=True).select_related("player"),
        "editable": editable_players(user, [e.player_id for e in entries]),
        "import_form": ImportForm(),
        "settings_form": RegistrationSettingsForm(
            initial={
                "check_in": tournament.check_in,
                "self_registration": tournament.self_registration,
                "registration_closes": tournament.registration_closes,
                "registration_approval": tournament.registration_approval,
                "check_in_closes": tournament.check_in_closes,
            }
        ),
        "register_url": register_url,
        "register_qr": qr(register_url) if tournament.self_registration else "",
        "registration_open": registration.registration_open(tournament),
    }
    return render(request, "tournament/control_players.html", context)


@login_required
def control_players_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """One form of the players page: the service runs; its answer (or refusal) becomes a message."""
    tournament = get_object_or_404(Tournament, pk=pk)
    user = organizer_or_404(request, tournament)
    if request.method != "POST":
        return redirect("control-players", pk=pk)
    entry = None
    if action in ENTRY_ACTIONS or action == "edit":
        entry_id = whole(request.POST.get("entry", ""))
        if entry_id is None:
            raise Http404
        entry = get_object_or_404(Entry, pk=entry_id, tournament=tournament)
    try:
        done = _run(action, request, tournament, entry, user)
    except GameError as exc:
        messages.error(request, exc.message)
    else:
        if done:
            messages.success(request, done)
    anchor = f"#entry-{entry.pk}" if entry is not None and action != "remove" else ""
    return redirect(reverse("control-players", args=[pk]) + anchor)


def _form_error(form: forms.Form) -> str:
    return " ".join(f"{form.fields[name].label}: {' '.join(map(str, errors))}" for name, errors in form.errors.items())


def _run(action: str, request: HttpRequest, tournament: Tournament, entry: Entry | None, user: Any) -> str:
    if action == "add":
        form = EntryForm(request.POST)
        if not form.is_valid():
            raise GameError("bad_form", _form_error(form))
        added = registration.entry_add(tournament=tournament, actor=user, **form.cleaned_data)
        return _("%(name)s entered.") % {"name": added.player.name}
    if action == "invite":
        return _invite(request, tournament, user)
    if action == "import":
        return registration.import_summary(
            registration.import_entries(tournament=tournament, text=_import_text(request), actor=user)
        )
    if action == "settings":
        configured = RegistrationSettingsForm(request.POST)
        if not configured.is_valid():
            raise GameError("bad_form", _form_error(configured))
        registration.registration_configure(tournament=tournament, actor=user, **configured.cleaned_data)
        return _("Registration and check-in settings saved.")
    if action == "links":
        made = registration.access_keys_fill(tournament=tournament, actor=user)
        return _("%(n)s private links made.") % {"n": made}
    if entry is None:  # an unknown action
        raise Http404
    name = entry.player.name
    if action == "edit":
        form = EntryForm(request.POST)
        if not form.is_valid():
            raise GameError("bad_form", _form_error(form))
        registration.entry_edit(entry=entry, actor=user, **form.cleaned_data)
        return _("%(name)s changed.") % {"name": form.cleaned_data["name"]}
    service, done = ENTRY_ACTIONS[action]
    service(entry=entry, actor=user)
    return str(done) % {"name": name}


def _invite(request: HttpRequest, tournament: Tournament, user: Any) -> str:
    """Invite a player by number: one the organizer keeps is entered at once, anyone else is asked. The same
    words whoever the player is (an organizer learns nothing of accounts from them)."""
    form = InviteForm(request.POST)
    if not form.is_valid():
        raise GameError("bad_form", _form_error(form))
    player = visible_players(user).filter(pk=form.cleaned_data["player"]).first()
    if player is None:
        raise GameError("no_player", _("There is no player with that number."), 404)
    done = invite(tournament=tournament, player=player, actor=user)
    if isinstance(done, Entry):
        return _("%(name)s entered.") % {"name": player.name}
    return _("%(name)s is invited: they are entered once they accept.") % {"name": player.name}


@login_required
@require_POST
def console_invitation(request: HttpRequest, pk: int) -> HttpResponse:
    """The player's answer to an invitation, from their console."""
    accept = request.POST.get("accept") == "1"
    try:
        invitation = invitation_answer(invitation_id=pk, user=request.user, accept=accept)
    except GameError as exc:
        messages.error(request, exc.message)
    else:
        name = invitation.tournament.name
        if accept:
            messages.success(request, _("You are entered in %(name)s.") % {"name": name})
        else:
            messages.success(request, _("You declined the invitation to %(name)s.") % {"name": name})
    return redirect("player-console")


def _import_text(request: HttpRequest) -> str:
    """The players to import: pasted, or a file of at most 2 MB in UTF-8 or GB18030."""
    imported = ImportForm(request.POST, request.FILES)
    if not imported.is_valid():
        raise GameError("bad_form", _form_error(imported))
    text = imported.cleaned_data["csv"] or ""
    upload = imported.cleaned_data["file"]
    if upload is not None:
        raw = upload.read(2_000_001)
        if len(raw) > 2_000_000:
            raise GameError("bad_csv", _("The file is larger than 2 MB."))
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            try:
                text = raw.decode("gb18030")  # a spreadsheet saved on a Chinese Windows
            except UnicodeDecodeError:
                raise GameError("bad_csv", _("The file is not text in UTF-8 or GB18030.")) from None
    if not text.strip():
        raise GameError("bad_csv", _("Paste the players or choose a file."))
    return str(text)


# One button per entry: the service, and what it says when done.
ENTRY_ACTIONS: dict[str, tuple[Callable[..., Any], Any]] = {
    "remove": (registration.entry_remove, gettext_lazy("%(name)s removed.")),
    "check-in": (registration.check_in, gettext_lazy("%(name)s checked in.")),
    "check-out": (registration.check_in_undo, gettext_lazy("%(name)s is no longer checked in.")),
    "link": (
        registration.access_key_new,
        gettext_lazy("A new private link for %(name)s; the old one no longer works."),
    ),
    "unlink": (registration.access_key_revoke, gettext_lazy("%(name)s's private link no longer works.")),
    "approve": (registration.entry_approve, gettext_lazy("%(name)s approved and entered.")),
    "confirm-rating": (registration.rating_confirm, gettext_lazy("%(name)s's declared rating is now their rating.")),
    "let-back-in": (registration.let_back_in, gettext_lazy("%(name)s is let back in: paired from the next round.")),
}


@login_required
def player_slips(request: HttpRequest, pk: int) -> HttpResponse:
    """One slip per player with their private link as a QR code: scanned at the door, it checks them in."""
    tournament = get_object_or_404(Tournament, pk=pk)
    organizer_or_404(request, tournament)
    return render(
        request, "tournament/player_slips.html", {"tournament": tournament, **slips_context(request, tournament)}
    )


def slips_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    entries = tournament.entries.filter(withdrawn=False, access_key__isnull=False).select_related("player")
    slips = []
    for entry in entries.order_by("player__name"):
        url = public_url(request, reverse("private-link", args=[entry.access_key]))
        slips.append({"entry": entry, "url": url, "qr": qr(url, 3)})
    missing = tournament.entries.filter(withdrawn=False, access_key__isnull=True).count()
    return {"slips": slips, "missing": missing}


# -- the players' side -------------------------------------------------------------------


def self_register(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=pk)
    hidden = tournament.status == Tournament.Status.DRAFT and not tournament.self_registration
    if hidden and not may_organize(request.user, tournament):
        raise Http404  # a draft is its organizers' own, until they open registration for it
    is_open = registration.registration_open(tournament)
    form = EntryForm(request.POST or None)
    status = 200
    if request.method == "POST":
        limited = is_ratelimited(
            request, group="self-register", key="ip", rate=settings.REGISTRATION_RATE, method="POST", increment=True
        )
        if limited:
            messages.error(request, _("Too many registrations from this device; wait a minute and try again."))
            status = 429
        elif not is_open:
            messages.error(request, _("Registration for this tournament is closed."))
        elif form.is_valid():
            try:
                entry = registration.self_register(tournament=tournament, user=request.user, **form.cleaned_data)
            except GameError as exc:
                messages.error(request, exc.message)
            else:
                assert entry.access_key is not None
                if entry.player.user_id is not None and entry.player.user_id == request.user.pk:
                    messages.success(request, _("You are entered in %(name)s.") % {"name": tournament.name})
                    return redirect("player-console")
                account = registration.account_for_link(entry=entry)
                if account is not None and not request.user.is_authenticated:
                    _sign_in(request, account, entry.access_key)
                return redirect("private-link", key=entry.access_key)
    context = {"tournament": tournament, "form": form, "open": is_open}
    return render(request, "tournament/register.html", context, status=status)


def _sign_in(request: HttpRequest, user: Any, key: str) -> None:
    """Sign this device in with a private link's account (a new session: the old one's key is cycled)."""
    if request.user.is_authenticated and request.user.pk != user.pk:
        logout(request)
    if not request.user.is_authenticated:
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    request.session[SESSION_LINK] = key


def private_link(request: HttpRequest, key: str) -> HttpResponse:
    """A player's private link. GET shows the player's page and changes nothing (a link or an image on another
    site cannot sign anyone in or out); the buttons POST: check in, and open my games on this device.

    The link signs in only the entry's own link account, never a real account (with a password, staff or
    referee rights): a lost slip is one entry's games, not a person's login. A device signed in as someone
    else is asked before that session is replaced."""
    entry = registration.entry_by_key(key)
    if entry is None:
        return render(request, "tournament/private_link.html", {"entry": None}, status=404)
    if request.method == "POST":
        account = registration.account_for_link(entry=entry)
        if account is None:
            messages.error(request, _("This player signs in with a password; the link only checks in."))
        elif request.user.is_authenticated and request.user.pk != account.pk and request.POST.get("switch") != "1":
            messages.error(request, _("This device is signed in as someone else; choose whether to switch."))
        else:
            _sign_in(request, account, key)
            return redirect("player-console")
        return redirect("private-link", key=key)
    tournament = entry.tournament
    number = check_in_round(tournament)
    signed_in_as = request.user if request.user.is_authenticated else None
    account = entry.player.user  # a GET makes nothing: the link account is made by the button
    can_sign_in = account is None or link_only(account)
    context = {
        "entry": entry,
        "tournament": tournament,
        "check_in_round": number,
        "here": number is not None and entry.checked_in_round >= number,
        "self_url": public_url(request, request.path),
        "can_sign_in": can_sign_in,
        "is_self": account is not None and signed_in_as is not None and signed_in_as.pk == account.pk,
        "other": signed_in_as
        if signed_in_as is not None and (account is None or signed_in_as.pk != account.pk)
        else None,
    }
    return render(request, "tournament/private_link.html", context)


def private_link_check_in(request: HttpRequest, key: str) -> HttpResponse:
    """Check in by the link (a POST); a device signed in as nobody is signed in with the link too."""
    entry = registration.entry_by_key(key)
    if entry is None:
        return render(request, "tournament/private_link.html", {"entry": None}, status=404)
    if request.method == "POST":
        try:
            registration.check_in(entry=entry, actor=None, by_player=True, now=timezone.now())
        except GameError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("You are checked in. Good luck!"))
            account = registration.account_for_link(entry=entry)
            if account is not None and not request.user.is_authenticated:
                _sign_in(request, account, key)
    return redirect("private-link", key=key)


@login_required
def console_check_in(request: HttpRequest, entry_id: int) -> HttpResponse:
    """The check-in button on a player's own console."""
    entry = get_object_or_404(Entry, pk=entry_id)
    player = player_in(request.user, entry.tournament_id)
    if player is None or entry.player_id != player.pk:
        raise Http404
    if request.method == "POST":
        try:
            registration.check_in(entry=entry, actor=request.user, by_player=True)
        except GameError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("You are checked in. Good luck!"))
    return redirect("player-console")
