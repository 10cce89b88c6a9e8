"""Save golden room items: the `STATE` item a release's handlers stored, at chosen phases.

Runs as a test of the functions tier *of the release that saves them* (its handlers, its
fixtures, moto), so copy it into a worktree of that commit and run it there::

    git worktree add --detach /tmp/old b208b0a
    T=/tmp/old/tests/functions/test_make_rooms.py  # a test file of that release's tier
    cp tests/functions/golden/make_rooms.py $T
    cd /tmp/old && GOLDEN_OUT=<this repo>/tests/functions/golden/b208b0a GOLDEN_RELEASE=b208b0a \
        <this repo>/.venv/bin/python -m pytest -q -p no:cacheprovider $T

Each file `<preset>-<phase>.json` holds `{"release", "preset", "phase", "now", "code",
"tokens", "item"}`: the item as DynamoDB returned it (attribute values; the binary `data` as
base64), the game time it was saved at and the players' tokens (what their browsers keep).
Phases: `lobby` (every seat joined, not started: no engine state yet), then the engine's.
"""

from __future__ import annotations

import base64
import json
import os
import random
from pathlib import Path

from mafia_engine.testing import legal_actions

PHASES = {
    "classic": ("lobby", "roleReveal", "night", "vote", "defense"),
    "city": ("lobby", "roleReveal", "night", "vote", "defense"),
    "original": ("lobby", "roleReveal", "night", "vote", "defense"),
}
PLAYERS = 8


def _item(api) -> dict:
    item = api.item()
    return {k: ({"B": base64.b64encode(v["B"]).decode()} if "B" in v else v) for k, v in item.items()}


def _save(api, preset: str, phase: str) -> None:
    out = Path(os.environ["GOLDEN_OUT"])
    out.mkdir(parents=True, exist_ok=True)
    doc = {
        "release": os.environ["GOLDEN_RELEASE"],
        "preset": preset,
        "phase": phase,
        "now": api.clock.t,
        "code": api.code,
        "tokens": dict(api.tokens),
        "item": _item(api),
    }
    (out / f"{preset}-{phase}.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")


def _step(api, rng: random.Random, n: int, i: int) -> None:
    """One random legal frame from a player's socket, or a phase's end (timer or nudge)."""
    state = api.state()
    if rng.random() < 0.12 and state["phase"]["endsAt"] is not None:
        api.clock.advance(max(0.0, state["phase"]["endsAt"] - api.clock.t) + 0.5)
        api.fire(state["seq"])
        return
    choices = [a for a in legal_actions(state) if a["type"] != "chat" or rng.random() < 0.3]
    if not choices:
        return
    action = dict(rng.choice(choices))
    pid = action.pop("player")
    action["action"] = action.pop("type")
    action["id"] = i
    api.clock.advance(0.8)
    api.send(f"c{pid}", action)


def test_make_golden_rooms(api):
    for preset, phases in PHASES.items():
        saved: set[str] = set()
        for seed in range(1, 30):
            api.tokens.clear()
            pids = api.lobby(PLAYERS, preset=preset)
            if "lobby" not in saved:
                _save(api, preset, "lobby")
                saved.add("lobby")
            for pid in pids[1:]:
                api.send(f"c{pid}", {"action": "ready"})
            api.send("cp1", {"action": "start", "id": "start"})
            rng = random.Random(seed)
            entered: dict[str, int] = {}
            for i in range(1500):
                snap = api.snapshot()
                if snap.room["status"] != "running":
                    break
                kind = snap.state["phase"]["kind"]
                if kind in phases and kind not in saved:
                    entered.setdefault(kind, i)
                    if i - entered[kind] >= 2 or kind == "roleReveal":
                        _save(api, preset, kind)
                        saved.add(kind)
                if saved >= set(phases):
                    break
                _step(api, rng, PLAYERS, i)
            for pid in pids:
                api.disconnect(f"c{pid}")
            if saved >= set(phases):
                break
        assert saved >= set(phases), (preset, saved)
