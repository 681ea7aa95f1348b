"""PDF sheets rendered on the server (WeasyPrint) from the same templates the pages print from: pairings,
result slips, standings and crosstables, certificates, the players' QR slips.

WeasyPrint lays the page out for print media, so the pages' ``@media print`` rules apply (no header, no
buttons). It never reaches the network: stylesheets are read from the static files on disk, anything else
is refused. Latin text, digits and fractions are set in DejaVu Sans (its ½ is a proper fraction; WenQuanYi
Micro Hei's lacks the 2 and printed every half point as "¹⁄"), Chinese in a CJK font found through
fontconfig (Noto Sans CJK or WenQuanYi): each character takes the first font of the stack that has it. All
are installed with the system packages and embedded, subset, in the PDF."""

from __future__ import annotations

import hashlib
import logging
import re
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django_ratelimit.core import is_ratelimited

logger = logging.getLogger(__name__)
logging.getLogger("weasyprint").setLevel(logging.ERROR)  # it reports every CSS property it skips (SVG's)
logging.getLogger("fontTools").setLevel(logging.ERROR)

PDF_CSS = """
@page { size: A4; margin: 14mm 12mm; }
body { font-family: "DejaVu Sans", "Liberation Sans", "Noto Sans CJK SC", "WenQuanYi Micro Hei", "Source Han Sans SC",
       "Droid Sans Fallback", sans-serif; font-size: 10.5pt; }
main table { display: table; overflow: visible; max-width: none; }
.tables { display: block; }
.skip, .noprint, body > header { display: none !important; }
.tables > * { display: table; margin: 0 0 4mm; }
table { break-inside: avoid; }
.bracket svg { width: 100%; }
.slip, .certificate, .player-slip { break-inside: avoid; }
"""


def _static_file(path: str) -> str | None:
    relative = path[len(settings.STATIC_URL) :] if path.startswith(settings.STATIC_URL) else None
    if relative is None:
        return None
    relative = relative.split("?", 1)[0]
    found = finders.find(relative)
    if isinstance(found, list):
        found = found[0] if found else None
    if found is None and settings.STATIC_ROOT:
        candidate = settings.STATIC_ROOT / relative  # a hashed name written by collectstatic
        found = str(candidate) if candidate.exists() else None
    return str(found) if found else None


def local_fetcher() -> Any:
    """A WeasyPrint URL fetcher that reads only our own static files (and data: URLs): nothing is fetched
    over the network, so a PDF renders the same in a hall with no internet."""
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class LocalFetcher(URLFetcher):  # type: ignore[misc]  # weasyprint is untyped: its class is Any
        def fetch(self, url: str, headers: Any = None) -> Any:
            if url.startswith("data:"):
                return super().fetch(url, headers)
            found = _static_file(urlsplit(url).path)
            if found is None:
                raise ValueError(f"not fetched: {url}")
            with open(found, "rb") as handle:
                body = handle.read()
            kind = "text/css" if found.endswith(".css") else "application/octet-stream"
            return URLFetcherResponse(url, body, {"Content-Type": kind})

    return LocalFetcher(allowed_protocols=("http", "https", "data"))


CSRF_INPUT = re.compile(r'<input type="hidden" name="csrfmiddlewaretoken" value="[^"]*">')
CACHE_S = 600  # a rendered sheet is kept this long (per exact page: a changed tournament is a new page)


class TooManyPdfs(Exception):
    """This address asked for more fresh PDFs than ``PDF_RATE`` allows."""


def _page(request: HttpRequest, template: str, context: dict[str, Any]) -> str:
    rendered = render_to_string(template, {**context, "pdf": True}, request=request)
    # Forms' CSRF tokens differ on every request and print nothing: out, so one state is one page (and one PDF).
    page = CSRF_INPUT.sub("", str(rendered))
    # The PDF rules come last among the page's own styles, so they win over the screen layout's.
    return page.replace("</head>", f"<style>{PDF_CSS}</style></head>", 1)


def _render(request: HttpRequest, html: str) -> bytes:
    from weasyprint import HTML

    document = HTML(string=html, base_url=request.build_absolute_uri("/"), url_fetcher=local_fetcher())
    pdf: bytes = document.write_pdf()
    return pdf


def pdf_bytes(request: HttpRequest, template: str, context: dict[str, Any]) -> bytes:
    """The sheet as PDF. Rendering costs a CPU for a moment, so the PDF is cached under the digest of its own
    HTML (the same tournament state and language give the same sheet: served from the cache, free), and the
    renders one address may ask for are limited (``PDF_RATE``): a crowd refreshing a sheet costs one render."""
    html = _page(request, template, context)
    key = "pdf:" + hashlib.sha256(html.encode()).hexdigest()
    try:
        cached = cache.get(key)
    except Exception:  # the cache is down: render, as before
        logger.warning("PDF cache unavailable", exc_info=True)
        cached = None
    if isinstance(cached, bytes):
        return cached
    if is_ratelimited(request, group="pdf", key="ip", rate=settings.PDF_RATE, increment=True):
        raise TooManyPdfs
    pdf = _render(request, html)
    try:
        cache.set(key, pdf, CACHE_S)
    except Exception:
        logger.warning("PDF cache unavailable", exc_info=True)
    return pdf


def pdf_response(request: HttpRequest, template: str, context: dict[str, Any], filename: str) -> HttpResponse:
    try:
        body = pdf_bytes(request, template, context)
    except TooManyPdfs:
        message = _("Too many PDF sheets asked for from this device; wait a minute and try again.")
        return HttpResponse(
            message, status=429, content_type="text/plain; charset=utf-8", headers={"Retry-After": "60"}
        )
    response = HttpResponse(body, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response
