"""The room layer's half of a provably fair deal: the game's secret and the salt it is committed with.

The engine stays pure (docs/architecture.md, "Engine"): every random thing of a game derives
from one secret it is given (`mafia_engine/rng.py`), and it hashes that secret with a salt it
is given (`mafia_engine/fairness.py`). Both are drawn here with the operating system's
cryptographic generator: the secret when a room's game is set up (`rest_ops.create_room`,
`operations.new_game`), 256 bits, so no search over secrets can find the deal, the aliases or
the bots' choices; the salt once per game at the start, 32 bytes, so the published hash cannot
be inverted either (docs/rules.md, "A provably fair deal" and "Randomness").
"""

from __future__ import annotations

import secrets

import mafia_engine as me

SALT_BYTES = 32
SECRET_BYTES = 32  # 256 bits


def new_secret() -> str:
    """A fresh secret for one game (`room["seed"]`): SECRET_BYTES random bytes as lowercase hex.
    Never on the wire before the game's end (the ended view reveals it as `fairness.seed`)."""
    return secrets.token_hex(SECRET_BYTES)


def new_salt() -> str:
    """A fresh salt for one game: SALT_BYTES random bytes as lowercase hex."""
    return secrets.token_hex(SALT_BYTES)


# ---------------------------------------------------------------- no one chooses the deal
# A commit-reveal of the seated clients' values (docs/rules.md, "Randomness"): the room's
# `deal` holds the salt the server's secret is committed with (`room.deal.serverCommitment`
# from the lobby's first view on), each seat's commitment to a value of its own, and from the
# start on (`revealUntil`) the values revealed. The game is dealt from the secret mixed with
# them (`mafia_engine.fairness.mix`); a value not revealed by `revealUntil` is dropped, and the
# game's public record shows that it was.
REVEAL_SECONDS = 10.0  # how long a start waits for the values (phones reveal at once, unasked)


def new_deal() -> dict:
    """A lobby's `room["deal"]`, drawn with each new secret: the salt its commitment is made
    with, no commitments yet."""
    return {"salt": new_salt(), "commitments": {}, "reveals": {}, "revealUntil": None}


def seated(room: dict) -> set[str]:
    """The seats that contribute: every seat but a bot's (a bot has no phone to draw with)."""
    return {p["id"] for p in room["players"] if not p.get("bot")}


def commitments(room: dict) -> dict[str, str]:
    """The lobby's commitments of seats still seated (seat id -> commitment); {} for a room
    whose deal takes no client values (set up before they were)."""
    deal = room.get("deal")
    if not deal:
        return {}
    people = seated(room)
    return {pid: c for pid, c in deal["commitments"].items() if pid in people}


def revealing(room: dict) -> bool:
    """The start is waiting for the clients' values."""
    deal = room.get("deal")
    return bool(deal) and room.get("status") == "lobby" and deal.get("revealUntil") is not None


def reveal_until(room: dict) -> float | None:
    return room["deal"]["revealUntil"] if revealing(room) else None


def waiting_for(room: dict, present: set[str]) -> list[str]:
    """Seats with a connection that committed and have not revealed yet: the start waits for
    them (until `revealUntil`). A seat with no connection cannot reveal: its value is dropped."""
    revealed = room["deal"]["reveals"] if room.get("deal") else {}
    return sorted(pid for pid in commitments(room) if pid not in revealed and pid in present)


def open_reveals(room: dict, present: set[str], now: float) -> bool:
    """At the start: ask for the values (`revealUntil`), when a seat that can reveal has one to;
    whether the deal must wait for them. Commitments are closed from here on."""
    if revealing(room):
        return True
    if not waiting_for(room, present):
        return False
    room["deal"]["revealUntil"] = now + REVEAL_SECONDS
    return True


def cancel_reveals(room: dict) -> None:
    """A start that did not happen (the set-up changed while it waited): the values revealed
    are spent, so every commitment goes with them and phones commit to fresh ones."""
    if room.get("deal"):
        room["deal"].update(commitments={}, reveals={}, revealUntil=None)


def contributions(room: dict) -> list[dict] | None:
    """The clients' part of the deal (`mafia_engine.new_game`'s `contributions`): each seated
    commitment and its value, None for one not revealed (dropped). None when no client
    committed: the game is then dealt from the secret alone (`sha256/mafia-deal-v2`)."""
    commits = commitments(room)
    if not commits:
        return None
    revealed = room["deal"]["reveals"]
    return [{"commitment": c, "value": revealed.get(pid)} for pid, c in commits.items()]


def lobby_fact(room: dict) -> dict | None:
    """A lobby view's `room.deal`: the commitment to the server's secret (published before any
    value is revealed), the seated clients' commitments and those revealed (sorted: no seat is
    named, so nothing tells a bot's seat from a person's that did not commit), and when the
    start stops waiting for values (null until the host starts)."""
    deal = room.get("deal")
    if room.get("status") != "lobby" or not deal:
        return None
    commits = commitments(room)
    return {
        "scheme": me.fairness.SCHEME_V3,
        "serverCommitment": me.fairness.server_commitment(room["seed"], deal["salt"]),
        "commitments": sorted(commits.values()),
        "revealed": sorted(c for pid, c in commits.items() if pid in deal["reveals"]),
        "revealUntil": deal["revealUntil"],
    }
