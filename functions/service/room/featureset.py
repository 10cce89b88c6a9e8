"""The room's features, in one ordered tuple (`FEATURES`), and the folds over them that the
pipeline (`pipeline.Pipeline.run`) and the view fold (`viewframes.view_of`) run: neither names
a feature. What a feature is and what order means: `features/base.py`.

A new feature is one `Feature` declared where its code lives, and one entry in `FEATURES`;
a test adds its own with `register` (and takes it away with `unregister`), touching no
production file (tests/functions/featurekit.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..features import aliases, away, botplay, leavers, ratings
from ..features.base import Feature, ViewParts
from ..identity import played
from . import afk, chat_archive, displays, public, reveals, substitutes
from .change import NO_EFFECTS, Context, Effects

# outermost first: `before` hooks run in this order, every other hook in the reverse one
FEATURES: tuple[Feature, ...] = (aliases.FEATURE, botplay.FEATURE, substitutes.FEATURE, afk.FEATURE, public.FEATURE, reveals.FEATURE, away.FEATURE, displays.FEATURE, chat_archive.FEATURE, leavers.FEATURE, played.FEATURE, ratings.FEATURE)  # fmt: skip

_active: tuple[Feature, ...] = FEATURES  # and any feature a test registered


def active() -> tuple[Feature, ...]:
    """The features the room runs now (`FEATURES`, and any a test registered)."""
    return _active


def register(feature: Feature) -> Feature:
    """Add `feature` innermost (its `before` runs last, its other hooks first, inside every
    built-in one: the anonymous games' gate still sees its facts)."""
    global _active
    if any(f.name == feature.name for f in _active):
        raise ValueError(f"a feature named {feature.name!r} is registered already")
    _active = (*_active, feature)
    return feature


def unregister(name: str) -> None:
    """Remove a feature added by `register` (tests clean up after themselves)."""
    global _active
    if any(f.name == name for f in FEATURES):
        raise ValueError(f"{name!r} is a built-in feature")
    _active = tuple(f for f in _active if f.name != name)


def _outward() -> Iterator[Feature]:
    return reversed(_active)


# ---------------------------------------------------------------- the pipeline's folds
def before(c: Context) -> tuple[Context, Effects, Effects, bool]:
    """Every `before` hook, outermost first, each on the state the last one left: the context
    the command runs in, the effects before the command's, those after it, and whether the
    request writes the room whatever the command decides."""
    lead, trail, writes = NO_EFFECTS, NO_EFFECTS, False
    for f in _active:
        if f.before is None:
            continue
        step = f.before(c)
        if step.state is not c.state:
            c = Context(c.snap, c.room, step.state, c.now)
        if step.effects is not None:
            if step.lead:
                lead = lead + step.effects
            else:
                trail = trail + step.effects
        writes = writes or step.writes
    return c, lead, trail, writes


def after(c: Context, state: Any, actor: str | None) -> tuple[Any, Effects, bool]:
    """Every `after` hook, innermost first: the state from here on, the effects after the
    command's, and whether the request writes the room whatever the command decided."""
    effects, writes = NO_EFFECTS, False
    for f in _outward():
        if f.after is None:
            continue
        step = f.after(c, state, actor)
        state = step.state
        if step.effects is not None:
            effects = effects + step.effects
        writes = writes or step.writes
    return state, effects, writes


def refuse(room: dict, exc: Any) -> Any:
    """A refused command's error as the table may read it (every `refuse` hook)."""
    for f in _outward():
        if f.refuse is not None:
            exc = f.refuse(room, exc)
    return exc


def on_write(c: Context, state: Any, present: set[str]) -> None:
    """The room is written: every `on_write` hook's last changes to the document."""
    for f in _outward():
        if f.on_write is not None:
            f.on_write(c, state, present)


def timers(c: Context, state: Any) -> list[tuple[int, float]]:
    """The Scheduler deliveries the features arm once the write is in."""
    return [arm for f in _outward() if f.timer is not None and (arm := f.timer(c, state)) is not None]


def items(c: Context, state: Any, wrote: str | None) -> dict[str, tuple]:
    """The items the features write with the room (`WritePlan` field -> items)."""
    out: dict[str, tuple] = {}
    for f in _outward():
        if f.items is not None:
            for key, more in f.items(c, state, wrote).items():
                out[key] = out.get(key, ()) + tuple(more)
    return out


# ---------------------------------------------------------------- the view fold
def view(room: dict, state: Any, viewer: str | None, parts: ViewParts) -> ViewParts:
    """One viewer's facts from every `view` hook, innermost first (the gate last)."""
    for f in _outward():
        if f.view is not None:
            parts = f.view(room, state, viewer, parts)
    return parts
