"""The post-game review: the whole game with every hidden thing shown, built after the end.

Built only from what the engine recorded while the game ran (deterministic: the same seed and
action log give the same review): the secret record ``state["log"]`` (each night's choices,
each ballot, each last word, every death with its real cause, written by ``Game.record`` and
``Game.goto`` through ``PhaseSpec.review``), the private results (checks), the roles, and the
chat the state still holds (the private channels: mafia, yakuza, lovers, dead).

Nothing here reaches a client before the end: ``review`` refuses with ``game_not_ended``, and
the view gate (``views.build``) adds it only to views of an ended game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import InvalidAction
from .jsondata import jcopy as _jcopy
from .roles import team_of

if TYPE_CHECKING:
    from .presets.base import Preset

# besides the team chats the preset's roles declare (``Role.channel``)
PRIVATE_CHANNELS = ("dead",)
# the order of items inside one step (a night or a day)
_ORDER = {
    "act": 0,
    "result": 1,
    "vote": 2,
    "confirm": 2,
    "allOrNone": 3,
    "death": 4,
    "lastWord": 5,
    "chat": 6,
}


def _night_items(entry: dict, night_of: dict[str, str | None]) -> list[dict]:
    """Night choices: ``acts`` is {player: {action: target}} (original) or {player: target}."""
    items = []
    for pid, target in (entry.get("mafiaPicks") or {}).items():  # classic: the team's picks
        items.append({"kind": "act", "player": pid, "action": night_of[pid] or "act", "target": target})
    for pid, acts in (entry.get("acts") or {}).items():
        if isinstance(acts, dict):
            for action, target in acts.items():
                items.append({"kind": "act", "player": pid, "action": action, "target": target})
        elif acts is not None:  # city: None is a sleep / skip
            action = night_of[pid] or "act"
            items.append({"kind": "act", "player": pid, "action": action, "target": acts})
    return items


def _phase_items(entry: dict, night_of: dict[str, str | None]) -> list[dict]:
    phase = entry["phase"]
    if phase == "night":
        return _night_items(entry, night_of)
    if phase == "vote":
        item = {"kind": "vote", "ballots": dict(entry.get("votes") or {})}
        if entry.get("round") is not None:
            item["round"] = entry["round"]
        if entry.get("candidates") is not None:  # city's first round: every living player
            item["candidates"] = list(entry["candidates"])
        return [item] if item["ballots"] else []
    if phase == "confirm":
        return [{"kind": "confirm", "accused": entry["accused"], "ballots": dict(entry["ballots"])}]
    if phase == "allOrNone":
        return [{"kind": "allOrNone", "suspects": list(entry["suspects"]), "ballots": dict(entry["ballots"])}]
    if phase == "lastWord":
        return [{"kind": "lastWord", "player": entry["player"], "lines": list(entry["lines"])}]
    return []


def build(s: dict, preset: Preset) -> dict:
    """The review of an ended game (``mafia_engine.review``); refused before the end."""
    if s["phase"]["kind"] != "ended":
        raise InvalidAction("game_not_ended", "the review opens when the game is over")
    night_of = {p["id"]: preset.role(p["role"]).night for p in s["players"]}
    private_channels = {*PRIVATE_CHANNELS, *(r.channel for r in preset.roles if r.channel)}
    won = {r["id"]: r["won"] for r in (s["result"] or {}).get("players", ())}
    steps: list[dict] = []
    index: dict[tuple[int, str], dict] = {}

    def step(day: int, part: str) -> dict:
        key = (day, part)
        if key not in index:
            index[key] = {"day": day, "part": part, "items": []}
            steps.append(index[key])
        return index[key]

    for e in s.get("log", ()):
        part = "night" if e.get("phase") == "night" else "day"
        if e["k"] == "death":
            step(e["day"], part)["items"].append({"kind": "death", "player": e["player"], "cause": e["by"]})
        elif e["k"] == "phase":
            items = _phase_items(e, night_of)
            if items or part == "night":
                step(e["day"], part)["items"].extend(items)
    for pid, results in s["results"].items():
        for r in results:
            step(r["day"], "night")["items"].append(
                {
                    "kind": "result",
                    "player": pid,
                    "action": r["kind"],
                    "target": r["target"],
                    "result": r["result"],
                }
            )
    for m in s["chat"]:
        if m["channel"] not in private_channels:
            continue
        part = "day" if m["channel"] == "dead" and (m["day"], "day") in index else "night"
        step(m["day"], part)["items"].append(
            {
                "kind": "chat",
                "channel": m["channel"],
                "from": m["from"],
                **{k: m[k] for k in ("text", "phrase", "args", "variant") if k in m},
                "id": m["id"],
            }
        )
    for st in steps:
        st["items"].sort(key=lambda it: _ORDER[it["kind"]])
    return {
        "preset": s["preset"],
        "winner": s["winner"],
        "summary": (s["result"] or {}).get("summary"),
        "players": [
            {
                "id": p["id"],
                "seat": p["seat"],
                "role": p["role"],
                "team": team_of(p["role"]),
                "alive": p["alive"],
                "diedDay": p["diedDay"],
                "diedBy": p["diedBy"],
                "won": won.get(p["id"], False),
            }
            for p in s["players"]
        ],
        "steps": _jcopy(steps),
    }


def gate(s: dict, preset: Preset) -> Any:
    """What a view carries under ``review``: the review once the game has ended, else None."""
    return build(s, preset) if s["phase"]["kind"] == "ended" else None
