"""Save golden engine states: seeded random games of every preset, dumped at chosen phases.

Run with the engine of the release whose states are saved on the path (a worktree of that
commit), e.g. for the release before classic's ``extra`` moved::

    git worktree add --detach /tmp/old bc3b1e5
    PYTHONPATH=/tmp/old/layers/engine .venv/bin/python tests/unit/golden/make_states.py \
        --release bc3b1e5 --seed-kind int

It writes ``tests/unit/golden/<release>/<preset>-<phase>.json``: ``{"release", "preset",
"phase", "now", "state"}`` (the state as that release's ``dump`` stored it, ``now`` the game
time it was saved at). Only the public API of every release is used (``new_game``,
``apply``, ``dump``, ``testing.legal_actions``), so this file runs against any of them; its
own random numbers come from ``random.Random(seed)``, never the engine's.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import mafia_engine as me
from mafia_engine.testing import legal_actions

HERE = Path(__file__).resolve().parent
# the phases a game is saved in, per preset ("roleReveal" is the first state new_game makes:
# the engine's side of a room that has just left its lobby; "ended" a finished game, whose
# view and review a room still serves)
PHASES = {
    "classic": ("roleReveal", "night", "vote", "defense", "confirm", "ended"),
    "city": ("roleReveal", "night", "vote", "defense", "ended"),
    "original": ("roleReveal", "night", "speech", "vote", "defense", "ended"),
}
PLAYERS = {"classic": 10, "city": 9, "original": 10}
SALT = "5a17" * 16  # 32 bytes of hex: the game commits to its deal, as every room's game does


def secret(seed: int, kind: str) -> int | str:
    """The game's seed as that release's rooms drew it: a 31-bit integer (before 3718119) or
    256 bits as 64 hex digits."""
    r = random.Random(seed)
    return r.getrandbits(31) if kind == "int" else f"{r.getrandbits(256):064x}"


def saved_states(preset: str, seed: int, kind: str) -> dict[str, tuple[float, dict]]:
    """Play one random game; keep the state a few actions into the first of each phase."""
    want = PHASES[preset]
    players = [f"p{i}" for i in range(1, PLAYERS[preset] + 1)]
    rnd = random.Random(seed)
    now = 0.0
    state = me.new_game(players, {"preset": preset}, seed=secret(seed, kind), now=now, salt=SALT)
    out: dict[str, tuple[float, dict]] = {"roleReveal": (now, me.dump(state))}
    entered_at = {"roleReveal": 0}
    for step in range(1, 3000):
        kind_now = state["phase"]["kind"]
        if kind_now == "ended":
            break
        ends = state["phase"]["endsAt"]
        choices = [a for a in legal_actions(state, chat=rnd.random() < 0.3, now=now + 1.0)]
        if ends is not None and (not choices or rnd.random() < 0.12 or now + 1.0 >= ends):
            now = max(now, ends)
            action = {"type": "phaseTimeout", "phase": state["seq"]}
        elif choices:
            now += 1.0
            action = rnd.choice(choices)
        else:
            break
        try:
            state = me.apply(state, action, now)
        except me.InvalidAction:
            continue
        k = state["phase"]["kind"]
        if k in want and k not in out:
            entered_at.setdefault(k, step)
            if step - entered_at[k] >= 3 or k == "ended":  # a few ballots or picks in, or a later day's
                out[k] = (now, me.dump(state))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--release", required=True, help="the commit (or release name) saving them")
    ap.add_argument("--seed-kind", choices=("int", "hex"), default="hex")
    args = ap.parse_args()
    folder = HERE / args.release
    folder.mkdir(exist_ok=True)
    for preset, phases in PHASES.items():
        found: dict[str, tuple[float, dict]] = {}
        for seed in range(1, 200):
            for k, v in saved_states(preset, seed, args.seed_kind).items():
                found.setdefault(k, v)
            if all(k in found for k in phases):
                break
        for phase in phases:
            now, state = found[phase]
            doc = {"release": args.release, "preset": preset, "phase": phase, "now": now, "state": state}
            path = folder / f"{preset}-{phase}.json"
            path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
            print(path.relative_to(HERE.parents[2]), state["seq"], len(json.dumps(state)))


if __name__ == "__main__":
    main()
