"""End-to-end benchmark of the offline stack: N concurrent rooms x 12 scripted players.

Starts ``python -m local --echo-route`` as a subprocess, seats and starts every room over
REST + WebSocket, then plays classic games with bots until they end (or ``--duration``).
Each room is driven by one loop that sends one frame at a time (so every new room version
belongs to one action), while an echo prober in every room measures a bare round trip
through the same gateway, thread pool and management API, in the same run.

Prints ONE JSON object:
  rooms, players, actions           what ran (actions = frames that changed a room)
  p50_ms, p99_ms                    action frame sent -> the last affected client has its new view
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


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    xs = sorted(values)
    return xs[max(0, min(len(xs) - 1, math.ceil(q * len(xs)) - 1))]


@dataclass
class RoomRun:
    """What one room records while it plays."""

    players: list[Player]
    bots: list[Bot]
    rng: random.Random
    max_version: int = 0
    first_seen: dict[int, float] = field(default_factory=dict)  # version -> first receipt
    last_seen: dict[int, float] = field(default_factory=dict)  # version -> last receipt
    frames_by_version: dict[int, int] = field(default_factory=dict)
    action_sent: dict[int, float] = field(default_factory=dict)  # version -> send time of its action
    phase_end: dict[int, float] = field(default_factory=dict)  # phase seq -> real (monotonic) endsAt
    phase_seen: dict[int, float] = field(default_factory=dict)  # phase seq -> first receipt
    phase_kind: dict[int, str] = field(default_factory=dict)
    echo_ms: list[float] = field(default_factory=list)
    max_bytes: int = 0
    unmeasured: int = 0
    renudges: int = 0
    nudges: int = 0
    started: float = 0.0
    until: float = 0.0
    think_s: float = 0.5  # mean pause between two frames of the room (players think)

    def on_frame(self, player: Player, got: Received) -> None:
        self.max_bytes = max(self.max_bytes, got.size)
        data = got.data
        if not (isinstance(data, dict) and data.get("type") == "view"):
            return
        v = data.get("version", 0)
        self.max_version = max(self.max_version, v)
        self.first_seen.setdefault(v, got.at)
        self.last_seen[v] = max(self.last_seen.get(v, 0.0), got.at)
        self.frames_by_version[v] = self.frames_by_version.get(v, 0) + 1
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


async def drive(room: RoomRun, until: float) -> None:
    """Play the room's game one frame at a time until it ends or time runs out."""
    while not room.over and time.monotonic() < until:
        sender, frame = None, None
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
            await asyncio.sleep(0.1)
            continue
        before = room.max_version
        action = frame.pop("action")
        if DEBUG:
            print(f"{time.monotonic():.2f} {id(room) % 1000} send {action} {frame} "
                  f"phase={sender.phase_kind()} left={sender.seconds_left()}", file=sys.stderr)
        t0 = time.monotonic()
        fid = await sender.send(action, **frame)
        if action == "readyEarly":
            # Changes no view until the last one (the phase ends): nothing to time.
            await asyncio.sleep(room.rng.uniform(0.5, 1.5) * room.think_s)
            continue
        try:
            await sender.wait_for(
                lambda p, b=before, f=fid: room.max_version > b or p.error_for(f), timeout=2.0
            )
        except TimeoutError:
            room.unmeasured += 1  # accepted without changing any view (e.g. an early readyEarly)
            continue
        if room.max_version > before:
            v = min(x for x in room.first_seen if x > before)
            room.action_sent.setdefault(v, t0)
        await asyncio.sleep(room.rng.uniform(0.5, 1.5) * room.think_s)


async def nudger(room: RoomRun, until: float) -> None:
    """What every client does on its own: when its countdown hits zero, nudge the server
    (again every half second while the phase has not changed)."""
    while not room.over and time.monotonic() < until:
        alive = [b.player for b in room.bots if not b.player.closed and b.player.view]
        lefts = [(p.seconds_left(), p) for p in alive]
        lefts = [(x, p) for x, p in lefts if x is not None]
        if not lefts:
            await asyncio.sleep(0.05)
            continue
        left, player = min(lefts, key=lambda lp: lp[0])
        if left > 0:
            seq = player.view["phase"]["seq"]
            if DEBUG and left > 5:
                print(f"{time.monotonic():.2f} room={id(room) % 1000} waits {left:.1f}s in {player.phase_kind()}",
                      file=sys.stderr)
            try:
                await player.wait_for(lambda p, s=seq: p.view["phase"]["seq"] != s, timeout=left)
            except TimeoutError:
                pass
            continue
        seq = player.view["phase"]["seq"]
        nudger_player = room.rng.choice(alive)
        before = len(nudger_player.frames)
        await nudger_player.send("nudge")
        room.nudges += 1
        try:
            await player.wait_for(lambda p, s=seq: p.view["phase"]["seq"] != s, timeout=1.0)
        except TimeoutError:
            room.renudges += 1
            if DEBUG:
                got = [(g.data.get("type"), g.data.get("code"), (g.data.get("view") or {}).get("phase", {}).get("seq"))
                       for g in nudger_player.frames[before:] if isinstance(g.data, dict)]
                print(f"{time.monotonic():.2f} renudge seq={seq} kind={player.phase_kind()} left={left:.2f} "
                      f"answers={got}", file=sys.stderr)


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
            await asyncio.gather(drive(room, until), nudger(room, until), echo_probe(room, until, echo_interval))
            return room

        rooms = await asyncio.gather(*(one(i) for i in range(n_rooms)))
        elapsed = time.monotonic() - started
        await asyncio.sleep(0.5)  # let the last frames of the last actions land
        for r in rooms:
            for p in r.players:
                await p.close()

    latencies, per_action, lateness, echo = [], [], [], []
    for r in rooms:
        for v, t0 in r.action_sent.items():
            latencies.append((r.last_seen[v] - t0) * 1000)
            per_action.append(r.frames_by_version.get(v, 0))
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
        print("errors:", dict(codes), "unmeasured:", sum(r.unmeasured for r in rooms), file=sys.stderr)
    p99, b99 = pct(latencies, 0.99), pct(echo, 0.99)
    scale = rooms[0].players[0].view.get("clockRate", 1.0) if rooms and rooms[0].players[0].view else 1.0
    late99 = pct(lateness, 0.99)
    return {
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
        "nudges": sum(r.nudges for r in rooms),
        "renudges": sum(r.renudges for r in rooms),
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
    a = p.parse_args()
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
