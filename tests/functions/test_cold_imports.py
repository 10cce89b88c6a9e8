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
    "aws_lambda_powertools.event_handler": "Powertools' resolvers (its package imports all of them)",
    "service.models": "the REST bodies",
    "handlers.routing": "the REST router",
    "mafia_engine.bots": "the bot policy (rooms without bots never need it)",
}
REST_ONLY = {"service.models", "handlers.routing"}
SOCKET_AND_TIMER = ["ws_connect", "ws_disconnect", "ws_default", "ws_report", "timer"]
HANDLERS = ["rest", *SOCKET_AND_TIMER]
PYDANTIC = ("pydantic", "pydantic_core")
# Records the module of every `import pydantic...` statement run, even when pydantic is loaded
# already (an import hook on the finder would only see the first).
SPY = """
import builtins, sys
_real = builtins.__import__
IMPORTERS = set()
def _spy(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and name.split(".")[0] in {pkgs!r}:
        IMPORTERS.add((globals or {{}}).get("__name__", "?"))
    return _real(name, globals, locals, fromlist, level)
builtins.__import__ = _spy
"""


def run(code: str, env: dict[str, str]) -> object:
    """The JSON value the last line of `code`'s output holds, run in a fresh interpreter."""
    path = [str(ROOT), str(ROOT / "layers/engine"), str(ROOT / "functions")]
    code = f"import sys; sys.path[:0] = {path!r}\n{code}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def loaded(module: str, env: dict[str, str]) -> list[str]:
    return run(f"import {module}; import json; print(json.dumps(sorted(sys.modules)))", env)


def pydantic_importers(module: str, env: dict[str, str]) -> list[str]:
    """The modules that run an `import pydantic...` statement while `module` is imported."""
    code = SPY.format(pkgs=PYDANTIC) + f"import {module}; import json; print(json.dumps(sorted(IMPORTERS)))"
    return run(code, env)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("POWERTOOLS_TRACE_DISABLED", "LAMBDA_TASK_ROOT")}
    return {**env, "AWS_DEFAULT_REGION": "us-east-1", **extra}


@pytest.mark.parametrize("handler", HANDLERS)
def test_a_cold_handler_imports_only_what_its_path_needs(handler):
    mods = loaded(f"handlers.{handler}", _env(POWERTOOLS_TRACE_DISABLED="true", LAMBDA_TASK_ROOT="/var/task"))
    allowed = REST_ONLY if handler == "rest" else set()
    for heavy, what in HEAVY.items():
        if heavy in allowed:
            assert heavy in mods, heavy
            continue
        assert not any(m == heavy or m.startswith(heavy + ".") for m in mods), f"{handler} imports {what}"


@pytest.mark.parametrize("handler", HANDLERS)
def test_no_cold_start_loads_pydantic(handler):
    """Issue 15 §5: pydantic costs a third of `import boto3`: every handler validates with
    msgspec (REST bodies included), and so does the engine they import."""
    mods = loaded(f"handlers.{handler}", _env(POWERTOOLS_TRACE_DISABLED="true"))
    assert not [m for m in mods if m.split(".")[0] in PYDANTIC], f"{handler} loads pydantic"


@pytest.mark.parametrize("handler", HANDLERS)
def test_no_function_module_on_a_handler_path_imports_pydantic(handler):
    """The functions' half of the check above, whatever the engine imports: no module under
    functions/ that a cold start loads has an `import pydantic` of its own."""
    importers = pydantic_importers(f"handlers.{handler}", _env(POWERTOOLS_TRACE_DISABLED="true"))
    assert not [m for m in importers if m.split(".")[0] in ("handlers", "service")], importers


def test_the_pydantic_spy_sees_an_importer():
    """The spy above works: Powertools' parser, which no handler uses, imports pydantic."""
    importers = pydantic_importers(
        "aws_lambda_powertools.utilities.parser", _env(POWERTOOLS_TRACE_DISABLED="true")
    )
    assert any(m.startswith("aws_lambda_powertools.utilities.parser") for m in importers), importers


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
