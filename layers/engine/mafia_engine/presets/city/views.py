"""The ``city`` preset's chat rules and view hooks: who writes and reads which channel, whose
role a player knows, and what ``private`` says they may do now.

Paragraphs of docs/rulebooks/001-city.txt are cited by their heading.
"""

from __future__ import annotations

from ..shared import (
    living_ids,
)
from .night import (
    NIGHT_CHECKS,
)
from .setup import (
    CHANNELS,
    DAY_KINDS,
    NIGHT_ABILITY,
)


# --- chat -------------------------------------------------------------------------------------
def chat_refusal(s: dict, p: dict, channel: str) -> str | None:
    kind = s["phase"]["kind"]
    if channel == "system":
        return "only the moderator writes in the system channel"
    if channel not in CHANNELS:
        return f"there is no {channel} chat in this game"
    if kind == "ended":
        return None if channel == "day" else "after the game only the day chat is open"
    if channel == "dead":
        return None if not p["alive"] else "only the eliminated write in the dead chat"
    if not p["alive"]:
        return "the eliminated no longer give hints"
    if kind not in DAY_KINDS:
        return "the day chat is closed until the day"
    if kind == "defense" and p["id"] not in s["phase"]["suspects"]:
        return "only the tied leaders may speak during their defense"
    return None


def read_channels(s: dict, p: dict | None) -> tuple[str, ...]:
    if s["phase"]["kind"] == "ended":
        return CHANNELS
    if p is not None and not p["alive"]:
        return ("day", "dead", "system")
    return ("day", "system")


# --- views ------------------------------------------------------------------------------------
def known_roles(s: dict, p: dict | None) -> set[str]:
    if s["phase"]["kind"] == "ended":
        return {q["id"] for q in s["players"]}
    if p is None:
        return set()
    if p["role"] == "mafia":
        return {q["id"] for q in s["players"] if q["role"] == "mafia"}
    return {p["id"]}


def allies(s: dict, p: dict) -> list[dict]:
    if p["role"] != "mafia":
        return []
    return [{"id": q["id"], "role": q["role"]} for q in s["players"] if q is not p and q["role"] == "mafia"]


def private(s: dict, p: dict) -> dict:
    """The one private field; the same keys for every role in every phase."""
    ph = s["phase"]
    kind = ph["kind"]
    task = "none"
    targets: list = []
    choice = None
    team_choices: dict = {}
    pid = p["id"]
    if p["alive"]:
        if kind in ("roleReveal", "discussion"):
            task = "done" if pid in ph["ready"] else "ready"
        elif kind == "night":
            acts = ph["acts"]
            ability = NIGHT_ABILITY.get(p["role"])
            if pid in acts:
                task = "done"
                choice = acts[pid]
            elif ability is None:
                task = "sleep"
            else:
                task = ability
                by_id = {q["id"]: q for q in s["players"]}
                check = NIGHT_CHECKS[ability]
                targets = [q["id"] for q in s["players"] if check(s, by_id, p, q["id"]) is None]
            if p["role"] == "mafia":
                # "Каждый мафиози видит уже подтверждённые решения сообщников"
                team_choices = {
                    q["id"]: acts[q["id"]] for q in s["players"] if q["role"] == "mafia" and q["id"] in acts
                }
        elif kind == "vote":
            if pid in ph["votes"]:
                task = "done"
                choice = ph["votes"][pid]
            else:
                task = "vote"
                pool = ph["candidates"] if ph["candidates"] is not None else living_ids(s)
                targets = [t for t in pool if t != pid]
        elif kind == "defense" and pid in ph["suspects"]:
            task = "done" if pid in ph["done"] else "endTurn"
    return {
        "task": task,
        "targets": targets,
        "choice": choice,
        "teamChoices": team_choices,
        "results": [dict(r) for r in s["results"].get(pid, ())],
    }
