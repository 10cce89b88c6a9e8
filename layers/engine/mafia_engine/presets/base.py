"""What a preset is: its option table, set-up, phases, actions, win checks and view hooks.

The generic API in ``mafia_engine/__init__.py`` only ever talks to a ``Preset``; a new rule
system (city, original) is one more module that builds one of these.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..options import OptionSpec

if TYPE_CHECKING:
    from ..game import Game
    from ..phases import PhaseSpec


@dataclass(frozen=True)
class Preset:
    name: str
    min_players: int
    max_players: int
    options: tuple[OptionSpec, ...]
    implemented: bool = True
    title: str = ""
    # set-up: normalised options + player count -> role ids (unshuffled); raises InvalidAction
    deal: Callable[[dict, int], list[str]] | None = None
    # cross-option checks once each option is valid on its own: (raw, normalised) -> normalised
    check_options: Callable[[dict, dict], dict] | None = None
    start: Callable[[Game], None] | None = None  # enter the first phase
    phases: dict[str, PhaseSpec] = field(default_factory=dict)
    actions: dict[str, Callable[[Game, Any], None]] = field(default_factory=dict)
    win_checks: tuple[Callable[[Game], str | None], ...] = ()
    finish: Callable[[Game, str, str], None] | None = None  # (g, winner, cause): end the game
    # (g, player) after a living player's ``leave`` eliminated them: win check, then set the
    # phase right (a speaker, an accused or the last awaited player may be gone)
    after_leave: Callable[[Game, dict], None] | None = None
    # view hooks: (state, player dict or None) -> ...
    read_channels: Callable[[dict, dict | None], tuple[str, ...]] | None = None
    write_channels: Callable[[dict, dict | None], tuple[str, ...]] | None = None
    known_roles: Callable[[dict, dict | None], set[str]] | None = None
    private: Callable[[dict, dict], dict] | None = None
    allies: Callable[[dict, dict], list[dict]] | None = None
