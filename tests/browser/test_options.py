"""The client's copy of the engine's option specs is current."""

from __future__ import annotations

from .option_specs import TARGET, render


def test_option_specs_match_the_engine():
    assert TARGET.read_text(encoding="utf-8") == render(), (
        "web/js/game/option-specs.js is stale: run `.venv/bin/python -m tests.browser.option_specs`"
    )
