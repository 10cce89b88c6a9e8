"""The ``city`` preset's night ("Ночь"): every living player confirms one action or a skip,
then all resolve together.

Paragraphs of docs/rulebooks/001-city.txt are cited by their heading.
"""

from __future__ import annotations

from typing import Any

from ...errors import InvalidAction, quoted
from ...game import Game
from ...roles import MAFIA, team_of
from ..shared import (
    add_result,
    all_in,
    check_investigate,
    check_mafia_target,
)
from .setup import (
    NIGHT_ABILITY,
    role_of,
)
from .wins import (
    _check_draw,
)


# --- phases -------------------------------------------------------------------------------------
def _night_begin(g: Game) -> None:
    g.deadline_in(g.options["nightSeconds"])
    g.phase["acts"] = {}  # player id -> confirmed target (None: sleep / skip)


def _to_night(g: Game) -> None:
    g.goto("night")


def resolve_night(g: Game) -> None:
    """ "Ночь": all confirmed actions together; unreceived actions are skips."""
    s = g.s
    ph = g.phase
    night = g.day
    acts = ph["acts"]
    mafia_alive = [p for p in g.alive() if team_of(p["role"]) == MAFIA]
    picks: dict[str, int] = {}
    for p in mafia_alive:
        t = acts.get(p["id"])
        if t is not None:
            picks[t] = picks.get(t, 0) + 1
    # one target chosen by more than half of the living mafia
    target = next((t for t, n in picks.items() if 2 * n > len(mafia_alive)), None)
    # the doctor's protection and the commissar's check work even if they are tonight's victim
    heal = None
    for pid, t in acts.items():
        task = NIGHT_ABILITY.get(g.by_id[pid]["role"])  # who heals and who checks: the declaration
        if task == "heal" and t is not None:
            heal = t
            if t == pid:
                s["extra"]["selfHealUsed"] = True
        elif task == "investigate" and t is not None:
            verdict = role_of(g.by_id[t]["role"]).check_reads
            add_result(s, pid, night, "investigate", t, verdict)
    s["lastHeal"] = {"night": night, "target": heal} if heal else None
    victim = g.by_id[target] if target is not None else None
    if victim is not None and victim["alive"] and target != heal:
        g.kill(victim, "mafia")
        g.system(f"{target} was killed in the night.")
        s["extra"]["dry"] = 0
    else:
        # "Причина ночи без потерь публично не раскрывается": no saved / no-kill distinction
        g.event("quietNight")
        g.system("Nobody died tonight.")
        s["extra"]["dry"] += 1
    g.event("morning")
    if g.check_win("night") or _check_draw(g, "night"):
        return
    g.goto("discussion")


# --- actions ------------------------------------------------------------------------------------
def _check_heal(s: dict, by_id: dict, p: dict, t: str | None) -> tuple[str, str] | None:
    q = by_id.get(t)
    if q is None:
        return "unknown_player", f"there is no player {quoted(t)} in this game"
    if not q["alive"]:
        return "target_dead", f"{t} is already out of the game"
    last = s["lastHeal"]
    if last is not None and last["target"] == t and last["night"] == s["day"] - 1:
        return "repeat_heal", f"you protected {t} last night; not the same player two nights running"
    if q is p and s["extra"]["selfHealUsed"]:
        return "self_heal_used", "you may protect yourself only once a game"
    return None


NIGHT_CHECKS = {"mafiaTarget": check_mafia_target, "investigate": check_investigate, "heal": _check_heal}


def act_night(g: Game, a: Any) -> None:
    """A confirmed night action or skip: once per living player per night, final."""
    p = g.actor(a.player)
    acts = g.phase["acts"]
    if p["id"] in acts:
        raise InvalidAction("already_confirmed", "you have already confirmed your night action")
    target = None
    if a.type != "sleep":
        if NIGHT_ABILITY.get(p["role"]) != a.type:
            raise InvalidAction("not_your_role", f"your role cannot {a.type}")
        target = a.target
        if target is not None:
            why = NIGHT_CHECKS[a.type](g.s, g.by_id, p, target)
            if why:
                raise InvalidAction(*why)
    acts[p["id"]] = target
    if all_in(g, acts):
        resolve_night(g)
