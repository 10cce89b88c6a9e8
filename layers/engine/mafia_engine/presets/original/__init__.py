"""The ``original`` preset: docs/rulebooks/003-original.txt (seed 003, the Korean boxed game
"오리지널 마피아"), base and expansion.

Our reading of everything the seed leaves open (the immortal, the fair judge, the expansion
night order, several attacks on one player, ...) is in docs/rules.md, "Original (seed 003)",
each with the test that checks it.

Shape of a game: role reveal → night 1 (the groups plan; nobody is killed) → day 1 (night
report, speeches in seat order, no trial) → night 2 → day 2 (speeches with nominations, then
the trial: one defense per suspect, the vote, a revote between the tied, the all-or-none
vote) → ... Night N is followed by day N. At night every living player confirms what their
role does (possibly several things: the godfather kills and checks) or sleeps, so a dead
investigator or godfather changes neither the night's structure nor its length.

The package: ``setup`` (deal tables, characters, options, who is who), ``actions`` (its own
action models), ``night``, ``day``, ``wins``, ``views`` (chat and view hooks); this module
joins them into the ``Preset`` (``shared.assemble``).
"""

from __future__ import annotations

from ...game import Game
from ...phases import PhaseSpec
from ..base import Rules
from ..shared import (
    all_in,
    assemble,
    role_reveal_begin,
)
from . import views
from .actions import MODELS as ACTION_MODELS
from .day import (
    _all_or_none_begin,
    _all_voted,
    _defense_begin,
    _last_word_begin,
    _next_defense,
    _next_last_word,
    _next_speaker,
    _speech_begin,
    _vote_begin,
    act_confirm,
    act_end_turn,
    act_nominate,
    act_vote,
    close_all_or_none,
    close_vote,
)
from .night import (
    _night_begin,
    _to_night,
    act_night,
    act_seen_role_then_night,
    resolve_night,
)
from .setup import (
    BASE,
    CHANNELS,
    EXPANSION,
    NIGHT_TYPES,
    OPTIONS,
    ROLES,
    TASKS,
    _werewolf_joins,
    deal,
    start,
)
from .wins import (
    _check_end,
    finish,
)

__all__ = ["BASE", "EXPANSION", "ORIGINAL"]


# --- leaving -------------------------------------------------------------------------------------
def after_leave(g: Game, p: dict) -> None:
    _werewolf_joins(g)
    if _check_end(g, "left"):
        return
    ph = g.phase
    kind = ph["kind"]
    pid = p["id"]
    if kind == "roleReveal" and all_in(g, ph["ready"]):
        g.goto("night")
    elif kind == "night" and all_in(g, ph["done"]):
        resolve_night(g)
    elif kind == "speech" and ph["speaker"] == pid:
        _next_speaker(g)
    elif kind == "defense" and ph["accused"] == pid:
        _next_defense(g)
    elif kind == "vote":
        if pid in ph["candidates"] and len([c for c in ph["candidates"] if g.by_id[c]["alive"]]) <= 1:
            close_vote(g)
        elif _all_voted(g, ph["votes"]):
            close_vote(g)
    elif kind == "allOrNone" and (
        _all_voted(g, ph["ballots"]) or not any(g.by_id[c]["alive"] for c in ph["suspects"])
    ):
        close_all_or_none(g)


def after_dead_leave(g: Game, p: dict) -> None:
    """An executed player leaves (or is removed) during the last words: their word is over
    (the next one speaks, or the night comes); one still queued is taken out of the queue."""
    ph = g.phase
    if ph["kind"] != "lastWord":
        return
    if ph["player"] == p["id"]:
        _next_last_word(g)
    elif p["id"] in ph["queue"]:
        ph["queue"] = [q for q in ph["queue"] if q != p["id"]]


# --- the preset ------------------------------------------------------------------------------------
PHASES: tuple[PhaseSpec, ...] = (
    PhaseSpec("roleReveal", role_reveal_begin, _to_night, frozenset({"seenRole", "readyEarly"})),
    PhaseSpec("night", _night_begin, resolve_night, frozenset({*NIGHT_TYPES, "sleep"}), review=("acts",)),
    PhaseSpec(
        "speech",
        _speech_begin,
        _next_speaker,
        frozenset({"nominate", "endTurn"}),
        public=("speaker", "queue", "nominations"),
        day=True,
    ),
    PhaseSpec(
        "defense",
        _defense_begin,
        _next_defense,
        frozenset({"endTurn"}),
        public=("accused", "suspects", "nominations"),
        day=True,
    ),
    PhaseSpec(
        "vote",
        _vote_begin,
        close_vote,
        frozenset({"vote"}),
        public=("round", "candidates", "voters"),
        day=True,
        review=("round", "candidates", "voters", "votes"),
    ),
    PhaseSpec(
        "allOrNone",
        _all_or_none_begin,
        close_all_or_none,
        frozenset({"confirm"}),
        public=("suspects", "voters"),
        day=True,
        review=("suspects", "voters", "ballots"),
    ),
    PhaseSpec(
        "lastWord",
        _last_word_begin,
        _next_last_word,
        frozenset({"endTurn"}),
        public=("player", "queue"),
        day=True,
        review=("player", "lines"),
    ),
)

ACTIONS = {
    "chat": views.act_chat_original,
    "seenRole": act_seen_role_then_night,
    "readyEarly": act_seen_role_then_night,
    "nominate": act_nominate,
    "endTurn": act_end_turn,
    "vote": act_vote,
    "confirm": act_confirm,
    **{t: act_night for t in (*NIGHT_TYPES, "sleep")},
}


def order(opts: dict) -> list[dict]:
    """A day's phases after the night; the all-or-none vote only after a tied vote."""
    return [
        {"kind": "roleReveal"},
        {"kind": "night"},
        {"kind": "speech"},
        {"kind": "defense"},
        {"kind": "vote"},
        {"kind": "allOrNone", "note": "rules.note.tie"},
    ]


ORIGINAL = assemble(
    views,
    name="original",
    title="Original (seed 003)",
    # no abstention; a role's duties come one task at a time; solo killers and the yakuza
    # kill too, so a night victim may have been mafia
    rules=Rules(can_abstain=False, duties_in_turn=True, night_victim_not_mafia=False),
    tasks=frozenset(
        {"none", "done", "ready", "sleep", "nominate", "endTurn", "vote", "confirm", *NIGHT_TYPES}
    ),
    roles=ROLES,
    channels=CHANNELS,
    own_tasks=TASKS,
    order=order,
    min_players=8,
    max_players=16,
    options=OPTIONS,
    deal=deal,
    start=start,
    phases=PHASES,
    actions=ACTIONS,
    action_models=ACTION_MODELS,
    win_checks=(),
    finish=finish,
    after_leave=after_leave,
    after_dead_leave=after_dead_leave,
)
