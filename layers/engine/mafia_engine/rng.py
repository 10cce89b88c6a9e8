"""Seeded random numbers that live inside the game state.

A 48-bit linear congruential generator (the constants of java.util.Random): its whole state
is one integer below 2**48, so it is JSON-safe everywhere (JavaScript, DynamoDB numbers),
and a game replays bit for bit from its seed and action log. No global random is used.
"""

from __future__ import annotations

_MULT = 0x5DEECE66D
_ADD = 0xB
_MASK = (1 << 48) - 1


def seed_state(seed: int | str) -> int:
    """Turn a caller's seed (int or str) into the generator's 48-bit state."""
    if isinstance(seed, str):
        h = 0xCBF29CE484222325
        for byte in seed.encode():
            h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        seed = h
    return (int(seed) ^ _MULT) & _MASK


def _next(state: int, bits: int) -> tuple[int, int]:
    state = (state * _MULT + _ADD) & _MASK
    return state, state >> (48 - bits)


def below(state: int, n: int) -> tuple[int, int]:
    """A uniform integer in [0, n) and the new state (rejection sampling, no modulo bias)."""
    if n <= 0:
        raise ValueError("n must be positive")
    while True:
        state, r = _next(state, 31)
        value = r % n
        if r - value + (n - 1) < (1 << 31):
            return state, value


def shuffle(state: int, items: list) -> tuple[int, list]:
    """A Fisher-Yates shuffled copy of ``items`` and the new state."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        state, j = below(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return state, out
