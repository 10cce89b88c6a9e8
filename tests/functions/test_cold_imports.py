"""Issue 15 §5: a cold start imports only what its handler's path needs (figures: bench/backend.py,
docs/operations.md "Cold starts"). Each check runs a fresh interpreter, as a cold Lambda does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = {
    "aws_xray_sdk": "the X-Ray SDK (tracing is off)",
    "aws_lambda_powertools.utilities.parser": "Powertools' parser models (every AWS event model)",
    "aws_lambda_powertools.event_handler": "the REST resolver and its OpenAPI validation",
    "service.models": "the REST bodies",
    "mafia_engine.bots": "the bot policy (rooms without bots never need it)",
}
REST_ONLY = {"aws_lambda_powertools.event_handler", "service.models"}


def loaded(module: str, env: dict[str, str]) -> list[str]:
    code = (
        f"import sys; sys.path[:0] = {[str(ROOT), str(ROOT / 'layers/engine'), str(ROOT / 'functions')]!r}; "
        f"import {module}; import json; print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("POWERTOOLS_TRACE_DISABLED", "LAMBDA_TASK_ROOT")}
    return {**env, "AWS_DEFAULT_REGION": "us-east-1", **extra}


@pytest.mark.parametrize("handler", ["rest", "ws_connect", "ws_disconnect", "ws_default", "timer"])
def test_a_cold_handler_imports_only_what_its_path_needs(handler):
    mods = loaded(f"handlers.{handler}", _env(POWERTOOLS_TRACE_DISABLED="true", LAMBDA_TASK_ROOT="/var/task"))
    allowed = REST_ONLY if handler == "rest" else set()
    for heavy, what in HEAVY.items():
        if heavy in allowed:
            assert heavy in mods, heavy
            continue
        assert not any(m == heavy or m.startswith(heavy + ".") for m in mods), f"{handler} imports {what}"


def test_tracing_on_uses_the_real_powertools_tracer():
    """Issue 11: with tracing on (in Lambda, POWERTOOLS_TRACE_DISABLED unset) the Tracer is
    Powertools' own, X-Ray SDK and all."""
    code = (
        f"import sys; sys.path[:0] = {[str(ROOT / 'layers/engine'), str(ROOT / 'functions')]!r}; "
        "from service.telemetry import tracer; print(type(tracer).__module__, type(tracer).__name__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=_env(LAMBDA_TASK_ROOT="/var/task"),
        check=True,
    )
    assert out.stdout.split() == ["aws_lambda_powertools.tracing.tracer", "Tracer"]
