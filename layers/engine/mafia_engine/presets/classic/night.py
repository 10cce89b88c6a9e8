"""The ``classic`` preset's night (§5.5): the night's choices, their checks and the
night's resolution.

Sections of docs/rulebooks/000-classic.txt are cited as §n.
"""

from __future__ import annotations

from typing import Any

from ...errors import InvalidAction, quoted
from ...game import Game
from ...roles import MAFIA, team_of
from ..shared import (
    check_investigate,
    check_mafia_target,
)
from .day import (
    start_day,
)


def _night_begin(g: Game) -> None:
    g.deadline_in(g.options["nightSeconds"])
    ph = g.phase
    ph["mafiaPicks"] = {}
    ph["mafiaTarget"] = None
    ph["mafiaPickedBy"] = None
    ph["acts"] = {}  # actor id -> target, for investigate / heal / mediumPeek


def _night_timeout(g: Game) -> None:
    """§5.5 resolution order: mafia target, doctor, soldier, death, private results.

    Each role's part is read from its declaration (``setup.ROLES``): who heals and who checks
    by their night task, the soldier by its armour, what a check learns by ``check_reads``."""
    ph = g.phase
    s = g.s
    night = g.day
    target_id = ph["mafiaTarget"]
    if target_id is not None and not g.by_id[target_id]["alive"]:
        target_id = None
    if target_id is None and g.options["mafiaMustKill"] == "random":
        if any(team_of(p["role"]) == MAFIA for p in g.alive()):
            pool = [p for p in g.alive() if team_of(p["role"]) != MAFIA]
            if pool:
                target_id = pool[g.rand_below(len(pool))]["id"]
    acts = ph["acts"]
    night_task = {a: g.role(g.by_id[a]).night for a in acts}
    heal = next((t for a, t in acts.items() if night_task[a] == "heal"), None)
    if target_id is not None:
        target = g.by_id[target_id]
        if target_id == heal:
            g.event("saved")
            g.system("The doctor saved someone tonight.")
        elif g.role(target).armor and not target["soldierUsed"]:
            target["soldierUsed"] = True
            g.reveal(target, "role")
            g.event("soldierSurvived", player=target_id)
            g.system(f"Soldier {target_id} survived an attack.")
        else:
            g.kill(target, "mafia")
            g.system(f"{target_id} was killed in the night.")
    if target_id is None:
        g.event("quietNight")
        g.system("The night was quiet.")
    s["lastHeal"] = {"night": night, "target": heal} if heal else None
    for actor_id, t in acts.items():
        task = night_task[actor_id]
        if task == "investigate":
            tp = g.by_id[t]
            outcome = tp["role"] if g.options["policeRevealRole"] else g.role(tp).check_reads
            s["results"].setdefault(actor_id, []).append(
                {"day": night, "kind": "investigate", "target": t, "result": outcome}
            )
        elif task == "mediumPeek":
            s["results"].setdefault(actor_id, []).append(
                {"day": night, "kind": "mediumPeek", "target": t, "result": g.by_id[t]["role"]}
            )
    s["day"] += 1
    g.event("morning")
    if g.check_win("night"):
        return
    start_day(g, "discussion")


# Night target checks, shared by the actions and by the view's list of choosable targets
# (the mafia's and the police's are the same in every preset: shared.py).
def _check_heal(s: dict, by_id: dict, p: dict, t: str | None) -> tuple[str, str] | None:
    q = by_id.get(t)
    if q is None:
        return "unknown_player", f"there is no player {quoted(t)} in this game"
    if not q["alive"]:
        return "target_dead", f"{t} is already out of the game"
    if q is p and not s["options"]["doctorSelfHeal"]:
        return "self_heal_off", "healing yourself is switched off in this game"
    last = s["lastHeal"]
    if (
        not s["options"]["doctorRepeat"]
        and last is not None
        and last["target"] == t
        and last["night"] == s["day"] - 1
    ):
        return "repeat_heal_off", f"you healed {t} last night and may not heal them two nights running"
    return None


def _check_medium_peek(s: dict, by_id: dict, p: dict, t: str | None) -> tuple[str, str] | None:
    q = by_id.get(t)
    if q is None:
        return "unknown_player", f"there is no player {quoted(t)} in this game"
    if q["alive"]:
        return "target_alive", f"{t} is alive; the medium reads only the dead"
    return None


NIGHT_CHECKS = {
    "mafiaTarget": check_mafia_target,
    "investigate": check_investigate,
    "heal": _check_heal,
    "mediumPeek": _check_medium_peek,
}


def act_night(g: Game, a: Any) -> None:
    """Every night ability: role check, target check, then record (changeable until dawn)."""
    p = g.actor(a.player)
    if g.role(p).night != a.type:
        raise InvalidAction("not_your_role", f"your role cannot {a.type}")
    why = NIGHT_CHECKS[a.type](g.s, g.by_id, p, a.target)
    if why:
        raise InvalidAction(*why)
    ph = g.phase
    if a.type == "mafiaTarget":
        ph["mafiaPicks"][p["id"]] = a.target
        ph["mafiaTarget"] = a.target  # §5.5: the last pick of any mafia counts
        ph["mafiaPickedBy"] = p["id"]
    else:
        ph["acts"][p["id"]] = a.target
