"""The preset registry: name -> Preset.

Adding a preset: write ``presets/<name>.py`` building a ``Preset`` (option specs, ``deal``,
``start``, a ``PhaseSpec`` per phase kind, action handlers, win checks from ``wins.py`` or its
own, ``finish``, ``after_leave``, view hooks); reuse what ``presets/shared.py`` (and classic)
already has where the rule is the same; add new action models to the union in
``actions.py``; register it below; append its section to docs/rules.md. Nothing in
``__init__.py``, ``game.py`` or ``views.py`` needs to change (city and original did not).
"""

from __future__ import annotations

from ..errors import InvalidAction
from .base import Preset
from .city import CITY
from .classic import CLASSIC
from .original import ORIGINAL

PRESETS: dict[str, Preset] = {p.name: p for p in (CLASSIC, CITY, ORIGINAL)}


def get(name: object) -> Preset:
    """The preset called ``name``; refused with bad_options if unknown or not implemented."""
    preset = PRESETS.get(name) if isinstance(name, str) else None
    if preset is None:
        raise InvalidAction(
            "bad_options", f"option 'preset': unknown preset {name!r} (one of {', '.join(PRESETS)})"
        )
    if not preset.implemented:
        raise InvalidAction("bad_options", f"option 'preset': {name!r} is not implemented yet")
    return preset
