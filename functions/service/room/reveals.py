"""The start's wait for the phones' values (docs/rules.md, "Randomness"): once the host starts
(or a public lobby's countdown ends) while seated phones committed to values for the deal,
the lobby asks for them (`room.deal.revealUntil`, `operations.begin`); the last value in deals
the game (`operations.deal_reveal`). This feature deals it when the wait is over with values
missing (they are dropped, and the game's record shows it), on any request after
`revealUntil` or the Scheduler's delivery at it (phase `LOBBY_PHASE`, as a public lobby's
countdown), and puts `room.deal` in every lobby view.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from ..features import fairness
from ..features.base import Feature, Step, ViewParts
from ..infra.errors import ServiceError
from ..infra.telemetry import logger
from . import operations
from .change import Context
from .setup import room_setup_error


def _deal_when_due(c: Context) -> Step:
    """Before the command: a wait that is over deals the game with the values that came (its
    effects before the command's); a set-up that no longer deals (a seat left meanwhile) calls
    the start off, its values spent."""
    at = fairness.reveal_until(c.room)
    if at is None or c.now < at:
        return Step(c.state)
    if room_setup_error(c.room) is None:
        kept = copy.deepcopy(c.room)  # a deal the engine refuses must leave the lobby as it was
        try:
            state, effects = operations.deal(c)
            return Step(state, effects, writes=True, lead=True)
        except ServiceError:
            c.room.clear()
            c.room.update(kept)
    logger.info("a start waiting for values was called off", extra={"room": c.room.get("code")})
    fairness.cancel_reveals(c.room)
    return Step(c.state, writes=True)


def _lobby_fact(room: dict, state: Any, viewer: str | None, parts: ViewParts) -> ViewParts:
    """A lobby view's `room.deal` (`fairness.lobby_fact`); a game's views carry `fairness`."""
    fact = fairness.lobby_fact(room)
    if fact is None:
        return parts
    return replace(parts, block={**parts.block, "deal": fact})


def _timer(c: Context, state: Any) -> tuple[int, float] | None:
    """The Scheduler's delivery at the wait's end (once per wait)."""
    at = fairness.reveal_until(c.room)
    if at is None:
        return None
    timer = [operations.LOBBY_PHASE, at]
    if c.room.get("timer") == timer:
        return None
    c.room["timer"] = timer
    return operations.LOBBY_PHASE, at


FEATURE = Feature("reveals", before=_deal_when_due, view=_lobby_fact, timer=_timer)
