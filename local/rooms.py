"""A room written at a chosen phase, for tests (``POST /_local/rooms``: offline stack only).

A test that needs a live room at night 2, at a defense or at the end does not have to play
there through the lobby and the clock. It describes the room — the preset and its options,
the seats in order (the first is the host and a person; ``bot`` seats are the server's
bots), the roles it wants for some or all of them, the engine actions that happened, and
the phase to stop at — and gets the room code and every person's seat token back::

    POST /_local/rooms
    {"preset": "classic", "options": {"firstPhase": "night"}, "lang": "en",
     "seats": [{"name": "Ann", "role": "police"}, {"name": "Bob"}, {"name": "Bot 3", "bot": true},
               {"name": "Bot 4", "bot": true}, {"name": "Bot 5", "bot": true}],
     "steps": ["timeout", {"type": "investigate", "player": "Ann", "target": "Bob"}],
     "until": {"phase": "discussion", "day": 2}}

    -> {"roomCode", "wsUrl", "phase", "day", "seq",
        "seats": [{"name", "playerId", "token" (null for bots), "role", "bot"}]}

How it is built, so that the room is one the real handlers could have made:

- the deal is real: the room's secret is searched (derived from ``seed``, default 0) until
  the engine's own deal gives the chosen roles (only the seats with a ``role`` are
  constrained), so the end screen's fair-deal check holds; an anonymous game's seat shuffle
  and aliases come from the same secret, as at a real start;
- the room is created by the service (``RoomService.create_room``), and the game started in
  one change through the one request pipeline (``Pipeline.run``): the bots are planned, the
  phase timer is armed, an ended game gets its status and scores, as after any request;
- ``steps`` are engine actions as the engine takes them (``mafia_engine.apply``), in order,
  one game second apart; ``"timeout"`` (or ``{"type": "phaseTimeout"}``) ends the phase at
  its deadline, ``{"until": {"phase", "day"}}`` ends phases until that one; a seat's
  ``name`` may stand for its id in ``player`` and ``target``. Then
  ``until`` ends phases at their deadlines until its ``phase`` (and ``day``) is reached
  (``"ended"``: the game's end);
- the game is played in time that ends now: its last step happened at the stack's current
  game second, so the phase shown has its whole remaining time;
- no seat is connected when the room is written: every person's seat is absent to the
  engine (as at a start where nobody's socket is open) until their page connects.

A step the engine refuses, roles the preset does not deal, or an ``until`` never reached
answer 400 with ``{"error": {"code", "message"}}`` and nothing is written. This module is
never deployed (``local/`` is not in any function's code or layer).
"""

from __future__ import annotations

import copy
import hashlib
from collections import Counter
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

import mafia_engine as me
from mafia_engine import rng as engine_rng
from mafia_engine.presets import PRESETS
from service.features import aliases, away, fairness
from service.infra import auth
from service.infra.errors import ServiceError
from service.protocol import names, views
from service.room.change import Context, Outcome
from service.room.lifecycle import presence
from service.room.operations import new_seat
from service.room.rooms import RoomService

SEARCH_TRIES = 200_000  # secrets tried for the chosen roles (a full 8-seat classic deal: 840 on average)
UNTIL_STEPS = 300  # phase ends `until` may take
STEP_SECONDS = 1.0  # game time between two steps


class SpecError(ValueError):
    """The room cannot be written as described; nothing was."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def answer(self) -> dict:
        return {"error": {"code": self.code, "message": self.message}}


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SeatSpec(_Spec):
    name: str = Field(min_length=1, max_length=40)
    bot: bool = False
    role: str | None = None  # None: whatever the deal gives


class Until(_Spec):
    phase: str
    day: int | None = None


class RoomSpec(_Spec):
    preset: str = "classic"
    options: dict[str, Any] = {}
    lang: Literal["en", "ko", "ru"] = "en"
    seats: list[SeatSpec] = Field(min_length=1)
    start: bool = True  # False: the seats in the lobby, not started (steps and until refused)
    steps: list[dict[str, Any] | Literal["timeout"]] = []
    until: Until | None = None
    seed: int = 0  # picks the family of secrets the deal is searched in


def parse(body: Any) -> RoomSpec:
    try:
        spec = RoomSpec.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise SpecError("bad_request", f"{where}: {first['msg']}") from None
    if spec.preset not in PRESETS:
        raise SpecError("bad_request", f"unknown preset {spec.preset!r} (one of {', '.join(PRESETS)})")
    if spec.seats[0].bot:
        raise SpecError("bad_request", "the first seat is the host: a person, not a bot")
    for i, seat in enumerate(spec.seats):  # the name rule of a seat taken over REST
        try:
            stored = names.clean(seat.name)
        except ServiceError as exc:
            raise SpecError(exc.code, f"seats.{i}.name: {exc.message}") from None
        if stored != seat.name:
            raise SpecError("bad_name", f"seats.{i}.name: write it as it is stored, {stored!r}")
        if any(names.same(seat.name, other.name) for other in spec.seats[:i]):
            raise SpecError("name_taken", f"seats.{i}.name: {seat.name!r} is taken by an earlier seat")
    most = views.preset_info(spec.preset)["maxPlayers"]
    if len(spec.seats) > most:
        raise SpecError("room_full", f"{spec.preset} seats at most {most} players")
    if spec.until is not None:
        _check_phase(spec, spec.until, "until")
    if not spec.start and (spec.steps or spec.until):
        raise SpecError("bad_request", "a room left in the lobby has no steps and no until")
    return spec


def _secret(seed: int, i: int) -> str:
    """The i-th candidate secret: 64 hex digits, like `fairness.new_secret`."""
    return hashlib.sha256(f"mafia-local-room:{seed}:{i}".encode()).hexdigest()


def _order(spec: RoomSpec, secret: str) -> list[int]:
    """The seats' order in the game (an anonymous game shuffles them: `aliases.deal`)."""
    n = len(spec.seats)
    if not spec.options.get("anonymous"):
        return list(range(n))
    return list(engine_rng.alias_draw(secret, n, len(aliases.ADJECTIVES), len(aliases.ANIMALS))["order"])


def find_secret(spec: RoomSpec) -> str:
    """A room secret whose deal gives every seat with a `role` that role."""
    n = len(spec.seats)
    try:
        opts = me.check_setup({**spec.options, "preset": spec.preset}, n)
    except me.InvalidAction as exc:
        raise SpecError(exc.code, str(exc)) from None
    pool = PRESETS[opts["preset"]].deal(opts, n)
    wanted = {i: s.role for i, s in enumerate(spec.seats) if s.role is not None}
    have, need = Counter(pool), Counter(wanted.values())
    if need - have:
        raise SpecError(
            "bad_roles",
            f"{spec.preset} with {n} seats deals {dict(sorted(have.items()))}; asked for {dict(sorted(need.items()))}",
        )
    for i in range(SEARCH_TRIES):
        secret = _secret(spec.seed, i)
        order = _order(spec, secret)  # game position -> seat of the spec
        _, roles = engine_rng.shuffle(engine_rng.seed_state(secret, "deal"), pool)
        by_seat = {order[pos]: role for pos, role in enumerate(roles)}
        if all(by_seat[i] == role for i, role in wanted.items()):
            return secret
    raise SpecError("bad_roles", f"no deal of {SEARCH_TRIES} gives these roles: constrain fewer seats")


def _resolve(step: dict, ids: dict[str, str]) -> dict:
    """A step with seat names in `player` / `target` replaced by their ids."""
    out = dict(step)
    for key in ("player", "target"):
        if isinstance(out.get(key), str) and out[key] in ids:
            out[key] = ids[out[key]]
    return out


def play(spec: RoomSpec, ids: list[str], names: dict[str, str], secret: str, salt: str, start: float):
    """The game from its deal through `steps` and `until`, the first step at `start`:
    (state, the game second of its last step)."""
    now = start
    try:
        state = me.new_game(ids, {**spec.options, "preset": spec.preset}, seed=secret, now=now, salt=salt)
    except me.InvalidAction as exc:
        raise SpecError(exc.code, str(exc)) from None

    def timeout(state: dict, now: float, where: str) -> tuple[dict, float]:
        ends = state["phase"].get("endsAt")
        now = max(now, ends) if ends is not None else now
        try:
            return me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, now), now
        except me.InvalidAction as exc:
            raise SpecError(exc.code, f"{where}: {exc}") from None

    def until(state: dict, now: float, goal: Until, where: str) -> tuple[dict, float]:
        for _ in range(UNTIL_STEPS):
            if _reached(state, goal):
                return state, now
            if state["phase"]["kind"] == "ended":
                raise SpecError("not_reached", f"{where}: the game ended before {goal.phase}")
            state, now = timeout(state, now, where)
        raise SpecError("not_reached", f"{where}: {goal.phase} not reached in {UNTIL_STEPS} phase ends")

    for n, step in enumerate(spec.steps):
        where = f"steps.{n}"
        if step == "timeout" or step.get("type") == "phaseTimeout":
            state, now = timeout(state, now, where)
            continue
        if "until" in step:
            state, now = until(state, now, _until(spec, step, where), where)
            continue
        now += STEP_SECONDS
        try:
            state = me.apply(state, _resolve(step, names), now)
        except me.InvalidAction as exc:
            raise SpecError(exc.code, f"{where} ({step.get('type')}): {exc}") from None
    if spec.until is not None:
        state, now = until(state, now, spec.until, "until")
    return state, now


def _until(spec: RoomSpec, step: dict, where: str) -> Until:
    """A step's `{"until": {"phase", "day"}}`."""
    if set(step) != {"until"}:
        raise SpecError("bad_request", f"{where}: an until step has nothing but until")
    try:
        goal = Until.model_validate(step["until"])
    except ValidationError as exc:
        raise SpecError("bad_request", f"{where}: {exc.errors()[0]['msg']}") from None
    _check_phase(spec, goal, where)
    return goal


def _check_phase(spec: RoomSpec, goal: Until, where: str) -> None:
    known = {*PRESETS[spec.preset].phases, "ended"}
    if goal.phase not in known:
        raise SpecError(
            "bad_request",
            f"{where}: {spec.preset} has no phase {goal.phase!r} (one of {', '.join(sorted(known))})",
        )


def _reached(state: dict, until: Until) -> bool:
    return state["phase"]["kind"] == until.phase and (until.day is None or state["day"] == until.day)


def _seats(spec: RoomSpec) -> tuple[list[dict], dict[str, str]]:
    """The room's seats p1..pN in the spec's order, and each person's fresh token."""
    seats, tokens = [], {}
    for i, s in enumerate(spec.seats):
        pid = f"p{i + 1}"
        if s.bot:
            seats.append(new_seat(pid, s.name, "", bot=True))
        else:
            tokens[pid] = auth.new_token()
            seats.append({**new_seat(pid, s.name, auth.hash_token(tokens[pid])), "ready": True})
    return seats, tokens


def build(room: dict, spec: RoomSpec, secret: str, now: float) -> tuple[Any, dict[str, str]]:
    """Make `room` (a lobby as `create_room` wrote it) the spec's: its seats and, unless the
    spec stays in the lobby, the game played through its steps so that its last step is
    `now`. Returns (state, token per seat id)."""
    seats, tokens = _seats(spec)
    room.update(players=seats, nextId=len(seats) + 1, seed=secret, host="p1")
    if not spec.start:
        return None, tokens
    moved = aliases.deal(room, {})  # anonymous: shuffled seats, fresh ids, aliases (no sockets)
    assert not moved
    # aliases.deal gave the seats fresh ids in place: the tokens follow their seats
    by_name = {s["name"]: s["id"] for s in room["players"]}
    tokens = {by_name[spec.seats[int(old[1:]) - 1].name]: t for old, t in tokens.items()}
    ids = [p["id"] for p in room["players"]]
    salt = fairness.new_salt()
    _, took = play(spec, ids, by_name, secret, salt, 0.0)  # how long the script lasts
    state, _ = play(spec, ids, by_name, secret, salt, now - took)
    dealt = {p["id"]: p["role"] for p in state["players"]}
    for s in spec.seats:
        if s.role is not None and dealt[by_name[s.name]] != s.role:
            raise SpecError(
                "bad_roles", "the engine's deal changed: local/rooms.py must deal as new_game does"
            )
    room["status"] = "running"
    away.reset(room)
    bots = {p["id"] for p in room["players"] if p.get("bot")}
    for pid in ids:  # nobody is connected yet (as `operations.start` marks the absent)
        if pid not in bots:
            state = presence(room, state, pid, False, now)
    return state, tokens


def write_room(service: RoomService, body: Any) -> dict:
    """Write the room `body` describes (see the module's doc); its code and the seats."""
    spec = parse(body)
    secret = find_secret(spec) if spec.start else fairness.new_secret()
    # a dry run first: a refused step or an `until` never reached writes nothing
    lobby = {
        "preset": spec.preset,
        "options": dict(spec.options),
        "players": [],
        "nextId": 1,
        "lang": spec.lang,
    }
    build(copy.deepcopy(lobby), spec, secret, 0.0)
    try:
        created = service.create_room(spec.seats[0].name, spec.preset, dict(spec.options), spec.lang)
    except ServiceError as exc:
        raise SpecError(exc.code, exc.message) from None
    code = created["roomCode"]
    out: dict[str, Any] = {}

    def change(c: Context) -> Outcome:
        state, tokens = build(c.room, spec, secret, c.now)
        out["tokens"] = tokens
        return c.changed(state)

    service.pipeline.run(code, change)
    snap = service.pipeline.load(code)
    state = snap.state
    roles = {p["id"]: p["role"] for p in (state or {}).get("players", [])}
    by_name = {p["name"]: p for p in snap.room["players"]}
    return {
        "roomCode": code,
        "wsUrl": created["wsUrl"],
        "status": snap.room["status"],
        "phase": state["phase"]["kind"] if state else "lobby",
        "day": state["day"] if state else None,
        "seq": state["seq"] if state else None,
        "seats": [
            {
                "name": s.name,
                "playerId": by_name[s.name]["id"],
                "token": out["tokens"].get(by_name[s.name]["id"]),
                "bot": s.bot,
                "role": roles.get(by_name[s.name]["id"]),
            }
            for s in spec.seats
        ],
    }
