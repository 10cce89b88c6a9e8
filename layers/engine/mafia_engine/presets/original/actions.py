"""The ``original`` preset's own actions (the ones no other preset takes), named in
``Preset.action_models``: the engine's union for an original game and the socket's frame
union (functions/service/protocol/frames.py) take them from here."""

from __future__ import annotations

from typing import Literal

from ...actions import PlayerAction


class Nominate(PlayerAction):
    """Original speech: the speaker ends the turn naming one suspect (null: nobody)."""

    type: Literal["nominate"]
    target: str | None


class GodfatherCheck(PlayerAction):
    type: Literal["godfatherCheck"]
    target: str


class NinjaCheck(PlayerAction):
    type: Literal["ninjaCheck"]
    target: str


class LawyerPeek(PlayerAction):
    type: Literal["lawyerPeek"]
    target: str


class YakuzaTarget(PlayerAction):
    type: Literal["yakuzaTarget"]
    target: str | None


class MadmanKill(PlayerAction):
    type: Literal["madmanKill"]
    target: str | None


class Arrest(PlayerAction):
    type: Literal["arrest"]
    target: str | None


MODELS = (Nominate, GodfatherCheck, NinjaCheck, LawyerPeek, YakuzaTarget, MadmanKill, Arrest)
