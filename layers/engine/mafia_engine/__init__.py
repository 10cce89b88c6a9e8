"""mafia_engine: the rules of Mafia as a pure reducer (no clock, no I/O, no global random).

Public API (docs/protocol.md, "Engine actions" and "View")::

    state = new_game(players=["p1", ...], options={"preset": "classic"}, seed=7, now=0.0)
    state = apply(state, {"type": "vote", "player": "p1", "target": "p2"}, now=31.5)
    view(state, "p1"); view(state, None); deadline(state); result(state); phase_seq(state)
    dump(state) -> dict; load(dict) -> state (a state an earlier release saved is migrated:
    migrations.py); check_setup(options, n); presets(); team_of(role)
    roster(options, n) -> {role: count} | None: the roles a game of n players deals;
    lobby_roster(options, n): the same for at least the preset's minimum (a lobby filling up)
    presets_info() / PRESET_NAMES: the registered presets (lobby facts, names);
    presets(only=name) / presets_info(only=name): one preset's entry (imports only that preset)

A state is a JSON-ready dict; treat it as opaque and never change it in place. ``apply``
returns a new state and leaves its input untouched; a refusal raises ``InvalidAction``.

Actions are pydantic models (``actions.py``). Imports stay light: only the preset a game
plays (``new_game``, ``apply``, ``view``, ``check_setup``, ``roster`` import that one alone);
listings of every preset (``presets()``, ``presets_info()``, ``ACTION_TYPES``,
``action_schema()``) import them all.
"""

from __future__ import annotations

import math
from typing import Any

from . import actions as _actions
from . import fairness as _fairness
from . import migrations as _migrations
from . import options as _options
from . import presets as _presets
from . import review as _review
from . import rng as _rng
from . import roles as _roles
from . import room as _room
from . import voice as _voice
from .errors import InvalidAction, quoted
from .game import Game, clone
from .jsondata import jcopy as _jcopy
from .migrations import STATE_VERSION
from .presets import PRESETS, register
from .presets import get as _get_preset
from .room import ROOM_ACTIONS, WHILE_PAUSED
from .views import build as _build_view
from .views import build_many as _build_views
from .views import lobby as _lobby_view
from .views import roster as _roster

__all__ = [
    "ACTION_TYPES",
    "PRESET_NAMES",
    "ROLES",
    "InvalidAction",
    "action_schema",
    "apply",
    "check_setup",
    "deadline",
    "dump",
    "load",
    "migrate",
    "new_game",
    "phase_seq",
    "presets",
    "presets_info",
    "register",
    "result",
    "review",
    "lobby_roster",
    "lobby_view",
    "roster",
    "team_of",
    "view",
    "views",
    "voice_pair",
    "voice_to_spectators",
]

ALWAYS_ROUTED = frozenset({"chat", "presence", "phaseTimeout"})


def _preset_of_state(state: Any):
    try:
        name = state["preset"]
    except (TypeError, KeyError, IndexError):
        raise InvalidAction("bad_state", "not a mafia_engine state") from None
    if name not in PRESETS:
        raise InvalidAction("bad_state", f"unknown preset {quoted(name)}")
    return PRESETS[name]


def _preset_of_options(options: Any):
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise InvalidAction("bad_options", "options must be an object")
    return _get_preset(options.get("preset", "classic")), options


def check_setup(options: dict | None, n_players: int) -> dict:
    """The normalised options (defaults filled) for ``n_players``, or the reason a start is refused.

    Codes: ``bad_options`` (names the key), ``too_few_players``, ``too_many_players``,
    ``seats_short`` (extra roles need more citizen seats than there are).
    """
    preset, raw = _preset_of_options(options)
    opts = preset.check_options(raw, _options.normalise(preset.options, raw, preset.name))
    if n_players < preset.min_players:
        raise InvalidAction(
            "too_few_players",
            f"{preset.name} needs at least {preset.min_players} players ({n_players} joined)",
        )
    if n_players > preset.max_players:
        raise InvalidAction(
            "too_many_players",
            f"{preset.name} allows at most {preset.max_players} players ({n_players} joined)",
        )
    preset.deal(opts, n_players)
    return opts


def roster(options: dict | None, n_players: int) -> dict[str, int] | None:
    """How many of each role a game of ``n_players`` with these options deals, ``{role: count}``
    (roles in the preset's deal order), or None when such a game cannot start.

    Public: the counts follow from the options and the player count alone, never from the
    shuffle, so the lobby and every view of a game may show them (views.py puts the same
    counts in ``view.roster``).
    """
    try:
        opts = check_setup(options, n_players)
    except InvalidAction:
        return None
    return _roster(PRESETS[opts["preset"]], opts, n_players)


def lobby_roster(options: dict | None, n_joined: int) -> dict[str, int] | None:
    """The roster a lobby shows while players join: ``roster`` for ``n_joined`` players, or
    for the preset's minimum while fewer have joined; None when the options cannot start
    with that many (too many players, seats short, bad options)."""
    try:
        preset, _ = _preset_of_options(options)
    except InvalidAction:
        return None
    return roster(options, max(n_joined, preset.min_players))


def __getattr__(name: str) -> Any:
    # derived from the registered presets, so read at call time (``register`` adds to them)
    if name == "ACTION_TYPES":  # every registered preset's actions: imports every preset
        return _actions.build(PRESETS.values()).types
    if name == "PRESET_NAMES":
        return _presets.PRESET_NAMES
    if name == "ROLES":  # every role of every registered preset: imports every preset
        _all_presets()
        return _roles.ROLES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _all_presets() -> None:
    """Import every registered preset (building one declares its roles in ``roles.ROLES``)."""
    for _ in PRESETS.values():
        pass


def team_of(role: str) -> str:
    """The team of a role id of any registered preset ("town", "mafia", "yakuza" or "solo");
    ValueError if no preset declares it."""
    if role not in _roles.ROLES:
        _all_presets()  # a role of a preset not imported yet
    return _roles.team_of(role)


def _chosen(only: str | None) -> list[str]:
    """Every registered preset's name, or just ``only`` (none if it is not registered)."""
    return list(PRESETS) if only is None else [only] if only in PRESETS else []


def presets_info(only: str | None = None) -> dict:
    """Per preset, what a lobby shows before a game exists: title, minPlayers, maxPlayers,
    untimed (can run without deadlines) and the public ``rules`` every view carries.

    ``only``: just that preset's entry (``{}`` if unknown), importing no other preset."""
    return {name: PRESETS[name].info() for name in _chosen(only)}


def presets(only: str | None = None) -> dict:
    """Per preset: title, implemented, minPlayers, maxPlayers, defaults and the option schema.

    ``only``: just that preset's entry (``{}`` if unknown), importing no other preset."""
    out = {}
    for name in _chosen(only):
        p = PRESETS[name]
        defaults = p.defaults()
        out[name] = {
            "title": p.title,
            "implemented": True,  # every registered preset plays (kept for older readers)
            "minPlayers": p.min_players,
            "maxPlayers": p.max_players,
            "defaults": defaults,
            "options": _options.schema(p.options),
        }
    return out


def _check_now(now: Any) -> float:
    if isinstance(now, bool) or not isinstance(now, int | float) or not math.isfinite(now):
        raise InvalidAction("bad_action", f"now must be a finite number of seconds, not {quoted(now)}")
    return float(now)


def new_game(
    players: list[str],
    options: dict | None = None,
    seed: int | str = 0,
    now: float = 0.0,
    salt: str | None = None,
    contributions: list[dict] | None = None,
) -> dict:
    """A new game in its first phase (role reveal), roles dealt with the seeded RNG.

    ``seed``: the game's secret (a room passes 256 random bits as 64 hex digits; tests a small
    integer); every random draw derives from it by purpose (rng.py). With ``salt`` (16+
    random bytes as hex, drawn by the caller) the game commits to its secret: every view
    carries the SHA-256 commitment, the end reveals seed and salt (fairness.py). With
    ``contributions`` too (the clients' ``[{"commitment", "value"}]``, value None for one never
    revealed) the game is dealt and played with ``fairness.mix(seed, contributions)`` and
    commits the v3 way (``sha256/mafia-deal-v3``: docs/rules.md, "Randomness")."""
    now = _check_now(now)
    if not isinstance(players, list | tuple) or not all(isinstance(p, str) and p for p in players):
        raise InvalidAction("bad_players", "players must be a list of non-empty id strings")
    if len(set(players)) != len(players):
        raise InvalidAction("bad_players", "player ids must be distinct")
    if "abstain" in players:
        raise InvalidAction("bad_players", "'abstain' is reserved and cannot be a player id")
    try:
        _rng.text(seed)
    except ValueError as exc:
        raise InvalidAction("bad_options", f"{exc}, not {quoted(seed)}") from None
    opts = check_setup(options, len(players))
    # the commitment binds the secret and the game it deals: seat list in order, options
    if contributions is not None:
        if salt is None:
            raise InvalidAction("bad_contributions", "a game dealt with client values needs a salt")
        committed = _fairness.record_v3(seed, salt, list(players), opts, contributions)
        # every draw of the game comes from the mixed secret: no one chose it (fairness.mix)
        seed = _fairness.mix(seed, committed["contributions"])
    else:
        committed = None if salt is None else _fairness.record(seed, salt, list(players), opts)
    preset = PRESETS[opts["preset"]]
    # the deal and the game's own draws come from keys of their own (rng.py, docs/rules.md
    # "Randomness"): nothing the game draws in public says anything about the deal
    _, roles = _rng.shuffle(_rng.seed_state(seed, "deal"), preset.deal(opts, len(players)))
    state = {
        "v": STATE_VERSION,
        "preset": preset.name,
        "options": opts,
        "rng": _rng.seed_state(seed, "play"),
        "seq": 0,
        "day": 1,
        "phase": {"kind": "lobby", "endsAt": None},
        "players": [
            {
                "id": pid,
                "seat": i + 1,
                "role": role,
                "alive": True,
                "diedDay": None,
                "diedBy": None,
                "revealed": None,
                "connected": True,
                "seenToday": True,
                "absentDays": 0,
                "lastChatAt": None,
            }
            for i, (pid, role) in enumerate(zip(players, roles, strict=True))
        ],
        "lastHeal": None,
        "results": {},
        "chat": [],
        "chatSeqs": {},  # {channel: messages so far}: ids count per channel (chat.append)
        "events": [],
        "log": [],  # secret record for review() (game.Game.record)
        "votes": None,
        "winner": None,
        "result": None,
        "paused": None,
    }
    if committed:
        state["fairness"] = committed  # secret until the end but for its hash (fairness.gate)
    preset.start(Game(state, preset, now))
    return state


def apply(state: dict, action: dict, now: float) -> dict:
    """The state after ``action`` at time ``now``; ``state`` itself is never changed.

    Raises InvalidAction (code + message) and leaves everything as it was on refusal.
    """
    preset = _preset_of_state(state)
    a = _actions.parse(action, preset)
    now = _check_now(now)
    ph = state["phase"]
    kind = ph["kind"]
    if state.get("paused") and a.type not in WHILE_PAUSED:
        raise InvalidAction("paused", f"the game is paused; {a.type} has to wait until it resumes")
    if a.type == "phaseTimeout":
        if kind == "ended":
            raise InvalidAction("game_over", "the game is over; there is no phase to end")
        if a.phase is not None and a.phase != state["seq"]:
            raise InvalidAction(
                "stale_timeout", f"timeout for phase {a.phase}, but the game is at phase {state['seq']}"
            )
        if ph["endsAt"] is None or preset.phases[kind].timeout is None:
            raise InvalidAction("no_deadline", f"the {kind} phase has no deadline")
        if now < ph["endsAt"]:
            raise InvalidAction("too_early", f"the {kind} phase ends at {ph['endsAt']}, it is {now}")
    elif a.type in ROOM_ACTIONS:
        if kind == "ended":
            raise InvalidAction("game_over", "the game is over")
    elif a.type not in ALWAYS_ROUTED:
        if kind == "ended":
            raise InvalidAction("game_over", "the game is over")
        if a.type not in preset.phases[kind].actions:
            raise InvalidAction("wrong_phase", f"{a.type} is not possible during the {kind} phase")
    s = clone(state)
    g = Game(s, preset, now)
    if a.type == "phaseTimeout":
        preset.phases[kind].timeout(g)
    elif a.type == "presence":
        p = g.player(a.player)
        p["connected"] = a.connected
        if a.connected:
            p["seenToday"] = True
    elif a.type in ROOM_ACTIONS:
        _room.apply(g, a)
    else:
        preset.actions[a.type](g, a)
    return s


def action_schema() -> dict:
    """The JSON Schema of every registered preset's actions (the pydantic discriminated union
    on ``type``: ``$defs`` holds one object schema per action), for docs and clients."""
    return _actions.schema(_actions.build(PRESETS.values()))


def view(state: dict, viewer: str | None) -> dict:
    """Everything ``viewer`` may know (None: a spectator), as a JSON-ready dict."""
    return _build_view(state, viewer, _preset_of_state(state))


def views(state: dict, viewers: list[str | None]) -> dict[str | None, dict]:
    """``view`` for each of ``viewers`` at once (viewer -> view): the public part is made once
    and the views share it, the same objects (each set of readable channels' chat too), so
    they are read-only: a caller that edits one view's ``events`` edits every view's. The
    service builds a change's fan-out with it (its serialiser then writes a shared part once)."""
    return _build_views(state, viewers, _preset_of_state(state))


def voice_pair(state: dict, a: str, b: str) -> bool:
    """May seats ``a`` and ``b`` exchange audio in this phase (either's voice reaches the
    other, by the voice policy of ``voice.py``)? False for an unknown seat or for ``a == b``."""
    return _voice.may_exchange(state, a, b, _preset_of_state(state))


def voice_to_spectators(state: dict, seat: str) -> bool:
    """Does seat ``seat``'s voice reach the spectators in this phase (the voice policy of
    ``voice.py``, judged as the spectators see the seat)? False for an unknown seat."""
    return _voice.reaches_spectators(state, seat, _preset_of_state(state))


def lobby_view(players: list[str], options: dict | None, viewer: str | None) -> dict:
    """The view of a room before its game starts (``phase.kind`` "lobby"), the same top-level
    keys as ``view``: the host's options over the preset's defaults, the public rules and
    catalogue, the roster the lobby would deal. ``bad_options`` for an unknown preset."""
    preset, raw = _preset_of_options(options)
    return _lobby_view(preset, raw, list(players), viewer, lobby_roster(raw, len(players)))


def review(state: dict) -> dict:
    """The whole game with every hidden thing shown (docs/protocol.md, "Review").

    Only after the end; before it raises ``InvalidAction("game_not_ended")``.
    """
    return _review.build(state, _preset_of_state(state))


def deadline(state: dict) -> float | None:
    """When the current phase ends (server epoch seconds), or None (ended / paused / untimed)."""
    return state["phase"]["endsAt"]


def phase_seq(state: dict) -> int:
    """A counter that increases at every phase change (timeouts carry it)."""
    return state["seq"]


def result(state: dict) -> dict | None:
    """None while the game runs; after, the docs/rulebooks/000-classic.txt §8.6 result (winner,
    days, players, ranking, summary, mvp)."""
    return _jcopy(state["result"])


def dump(state: dict) -> dict:
    """A JSON-ready copy of the whole state (secret parts included: store it, never send it)."""
    return _jcopy(state)


_REQUIRED = (
    "v",
    "preset",
    "options",
    "rng",
    "seq",
    "day",
    "phase",
    "players",
    "chat",
    "events",
    "winner",
    "result",
)


def migrate(data: dict) -> dict:
    """A saved state in this release's shape: ``data`` itself when it already is, else a
    migrated copy (migrations.py: one step per version since the one it was saved with).
    ``bad_state`` for no version, ``state_too_new`` for a state a newer release saved.
    For the room layer, which keeps the state it stores as it is (``load`` copies it whole)."""
    return _migrations.migrate(data)


def load(data: dict) -> dict:
    """The state saved by ``dump`` (by this release or an earlier one: migrated, see
    ``migrate``); ``load(dump(s)) == s``."""
    if not isinstance(data, dict) or any(k not in data for k in _REQUIRED):
        raise InvalidAction("bad_state", "not a saved mafia_engine state")
    state = _migrations.migrate(data)
    if state["preset"] not in PRESETS:
        raise InvalidAction("bad_state", f"unknown preset {quoted(state['preset'])}")
    return _jcopy(state)
