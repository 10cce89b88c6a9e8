"""The ``city`` preset (seed 001) — not implemented yet; listed so the lobby can show it."""

from __future__ import annotations

from .base import Preset

CITY = Preset(
    name="city", title="City (seed 001)", min_players=5, max_players=16, options=(), implemented=False
)
