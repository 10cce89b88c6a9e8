"""What the contract suite derives from a preset's declaration alone: its option variants, the
player counts it deals, and seeded random games over them (``mafia_engine.testing``)."""

from __future__ import annotations

from typing import Any

import mafia_engine as me
from mafia_engine.options import OptionSpec
from mafia_engine.presets import PRESETS
from mafia_engine.testing import random_game


def _values(spec: OptionSpec) -> list[Any]:
    """Every value of an option worth a game of its own (besides its default)."""
    if spec.type == "bool":
        out = [not spec.default]
    elif spec.type == "choice":
        out = list(spec.choices)
    elif spec.type == "int":
        out = [spec.min, spec.max]
    else:  # multi: each item alone, and all of them
        out = [[c] for c in spec.choices] + [list(spec.choices)]
    return [v for v in out if v != spec.default]


def option_variants(name: str) -> list[dict]:
    """The defaults, then each declared option moved off its default alone (each choice, each
    switch flipped, each bound of a number, each item of a list and all of them)."""
    out: list[dict] = [{"preset": name}]
    for spec in PRESETS[name].options:
        out.extend({"preset": name, spec.key: v} for v in _values(spec))
    return out


def player_range(name: str) -> range:
    p = PRESETS[name]
    return range(p.min_players, p.max_players + 1)


def setup_code(options: dict, n: int) -> str | None:
    """None when the engine deals ``n`` players with ``options``, else its refusal code."""
    try:
        me.check_setup(options, n)
    except me.InvalidAction as e:
        assert str(e), e.code  # every refusal says why
        return e.code
    return None


def legal_setups(name: str) -> list[tuple[dict, int]]:
    """Every (option variant, player count) the preset accepts."""
    return [(o, n) for o in option_variants(name) for n in player_range(name) if setup_code(o, n) is None]


def games(name: str, count: int, max_steps: int = 2000):
    """``count`` seeded random games spread over the preset's legal set-ups (every option
    variant and player count in turn, round again when there are fewer set-ups than games);
    yields (options, n, [states]) for each, lazily."""
    setups = legal_setups(name)
    stride = max(1, len(setups) // count)
    for i in range(count):
        options, n = setups[(i * stride + i // len(setups)) % len(setups)]
        states = [s for _a, _now, s in random_game(n, i, {**options, **quiet(name)}, max_steps=max_steps)]
        yield options, n, states


def quiet(name: str) -> dict:
    """The chat filter off where the preset has one: random chat lines are not the test here."""
    return {"kidSafeChat": False} if any(o.key == "kidSafeChat" for o in PRESETS[name].options) else {}
