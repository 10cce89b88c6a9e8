"""The ``classic`` preset's end of a game (§6, §8.6): the result and its summary.

Sections of docs/rulebooks/000-classic.txt are cited as §n.
"""

from __future__ import annotations

from ...game import Game
from ...roles import team_of
from ..shared import (
    finish_game,
)

# --- the end (§6, §8.6) -------------------------------------------------------------------------
_HOW = {
    ("town", "vote"): "Town wins! The day-{d} vote found the last mafia.",
    ("town", "night"): "Town wins! No mafia is left after night {d}.",
    ("town", "disconnect"): "Town wins! The last mafia left the game on day {d}.",
    ("mafia", "vote"): "Mafia wins! After the day-{d} execution the mafia equal the town.",
    ("mafia", "night"): "Mafia wins! After night {d} the mafia equal the town.",
    ("mafia", "disconnect"): "Mafia wins! After a player left on day {d} the mafia equal the town.",
    ("town", "left"): "Town wins! The last mafia left the game on day {d}.",
    ("mafia", "left"): "Mafia wins! After a player left on day {d} the mafia equal the town.",
    ("none", "host"): "The host ended the game on day {d}; nobody wins.",
}


def finish(g: Game, winner: str, cause: str) -> None:
    """§6 and §8.6: the result; a night ending counts as the day before (night n follows day n)."""
    mvp_votes = g.s["extra"]["mvpVotes"]
    mvp = None
    if mvp_votes:  # §6: the town player with the most nominations that got a mafioso executed
        best = max(mvp_votes.values())
        mvp = min((pid for pid, n in mvp_votes.items() if n == best), key=lambda pid: g.by_id[pid]["seat"])
    day = g.s["day"] - 1 if cause == "night" else g.s["day"]
    won = lambda p: team_of(p["role"]) == winner  # noqa: E731
    finish_game(g, winner, cause, _HOW[(winner, cause)], won, mvp=mvp, day=day)
