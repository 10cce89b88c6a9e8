"""The ``classic`` preset: docs/rulebooks/000-classic.txt (seed 000, Korean online Mafia),
every rule of it.

Sections of docs/rulebooks/000-classic.txt are cited as §n. Our reading of anything the seed
leaves open is in docs/rules.md, "Classic (seed 000)", each with the test that checks it.

The package: ``setup`` (characters, options, the deal), ``actions`` (its own action models),
``day``, ``night``, ``wins``, ``views`` (chat and view hooks); this module joins them into the
``Preset`` (``shared.assemble``).
"""

from __future__ import annotations

from ...errors import InvalidAction
from ...game import Game
from ...phases import PhaseSpec
from ...wins import mafia_parity, no_mafia_left
from ..base import Rules
from ..shared import (
    all_in,
    assemble,
    role_reveal_begin,
)
from . import views
from .actions import MODELS as ACTION_MODELS
from .day import (
    _confirm_begin,
    _confirm_timeout,
    _defense_begin,
    _defense_timeout,
    _discussion_begin,
    _greeting_begin,
    _role_reveal_timeout,
    _vote_begin,
    _vote_timeout,
    act_adjust_time,
    act_confirm,
    act_ready_early,
    act_seen_role_then_first_phase,
    act_vote,
    end_day,
    start,
)
from .night import (
    NIGHT_CHECKS,
    _night_begin,
    _night_timeout,
    act_night,
)
from .setup import (
    AUTO_MAFIA,
    CHANNELS,
    OPTIONS,
    OWN_TASKS,
    ROLES,
    check_options,
    deal,
)
from .wins import (
    finish,
)

__all__ = ["AUTO_MAFIA", "CLASSIC"]


# --- leaving and the preset ----------------------------------------------------------------
def after_leave(g: Game, p: dict) -> None:
    """A player left (room rule): win check, then mend the phase they were needed in."""
    if g.check_win("left"):
        return
    ph = g.phase
    kind = ph["kind"]
    if kind == "roleReveal" and all_in(g, ph.get("ready", ())):
        _role_reveal_timeout(g)
    elif kind in ("defense", "confirm") and ph["accused"] == p["id"]:
        g.system("The accused has left; there is no execution today.")
        end_day(g)
    elif kind == "discussion" and all(q["id"] in ph["ready"] for q in g.alive()):
        g.goto("vote")


def _no_timeout(g: Game) -> None:  # pragma: no cover - ended has no deadline
    raise InvalidAction("game_over", "the game is over")


PHASES: tuple[PhaseSpec, ...] = (
    PhaseSpec("roleReveal", role_reveal_begin, _role_reveal_timeout, frozenset({"seenRole", "readyEarly"})),
    PhaseSpec("greeting", _greeting_begin, end_day, frozenset(), day=True),
    PhaseSpec(
        "discussion",
        _discussion_begin,
        lambda g: g.goto("vote"),
        frozenset({"adjustTime", "readyEarly"}),
        public=("adjustedBy",),
        day=True,
    ),
    PhaseSpec("vote", _vote_begin, _vote_timeout, frozenset({"vote"}), day=True, review=("votes",)),
    PhaseSpec("defense", _defense_begin, _defense_timeout, frozenset(), public=("accused",), day=True),
    PhaseSpec(
        "confirm",
        _confirm_begin,
        _confirm_timeout,
        frozenset({"confirm"}),
        public=("accused",),
        day=True,
        review=("accused", "ballots"),
    ),
    PhaseSpec(
        "night",
        _night_begin,
        _night_timeout,
        frozenset(NIGHT_CHECKS),
        review=("mafiaPicks", "mafiaTarget", "acts"),
    ),
)

ACTIONS = {
    "adjustTime": act_adjust_time,
    "seenRole": act_seen_role_then_first_phase,
    "readyEarly": act_ready_early,
    "vote": act_vote,
    "confirm": act_confirm,
    **{t: act_night for t in NIGHT_CHECKS},
}


def order(opts: dict) -> list[dict]:
    """A round's phases (§5.1); the greeting day only when the game starts by day."""
    greeting = (
        [{"kind": "greeting", "note": "rules.note.dayOne"}] if opts.get("firstPhase", "day") == "day" else []
    )
    return (
        [{"kind": k} for k in ("roleReveal",)]
        + greeting
        + [{"kind": k} for k in ("night", "discussion", "vote", "defense", "confirm")]
    )


CLASSIC = assemble(
    views,
    name="classic",
    title="Classic (seed 000)",
    # picks stay open until the timer; the mafia may take theirs back; ready is not a task
    rules=Rules(confirm_locks=False, can_withdraw=True, ready_unseen=True),
    tasks=frozenset({"none", "ready", "done", "sleep", "vote", "confirm", *NIGHT_CHECKS}),
    roles=ROLES,
    own_tasks=OWN_TASKS,
    channels=CHANNELS,
    order=order,
    min_players=4,
    max_players=12,
    options=OPTIONS,
    deal=deal,
    check_options=check_options,
    start=start,
    phases=PHASES,
    actions=ACTIONS,
    action_models=ACTION_MODELS,
    win_checks=(no_mafia_left, mafia_parity),
    finish=finish,
    after_leave=after_leave,
)
