"""Win checks as a registry: each takes the game and returns the winning side or None.

A preset lists the checks it uses, in order (``Preset.win_checks``); ``Game.check_win``
runs them at the moments the preset's rules name (classic: docs/rulebooks/000-classic.txt §6).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .roles import MAFIA

if TYPE_CHECKING:
    from .game import Game


def no_mafia_left(g: Game) -> str | None:
    """Town wins when no living player is on the mafia team."""
    return None if any(g.team(p) == MAFIA for p in g.alive()) else "town"


def mafia_parity(g: Game) -> str | None:
    """Mafia wins when living mafia >= living everyone else."""
    alive = g.alive()
    mafia = sum(1 for p in alive if g.team(p) == MAFIA)
    return "mafia" if mafia and mafia >= len(alive) - mafia else None


WIN_CHECKS = {"noMafiaLeft": no_mafia_left, "mafiaParity": mafia_parity}
