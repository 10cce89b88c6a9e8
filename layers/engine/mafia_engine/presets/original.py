"""The ``original`` preset (seed 003) — not implemented yet; listed so the lobby can show it."""

from __future__ import annotations

from .base import Preset

ORIGINAL = Preset(
    name="original", title="Original (seed 003)", min_players=8, max_players=16, options=(), implemented=False
)
