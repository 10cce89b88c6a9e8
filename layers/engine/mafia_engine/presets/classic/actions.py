"""The ``classic`` preset's own actions (the ones no other preset takes), named in
``Preset.action_models``: the engine's union for a classic game and the socket's frame union
(functions/service/protocol/frames.py) take them from here.

Sections of docs/rulebooks/000-classic.txt are cited as §n.
"""

from __future__ import annotations

from typing import Literal

from ...actions import PlayerAction, int_choice


class AdjustTime(PlayerAction):  # §5.2: ±15 s of the discussion, once a day
    type: Literal["adjustTime"]
    delta: int_choice(15, -15)  # type: ignore[valid-type]


class MediumPeek(PlayerAction):  # §3: the medium reads an eliminated player's role
    type: Literal["mediumPeek"]
    target: str


MODELS = (AdjustTime, MediumPeek)
