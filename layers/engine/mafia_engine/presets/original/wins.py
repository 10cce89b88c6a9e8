"""The ``original`` preset's wins and the end of a game (docs/rulebooks/003-original.txt;
our reading in docs/rules.md, "Wins")."""

from __future__ import annotations

from ...game import Game
from ...roles import TOWN, team_of
from ..shared import (
    finish_game,
)
from .setup import (
    MAFIA_CORE,
    MAX_NIGHTS,
    YAKUZA_CORE,
)


# --- wins ------------------------------------------------------------------------------------------
def sides(s: dict) -> dict[str, int]:
    """Living players per side as the win checks count them (docs/rules.md, "Wins").

    ``town``: the citizens, and the werewolf until it joins a group ("사회자는 늑대인간을 선량한
    시민처럼 대우하다가"); ``mafia``: every criminal but the yakuza group and the madman (mafia,
    godfather, lawyer, corrupt judge, a werewolf that joined the mafia); ``mafiaGroup``: mafia,
    godfather and a werewolf that joined them; ``yakuza``: yakuza, ninja and a werewolf that
    joined them; ``solo``: the madman.
    """
    out = {"town": 0, "mafia": 0, "mafiaGroup": 0, "yakuza": 0, "solo": 0}
    joined = s["extra"]["werewolf"]
    for p in s["players"]:
        if not p["alive"]:
            continue
        role = p["role"]
        if role == "werewolf":
            side = joined or "town"
        elif role == "madman":
            side = "solo"
        elif role in YAKUZA_CORE:
            side = "yakuza"
        elif team_of(role) == TOWN:
            side = "town"
        else:
            side = "mafia"
        out[side] += 1
        if side == "mafia" and (role in MAFIA_CORE or role == "werewolf"):
            out["mafiaGroup"] += 1
    return out


def winner_now(s: dict) -> str | None:
    """The side that has won, "draw" when nobody is left, or None (docs/rules.md, "Wins")."""
    alive = [p for p in s["players"] if p["alive"]]
    if not alive:
        return "draw"
    if len(alive) == 1 and alive[0]["role"] in ("madman", "werewolf"):
        return alive[0]["role"]
    n = sides(s)
    if n["town"] == len(alive):
        return "town"  # "범죄자 그룹이 모두 죽었다면" (an unjoined werewolf passes for a citizen)
    if n["yakuza"] and not n["mafiaGroup"] and not n["town"]:
        return "yakuza"  # "마피아그룹과 시민을 모두 제거하면"
    if n["mafia"] and n["mafia"] >= n["town"]:
        return "mafia"  # "야쿠자그룹을 제외한 범죄자그룹의 수가 시민의 수와 같거나 많아지면"
    return None


def _check_end(g: Game, cause: str) -> bool:
    winner = winner_now(g.s)
    if winner is not None:
        finish(g, winner, cause)
        return True
    if cause == "night" and g.day >= MAX_NIGHTS:
        finish(g, "draw", "nights")
        return True
    return False


def won(s: dict, p: dict, winner: str) -> bool:
    role = p["role"]
    if winner == "town":
        return team_of(role) == TOWN
    if winner in ("mafia", "yakuza"):
        # the lawyer and the corrupt judge win with either group; the werewolf never does
        return role in (MAFIA_CORE if winner == "mafia" else YAKUZA_CORE) or role in (
            "lawyer",
            "corruptJudge",
        )
    return role == winner and p["alive"]


_HOW = {
    "town": "The citizens win! No criminal is left (day {d}).",
    "mafia": "The mafia wins! The mafia side is as many as the citizens (day {d}).",
    "yakuza": "The yakuza wins! The mafia group and the citizens are gone (day {d}).",
    "madman": "The madman wins as the last one alive (day {d}).",
    "werewolf": "The werewolf wins as the last one alive (day {d}).",
    "draw": "A draw: nobody can win any more (day {d}).",
}


def finish(g: Game, winner: str, cause: str) -> None:
    if winner == "none":
        summary = "The host ended the game on day {d}; nobody wins."
    elif cause == "nights":
        summary = "A draw: thirty nights have passed."
    else:
        summary = _HOW[winner]
    finish_game(g, winner, cause, summary, lambda p: won(g.s, p, winner))
