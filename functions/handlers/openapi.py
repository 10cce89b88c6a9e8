"""The OpenAPI 3.1 document of the REST API, written from the routes `handlers/rest.py` serves.

Build time only (no handler imports it): the paths come from `rest.ROUTES`, the schemas from
the same msgspec Structs the router converts bodies and answers through, so the document cannot
drift from what the API checks (`tests/functions/test_deploy_artifacts.py` compares it with
`docs/openapi.json`).

    PYTHONPATH=functions:layers/engine python -m handlers.openapi > docs/openapi.json
"""

from __future__ import annotations

import json
from http import HTTPStatus

import msgspec

from service.models import ErrorAnswer

from .rest import ROUTES
from .routing import Route

REF = "#/components/schemas/{name}"
EVERY_ROUTE_ERRORS = (405, 500)  # another method on the path; a bug (routing.Router.resolve)


def _ref(struct: type) -> dict:
    return {"$ref": REF.format(name=struct.__name__)}


def _json(schema: dict) -> dict:
    return {"content": {"application/json": {"schema": schema}}}


def _operation(route: Route) -> dict:
    op: dict = {
        "summary": f"{route.method} {route.template}",
        "description": (route.call.__doc__ or "").strip(),
        "operationId": route.call.__name__,
    }
    if route.params:
        op["parameters"] = [
            {
                "name": name,
                "in": "path",
                "required": True,
                "description": param.description,
                "schema": {"type": "string", "pattern": param.pattern},
            }
            for name, param in route.params.items()
        ]
    if route.body is not None:
        op["requestBody"] = {"required": True, **_json(_ref(route.body))}
    op["responses"] = {
        str(route.status): {
            "description": route.outcome or HTTPStatus(route.status).phrase,
            **_json(_ref(route.answer)),
        },
        **{
            str(status): {"description": HTTPStatus(status).phrase, **_json(_ref(ErrorAnswer))}
            for status in sorted({*route.errors, *EVERY_ROUTE_ERRORS})
        },
    }
    return op


def document(title: str = "Mafia rooms API", version: str = "1.0.0") -> dict:
    """The OpenAPI document (a dict)."""
    structs = {s for r in ROUTES for s in (r.answer, r.body) if s is not None} | {ErrorAnswer}
    _, components = msgspec.json.schema_components(
        sorted(structs, key=lambda s: s.__name__), ref_template=REF
    )
    paths: dict[str, dict] = {}
    for route in ROUTES:
        paths.setdefault(route.template, {})[route.method.lower()] = _operation(route)
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version},
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {"schemas": components},
    }


def openapi_json() -> str:
    """The OpenAPI document as the JSON text written to docs/openapi.json."""
    return json.dumps(document(), indent=2, ensure_ascii=False)


if __name__ == "__main__":
    print(openapi_json())
