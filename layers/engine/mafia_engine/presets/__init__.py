"""The preset registry: name -> Preset, each built-in preset imported on first use.

Adding a preset: write ``presets/<name>.py`` (or a package ``presets/<name>/`` when it is
big, like the three built-in ones: setup, actions, night, day, wins, views) building a
``Preset`` (see ``base.py``: option specs, ``deal``, ``start``, a ``PhaseSpec`` per phase
kind, action handlers and its own action models, its roles, the tasks it hands out and its
own ones, its chat channels, win checks, ``finish``, view hooks and its public ``Rules``),
joined by ``shared.assemble`` (the view hooks of its ``views`` module, ``chat``, ``ended``);
reuse what ``presets/shared.py`` already has where the rule is the same; add it to ``BUILT_IN`` below;
append its section to docs/rules.md. Nothing else in the engine, the bots or the client
needs to change: they read the declaration (tests/unit/tinypreset.py is a preset that lives
in the tests alone, added with ``register``).

Lazy on purpose: a Lambda's cold start imports the engine, and a room plays one preset, so
``PRESETS[name]`` / ``get(name)`` import only that preset's module. Only listings of every
preset (``PRESETS.values()`` / ``items()``, ``mafia_engine.presets_info()``) import them all.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from .. import actions as _actions
from ..errors import InvalidAction, quoted
from .base import Preset, Rules

__all__ = ["BUILT_IN", "PRESETS", "PRESET_NAMES", "Preset", "Rules", "get", "register", "unregister"]

# The built-in presets: name -> (module of this package, the Preset it defines), in list order.
BUILT_IN: dict[str, tuple[str, str]] = {
    "classic": ("classic", "CLASSIC"),
    "city": ("city", "CITY"),
    "original": ("original", "ORIGINAL"),
}


class _Registry(Mapping[str, Preset]):
    """The registered presets by name. Names and membership never import a preset; reading
    one imports its module the first time (built-ins), so a room loads only its own."""

    def __init__(self) -> None:
        self._names: list[str] = list(BUILT_IN)
        self._loaded: dict[str, Preset] = {}

    def __getitem__(self, name: str) -> Preset:
        if name not in self._names:  # a list: any value (even unhashable) is just not there
            raise KeyError(name)
        preset = self._loaded.get(name)
        if preset is None:  # a built-in preset's first use (a registered one is always loaded)
            module, attr = BUILT_IN[name]
            preset = self._loaded[name] = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
        return preset

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(self._names))

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"<presets {', '.join(self._names)}>"

    def _put(self, preset: Preset) -> None:
        if preset.name not in self._names:
            self._names.append(preset.name)
        self._loaded[preset.name] = preset

    def _drop(self, name: str) -> None:
        if name in self._names:
            self._names.remove(name)
        self._loaded.pop(name, None)


PRESETS = _Registry()
PRESET_NAMES: tuple[str, ...] = tuple(PRESETS)


def register(preset: Preset) -> Preset:
    """Add (or replace) a preset: it is playable at once, its actions checked now.

    ValueError if it has no name or names an action without a model.
    """
    global PRESET_NAMES
    if not preset.name or not isinstance(preset.name, str):
        raise ValueError("a preset needs a name")
    _actions.build((preset,))  # every action it names has a model (else ValueError)
    PRESETS._put(preset)
    _actions.forget(preset.name)
    PRESET_NAMES = tuple(PRESETS)
    return preset


def unregister(name: str) -> None:
    """Remove a preset added by ``register`` (tests clean up after themselves)."""
    global PRESET_NAMES
    PRESETS._drop(name)
    _actions.forget(name)
    PRESET_NAMES = tuple(PRESETS)


def get(name: object) -> Preset:
    """The preset called ``name`` (imported on first use); refused with bad_options if unknown."""
    if not isinstance(name, str) or name not in PRESETS:
        raise InvalidAction(
            "bad_options", f"option 'preset': unknown preset {quoted(name)} (one of {', '.join(PRESETS)})"
        )
    return PRESETS[name]
