"""The ``city`` preset's end of a game: the draws ("шести подряд итогов ... без выбывания",
"либо 30 ночей") and the result.

Paragraphs of docs/rulebooks/001-city.txt are cited by their heading.
"""

from __future__ import annotations

from ...game import Game
from ...roles import team_of
from ..shared import (
    finish_game,
)
from .setup import (
    DRY_RESULTS_FOR_DRAW,
    MAX_NIGHTS,
)


def _check_draw(g: Game, cause: str) -> bool:
    if g.s["extra"]["dry"] >= DRY_RESULTS_FOR_DRAW:
        g.preset.finish(g, "draw", "dry")
        return True
    if cause == "night" and g.day >= MAX_NIGHTS:
        g.preset.finish(g, "draw", "nights")
        return True
    return False


# --- the end ----------------------------------------------------------------------------------
_HOW = {
    ("town", "night"): "The city wins! No mafia is left after night {d}.",
    ("town", "vote"): "The city wins! The day-{d} vote found the last mafioso.",
    ("town", "left"): "The city wins! The last mafioso left the game on day {d}.",
    ("mafia", "night"): "The mafia wins! After night {d} the mafia are as many as the others.",
    ("mafia", "vote"): "The mafia wins! After the day-{d} vote the mafia are as many as the others.",
    ("mafia", "left"): "The mafia wins! After a player left on day {d} the mafia are as many as the others.",
    ("draw", "dry"): "A draw: six results in a row without an elimination (day {d}).",
    ("draw", "nights"): "A draw: thirty nights have passed.",
    ("none", "host"): "The host ended the game on day {d}; nobody wins.",
}


def finish(g: Game, winner: str, cause: str) -> None:
    finish_game(g, winner, cause, _HOW[(winner, cause)], lambda p: team_of(p["role"]) == winner)
