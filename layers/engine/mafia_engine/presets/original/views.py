"""The ``original`` preset's chat rules and view hooks: who writes and reads which channel,
whose role a player knows, and what ``private`` says they may do now
(docs/rulebooks/003-original.txt)."""

from __future__ import annotations

from typing import Any

from ...game import Game
from ..shared import (
    act_chat,
)
from .setup import (
    CHANNELS,
    DAY_KINDS,
    LAST_WORD_LINES,
    MAFIA_CORE,
    YAKUZA_CORE,
    _check,
    duties,
    group_of,
)


# --- chat ----------------------------------------------------------------------------------------------
def act_chat_original(g: Game, a: Any) -> None:
    act_chat(g, a, chat_refusal)
    if g.phase["kind"] == "lastWord" and a.channel == "day":
        # kept for the review (the day chat's window may lose them in a long game): the
        # text, or a phrase's fields (chat.check_message)
        m = g.s["chat"][-1]
        line = m["text"] if "text" in m else {k: m[k] for k in ("phrase", "args", "variant")}
        g.phase["lines"] = [*g.phase["lines"], line]


def chat_refusal(s: dict, p: dict, channel: str) -> str | None:
    kind = s["phase"]["kind"]
    if channel == "system":
        return "only the moderator writes in the system channel"
    if channel not in CHANNELS:
        return f"there is no {channel} chat in this game"
    if kind == "ended":
        return None if channel == "day" else "after the game only the day chat is open"
    if channel == "dead" and _awaits_last_word(s, p["id"]):
        return "your last word is for the living: the dead chat opens after it"
    if kind == "lastWord" and channel == "day":
        if s["phase"]["player"] != p["id"]:
            return "only the executed player speaks their last word"
        if len(s["phase"]["lines"]) >= LAST_WORD_LINES:
            return f"a last word is at most {LAST_WORD_LINES} messages"
        return None
    if channel == "dead":
        return None if not p["alive"] else "only the dead write in the dead chat"
    if not p["alive"]:
        return "the dead may not speak, sign or show their card"
    if channel in ("mafia", "yakuza"):
        if group_of(s, p) != channel:
            return f"only the {channel} group writes in the {channel} chat"
        if kind != "night" or s["day"] != 1:
            return "the groups plan only on the first night; later, only subtle signs by day"
        return None
    if kind not in DAY_KINDS:
        return "the day chat is closed until the day"
    if kind == "speech" and s["phase"]["speaker"] != p["id"]:
        return "nobody interrupts the speaker"
    if kind == "defense" and s["phase"]["accused"] != p["id"]:
        return "only the suspect speaks during their defense"
    return None


def _awaits_last_word(s: dict, pid: str) -> bool:
    """The executed player speaking now, or one queued for a last word: dead already, but
    they still talk to the living, so the dead chat stays shut to them until they are done."""
    ph = s["phase"]
    return ph["kind"] == "lastWord" and (ph["player"] == pid or pid in ph["queue"])


def read_channels(s: dict, p: dict | None) -> tuple[str, ...]:
    if s["phase"]["kind"] == "ended":
        return CHANNELS
    if p is None:
        return ("day", "system")
    out = ["day", "system"]
    group = group_of(s, p)
    if group:
        out.append(group)
    if not p["alive"] and not _awaits_last_word(s, p["id"]):
        out.append("dead")
    return tuple(out)


# --- views ---------------------------------------------------------------------------------------------
def _mates(s: dict, p: dict) -> list[dict]:
    """The group members ``p`` knows: the core of its group (a joined werewolf learns them)."""
    group = group_of(s, p)
    if group is None:
        return []
    core = MAFIA_CORE if group == "mafia" else YAKUZA_CORE
    return [q for q in s["players"] if q is not p and q["role"] in core]


def known_roles(s: dict, p: dict | None) -> set[str]:
    if s["phase"]["kind"] == "ended":
        return {q["id"] for q in s["players"]}
    if p is None:
        return set()
    return {p["id"], *(q["id"] for q in _mates(s, p))}


def allies(s: dict, p: dict) -> list[dict]:
    return [{"id": q["id"], "role": q["role"]} for q in _mates(s, p)]


def private(s: dict, p: dict) -> dict:
    ph = s["phase"]
    kind = ph["kind"]
    pid = p["id"]
    task = "none"
    targets: list = []
    choice = None
    if kind == "lastWord" and ph["player"] == pid:
        task = "endTurn"  # out of the game, but this is their last word
    elif p["alive"]:
        if kind == "roleReveal":
            task = "done" if pid in ph["ready"] else "ready"
        elif kind == "night":
            mine = ph["acts"].get(pid, {})
            todo = [d for d in duties(s, p) if d not in mine]
            if pid in ph["done"]:
                task = "done"
            elif not todo:
                task = "sleep"
            else:
                task = todo[0]
                by_id = {q["id"]: q for q in s["players"]}
                targets = [
                    q["id"] for q in s["players"] if q["alive"] and _check(s, by_id, p, task, q["id"]) is None
                ]
            if mine:
                choice = list(mine.values())[-1]
        elif kind == "speech" and ph["speaker"] == pid:
            task = "nominate"
            if s["day"] > 1:
                taken = {n["target"] for n in ph["nominations"]}
                targets = [
                    q["id"] for q in s["players"] if q["alive"] and q is not p and q["id"] not in taken
                ]
        elif kind == "defense" and ph["accused"] == pid:
            task = "endTurn"
        elif kind == "vote" and pid in ph["voters"]:
            if pid in ph["votes"]:
                task = "done"
                choice = ph["votes"][pid]
            else:
                task = "vote"
                targets = [
                    c
                    for c in ph["candidates"]
                    if c != pid and any(q["id"] == c and q["alive"] for q in s["players"])
                ]
        elif kind == "allOrNone" and pid in ph["voters"]:
            if pid in ph["ballots"]:
                task = "done"
                choice = ph["ballots"][pid]
            else:
                task = "confirm"
    return {
        "task": task,
        "targets": targets,
        "choice": choice,
        "teamChoices": {},
        "results": [dict(r) for r in s["results"].get(pid, ())],
    }
