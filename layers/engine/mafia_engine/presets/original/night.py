"""The ``original`` preset's night: every living player confirms their duties or sleeps,
then everything resolves at once in the night's order (docs/rulebooks/003-original.txt)."""

from __future__ import annotations

from typing import Any

from ...errors import InvalidAction
from ...game import Game
from ..shared import (
    act_seen_role,
    add_result,
    all_in,
)
from .day import (
    _start_day,
)
from .setup import (
    GROUP_KILL,
    _check,
    _werewolf_joins,
    duties,
    group_of,
    reads_criminal,
)
from .wins import (
    _check_end,
)


# --- night -----------------------------------------------------------------------------------------
def _night_begin(g: Game) -> None:
    g.deadline_in(g.options["nightSeconds"])
    g.phase["acts"] = {}  # player id -> {action type: target}
    g.phase["done"] = []  # players who have confirmed everything (or slept)


def _to_night(g: Game) -> None:
    g.goto("night")


def resolve_night(g: Game) -> None:
    """Every confirmed action at once, in the night's order (docs/rules.md)."""
    s = g.s
    night = g.day
    acts = g.phase["acts"]

    def picks(typ: str) -> dict[str, Any]:
        return {pid: a[typ] for pid, a in acts.items() if typ in a}

    # 1. the lawyer wakes first and learns one identity
    for pid, t in picks("lawyerPeek").items():
        add_result(s, pid, night, "lawyerPeek", t, g.by_id[t]["role"])
    # 2. the doctor's protection is in place before anyone strikes
    heal = {t for t in picks("heal").values() if t}
    # 3-6. mafia group, yakuza group (all living members on one target), madman, sheriff
    strikes: list[tuple[str, str]] = []
    if night >= 2:
        for group, typ in GROUP_KILL.items():
            members = [p for p in g.alive() if group_of(s, p) == group]
            chosen = {acts.get(p["id"], {}).get(typ) for p in members}
            if members and len(chosen) == 1 and None not in chosen:
                strikes.append((chosen.pop(), group))
    for typ, by in (("madmanKill", "madman"), ("arrest", "arrest")):
        for t in picks(typ).values():
            if t is not None:
                strikes.append((t, by))
    # 7. the checks (they read the night's starting state: simultaneous with the strikes)
    for pid, t in picks("investigate").items():
        add_result(
            s, pid, night, "investigate", t, "criminal" if reads_criminal(s, g.by_id[t]) else "notCriminal"
        )
    for pid, t in picks("godfatherCheck").items():
        add_result(
            s, pid, night, "godfatherCheck", t, "yes" if g.by_id[t]["role"] in ("police", "ninja") else "no"
        )
    for pid, t in picks("ninjaCheck").items():
        q = g.by_id[t]
        yes = q["role"] == "police" or group_of(s, q) == "mafia"
        add_result(s, pid, night, "ninjaCheck", t, "yes" if yes else "no")
    dead: dict[str, str] = {}
    for t, by in strikes:
        q = g.by_id[t]
        if not q["alive"] or t in dead or q["role"] == "immortal":
            continue
        if by != "arrest" and t in heal:
            continue
        dead[t] = by
    for p in s["players"]:
        if p["id"] in dead:
            # "목격자가 없다는 것입니다": the report never names the killer (nor an arrest);
            # the real cause is the player's diedBy, shown in the result and the review
            g.kill(p, dead[p["id"]], public="night")
            g.system(f"{p['id']} was taken out in the night.")
    if not dead:
        g.event("quietNight")
        g.system("The night was quiet.")
    _werewolf_joins(g)
    g.event("morning")
    if _check_end(g, "night"):
        return
    _start_day(g)


def act_night(g: Game, a: Any) -> None:
    p = g.actor(a.player)
    ph = g.phase
    pid = p["id"]
    if pid in ph["done"]:
        raise InvalidAction("already_confirmed", "you have already confirmed tonight")
    mine = ph["acts"].get(pid, {})
    todo = [d for d in duties(g.s, p) if d not in mine]
    if a.type != "sleep":
        if a.type in mine:
            raise InvalidAction("already_confirmed", f"you have already confirmed {a.type} tonight")
        if a.type not in todo:
            raise InvalidAction("not_your_role", f"you cannot {a.type} tonight")
        why = _check(g.s, g.by_id, p, a.type, a.target)
        if why:
            raise InvalidAction(*why)
        ph["acts"][pid] = {**mine, a.type: a.target}
        todo.remove(a.type)
    if a.type == "sleep" or not todo:
        ph["done"].append(pid)
    if all_in(g, ph["done"]):
        resolve_night(g)


def act_seen_role_then_night(g: Game, a: Any) -> None:
    """``seenRole`` (or the reveal's ``readyEarly``): once everyone has seen their card, night."""
    act_seen_role(g, a, _to_night)
