"""The ``city`` preset: docs/rulebooks/001-city.txt (seed 001, Russian online/offline Mafia),
every rule of it.

Paragraphs of docs/rulebooks/001-city.txt are cited by their heading ("Ночь", "День и
голосование", ...). Our reading of anything the seed leaves open is in docs/rules.md, "City
(seed 001)", each with the test that checks it.

Shape of a game: role reveal → night 1 → day 1 (discussion → vote [→ defense → revote])
→ night 2 → ... Night N is followed by day N (``day`` grows when a day ends). At night
every living player confirms exactly one action or a skip; the night ends when all have
confirmed or at the timer. Every confirmation (night action, vote) is final.

The package: ``setup`` (characters, options, the deal), ``night``, ``day``, ``wins``,
``views`` (chat and view hooks); this module joins them into the ``Preset``
(``shared.assemble``).
"""

from __future__ import annotations

from ...game import Game
from ...phases import PhaseSpec
from ...wins import mafia_parity, no_mafia_left
from ..base import Rules
from ..shared import (
    act_seen_role,
    all_in,
    assemble,
    role_reveal_begin,
)
from . import views
from .day import (
    _advance_ready,
    _defense_begin,
    _defense_timeout,
    _discussion_begin,
    _to_vote,
    _vote_begin,
    act_end_defense,
    act_ready_early,
    act_vote,
    close_vote,
)
from .night import (
    NIGHT_CHECKS,
    _night_begin,
    _to_night,
    act_night,
    resolve_night,
)
from .setup import (
    AUTO_MAFIA,
    CHANNELS,
    OPTIONS,
    ROLES,
    deal,
    start,
)
from .wins import (
    finish,
)

__all__ = ["AUTO_MAFIA", "CITY"]


# --- leaving and the preset ----------------------------------------------------------------
def after_leave(g: Game, p: dict) -> None:
    """A player left: win check, then the phase goes on if it was waiting only for them."""
    if g.check_win("left"):
        return
    ph = g.phase
    kind = ph["kind"]
    if kind in ("roleReveal", "discussion") and all_in(g, ph["ready"]):
        _advance_ready(g)
    elif kind == "night" and all_in(g, ph["acts"]):
        resolve_night(g)
    elif kind == "vote":
        if ph["candidates"] is not None and p["id"] in ph["candidates"]:
            ph["candidates"] = [c for c in ph["candidates"] if c != p["id"]]
        if all_in(g, ph["votes"]):
            close_vote(g)
    elif kind == "defense" and p["id"] in ph["suspects"]:
        ph["suspects"] = [c for c in ph["suspects"] if c != p["id"]]
        if all(pid in ph["done"] for pid in ph["suspects"]):
            _defense_timeout(g)


PHASES: tuple[PhaseSpec, ...] = (
    PhaseSpec("roleReveal", role_reveal_begin, _to_night, frozenset({"seenRole", "readyEarly"})),
    PhaseSpec("night", _night_begin, resolve_night, frozenset({*NIGHT_CHECKS, "sleep"}), review=("acts",)),
    PhaseSpec(
        "discussion",
        _discussion_begin,
        _to_vote,
        frozenset({"readyEarly"}),
        public=("readyCount",),
        day=True,
    ),
    PhaseSpec(
        "vote",
        _vote_begin,
        close_vote,
        frozenset({"vote"}),
        public=("round", "candidates"),
        day=True,
        review=("round", "candidates", "votes"),
    ),
    PhaseSpec(
        "defense",
        _defense_begin,
        _defense_timeout,
        frozenset({"endTurn"}),
        public=("suspects",),
        day=True,
    ),
)

ACTIONS = {
    "seenRole": lambda g, a: act_seen_role(g, a, _advance_ready),
    "readyEarly": act_ready_early,
    "vote": act_vote,
    "endTurn": act_end_defense,
    **{t: act_night for t in (*NIGHT_CHECKS, "sleep")},
}


def order(opts: dict) -> list[dict]:
    """A round's phases; the defense (and revote) only after a tied vote."""
    return [
        {"kind": "roleReveal"},
        {"kind": "night"},
        {"kind": "discussion"},
        {"kind": "vote"},
        {"kind": "defense", "note": "rules.note.tie"},
    ]


CITY = assemble(
    views,
    name="city",
    title="City (seed 001)",
    rules=Rules(),
    tasks=frozenset({"none", "done", "ready", "sleep", "vote", "endTurn", *NIGHT_CHECKS}),
    roles=ROLES,
    channels=CHANNELS,
    order=order,
    min_players=5,
    max_players=16,
    options=OPTIONS,
    deal=deal,
    start=start,
    phases=PHASES,
    actions=ACTIONS,
    win_checks=(no_mafia_left, mafia_parity),
    finish=finish,
    after_leave=after_leave,
)
