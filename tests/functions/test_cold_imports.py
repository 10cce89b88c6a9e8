"""A cold start imports only what its handler's path needs (figures: bench/backend.py,
docs/operations.md "Cold starts"). Each check runs a fresh interpreter, as a cold Lambda does.

Every handler is built on Powertools and pydantic; what stays off a path is what it never uses:
the REST resolver (its package imports every resolver it has) off the socket and timer paths,
the parser's other event models (they load on first access) off every path, the X-Ray SDK's
recorder with tracing off, and the bot policy until a room has bots.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOCKET_AND_TIMER = ["ws_connect", "ws_disconnect", "ws_default", "ws_report", "timer"]
HANDLERS = ["rest", *SOCKET_AND_TIMER]
EVERY_PATH_SKIPS = {
    "aws_xray_sdk.core": "the X-Ray SDK's recorder (tracing is off)",
    "mafia_engine.bots": "the bot policy (rooms without bots never need it)",
}
REST_ONLY = {
    "aws_lambda_powertools.event_handler": "Powertools' resolvers (its package imports all of them)",
    "handlers.rest": "the REST handler",
    "service.protocol.models": "the REST bodies and answers",
}
PARSER_MODELS = "aws_lambda_powertools.utilities.parser.models."
WEBSOCKET_MODELS = PARSER_MODELS + "apigw_websocket"


def run(code: str, env: dict[str, str]) -> object:
    """The JSON value the last line of `code`'s output holds, run in a fresh interpreter."""
    path = [str(ROOT), str(ROOT / "layers/engine"), str(ROOT / "functions")]
    code = f"import sys; sys.path[:0] = {path!r}\n{code}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("POWERTOOLS_TRACE_DISABLED", "LAMBDA_TASK_ROOT")}
    return {**env, "AWS_DEFAULT_REGION": "us-east-1", **extra}


def _has(mods: list[str], package: str) -> bool:
    return any(m == package or m.startswith(package + ".") for m in mods)


@pytest.fixture(scope="module")
def cold() -> dict[str, list[str]]:
    """The modules each handler's cold import loads (in Lambda, tracing off)."""
    return {h: cold_import(h)["modules"] for h in HANDLERS}


_COLD: dict[str, dict] = {}


def cold_import(handler: str) -> dict:
    """A handler's cold import in a fresh interpreter (in Lambda, tracing off): the modules it
    loaded, and the objects the collector tracks then, frozen (`gc.freeze`) and not."""
    if handler not in _COLD:
        env = _env(POWERTOOLS_TRACE_DISABLED="true", LAMBDA_TASK_ROOT="/var/task")
        code = (
            f"import handlers.{handler}; import gc, json; "
            "print(json.dumps({'modules': sorted(sys.modules), 'frozen': gc.get_freeze_count(), "
            "'tracked': len(gc.get_objects())}))"
        )
        _COLD[handler] = run(code, env)
    return _COLD[handler]


@pytest.mark.parametrize("handler", HANDLERS)
def test_a_cold_handler_imports_only_what_its_path_needs(cold, handler):
    mods = cold[handler]
    for heavy, what in EVERY_PATH_SKIPS.items():
        assert not _has(mods, heavy), f"{handler} imports {what}"
    for heavy, what in REST_ONLY.items():
        assert _has(mods, heavy) == (handler == "rest"), f"{handler}: {what}"


@pytest.mark.parametrize("handler", HANDLERS)
def test_what_a_cold_start_made_is_frozen_out_of_the_collector(cold, handler):
    """The init phase's objects live as long as the execution environment: `handlers.wiring`
    freezes them (`gc.freeze`), so a full collection in an invocation walks only what
    invocations made (docs/operations.md, "Cold starts"). Nearly all of them are frozen."""
    seen = cold_import(handler)
    assert seen["frozen"] > 10 * seen["tracked"], seen["frozen"]


@pytest.mark.parametrize("handler", HANDLERS)
def test_every_handler_validates_with_pydantic(cold, handler):
    assert "pydantic" in cold[handler]


@pytest.mark.parametrize("handler", SOCKET_AND_TIMER)
def test_a_socket_handler_loads_the_websocket_event_models_only(cold, handler):
    """Powertools' parser loads an event model on first access: the WebSocket models alone
    (the timer has its own model and loads none)."""
    models = {m for m in cold[handler] if m.startswith(PARSER_MODELS)}
    assert models == (set() if handler == "timer" else {WEBSOCKET_MODELS}), models


def test_tracing_on_uses_the_x_ray_provider():
    """With tracing on (in Lambda, POWERTOOLS_TRACE_DISABLED unset) the Tracer's provider is
    the X-Ray SDK's recorder, as Powertools sets it up."""
    code = (
        "from service.infra.telemetry import tracer; import json; "
        "print(json.dumps([type(tracer).__name__, tracer.disabled, type(tracer.provider).__module__]))"
    )
    name, disabled, provider = run(code, _env(LAMBDA_TASK_ROOT="/var/task"))
    assert (name, disabled) == ("Tracer", False) and provider.startswith("aws_xray_sdk"), provider
