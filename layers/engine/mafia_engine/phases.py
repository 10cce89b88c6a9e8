"""The phase machine: phases are configuration, processed by one loop.

A preset maps each phase kind to a ``PhaseSpec``: ``begin`` sets the phase up (deadline and
phase data), ``actions`` lists the action types accepted while it runs (``chat``,
``presence`` and ``phaseTimeout`` are always routed), ``timeout`` decides what happens at
the deadline (usually ``g.goto(next_kind)``), ``public`` lists the phase-data keys any
viewer may see; ``review`` those kept for the post-game review. ``Game.goto`` is the only way to change phase; it bumps ``seq``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .game import Game


def _nothing(g: Game) -> None:
    return None


@dataclass(frozen=True)
class PhaseSpec:
    kind: str
    begin: Callable[..., None] = _nothing  # (g, **data)
    timeout: Callable[[Game], None] | None = None  # None: the phase has no deadline
    actions: frozenset[str] = field(default_factory=frozenset)
    public: tuple[str, ...] = ()  # phase-data keys shown to every viewer
    day: bool = False  # a day phase (day chat open, counts for presence)
    # phase-data keys recorded (secretly) when the phase ends, for the post-game review
    review: tuple[str, ...] = ()
