"""The API's JSON parser (a module of its own: DRF imports it while its views module is still loading)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class BoundedJSONParser(JSONParser):
    """JSON nested deeper than the decoder can follow (200 KB of brackets) is a malformed body: 400, not 500."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(_("The JSON body is nested too deeply.")) from None
