"""What a room code looks like: shared by REST (new codes, the path), `$connect` (the `room`
parameter) and frames (the `room` hint)."""

from __future__ import annotations

import re
from typing import Any

ROOM_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L
ROOM_CODE_LENGTH = 5
ROOM_CODE_PATTERN = r"^[A-Za-z0-9]{4,8}$"  # what a room code may look like in a path or a frame
# a public game's party code (functions/service/room/public.py, "play again together")
PARTY_LENGTH = 12
PARTY_PATTERN = rf"^[{ROOM_ALPHABET}]{{{PARTY_LENGTH}}}$"
_ROOM_CODE = re.compile(ROOM_CODE_PATTERN)


def room_code_shaped(code: Any) -> bool:
    """Whether `code` looks like a room code (`ROOM_CODE_PATTERN`); says nothing of whether
    that room exists."""
    return isinstance(code, str) and _ROOM_CODE.fullmatch(code) is not None
