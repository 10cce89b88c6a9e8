"""Random numbers for a game, all derived from its one secret (docs/rules.md, "Randomness").

A room draws one secret per game: 256 bits from the operating system's CSPRNG, as 64 hex
digits (``functions/service/features/fairness.py``, ``new_secret``). Nothing random is drawn from the
secret itself: each purpose has its own key, ``derive(secret, label)`` =
HMAC-SHA-256(key = the secret's JSON text, message = the label), with the labels of
``LABELS``:

- ``deal``: the roles' shuffle in ``new_game`` (the fair deal commits to the secret);
- ``play``: the engine's draws during the game (``Game.rand_below``: the random victim of
  ``mafiaMustKill: random``), so public outcomes say nothing of the deal;
- ``aliases``: an anonymous game's seat shuffle and aliases (``alias_draw``);
- ``bots``: the bots' choices and words (``mafia_engine.bots`` takes this key as its seed).

HMAC-SHA-256 is a pseudo-random function: keys of different labels are independent, and
one key, or every output drawn from it, says nothing about the secret or another label's key.

A key drives a stream: block ``i`` is HMAC-SHA-256(key, ``i`` as 8 bytes big-endian), read as
a 256-bit integer. Its state is ``{"key": hex, "n": blocks used}``: JSON-safe everywhere, and
a game replays bit for bit from its secret and action log. Unlike the linear congruential
generator this replaced, outputs already drawn do not predict the next one (that would break
HMAC-SHA-256). ``below`` takes an integer in [0, n) without bias (rejection sampling).

Tests pass small integer seeds (``new_game(..., seed=7)``): they go through the same
derivation (the JSON text ``7`` is the key), which is the "injected secret" test mode; a room
never plays with one. Pure: ``hmac``/``hashlib`` only, no global random, no clock.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

LABELS = ("deal", "play", "aliases", "bots")
_BLOCK_BITS = 256


def text(seed: int | str) -> str:
    """A seed's JSON text (``7`` and ``"7"`` differ), as JavaScript's ``JSON.stringify`` writes
    it too; ValueError for anything but an integer or a string that UTF-8 can hold."""
    if isinstance(seed, bool) or not isinstance(seed, int | str):
        raise ValueError("seed must be an integer or a string")
    out = json.dumps(seed, ensure_ascii=False)
    try:
        out.encode()
    except UnicodeEncodeError:
        raise ValueError("a string seed must be valid Unicode text (no lone surrogates)") from None
    return out


def material(seed: int | str) -> bytes:
    """The key material of a seed: its JSON text in UTF-8, the same text the fair deal's
    commitment hashes (``fairness.seed_text``)."""
    return text(seed).encode()


def derive(seed: int | str, label: str) -> str:
    """The key of one purpose: HMAC-SHA-256(seed's JSON text, label), 64 lowercase hex digits."""
    if label not in LABELS:
        raise ValueError(f"unknown randomness label {label!r}; one of {', '.join(LABELS)}")
    return hmac.digest(material(seed), label.encode(), hashlib.sha256).hex()


def stream(key: str) -> dict[str, Any]:
    """A fresh generator state over ``key`` (hex, as ``derive`` returns it)."""
    bytes.fromhex(key)  # a ValueError now rather than at the first draw
    return {"key": key, "n": 0}


def seed_state(seed: int | str, label: str = "play") -> dict[str, Any]:
    """The generator of one purpose of a seed: ``stream(derive(seed, label))``."""
    return stream(derive(seed, label))


def _block(state: dict[str, Any]) -> tuple[dict[str, Any], int]:
    n = state["n"]
    digest = hmac.digest(bytes.fromhex(state["key"]), n.to_bytes(8, "big"), hashlib.sha256)
    return {"key": state["key"], "n": n + 1}, int.from_bytes(digest, "big")


def below(state: dict[str, Any], n: int) -> tuple[dict[str, Any], int]:
    """A uniform integer in [0, n) and the new state (rejection sampling, no modulo bias).

    The state given is never changed (a new dict comes back)."""
    if n <= 0:
        raise ValueError("n must be positive")
    limit = (1 << _BLOCK_BITS) - (1 << _BLOCK_BITS) % n  # the largest multiple of n that fits
    while True:
        state, r = _block(state)
        if r < limit:
            return state, r % n


def shuffle(state: dict[str, Any], items: list) -> tuple[dict[str, Any], list]:
    """A Fisher-Yates shuffled copy of ``items`` and the new state."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        state, j = below(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return state, out


def sample(state: dict[str, Any], population: int, k: int) -> tuple[dict[str, Any], list[int]]:
    """``k`` distinct integers of [0, population), in draw order (a partial Fisher-Yates)."""
    if not 0 <= k <= population:
        raise ValueError(f"cannot draw {k} distinct values of {population}")
    pool = list(range(population))
    for i in range(k):
        state, j = below(state, population - i)
        pool[i], pool[i + j] = pool[i + j], pool[i]
    return state, pool[:k]


def alias_draw(seed: int | str, seats: int, adjectives: int, animals: int) -> dict[str, list[int]]:
    """An anonymous game's draw, from the ``aliases`` key only: ``order`` (new seat i holds the
    lobby's seat ``order[i]``, 0-based), and per new seat an adjective and an animal index,
    no word twice (``functions/service/features/aliases.py`` holds the words)."""
    r = seed_state(seed, "aliases")
    r, order = shuffle(r, list(range(seats)))
    r, adj = sample(r, adjectives, seats)
    r, ani = sample(r, animals, seats)
    return {"order": order, "adjectives": adj, "animals": ani}
