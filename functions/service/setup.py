"""Whether a room's preset, options and seat count make a game the engine would start."""

from __future__ import annotations

import mafia_engine as me

from .errors import ServiceError
from .quoting import tidy


def setup_error(preset: str, options: dict, n_players: int) -> dict | None:
    """The engine's reason a start would be refused, as {"code", "message"}, or None."""
    try:
        me.check_setup({**options, "preset": preset}, n_players)
    except me.InvalidAction as exc:
        message = exc.message if hasattr(exc, "message") else str(exc)
        return {"code": exc.code, "message": tidy(message)}  # the engine quotes option keys whole
    return None


def room_setup_error(room: dict) -> dict | None:
    """`setup_error` for the room as it is."""
    return setup_error(room["preset"], room["options"], len(room["players"]))


def require_valid_options(preset: str, options: dict, n_players: int, status: int = 400) -> None:
    """Refuse options the engine calls `bad_options` (a short room is still fine)."""
    err = setup_error(preset, options, n_players)
    if err and err["code"] == "bad_options":
        raise ServiceError("bad_options", err["message"], status)
