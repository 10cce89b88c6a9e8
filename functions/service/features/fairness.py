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

SALT_BYTES = 32
SECRET_BYTES = 32  # 256 bits


def new_secret() -> str:
    """A fresh secret for one game (`room["seed"]`): SECRET_BYTES random bytes as lowercase hex.
    Never on the wire before the game's end (the ended view reveals it as `fairness.seed`)."""
    return secrets.token_hex(SECRET_BYTES)


def new_salt() -> str:
    """A fresh salt for one game: SALT_BYTES random bytes as lowercase hex."""
    return secrets.token_hex(SALT_BYTES)
