"""A provably fair deal: the commitment published at the start, the seed revealed at the end.

When a game starts with a salt (``new_game(..., seed=S, salt=H)``), the state keeps
``{"scheme", "seed", "salt", "commitment"}`` where ``commitment = SHA-256(preimage(S, H, P, O))``:
the secret, the salt, and the game it deals (``P`` the player ids in seat order, ``O`` the
checked options, the preset among them: scheme ``sha256/mafia-deal-v2``). A game committed
before (``sha256/mafia-deal-v1``, state version 2) hashed the secret and salt alone: its
commitment binds the deal's secret but not the seat list it was dealt to, so ``verify`` says
so and checks the roles the end screen shows instead. Every view
carries ``fairness: {"scheme", "commitment", "seed": null, "salt": null}`` from the first one
on; in views of an ended game ``seed`` and ``salt`` are filled in. Anyone can then recompute the hash (the web client's end screen
does, with WebCrypto) and replay the deal from the seed, the public options and the seat list
(``python -m mafia_engine.verify``, docs/rules.md "A provably fair deal").

The seed is the game's whole secret (256 bits in rooms; every random draw derives from it,
``rng.py``), so the commitment binds the deal and every other draw of the game. Why a salt
too: a test's or an older room's seed is small, and a bare hash of a small seed could be
inverted by trying every seed. With 16+ random bytes beside it the hash says nothing about
the seed, and SHA-256's collision resistance means no other (seed, salt) pair gives the same
commitment: the deal cannot change after the start unnoticed.

Pure: ``hashlib`` only; the salt is an input (the room layer draws it), never drawn here.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from . import rng
from .errors import InvalidAction, quoted

SCHEME = "sha256/mafia-deal-v2"  # binds the secret, the seat list in order and the options
PREFIX = "mafia-deal-v2"
SCHEME_V1 = "sha256/mafia-deal-v1"  # the secret alone (games committed before state version 3)
PREFIX_V1 = "mafia-deal-v1"
SCHEMES = (SCHEME_V1, SCHEME)
SALT_MIN_BYTES = 16
SALT_MAX_BYTES = 64
_SALT = re.compile(r"[0-9a-f]+")
# An integer seed must survive JavaScript's numbers (the end screen rebuilds the preimage
# from the revealed seed): at most 2**53 - 1 in size.
_JS_SAFE = (1 << 53) - 1


def check_salt(salt: Any) -> str:
    """The salt if it is lowercase hex of 16 to 64 bytes; else ``InvalidAction("bad_salt")``."""
    if (
        not isinstance(salt, str)
        or len(salt) % 2
        or not SALT_MIN_BYTES * 2 <= len(salt) <= SALT_MAX_BYTES * 2
        or not _SALT.fullmatch(salt)
    ):
        raise InvalidAction(
            "bad_salt",
            f"salt must be {SALT_MIN_BYTES}-{SALT_MAX_BYTES} bytes as lowercase hex, not {quoted(salt)}",
        )
    return salt


def seed_text(seed: int | str) -> str:
    """The seed as the preimage holds it: its JSON text (``7`` and ``"7"`` deal differently,
    so they must hash differently). JavaScript's ``JSON.stringify`` writes the same text."""
    if isinstance(seed, int) and not isinstance(seed, bool) and abs(seed) > _JS_SAFE:
        raise InvalidAction("bad_options", "a committed integer seed must be below 2**53 in size")
    try:
        return rng.text(seed)  # the text the game's keys derive from (rng.material)
    except ValueError as exc:
        raise InvalidAction("bad_options", f"{exc}, not {quoted(seed)}") from None


def game_text(players: Sequence[str], options: dict) -> str:
    """The game a v2 commitment binds, as canonical JSON: ``{"options": O, "players": P}``
    with sorted keys, no spaces and characters as they are (the end screen's
    ``canonicalJson`` in web/js/game/fairness.js writes the same text). ``options`` are the
    checked options (``check_setup``: the preset, every option that shapes the deal), as
    every view shows them (``view.options``); ``players`` the ids in seat order."""
    if not isinstance(players, list | tuple) or not all(isinstance(p, str) for p in players):
        raise InvalidAction("bad_players", "players must be a list of id strings")
    if not isinstance(options, dict):
        raise InvalidAction("bad_options", "options must be an object")
    doc = {"options": options, "players": list(players)}
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def preimage(
    seed: int | str, salt: str, players: Sequence[str] | None = None, options: dict | None = None
) -> bytes:
    """What is hashed: ``mafia-deal-v2:<salt>:<seed as JSON>:<game_text>`` in UTF-8; with no
    ``players`` and ``options``, a v1 game's ``mafia-deal-v1:<salt>:<seed as JSON>``."""
    if players is None and options is None:
        return f"{PREFIX_V1}:{check_salt(salt)}:{seed_text(seed)}".encode()
    game = game_text(players if players is not None else [], options if options is not None else {})
    return f"{PREFIX}:{check_salt(salt)}:{seed_text(seed)}:{game}".encode()


def commitment(
    seed: int | str, salt: str, players: Sequence[str] | None = None, options: dict | None = None
) -> str:
    """SHA-256 of the preimage, 64 lowercase hex digits (v2 with ``players`` and ``options``)."""
    return hashlib.sha256(preimage(seed, salt, players, options)).hexdigest()


def record(
    seed: int | str, salt: str, players: Sequence[str] | None = None, options: dict | None = None
) -> dict:
    """What the state keeps (``state["fairness"]``): secret until the end, except the hash.
    ``new_game`` passes the seat list and checked options (v2); without them, a v1 record."""
    scheme = SCHEME_V1 if players is None and options is None else SCHEME
    return {
        "scheme": scheme,
        "seed": seed,
        "salt": salt,
        "commitment": commitment(seed, salt, players, options),
    }


def gate(s: dict) -> dict | None:
    """What a view carries under ``fairness``: the commitment from the start, seed and salt
    only once the game has ended; None for a game started without a salt.

    The same keys and the same lengths for every game with a salt until the end (a
    commitment is always 64 hex digits): nothing but the hash's digits tells two deals apart
    (``tests/unit/test_fairness.py``)."""
    rec = s.get("fairness")
    if not rec:
        return None
    ended = s["phase"]["kind"] == "ended"
    return {
        "scheme": rec.get("scheme", SCHEME_V1),
        "commitment": rec["commitment"],
        "seed": rec["seed"] if ended else None,
        "salt": rec["salt"] if ended else None,
    }


def verified(
    seed: int | str,
    salt: str,
    expected: str,
    players: Sequence[str] | None = None,
    options: dict | None = None,
) -> bool:
    """Whether ``seed`` and ``salt`` (and for v2 the seat list and options) hash to
    ``expected`` (the published commitment)."""
    return commitment(seed, salt, players, options) == expected.strip().lower()
