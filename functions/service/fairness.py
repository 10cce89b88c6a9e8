"""The room layer's half of a provably fair deal: the salt the engine commits the deal with.

The engine stays pure (docs/architecture.md, "Engine"): it hashes the room's secret seed with
a salt it is given (`mafia_engine/fairness.py`). The salt is drawn here, once per game, at the
start, with the operating system's cryptographic generator; 32 bytes, so the published hash
cannot be inverted by trying every seed and salt (docs/rules.md, "A provably fair deal").
"""

from __future__ import annotations

import secrets

SALT_BYTES = 32


def new_salt() -> str:
    """A fresh salt for one game: SALT_BYTES random bytes as lowercase hex."""
    return secrets.token_hex(SALT_BYTES)
