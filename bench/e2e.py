"""End-to-end benchmark of the offline stack: N concurrent rooms x 12 scripted players.

Starts ``python -m local --echo-route`` as a subprocess, seats and starts every room over
REST + WebSocket, then plays classic games with bots until they end (or ``--duration``).
Each room is driven by one loop that sends one frame at a time, nudges included (so every
view frame the room's sockets receive between a frame and the room's next belongs to that
frame: acks are errors carrying the frame's `id`, pushes are attributed by the send window,
never by `version`, which is each viewer's own counter), while an echo prober in every room
measures a bare round trip through the same gateway, thread pool and management API, in the
same run.

    .venv/bin/python bench/e2e.py                 # 20 rooms x 12 players
    .venv/bin/python bench/e2e.py --quick         # 2 rooms x 6 players, 15 s: does it run

Prints ONE JSON object:
  method                            this paragraph, in one line
  rooms, players, actions           what ran (actions = frames that changed at least one view)
  p50_ms, p99_ms                    frame sent -> the last view frame it caused has reached its
                                    client (the room then stays silent QUIET_S)
  refused, unchanged                frames answered by an error with their id / by no view
  version_gaps, version_repeats     a socket's version moved by > 1 (a lost push) / not at all
                                    (a push without a change); both 0 when pushes = changed views
  stray_frames                      view frames outside every frame's window (0 expected)
  baseline_p50_ms, baseline_p99_ms  echo frame sent -> echo received (same sockets, same time)
  ratio_p99                         p99_ms / baseline_p99_ms (goal <= 3)
  messages_per_action               view frames pushed per action
  max_message_bytes                 the largest frame any client received
  phase_end_lateness_p99_s          real seconds from a phase's endsAt to its next view reaching
                                    the room, with clients connected (they nudge); goal <= 1
  phase_end_lateness_p99_game_s     the same in game seconds (x time scale)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import aiohttp  # noqa: E402

from local.client import Api, Bot, Player, Received, fill_room, start_game  # noqa: E402
from local.process import start_stack  # noqa: E402

DEBUG = False
METHOD = ("each room sends one frame at a time (bot tasks, chat, nudges at countdown zero) and times it from "
          "the send to the last view frame any socket of the room receives before QUIET_S of silence; "
          "errors are matched by frame id; echo baseline = echo route round trips on the same sockets")


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    xs = sorted(values)
    return xs[max(0, min(len(xs) - 1, math.ceil(q * len(xs)) - 1))]


QUIET_S = 0.3  # a room's sockets silent this long after an action: its pushes have all landed
SETTLE_MAX_S = 5.0


@dataclass
class RoomRun:
    """What one room records while it plays."""

    players: list[Player]
    bots: list[Bot]
    rng: random.Random
    window: list[float] | None = None  # receipts of view frames since the room's frame in flight was sent
    last_frame_at: float = 0.0
    samples: list[tuple[str, float, int]] = field(default_factory=list)  # (action, ms, view frames)
    versions: dict[int, int] = field(default_factory=dict)  # socket -> last view version it got
    version_gaps: int = 0  # a socket's version moved by more than one: a push it never got
    version_repeats: int = 0  # a push that did not move its viewer's version: nothing changed
    stray_frames: int = 0  # view frames outside every action's window (timers; none expected)
    refused: int = 0
    unchanged: int = 0
    phase_end: dict[int, float] = field(default_factory=dict)  # phase seq -> real (monotonic) endsAt
    phase_seen: dict[int, float] = field(default_factory=dict)  # phase seq -> first receipt
    phase_kind: dict[int, str] = field(default_factory=dict)
    echo_ms: list[float] = field(default_factory=list)
    max_bytes: int = 0
    nudges: int = 0
    started: float = 0.0
    until: float = 0.0
    think_s: float = 0.5  # mean pause between two frames of the room (players think)

    def on_frame(self, player: Player, got: Received) -> None:
        self.max_bytes = max(self.max_bytes, got.size)
        data = got.data
        if not (isinstance(data, dict) and data.get("type") == "view"):
            return
        self.last_frame_at = got.at
        if self.window is not None:
            self.window.append(got.at)
        else:
            self.stray_frames += 1
        # A frame's version is its viewer's own counter (functions/service/viewdiff.py): on one
        # socket it moves by exactly one per push, or a push was lost or sent without a change.
        v, key = data.get("version", 0), id(player)
        prev = self.versions.get(key)
        if prev is not None and v == prev:
            self.version_repeats += 1
        elif prev is not None and v > prev + 1:
            self.version_gaps += 1
        self.versions[key] = max(v, prev or 0)
        view = data["view"]
        phase = view.get("phase") or {}
        seq = phase.get("seq")
        if seq is None:
            return
        self.phase_seen.setdefault(seq, got.at)
        self.phase_kind.setdefault(seq, phase.get("kind", "?"))
        if phase.get("endsAt") is not None and view.get("serverNow") is not None:
            rate = float(view.get("clockRate") or 1.0)
            self.phase_end[seq] = got.at + (float(phase["endsAt"]) - float(view["serverNow"])) / rate

    @property
    def over(self) -> bool:
        return all((p.view or {}).get("result") for p in self.players)

    def seconds_left(self) -> float | None:
        lefts = [x for b in self.bots if b.player.view and (x := b.player.seconds_left()) is not None]
        return min(lefts) if lefts else None


async def measure(room: RoomRun, sender: Player, action: str, payload: dict) -> None:
    """Send one frame with its own id and time it to the last view it caused: the room has
    nothing else in flight, so every view frame any of its sockets receives from the send
    until QUIET_S of silence belongs to this frame. An error carrying the frame's id marks
    it refused (not timed); a frame answered by no view changed nothing (not timed)."""
    room.window = []
    t0 = time.monotonic()
    fid = await sender.send(action, **payload)
    while True:
        await asyncio.sleep(0.02)
        now = time.monotonic()
        if sender.error_for(fid) or now - max(t0, room.last_frame_at) >= QUIET_S or now - t0 > SETTLE_MAX_S:
            break
    got, room.window = room.window, None
    if sender.error_for(fid):
        room.refused += 1
    elif not got:
        room.unchanged += 1
    else:
        room.samples.append((action, (max(got) - t0) * 1000, len(got)))


async def drive(room: RoomRun, until: float) -> None:
    """Play the room's game one frame at a time until it ends or time runs out: the bots'
    answers to their tasks, table talk, and the nudge every client sends when its countdown
    hits zero, all from this one loop, so no two frames of the room are ever in flight."""
    while not room.over and time.monotonic() < until:
        sender, frame = None, None
        left = room.seconds_left()
        if left is not None and left <= 0:
            alive = [b.player for b in room.bots if not b.player.closed and b.player.view]
            sender, frame = room.rng.choice(alive), {"action": "nudge"}
            room.nudges += 1
        if frame is None:
            order = room.bots[:]
            room.rng.shuffle(order)
            for bot in order:
                decided = bot.decide()
                if decided:
                    sender, frame = bot.player, decided
                    break
        if frame is None and room.rng.random() < 0.3:
            # Table talk: a chat line on a channel the speaker may write to.
            bot = room.rng.choice(room.bots)
            write = ((bot.player.view or {}).get("channels") or {}).get("write") or []
            if write and (bot.player.view or {}).get("you", {}).get("alive"):
                sender, frame = bot.player, {"action": "chat", "channel": write[0], "text": "hmm, suspicious"}
        if frame is None:
            await asyncio.sleep(0.05 if left is None else max(0.0, min(0.1, left)))
            continue
        action = frame.pop("action")
        if DEBUG:
            print(f"{time.monotonic():.2f} {id(room) % 1000} send {action} {frame} "
                  f"phase={sender.phase_kind()} left={left}", file=sys.stderr)
        await measure(room, sender, action, frame)
        # The players think, but a countdown that reaches zero meanwhile is nudged at once.
        pause = room.rng.uniform(0.5, 1.5) * room.think_s
        left = room.seconds_left()
        await asyncio.sleep(pause if left is None else max(0.0, min(pause, left)))


async def echo_probe(room: RoomRun, until: float, interval: float) -> None:
    """Bare round trips through the gateway's echo route from one of the room's sockets."""
    n = 0
    while not room.over and time.monotonic() < until:
        await asyncio.sleep(room.rng.uniform(0.5, 1.5) * interval)
        player = room.rng.choice(room.players)
        if player.closed:
            continue
        n += 1
        tag = f"echo-{id(room)}-{n}"
        before = len(player.other)
        t0 = time.monotonic()
        await player.send_raw(json.dumps({"action": "echo", "id": tag}))
        try:
            await player.wait_for(
                lambda p, b=before, t=tag: any(isinstance(o, dict) and o.get("id") == t for o in p.other[b:]),
                timeout=10,
            )
        except TimeoutError:
            continue
        room.echo_ms.append((time.monotonic() - t0) * 1000)


async def setup_room(http: aiohttp.ClientSession, api: Api, n_players: int, seed: int, think_s: float) -> RoomRun:
    seats = await fill_room(api, n_players, prefix=f"R{seed}P")
    players = await start_game(http, seats, timeout=60)
    rng = random.Random(seed)
    bots = [Bot(p, random.Random(seed * 1000 + i), confirm_yes=0.8) for i, p in enumerate(players)]
    room = RoomRun(players, bots, rng, think_s=think_s)
    for p in players:
        p.watch(room.on_frame)
    return room


async def bench(url: str, n_rooms: int, n_players: int, duration: float, echo_interval: float,
                think_s: float) -> dict:
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:
        api = Api(http, url)
        sem = asyncio.Semaphore(5)

        started = time.monotonic()

        async def one(i: int) -> RoomRun:
            async with sem:
                room = await setup_room(http, api, n_players, i + 1, think_s)
            # Each room plays as soon as it has started, so no phase runs out unattended.
            room.started = time.monotonic()
            until = room.until = room.started + duration
            await asyncio.gather(drive(room, until), echo_probe(room, until, echo_interval))
            return room

        rooms = await asyncio.gather(*(one(i) for i in range(n_rooms)))
        elapsed = time.monotonic() - started
        await asyncio.sleep(0.5)  # let the last frames of the last actions land
        for r in rooms:
            for p in r.players:
                await p.close()

    latencies, per_action, lateness, echo = [], [], [], []
    by_action: dict[str, list[float]] = {}
    for r in rooms:
        for action, ms, frames in r.samples:
            latencies.append(ms)
            per_action.append(frames)
            by_action.setdefault(action, []).append(ms)
        for seq, seen in r.phase_seen.items():
            end = r.phase_end.get(seq - 1)
            # Only phases that ran out while the room's clients were playing (and nudging).
            if end is not None and seq > 1 and r.started < end < r.until - 1.0:
                lateness.append(seen - end)
                if DEBUG and seen - end > 1:
                    print(f"late {seen - end:.2f}s: {r.phase_kind.get(seq - 1)} -> {r.phase_kind.get(seq)} "
                          f"seq={seq} end={end:.2f} seen={seen:.2f} room={id(r) % 1000} until={r.started:.2f}+",
                          file=sys.stderr)
        echo.extend(r.echo_ms)
    if DEBUG:
        import collections

        codes = collections.Counter(e.get("code") for r in rooms for p in r.players for e in p.errors)
        print("errors:", dict(codes), file=sys.stderr)
    p99, b99 = pct(latencies, 0.99), pct(echo, 0.99)
    scale = rooms[0].players[0].view.get("clockRate", 1.0) if rooms and rooms[0].players[0].view else 1.0
    late99 = pct(lateness, 0.99)
    return {
        "method": METHOD,
        "rooms": n_rooms,
        "players": n_rooms * n_players,
        "actions": len(latencies),
        "p50_ms": _r(pct(latencies, 0.5)),
        "p99_ms": _r(p99),
        "baseline_p50_ms": _r(pct(echo, 0.5)),
        "baseline_p99_ms": _r(b99),
        "ratio_p99": _r(p99 / b99 if p99 is not None and b99 else None, 2),
        "messages_per_action": _r(sum(per_action) / len(per_action) if per_action else None, 2),
        "max_message_bytes": max((r.max_bytes for r in rooms), default=0),
        "phase_end_lateness_p99_s": _r(late99, 3),
        "phase_end_lateness_p99_game_s": _r(late99 * scale if late99 is not None else None, 3),
        "phase_ends": len(lateness),
        "p50_ms_by_action": {k: _r(pct(v, 0.5)) for k, v in sorted(by_action.items())},
        "refused": sum(r.refused for r in rooms),
        "unchanged": sum(r.unchanged for r in rooms),
        "version_gaps": sum(r.version_gaps for r in rooms),
        "version_repeats": sum(r.version_repeats for r in rooms),
        "stray_frames": sum(r.stray_frames for r in rooms),
        "nudges": sum(r.nudges for r in rooms),
        "echoes": len(echo),
        "games_ended": sum(1 for r in rooms if r.over),
        "time_scale": scale,
        "seconds": _r(elapsed, 1),
        "actions_per_s": _r(len(latencies) / elapsed if elapsed else None, 1),
        "think_s": think_s,
    }


def _r(x: float | None, nd: int = 1) -> float | None:
    return None if x is None else round(x, nd)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rooms", type=int, default=20)
    p.add_argument("--players", type=int, default=12)
    p.add_argument("--time-scale", type=float, default=5.0)
    p.add_argument("--duration", type=float, default=90.0, help="real seconds of play at most")
    p.add_argument("--echo-interval", type=float, default=1.0, help="seconds between echoes per room")
    p.add_argument("--think", type=float, default=0.5,
                   help="mean real seconds between two frames of one room (the players' pace)")
    p.add_argument("--containers", type=int, default=4, help="handler processes of the stack it starts")
    p.add_argument("--url", help="bench a running stack (started with --echo-route) instead of starting one")
    p.add_argument("--debug", action="store_true", help="explain late phase ends on stderr")
    p.add_argument("--quick", action="store_true",
                   help="2 rooms x 6 players for 15 s at time scale 20: checks it runs (tests/bench)")
    a = p.parse_args()
    if a.quick:
        a.rooms, a.players, a.duration, a.time_scale, a.echo_interval = 2, 6, 15.0, 20.0, 0.5
    global DEBUG
    DEBUG = a.debug
    stack = None
    url = a.url
    if url is None:
        stack = start_stack("--echo-route", "--containers", str(a.containers), time_scale=a.time_scale)
        url = stack.url
    try:
        out = asyncio.run(bench(url, a.rooms, a.players, a.duration, a.echo_interval, a.think))
    finally:
        if stack is not None:
            stack.stop()
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
