"""Bots: a pure policy that plays one seat from that seat's view alone.

A bot sees exactly what a human in its seat sees: the input is ``mafia_engine.view(state,
bot_id)`` (the room layer may add names), never the state. Randomness comes from a local
``random.Random`` seeded with a string built from the room's bot seed, the bot's id, the
phase ``seq`` and a purpose, so a decision is a function of (view, seed) and nothing else.

The parts: ``phrases`` (the phrasebook: lines by intent and language, ``{name}`` filled),
``evidence`` (``Seat``: what one seat knows from its view), ``policy`` (what to do and when:
``decide``, ``plan``, ``revise``) and ``loop`` (``plan_room``, ``deliver``, ``lapse``, ``drain``: the only part
that holds a state, and it hands each bot nothing but its own view).

The API (what the room layer calls)::

    plan(view, seed, phase_start, deadline=None, lang="en") -> list[tuple[float, dict]]
        At a phase change: every action the bot means to take in this phase, each with a
        due time spread inside the phase (human pace; always before the deadline).
    revise(view, seed, action, now, lang="en") -> dict | None
        When a planned action falls due: the action to apply now, re-decided from the
        current view (a teammate's pick, a chat that closed...), or None to drop it.
    decide(view, seed, now, lang="en") -> list[dict]
        Everything the bot wants to do right now, unpaced (tests, benchmarks): at most one
        chat line (each line once a day, within the rate limit) and the game actions not yet
        in effect. Once applied, the same call returns no game action (``rules.dutiesInTurn``:
        or the role's next night duty). Never a discussion ``readyEarly`` the view does not
        show (``rules.readyUnseen``; ``plan`` schedules it once).
    next_due(entries) -> float | None
        The earliest due time of plan entries.

The room layer's loop over those, as pure functions of (state, stored plan)::

    plan_room(state, bot_ids, seed, now, lang="en", names=None)
            -> {"seq", "start", "due": [[at, bot, action]]}
        At a phase change (after any apply that changed ``phase_seq``): store it in the room.
        Every entry keeps the private time its bot drew for it (from the room's bot key).
    deliver(state, stored, now, second, bot_ids, seed, lang="en", names=None)
            -> (state, stored, applied, dropped)
        A wake of the room for ``second`` delivered at ``now``: the earliest entry (and those
        drawn for its very moment, one chat line at most), revised and applied at ``now``.
    wake_second(stored, now, deadline=None, delivered=None) -> int | None
        The second to arm the room's next wake for (``asks(at, deadline)``: the entry's own
        second, or the minute before when its minute would run past the deadline).
    lapse(state, stored, now, late, bot_ids, seed, lang="en", names=None) -> (...)
        At any request: the entries whose wake never came (the deadline passed, or ``late``
        seconds overdue): game actions at their own moments, chat lines dropped.
    drain(state, stored, now, bot_ids, seed, lang="en", names=None) -> (state, stored, applied, dropped)
        Tests and benchmarks: apply every entry due by ``now`` (revised, each at its own
        time), re-planning at phase changes.

    ``lang`` is the room's language and ``names`` its {player id: display name}: the loop
    puts the names into each bot's view, so chat lines are planned as final text in the
    room's language naming players as the table sees them (never by internal ids).
    wake_at(stored) -> float | None
        When the room must wake for its bots next (private: the room layer's own timer, never a view).

What to do comes from ``private.task`` (the engine's word for what this seat may do now:
vote, confirm, ready, sleep, endTurn, nominate, mafiaTarget, investigate, heal, ...), so a
preset's new phases need no change here as long as they speak through tasks; how its rules
behave comes from the view's public ``rules``, never from its name. While the game
is paused (``view.paused``) a bot plans nothing; re-plan the phase when it resumes.

Actions come without ``player`` (the caller adds the bot's id). ``seed`` is the room's bot
seed, the same for every bot of the room: mafia bots derive their team target from it and
from what every mafioso sees, so they agree without talking. In the lobby a bot is always
ready: that is the room layer's job, not this module's.

Behaviour: mafia never target team mates and agree; police investigate players they have
not checked and act on what they learn (accuse a found mafioso, trust a cleared player);
doctors protect themselves or a likely target within ``private.targets``; votes and confirm
ballots follow public evidence (revealed teams, accusations in chat, past ballots) and fall
back to a shared "hunch" only when there is none; chat lines are short, in the room's
language, only in writable channels, and say nothing a careful human of that role would not.
Whether and when a bot talks by day follows the public evidence by one rule for every card
(``Seat.public``); the night's hidden work falls due at moments every bot of the room shares.
"""

from __future__ import annotations

from .loop import HIDDEN, asks, deliver, drain, lapse, plan_room, wake_at, wake_second
from .phrases import LANGS, LINES
from .policy import CHAT_GAP, decide, next_due, plan, revise

__all__ = [
    "CHAT_GAP",
    "HIDDEN",
    "LANGS",
    "LINES",
    "asks",
    "decide",
    "deliver",
    "drain",
    "lapse",
    "next_due",
    "plan",
    "plan_room",
    "revise",
    "wake_at",
    "wake_second",
]
