"""Patch sizes in a long game: the original preset (the expansion's 14 seats) played to its end,
every seat writing at the chat rate limit until each phase's channel windows are full, the
bots doing each phase's duties. After every action each viewer's view is built as the service
builds it (`viewframes.view_of`, rendered by `views.render`), and every viewer whose view
changed gets the frame `viewframes._patch` would send it: the patch against its previous view
(`patches.diff_parts` on the views' parts, `patches.patch_frame`), or the full view when that is not smaller.

    .venv/bin/python bench/patch_sizes.py            # --quick: one day (tests/bench: the keys)

Prints ONE JSON object: per frame type (the action that changed the views: `chat`, `vote`,
`phaseTimeout`, ...) the number of frames and their mean and max bytes; the same over all
frames; the mean chat line's own JSON size beside the mean `chat` patch; the mean and max
microseconds of the patch path per changed viewer (parse the new view, diff, frame).
Engine-direct (no handlers, no AWS): sizes are exact, times are this machine's.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engine"), str(ROOT / "functions")]

import mafia_engine as me  # noqa: E402
from mafia_engine.bots import policy  # noqa: E402
from service.protocol import patches, server_frames, views  # noqa: E402
from service.room import viewframes  # noqa: E402

SEATS = 14
TEXT = "a line of chat " * 13  # ~200 characters, as a talkative player writes
AT = server_frames.ServerClock(serverNow=1_800_000_000.0, clockRate=1.0)


def make_room(players: list[str]) -> dict:
    return {
        "code": "BENCH",
        "preset": "original",
        "options": {"expansion": True},
        "status": "running",
        "host": players[0],
        "nextId": len(players) + 1,
        "seed": 1,
        "players": [
            {"id": p, "name": f"Player {p}", "tokenHash": "h" * 64, "ready": True, "bot": False} for p in players
        ],
        "views": {},
    }


class Viewers:
    """Every viewer's last view (its parts, as viewframes keeps it) and the frames they got."""

    def __init__(self, room: dict, players: list[str]) -> None:
        self.room = room
        self.players = players
        self.connected = set(players)
        self.held: dict[str, tuple[str, object]] = {}
        self.sizes: dict[str, list[int]] = {}
        self.full: list[int] = []
        self.us: list[float] = []
        self.fell_back = 0

    def push(self, state: dict, kind: str) -> None:
        memo: dict = {}  # one change's: its viewers share the parts they share (viewframes._patch)
        for who in [*self.players, None]:
            rendered = views.render(viewframes.view_of(self.room, state, self.connected, who))
            digest = views.digest(rendered)
            key = who or viewframes.SPECTATOR
            held = self.held.get(key)
            if held is not None and held[0] == digest:
                continue
            full = views.frame(rendered, 1, AT)
            t0 = time.thread_time()
            new = dict(rendered.parts)
            data = None
            if held is not None:
                data = patches.patch_frame(2, patches.diff_parts(held[1], new, memo), AT)
            self.us.append((time.thread_time() - t0) * 1e6)
            self.held[key] = (digest, new)
            if data is None:
                continue  # the first view: a full view, not a change
            self.full.append(len(full))
            if len(data) >= len(full):
                self.fell_back += 1
                data = full
            self.sizes.setdefault(kind, []).append(len(data))


def play(days: int, per_phase: int) -> tuple[Viewers, list[int], int]:
    players = [f"p{i}" for i in range(1, SEATS + 1)]
    now = 1_800_000_000.0
    state = me.new_game(players, {"preset": "original", "expansion": True}, seed=3, now=now)
    room = make_room(players)
    viewers = Viewers(room, players)
    viewers.push(state, "start")
    lines: list[int] = []
    actions = 0

    def act(state: dict, action: dict, at: float) -> dict | None:
        nonlocal actions
        try:
            after = me.apply(state, action, now=at)
        except me.InvalidAction:
            return None
        actions += 1
        viewers.push(after, action["type"])
        return after

    while state["day"] <= days and state["phase"]["kind"] != "ended":
        seq = state["seq"]
        t = now
        # the talk first (a speech ends when its speaker is done), then the bots' duties
        ends = state["phase"]["endsAt"]
        writers = [(p["id"], ch) for p in state["players"] for ch in me.view(state, p["id"])["channels"]["write"]]
        sent = 0
        while state["seq"] == seq and writers and sent < per_phase and (ends is None or t + 10 < ends):
            t += 0.7
            for pid, ch in writers:
                after = act(state, {"type": "chat", "player": pid, "channel": ch, "text": TEXT}, t)
                if after is not None:
                    state = after
                    sent += 1
                    lines.append(len(json.dumps(state["chat"][-1], separators=(",", ":"))))
                if state["seq"] != seq:
                    break
        # the bots' duties (votes, targets, confirms, a speech's end) after the talk
        for p in state["players"]:
            if state["seq"] != seq:
                break
            for a in policy.decide(me.view(state, p["id"]), 1, t):
                if a["type"] == "chat" or state["seq"] != seq:
                    continue
                t += 0.5
                state = act(state, {**a, "player": p["id"]}, t) or state
        if state["seq"] != seq:
            now = t
            continue
        now = ends if ends is not None else t + 30
        after = act(state, {"type": "phaseTimeout", "phase": state["seq"]}, now)
        if after is None:  # an untimed phase: everyone confirms what its task asks
            after = state
            for p in after["players"]:
                for a in policy.decide(me.view(after, p["id"]), 1, now):
                    if a["type"] != "chat" and after["seq"] == seq:
                        after = act(after, {**a, "player": p["id"]}, now) or after
            if after["seq"] == seq:
                break  # nothing moves it: stop rather than spin
        state = after
    return viewers, lines, actions


def summary(sizes: list[int]) -> dict:
    return {"frames": len(sizes), "mean_bytes": round(statistics.fmean(sizes)), "max_bytes": max(sizes)}


def run(quick: bool) -> dict:
    days, per_phase = (1, 6) if quick else (99, 80)
    t0 = time.process_time()
    viewers, lines, actions = play(days, per_phase)
    every = [s for sizes in viewers.sizes.values() for s in sizes]
    by_type = {kind: summary(sizes) for kind, sizes in sorted(viewers.sizes.items())}
    chat = by_type.get("chat", {"mean_bytes": None})
    return {
        "method": f"engine-direct: original preset, {SEATS} seats (expansion), seed 3, bots' duties, every "
        f"seat writing {len(TEXT)}-character lines at the rate limit until {per_phase} lines a phase; after each "
        "action every viewer's view built by viewframes.view_of and rendered; each changed viewer's "
        "frame as _patch makes it (patches.diff_parts against its last view, one memo per change, or the full view if not smaller)",
        "seats": SEATS,
        "days": days,
        "actions": actions,
        "by_type": by_type,
        "all": summary(every),
        "total_bytes": sum(every),
        "full_view_mean_bytes": round(statistics.fmean(viewers.full)),
        "fell_back_to_full_view": viewers.fell_back,
        "chat_line_mean_bytes": round(statistics.fmean(lines)) if lines else None,
        "chat_patch_mean_bytes": chat["mean_bytes"],
        "patch_us_mean": round(statistics.fmean(viewers.us), 1),
        "patch_us_max": round(max(viewers.us), 1),
        "cpu_s": round(time.process_time() - t0, 1),
    }


def main(argv: list[str]) -> None:
    print(json.dumps(run("--quick" in argv)))


if __name__ == "__main__":
    main(sys.argv[1:])
