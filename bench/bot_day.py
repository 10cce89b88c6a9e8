"""How long an `original` day of bots takes, in game seconds (deterministic: the engine's clock,
never the wall's). Plays bot-only `original` games of 8 seats through the room's bot loop
(``bots.loop.drain`` at its private moments, ``phaseTimeout`` at each deadline), and prints one JSON
object: per day, the game seconds from the first speech to the end of the last one, the turns,
and the longest and mean bot turn against the turn's length (``speechSeconds``).

    .venv/bin/python bench/bot_day.py [--games 5] [--quick]

docs/rules.md (Original, "Bots' pace") quotes its figures;
tests/unit/test_table_round3.py runs `day_figures` on one game and checks the turn's share.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "layers" / "engine"))

import mafia_engine as me  # noqa: E402
from mafia_engine.bots import loop  # noqa: E402

SEATS = 8


def play(seed: int, days: int = 2, max_steps: int = 4000) -> dict:
    """One bot-only game up to day `days`' end: {"turnSeconds", "days": [{day, seconds, turns,
    longestTurn, meanTurn}]} in game seconds."""
    ids = [f"p{i}" for i in range(1, SEATS + 1)]
    names = {pid: f"Bot {pid[1:]}" for pid in ids}
    now = 1000.0
    state = me.new_game(ids, {"preset": "original"}, seed=seed, now=now)
    turn_len = float(state["options"]["speechSeconds"])
    stored = None
    turns: dict[int, list[float]] = {}
    spans: dict[int, list[float]] = {}
    started = (state["seq"], state["phase"]["kind"], now, state["day"])  # the phase being timed
    for _ in range(max_steps):
        state, stored, applied, _dropped = loop.drain(state, stored, now, ids, seed, "en", names)
        for at, _pid, _a in applied:
            now = max(now, at)
        if state["seq"] != started[0] or state["phase"]["kind"] == "ended":
            _seq, kind, t0, day = started
            t1 = max(now, t0)
            if kind == "speech":
                turns.setdefault(day, []).append(t1 - t0)
                spans.setdefault(day, [t0, t1])[1] = t1
            started = (state["seq"], state["phase"]["kind"], t1, state["day"])
            if state["phase"]["kind"] == "ended" or state["day"] > days:
                break
            stored = None if stored is None or stored.get("seq") != state["seq"] else stored
            continue
        wake = loop.wake_at(stored)
        ends = me.deadline(state)
        if wake is not None and (ends is None or wake < ends):
            now = wake
            continue
        if ends is None:
            break
        now = ends
        state = me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, now)
    out = []
    for day in sorted(turns):
        ts = turns[day]
        out.append(
            {
                "day": day,
                "seconds": round(spans[day][1] - spans[day][0], 1),
                "turns": len(ts),
                "longestTurn": round(max(ts), 1),
                "meanTurn": round(statistics.mean(ts), 1),
            }
        )
    return {"turnSeconds": turn_len, "days": out}


def day_figures(games: int) -> dict:
    runs = [play(seed) for seed in range(games)]
    days = [d for r in runs for d in r["days"]]
    return {
        "method": "bot-only original games of 8 seats through bots.loop.drain at its private moments, "
        "phaseTimeout at each deadline; game-clock seconds per day's speeches (day 1 and 2)",
        "games": games,
        "seats": SEATS,
        "turnSeconds": runs[0]["turnSeconds"],
        "meanDaySeconds": round(statistics.mean(d["seconds"] for d in days), 1),
        "maxDaySeconds": max(d["seconds"] for d in days),
        "meanTurnSeconds": round(statistics.mean(d["meanTurn"] for d in days), 1),
        "longestTurnSeconds": max(d["longestTurn"] for d in days),
        "runs": runs,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="one game")
    args = ap.parse_args()
    print(json.dumps(day_figures(1 if args.quick else args.games)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
