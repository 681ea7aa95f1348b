"""Check real API answers against the OpenAPI schema the API publishes (schemathesis's conformance checks)."""

from __future__ import annotations

from functools import cache
from typing import Any

import requests
import schemathesis
from schemathesis.core.transport import Response


@cache
def _document() -> dict[str, Any]:
    from django.test import Client

    return dict(Client().get("/api/schema/?format=json").json())


@cache
def _schema() -> Any:
    return schemathesis.openapi.from_dict(_document())


def check_against_schema(method: str, path: str, response: Any) -> None:
    """Raise if ``response`` (a Django test response to ``method path``) is not what the schema documents:
    an undocumented status, another content type, or a body that does not match the documented schema."""
    bare = path.split("?", 1)[0]
    operation = _schema().find_operation_by_path(method.upper(), bare)
    assert operation is not None, f"{method.upper()} {bare} is not in the schema"
    documented = _document()["paths"][operation.path][method.lower()]["responses"]
    assert str(response.status_code) in documented or "default" in documented, (
        f"{method.upper()} {bare} answered {response.status_code}, documented: {sorted(documented)}"
    )
    prepared = requests.Request(method.upper(), f"http://testserver{path}").prepare()
    headers = {k.lower(): [v] for k, v in response.items()}
    answer = Response(
        status_code=response.status_code,
        headers=headers,
        content=response.content,
        request=prepared,
        elapsed=0.0,
        verify=False,
    )
    operation.validate_response(answer)
