"""The Swiss system's own pages: a stage as a TRF16 file, a round's printable sheet (and PDF), the crosstable.
Routed by :mod:`tournament.swiss.urls`, which the site includes through the format's ``urls``."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext_lazy as _

from games.access import drafts_hidden
from tournament.models import Stage, Tournament
from tournament.pdf import pdf_response
from tournament.swiss import selectors as swiss
from tournament.swiss import trf


def _swiss_stage(request: HttpRequest, pk: int, stage_id: int) -> tuple[Tournament, Stage]:
    tournament = get_object_or_404(drafts_hidden(Tournament.objects.all(), request.user), pk=pk)
    stage = get_object_or_404(swiss.swiss_stages(tournament), pk=stage_id)
    return tournament, stage


def swiss_trf(request: HttpRequest, pk: int, stage_id: int) -> HttpResponse:
    """The Swiss stage as a TRF16 file (with JaVaFo's and bbpPairings' XX lines), for other pairing programs."""
    tournament, stage = _swiss_stage(request, pk, stage_id)
    data = swiss.load(stage)
    table = swiss.standings(stage, data)
    ranks = {row["number"]: row["rank"] for row in table["rows"]}
    meta = {
        "city": tournament.venue,
        "start": tournament.start_date.strftime("%Y/%m/%d") if tournament.start_date else "",
        "end": tournament.end_date.strftime("%Y/%m/%d") if tournament.end_date else "",
    }
    ascii_names = request.GET.get("names") == "ascii"  # for pairing programs that count columns in bytes
    text = trf.write(data.state, ranks=ranks, meta=meta, ascii_names=ascii_names)
    response = HttpResponse(trf.as_file(text), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="swiss-{tournament.pk}-{stage.pk}.trf"'
    return response


def swiss_round_sheet(request: HttpRequest, pk: int, stage_id: int, number: int) -> HttpResponse:
    """Printable: a published round's pairings by board and by name, and a result slip for each board."""
    return render(request, "tournament/swiss_round.html", _swiss_round_context(request, pk, stage_id, number))


def swiss_round_pdf(request: HttpRequest, pk: int, stage_id: int, number: int) -> HttpResponse:
    context = _swiss_round_context(request, pk, stage_id, number)
    return pdf_response(request, "tournament/swiss_round.html", context, f"round-{pk}-{stage_id}-{number}.pdf")


def _swiss_round_context(request: HttpRequest, pk: int, stage_id: int, number: int) -> dict[str, Any]:
    tournament, stage = _swiss_stage(request, pk, stage_id)
    rounds = swiss.rounds_view(stage, only=number, viewer=request.user)
    if not rounds:
        raise Http404
    rnd = rounds[0]
    by_name = []
    for board in rnd["boards"]:
        first, second = board["first"], board["second"]
        by_name.append(
            {
                "name": first["name"],
                "board": board["board"] if second else None,
                "role": _("first move") if second else "",
                "opponent": second["name"] if second else _("bye"),
            }
        )
        if second:
            by_name.append(
                {"name": second["name"], "board": board["board"], "role": _("second"), "opponent": first["name"]}
            )
    by_name.sort(key=lambda row: row["name"])
    return {"tournament": tournament, "stage": stage, "round": rnd, "by_name": by_name}


def swiss_crosstable(request: HttpRequest, pk: int, stage_id: int) -> HttpResponse:
    """Round by round for each player: the opponent's place, the role, the result."""
    tournament, stage = _swiss_stage(request, pk, stage_id)
    rows = swiss.crosstable(stage)
    rounds = range(1, (len(rows[0]["cells"]) if rows else 0) + 1)
    return render(
        request,
        "tournament/swiss_crosstable.html",
        {"tournament": tournament, "stage": stage, "rows": rows, "rounds": rounds},
    )
