"""The preset registry: name -> Preset.

Adding a preset: write ``presets/<name>.py`` building a ``Preset`` (see ``base.py``: option
specs, ``deal``, ``start``, a ``PhaseSpec`` per phase kind, action handlers and any new
action models, the tasks it hands out, win checks, ``finish``, view hooks and its public
``Rules``); reuse what ``presets/shared.py`` already has where the rule is the same;
``register`` it below; append its section to docs/rules.md. Nothing else in the engine, the
bots or the client needs to change: they read the declaration (tests/unit/tinypreset.py is
a preset that lives in the tests alone).
"""

from __future__ import annotations

from .. import actions as _actions
from ..errors import InvalidAction
from .base import Preset, Rules
from .city import CITY
from .classic import CLASSIC
from .original import ORIGINAL

__all__ = ["PRESETS", "PRESET_NAMES", "Preset", "Rules", "get", "register", "unregister"]

PRESETS: dict[str, Preset] = {}
PRESET_NAMES: tuple[str, ...] = ()


def register(preset: Preset) -> Preset:
    """Add (or replace) a preset: it is playable at once and its actions join the union."""
    global PRESET_NAMES
    if not preset.name or not isinstance(preset.name, str):
        raise ValueError("a preset needs a name")
    old = PRESETS.get(preset.name)
    PRESETS[preset.name] = preset
    try:
        _actions.build(PRESETS.values())
    except ValueError:
        if old is None:
            del PRESETS[preset.name]
        else:
            PRESETS[preset.name] = old
        raise
    PRESET_NAMES = tuple(PRESETS)
    return preset


def unregister(name: str) -> None:
    """Remove a preset added by ``register`` (tests clean up after themselves)."""
    global PRESET_NAMES
    PRESETS.pop(name, None)
    _actions.build(PRESETS.values())
    PRESET_NAMES = tuple(PRESETS)


# The built-in presets: registered together, so the action union is built once (not once each).
PRESETS.update((_p.name, _p) for _p in (CLASSIC, CITY, ORIGINAL))
_actions.build(PRESETS.values())
PRESET_NAMES = tuple(PRESETS)


def get(name: object) -> Preset:
    """The preset called ``name``; refused with bad_options if unknown."""
    preset = PRESETS.get(name) if isinstance(name, str) else None
    if preset is None:
        raise InvalidAction(
            "bad_options", f"option 'preset': unknown preset {name!r} (one of {', '.join(PRESETS)})"
        )
    return preset
