"""The ``classic`` preset's chat rules (§5.6) and view hooks (§8.3): who writes and reads
which channel, whose role a player knows, and what ``private`` says they may do now.

Sections of docs/rulebooks/000-classic.txt are cited as §n.
"""

from __future__ import annotations

from ...roles import MAFIA, team_of
from .night import (
    NIGHT_CHECKS,
)
from .setup import (
    CHANNELS,
    DAY_KINDS,
    role_of,
)


# --- actions (§8.2) -----------------------------------------------------------------------------
def chat_refusal(s: dict, p: dict, channel: str) -> str | None:
    """Why ``p`` may not write in ``channel`` now (§5.6), or None if they may."""
    kind = s["phase"]["kind"]
    if channel == "system":
        return "only the moderator writes in the system channel"
    if kind == "ended":
        return None if channel == "day" else "after the game only the day chat is open"
    role = p["role"]
    if channel == "day":
        if not p["alive"]:
            return "the dead cannot write in the day chat"
        if kind not in DAY_KINDS:
            return "the day chat is closed until the day"
        if kind == "defense" and s["phase"]["accused"] != p["id"]:
            return "only the accused may speak during the defense"
        return None
    if channel == "mafia":
        if team_of(role) != MAFIA:
            return "only the mafia write in the mafia chat"
        if not p["alive"]:
            return "the dead cannot write in the mafia chat"
        return None if kind == "night" else "the mafia chat opens at night"
    if channel == "dead":
        if not p["alive"] or (role == "medium" and kind == "night"):
            return None
        return "only the dead (and the medium at night) write in the dead chat"
    if channel == "lovers":
        if role != "lover":
            return "only the lovers write in the lovers chat"
        if not p["alive"]:
            return "the dead cannot write in the lovers chat"
        return None if kind == "night" else "the lovers chat opens at night"
    return "unknown channel"


def read_channels(s: dict, p: dict | None) -> tuple[str, ...]:
    kind = s["phase"]["kind"]
    if kind == "ended":
        return CHANNELS
    if p is None:
        return ("day", "system")
    out = ["day", "system"]
    role = p["role"]
    dead = not p["alive"]
    if team_of(role) == MAFIA or (dead and s["options"]["deadSeeAll"]):
        out.append("mafia")
    if dead or (role == "medium" and kind == "night"):
        out.append("dead")
    if role == "lover":
        out.append("lovers")
    return tuple(out)


# --- views (§8.3) -----------------------------------------------------------------------------
def known_roles(s: dict, p: dict | None) -> set[str]:
    players = s["players"]
    if s["phase"]["kind"] == "ended":
        return {q["id"] for q in players}
    if p is None:
        return set()
    if not p["alive"] and s["options"]["deadSeeAll"]:
        return {q["id"] for q in players}
    known = {p["id"]}
    knows = role_of(p["role"]).knows
    if knows == "team":
        team = team_of(p["role"])
        known.update(
            q["id"] for q in players if role_of(q["role"]).knows == "team" and team_of(q["role"]) == team
        )
    elif knows == "pair":
        known.update(q["id"] for q in players if q["role"] == p["role"])
    return known


def allies(s: dict, p: dict) -> list[dict]:
    knows = role_of(p["role"]).knows
    if knows == "team":
        team = team_of(p["role"])
        return [
            {"id": q["id"], "role": q["role"]}
            for q in s["players"]
            if q is not p and role_of(q["role"]).knows == "team" and team_of(q["role"]) == team
        ]
    if knows == "pair":
        return [
            {"id": q["id"], "role": q["role"]} for q in s["players"] if q is not p and q["role"] == p["role"]
        ]
    return []


def private(s: dict, p: dict) -> dict:
    """The one private field; the same keys for every role in every phase (§8.3)."""
    ph = s["phase"]
    kind = ph["kind"]
    task = "none"
    targets: list = []
    choice = None
    team_choices: dict = {}
    if p["alive"]:
        if kind == "roleReveal":
            task = "done" if p["id"] in ph.get("ready", ()) else "ready"
        elif kind == "discussion" and p["id"] in ph.get("ready", ()):
            task = "done"  # the seat pressed "end discussion" (a substitute sees it pressed)
        elif kind == "night":
            ability = role_of(p["role"]).night
            if ability is None:
                task = "sleep"
            else:
                task = ability
                check = NIGHT_CHECKS[ability]
                by_id = {q["id"]: q for q in s["players"]}
                targets = [q["id"] for q in s["players"] if check(s, by_id, p, q["id"]) is None]
                if ability == "mafiaTarget":
                    choice = ph["mafiaTarget"]
                    team_choices = dict(ph["mafiaPicks"])
                else:
                    choice = ph["acts"].get(p["id"])
        elif kind == "vote":
            task = "vote"
            targets = [q["id"] for q in s["players"] if q["alive"] and q is not p]
            choice = ph["votes"].get(p["id"])
        elif kind == "confirm" and ph["accused"] != p["id"]:
            task = "confirm"
            choice = ph["ballots"].get(p["id"])
    results = [dict(r) for r in s["results"].get(p["id"], ())]
    return {
        "task": task,
        "targets": targets,
        "choice": choice,
        "teamChoices": team_choices,
        "results": results,
    }
