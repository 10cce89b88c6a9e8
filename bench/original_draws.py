"""How many bot-only `original` expansion games (15–16 players) end by the 30-night draw.

docs/rules.md, Original "Day" (the second tie): when only judges decided "execute all or none",
two judges nominating each other day after day could stall a game until the 30-night safeguard.
Plays GAMES bot-only games (seeds 0..GAMES-1, 15 and 16 players alternately) with the engine and
``bots.decide`` (unpaced: every bot acts once per phase, then the phase's timer), and prints one
JSON object: winners, draws by 30 nights, all-or-none votes held, second ties that nobody was
left to decide, and the same figures with the old reading (only judges decide) for comparison
(``--old`` plays only the old reading). Never part of pass/fail.

    .venv/bin/python bench/original_draws.py [--games 500] [--old]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "layers" / "engine"))

import mafia_engine as me  # noqa: E402
from mafia_engine import bots  # noqa: E402
from mafia_engine.presets.original import day  # noqa: E402


def _old_deciders(s: dict, tied: list[str]) -> list[str]:
    """The old reading (docs/rules.md, Original "Day"): with judges in play, only the living
    judges (minus the tied)."""
    return [pid for pid in day._voters(s) if pid not in tied]


def play(seed: int, n: int, max_phases: int = 3000) -> dict:
    ids = [f"p{i}" for i in range(1, n + 1)]
    now = 1000.0
    state = me.new_game(ids, {"preset": "original", "expansion": True}, seed=seed, now=now)
    all_or_none = stuck = 0
    for _ in range(max_phases):
        kind = state["phase"]["kind"]
        if kind == "ended":
            break
        seq = state["seq"]
        if kind == "allOrNone":
            all_or_none += 1
        # every seat with something to do (the executed player too, during the last word)
        for _pass in range(4):  # original: a role with several duties gets them one at a time
            acted = False
            for pid in ids:
                if state["seq"] != seq:
                    break
                for a in bots.decide(me.view(state, pid), seed, now):
                    if a["type"] == "chat":
                        continue
                    try:
                        state = me.apply(state, {**a, "player": pid}, now)
                        acted = True
                    except me.InvalidAction:
                        pass
                    if state["seq"] != seq:
                        break
            now += 1.0
            if state["seq"] != seq or not acted:
                break
        if state["seq"] == seq:
            now = max(now, me.deadline(state) or now)
            state = me.apply(state, {"type": "phaseTimeout", "phase": seq}, now)
        stuck += sum(
            1
            for m in state["chat"][-3:]
            if m["channel"] == "system" and "nobody else is left to decide" in m["text"] and m["day"] >= 2
        )
    result = me.result(state) or {}
    return {
        "winner": result.get("winner"),
        "cause": next((e["cause"] for e in state["events"] if e["kind"] == "end"), None),
        "days": state["day"],
        "allOrNone": all_or_none,
        "stuck": stuck,
    }


def run(games: int) -> dict:
    winners: Counter = Counter()
    draws_30 = all_or_none = stuck = 0
    nights = []
    t0 = time.process_time()
    for seed in range(games):
        g = play(seed, 15 + seed % 2)
        winners[g["winner"]] += 1
        draws_30 += g["cause"] == "nights"
        all_or_none += g["allOrNone"]
        stuck += g["stuck"]
        nights.append(g["days"])
    nights.sort()
    return {
        "games": games,
        "winners": dict(winners),
        "draws_30_nights": draws_30,
        "all_or_none_votes": all_or_none,
        "second_ties_nobody_could_decide": stuck,
        "days_median": nights[len(nights) // 2] if nights else None,
        "days_max": nights[-1] if nights else None,
        "cpu_s": round(time.process_time() - t0, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--old", action="store_true", help="play only the old reading (judges decide)")
    ap.add_argument("--quick", action="store_true", help="4 games: does it run")
    args = ap.parse_args()
    if args.quick:
        args.games = 4
    out: dict = {"bench": "original_draws", "players": "15-16", "expansion": True,
                 "method": "bot-only engine games, seeds 0..GAMES-1, every bot acting once per phase then "
                 "the phase's timer; counted from each game's result and the trial steps it went through"}
    if not args.old:
        out["now"] = run(args.games)
    day._deciders = _old_deciders  # the previous reading, for comparison
    out["before_issue_14"] = run(args.games)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
