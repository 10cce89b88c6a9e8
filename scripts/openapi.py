"""`docs/openapi.json`, the REST API's OpenAPI document, as the resolver itself writes it.

Powertools' `APIGatewayRestResolver` (`functions/handlers/rest.py`) generates the document from
its routes and the pydantic models they validate and answer with (`functions/service/protocol/models.py`),
so it cannot drift from what the API checks; `tests/functions/test_deploy_artifacts.py` fails
when the checked-in file is stale. One change to what the resolver writes: it documents its
own 422 validation answer on every route, which this API never gives (`handlers/rest.py` turns
it into a 400 with the `ErrorAnswer` body, documented per route).

    .venv/bin/python scripts/openapi.py > docs/openapi.json
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TITLE, VERSION = "Mafia rooms API", "1.0.0"
UNUSED = ("HTTPValidationError", "ValidationError", "ResponseValidationError")  # of the 422 answer


def document() -> dict:
    """The OpenAPI document (a dict)."""
    sys.path[:0] = [p for p in (str(ROOT / "functions"), str(ROOT / "layers/engine")) if p not in sys.path]
    # the handler wires its boto3 clients at import (handlers/wiring.py), which needs a region;
    # the document calls nothing
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    from handlers.rest import app

    spec = json.loads(app.get_openapi_json_schema(title=TITLE, version=VERSION))
    for item in spec["paths"].values():
        for operation in item.values():
            operation["responses"].pop("422", None)
    schemas = spec.get("components", {}).get("schemas", {})
    for name in UNUSED:
        schemas.pop(name, None)
    return spec


def openapi_json() -> str:
    """The document as the text checked in at docs/openapi.json."""
    return json.dumps(document(), indent=2, ensure_ascii=False)


if __name__ == "__main__":
    print(openapi_json())
