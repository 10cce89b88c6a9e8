"""Whether a room's preset, options and seat count make a game the engine would start."""

from __future__ import annotations

import mafia_engine as me

from ..infra.errors import ServiceError
from ..protocol.quoting import tidy


def setup_error(preset: str, options: dict, n_players: int) -> dict | None:
    """The engine's reason a start would be refused, as {"code", "message"}, or None."""
    try:
        me.check_setup({**options, "preset": preset}, n_players)
    except me.InvalidAction as exc:
        message = exc.message if hasattr(exc, "message") else str(exc)
        return {"code": exc.code, "message": tidy(message)}  # the engine quotes option keys whole
    return None


def idle_options(preset: str, options: dict, n_players: int) -> list[str]:
    """Switched-on options that deal the same roles as switched off at this many players,
    though they change the deal at another count (the original expansion at 8 or 10 seats:
    docs/rulebooks/003-original.txt's tables give the base set there). The lobby tells the host
    so; an option that never touches the deal (kid-safe chat) is not listed. Read from the
    engine's rosters."""
    spec = me.presets(only=preset).get(preset)
    if spec is None or n_players < spec["minPlayers"]:
        return []  # a lobby still filling up: the count that will play is not known yet
    opts = {**options, "preset": preset}
    out = []
    for o in spec["options"]:
        key = o["key"]
        if o["type"] != "bool" or opts.get(key) is not True:
            continue
        off = {**opts, key: False}
        if me.lobby_roster(off, n_players) != me.lobby_roster(opts, n_players):
            continue
        counts = range(spec["minPlayers"], spec["maxPlayers"] + 1)
        if any(me.roster(off, n) != me.roster(opts, n) for n in counts):
            out.append(key)
    return out


def room_setup_error(room: dict) -> dict | None:
    """`setup_error` for the room as it is."""
    return setup_error(room["preset"], room["options"], len(room["players"]))


def require_valid_options(preset: str, options: dict, n_players: int, status: int = 400) -> None:
    """Refuse options the engine calls `bad_options` (a short room is still fine)."""
    err = setup_error(preset, options, n_players)
    if err and err["code"] == "bad_options":
        raise ServiceError("bad_options", err["message"], status)


# What a public room turns on unless its host says otherwise (docs/rules.md, "Public rooms"):
# substitutes take seats without the host's approval, so the host holds no power over strangers;
# a seat idle for 3 required actions in a row is opened to a substitute, then a bot (afk.py).
PUBLIC_DEFAULTS = {
    "anonymous": True,
    "kidSafeChat": True,
    "substitutes": True,
    "substituteApproval": False,
    "afkLimit": 3,
    "afkReplace": "substitute",
}


# What a listed room always is (docs/rules.md, "Public rooms"): each key's one allowed value, and idle-seat handling on (`afkLimit` not 0).
PROTECTED = {
    "anonymous": (True, "anonymous"),
    "kidSafeChat": (True, "kid-safe"),
    "substitutes": (True, "open to substitutes"),
    "substituteApproval": (False, "open to substitutes without the host's approval"),
}


def protects(options: dict) -> bool:
    """Whether `options` keep every protection a public room must have."""
    return all(options.get(k) is v for k, (v, _) in PROTECTED.items()) and bool(options.get("afkLimit"))


def public_defaults(options: dict, was_public: bool = False) -> dict:
    """`options` of a public room (host option `public`: service/room/public.py), at creation or
    by `setOptions` (`was_public`: it is listed already; the same rule either way): the
    protecting defaults fill every key left out, and a protection switched off is refused
    (`public_protected`, the option named), so no request ever stores a public room without
    them. Refused too: an untimed public room (strangers would wait for each other's
    confirmations)."""
    if not options.get("public"):
        return options
    if options.get("untimed"):
        raise ServiceError("bad_options", "a public room is timed (switch 'untimed' off)")
    for key, (value, what) in PROTECTED.items():
        if key in options and options[key] is not value:
            raise ServiceError(
                "public_protected", f"a public room is always {what}: switch 'public' off to change '{key}'"
            )
    if "afkLimit" in options and not options["afkLimit"]:
        raise ServiceError(
            "public_protected", "a public room always hands idle seats on: 'afkLimit' cannot be 0"
        )
    return {**PUBLIC_DEFAULTS, **options}
