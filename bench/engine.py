"""Engine benchmark: random 12-player classic games, every player's view rebuilt after each action.

Prints one JSON object: actions_per_s counts apply + the 12 views (what the backend does per
action), views_per_s counts views alone; sizes are JSON bytes. Rates use this process's CPU
time (the machine is shared; wall-clock figures swing with other people's load), best of
three rounds; ``actions_per_s_wall`` is the wall-clock figure of the same best round.
Never part of pass/fail.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "layers" / "engine"))

import mafia_engine as me  # noqa: E402
from mafia_engine.testing import random_game  # noqa: E402

GAMES = 40
OPTIONS = [
    {"preset": "classic"},
    {
        "preset": "classic",
        "extraRoles": ["soldier", "politician", "medium", "lovers"],
        "mafiaMustKill": "random",
    },
    {
        "preset": "classic",
        "firstPhase": "night",
        "deathReveal": "role",
        "deadSeeAll": True,
        "extraRoles": ["lovers"],
    },
]


METHOD = ("random legal-action 12-player games recorded first; timed: apply + the 12 players' views per "
          "action, process CPU time, best of 3 rounds; sizes = compact JSON on every 7th action")


def main() -> None:
    # `--quick`: 2 games, one round (tests/bench/test_benches.py: does it run, are the keys there)
    quick = "--quick" in sys.argv[1:]
    # Record the games first so the timing covers only the engine calls the backend makes.
    games = []
    for g in range(2 if quick else GAMES):
        steps = list(random_game(12, seed=g, options=OPTIONS[g % len(OPTIONS)], presence=True))
        games.append(steps)
    players = [f"p{i}" for i in range(1, 13)]

    best = None
    for _round in range(1 if quick else 3):
        figures = measure(games, players)
        if best is None or figures["actions_per_s"] > best["actions_per_s"]:
            best = figures
    print(json.dumps({"method": METHOD, **best}))


def measure(games: list, players: list[str]) -> dict:
    n_actions = n_views = 0
    view_bytes = 0
    max_view = 0
    max_state = 0
    t_apply = t_views = 0.0
    wall = 0.0
    for steps in games:
        first = steps[0][2]
        state = me.new_game(players, first["options"], seed=games.index(steps), now=0.0)
        for action, now, _ in steps[1:]:
            w0 = time.perf_counter()
            t0 = time.process_time()
            state = me.apply(state, action, now)
            t1 = time.process_time()
            views = [me.view(state, p) for p in players]
            t2 = time.process_time()
            wall += time.perf_counter() - w0
            views.append(me.view(state, None))  # the spectator's view: sizes only
            t_apply += t1 - t0
            t_views += t2 - t1
            n_actions += 1
            n_views += len(players)
            if n_actions % 7 == 0:  # sizes on a sample: json.dumps is not part of the engine
                for v in views:
                    size = len(json.dumps(v, separators=(",", ":")))
                    view_bytes += size
                    max_view = max(max_view, size)
        max_state = max(max_state, len(json.dumps(me.dump(state), separators=(",", ":"))))
    sampled = len(range(7, n_actions + 1, 7)) * (len(players) + 1)
    return {
        "games": len(games),
        "players": len(players),
        "actions": n_actions,
        "actions_per_s": round(n_actions / (t_apply + t_views), 1),
        "actions_per_s_wall": round(n_actions / wall, 1),
        "apply_per_s": round(n_actions / t_apply, 1),
        "views_per_s": round(n_views / t_views, 1),
        "mean_view_bytes": round(view_bytes / max(sampled, 1)),
        "max_view_bytes": max_view,
        "max_state_bytes": max_state,
    }


if __name__ == "__main__":
    main()
