"""A provably fair deal: the commitment published at the start, the seed revealed at the end.

Since state version 5 a room's game is dealt the v3 way (``sha256/mafia-deal-v3``, a
commit-reveal of client values: docs/rules.md, "Randomness"): the lobby publishes
``server_commitment(S, H)`` for the server's secret ``S`` before any client reveals; every
seated client publishes ``client_commitment(v)`` for a random value ``v`` of its own and reveals
``v`` at the start; the game is dealt and played with ``mix(S, contributions)``, an HMAC keyed by
the secret over the revealed values, and commits to all of it (``commitment_v3``). A value
never revealed is dropped, and the record (``contributions``, value None) shows that it was.
What follows describes v2, which v3 extends.

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
import hmac
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
# v3: the server's secret committed in the lobby, mixed with the values the seated clients
# revealed at the start (commit-reveal: docs/rules.md, "Randomness"; state version 5)
SCHEME_V3 = "sha256/mafia-deal-v3"
PREFIX_V3 = "mafia-deal-v3"
SERVER_PREFIX = "mafia-deal-v3-server"  # the lobby's commitment to the server's secret
CLIENT_PREFIX = "mafia-deal-v3-client"  # a client's commitment to its value
MIX_PREFIX = "mafia-deal-v3-mix"  # the message the server's secret keys to mix the values
SCHEMES = (SCHEME_V1, SCHEME, SCHEME_V3)
VALUE_MIN_BYTES = 16  # a client's value: 128 bits or more from its CSPRNG (crypto.getRandomValues)
VALUE_MAX_BYTES = 32
_HEX64 = re.compile(r"[0-9a-f]{64}")
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


def check_value(value: Any) -> str:
    """A client's revealed value if it is lowercase hex of 16 to 32 bytes; else ``bad_reveal``."""
    if (
        not isinstance(value, str)
        or len(value) % 2
        or not VALUE_MIN_BYTES * 2 <= len(value) <= VALUE_MAX_BYTES * 2
        or not _SALT.fullmatch(value)
    ):
        raise InvalidAction(
            "bad_reveal",
            f"a revealed value must be {VALUE_MIN_BYTES}-{VALUE_MAX_BYTES} random bytes as lowercase hex, "
            f"not {quoted(value)}",
        )
    return value


def check_hash(digest: Any, code: str = "bad_commitment") -> str:
    """``digest`` if it is a SHA-256 as 64 lowercase hex digits; else ``InvalidAction(code)``."""
    if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
        raise InvalidAction(code, f"a commitment is SHA-256 as 64 lowercase hex digits, not {quoted(digest)}")
    return digest


def client_commitment(value: str) -> str:
    """What a client publishes in the lobby for its value: SHA-256 of
    ``mafia-deal-v3-client:<value>`` (web/js/game/dealseed.js computes the same)."""
    return hashlib.sha256(f"{CLIENT_PREFIX}:{check_value(value)}".encode()).hexdigest()


def server_commitment(seed: int | str, salt: str) -> str:
    """What the lobby publishes before any client reveals (``room.deal.serverCommitment``):
    SHA-256 of ``mafia-deal-v3-server:<salt>:<secret as JSON>``. The secret cannot change
    after it, and the salt keeps the hash from saying anything about the secret."""
    return hashlib.sha256(f"{SERVER_PREFIX}:{check_salt(salt)}:{seed_text(seed)}".encode()).hexdigest()


def check_contributions(contributions: Any) -> list[dict]:
    """The clients' part of a v3 deal in its one canonical order: ``[{"commitment", "value"}]``
    sorted by commitment, each commitment distinct, ``value`` the revealed value (it must
    hash to its commitment: ``bad_reveal`` else) or None for a value never revealed (dropped).
    No seat is named: in an anonymous game a seat without one would be a bot's."""
    if not isinstance(contributions, list | tuple):
        raise InvalidAction("bad_contributions", "contributions must be a list of {commitment, value}")
    out = []
    for c in contributions:
        if not isinstance(c, dict) or set(c) != {"commitment", "value"}:
            raise InvalidAction(
                "bad_contributions", f"a contribution is {{commitment, value}}, not {quoted(c)}"
            )
        digest = check_hash(c["commitment"], "bad_contributions")
        value = c["value"]
        if value is not None and client_commitment(value) != digest:
            raise InvalidAction("bad_reveal", f"the value revealed for {digest[:12]}… does not hash to it")
        out.append({"commitment": digest, "value": value})
    out.sort(key=lambda c: c["commitment"])
    if len({c["commitment"] for c in out}) != len(out):
        raise InvalidAction("bad_contributions", "a commitment appears twice")
    return out


def contributions_text(contributions: Sequence[dict]) -> str:
    """The contributions as canonical JSON (sorted keys, no spaces), in their canonical order."""
    return json.dumps(check_contributions(list(contributions)), sort_keys=True, separators=(",", ":"))


def mix(seed: int | str, contributions: Sequence[dict]) -> str:
    """The secret a v3 game is dealt and played with: HMAC-SHA-256(key = the server's secret
    as JSON text, message = ``mafia-deal-v3-mix:`` + the revealed values as a JSON list in the
    contributions' order), 64 lowercase hex digits. Dropped values take no part. A pseudo-random
    function of values no one knew all of before the start: the server does not know the
    clients' values when it commits to its secret, a client does not know the secret."""
    revealed = [c["value"] for c in check_contributions(list(contributions)) if c["value"] is not None]
    message = f"{MIX_PREFIX}:{json.dumps(revealed, separators=(',', ':'))}".encode()
    return hmac.digest(seed_text(seed).encode(), message, hashlib.sha256).hex()


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


def preimage_v3(
    seed: int | str, salt: str, players: Sequence[str], options: dict, contributions: Sequence[dict]
) -> bytes:
    """What a v3 game's commitment hashes: ``mafia-deal-v3:<salt>:<secret as JSON>:<game_text>:
    <contributions_text>``: the server's secret, the game it deals and every client's part."""
    game = game_text(players, options)
    return f"{PREFIX_V3}:{check_salt(salt)}:{seed_text(seed)}:{game}:{contributions_text(contributions)}".encode()


def commitment_v3(
    seed: int | str, salt: str, players: Sequence[str], options: dict, contributions: Sequence[dict]
) -> str:
    """SHA-256 of ``preimage_v3``, 64 lowercase hex digits."""
    return hashlib.sha256(preimage_v3(seed, salt, players, options, contributions)).hexdigest()


def record_v3(
    seed: int | str, salt: str, players: Sequence[str], options: dict, contributions: Sequence[dict]
) -> dict:
    """A v3 game's record (``state["fairness"]``): the server's secret and salt (secret until
    the end), the lobby's ``serverCommitment``, the clients' ``contributions`` (public from the
    start: a value says nothing without the secret) and the game's ``commitment``."""
    parts = check_contributions(list(contributions))
    return {
        "scheme": SCHEME_V3,
        "seed": seed,
        "salt": salt,
        "serverCommitment": server_commitment(seed, salt),
        "contributions": parts,
        "commitment": commitment_v3(seed, salt, players, options, parts),
    }


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
    (``tests/unit/test_fairness.py``). A v3 game adds ``serverCommitment`` and
    ``contributions`` from the start: how many phones committed, never which seats."""
    rec = s.get("fairness")
    if not rec:
        return None
    ended = s["phase"]["kind"] == "ended"
    out = {
        "scheme": rec.get("scheme", SCHEME_V1),
        "commitment": rec["commitment"],
        "seed": rec["seed"] if ended else None,
        "salt": rec["salt"] if ended else None,
    }
    if out["scheme"] == SCHEME_V3:  # public from the start: without the secret they say nothing
        out["serverCommitment"] = rec["serverCommitment"]
        out["contributions"] = [dict(c) for c in rec["contributions"]]
    return out


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
