"""End-to-end benchmark of the offline stack: N concurrent rooms x 12 scripted players.

Starts ``python -m local --echo-route --trace-posts`` as a subprocess, seats and starts every
room over REST + WebSocket, then plays classic games with bots until they end (or
``--duration``), while an echo prober in every room measures a bare round trip through the
same gateway, containers and management API, in the same run.

How an action is timed: every frame carries its own `id`. The stack notes, for each handler
invocation, the client frame `id` it answers and every frame it posted, by connection
(Lambda's `_X_AMZN_TRACE_ID`, which botocore sends on each management API call;
local/lambda_runtime.py and `GET /_local/trace` in local/gateway.py). An action's latency runs
from its send to the moment the LAST connection it posted a view to has received that view
(on each socket the post's frame is found by that socket's own `version`): "every viewer it
changed has its new view". A refusal is timed to its error frame (matched by `id`). No
attribution by time window or by the room's highest version.

    .venv/bin/python bench/e2e.py                 # a sweep: 1, 5 and 20 rooms x 12 players
    .venv/bin/python bench/e2e.py --rooms 20      # one load
    .venv/bin/python bench/e2e.py --quick         # 1 then 2 rooms x 4 players, 6 s each: does it run

Each load of the sweep runs on a stack of its own. Prints ONE JSON object: the figures of the
heaviest load (below), and
  sweep                             each load's headline figures (rooms, p50_ms, p99_ms,
                                    baseline_p99_ms, ratio_p99, phase-end lateness, actions_per_s,
                                    p99_vs_lightest: its p99_ms / the lightest load's)
  bend                              where latency bends: the fewest rooms whose p99_ms is more than
                                    BEND times the lightest load's (None: it never did)
The figures of the heaviest load:
  method                            this paragraph, in one line
  rooms, players, actions           what ran (actions = frames whose invocation posted a view)
  p50_ms, p99_ms                    frame sent -> every view it posted received
  ack_p50_ms                        refused frame sent -> its error frame received
  refused, unchanged                frames answered by an error / that posted no new view (an
                                    early nudge's answer resends the current one)
  views_per_action                  view frames one action posted (mean)
  missing_views                     posted views a socket never received (0 expected)
  version_gaps, version_repeats     versions a socket never received between its first and last
                                    view / views at the version it held (both 0 expected: one
                                    version per change)
  views_out_of_order                views that reached a socket after a newer one (two invocations'
                                    pushes racing; the client keeps the newer): load, not loss
  pushes_by_cause                   view frames posted, by what caused them: "action" (a timed
                                    frame), "$default:sync" / ":ready" / ":start" (the set-up's
                                    frames), "timer" (the Scheduler ending a phase), "$connect"
                                    (a presence mark changed), ...: the frames a window-based
                                    count called stray
  version_repeats_by_cause          views posted twice at one version to one socket, by the
                                    later post's cause (a `sync` answer resends the current view)
  baseline_p50_ms, baseline_p99_ms  echo frame sent -> echo received (same sockets, same time)
  ratio_p99                         p99_ms / baseline_p99_ms (goal <= 3)
  p99_split_ms                      where the tail's time goes: the mean, over the actions at or
                                    above p99_ms, of to_gateway (sent -> the gateway invoked the
                                    handler), queue (-> a container began it), handler (-> its
                                    first new view posted: load, own work, write), posts (first ->
                                    last new view posted), write (-> the last of them handed to
                                    its socket by the gateway), to_client (-> the last view
                                    received: the socket and the client's loop);
                                    they add up to the action's time; p50_split_ms: each median;
                                    p50_ms_by_action / p50_split_ms_by_action: the same medians
                                    per frame action (a `chat` posts a view to every seat);
                                    min_split_ms: each span's least over all timed actions (at or
                                    above zero by causality: the stamps' own check)
  p99_holders                       what the containers ran while the tail waited for one: the
                                    container time overlapping those waits by cause (ms), the
                                    run's longest invocations [cause, ms], and the tail's actions
                                    [action, ms, s after the run's first invocation]
  max_message_bytes                 the largest frame any client received
  phase_end_lateness_p50_s/_p99_s   real seconds from a phase's endsAt to its next view reaching
                                    the room, with clients connected (they nudge); goal <= 1
  phase_end_lateness_p99_game_s     the same in game seconds (x time scale)
  load                              os.getloadavg() before and after (the machine is shared)
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "layers" / "engine")]  # local.client plays by the engine's policy

import aiohttp  # noqa: E402

from local.client import Api, Bot, Player, Received, fill_room, seat_ready, start_seated  # noqa: E402
from local.process import start_stack  # noqa: E402

DEBUG = False
METHOD = ("each frame is timed from its send to the receipt of the last view its own invocation posted "
          "(the stack's per-invocation trace: client frame id -> posts by connection; each post found on "
          "its socket by that socket's version); refusals to their error frame by id; echo baseline = "
          "echo route round trips on the same sockets, same run; the client process plays with its "
          "cyclic garbage collector off (as timeit times), its pauses not counted as the system's")


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
    sent: list[tuple[str, str, float, Player]] = field(default_factory=list)  # (frame id, action, t0, sender)
    phase_end: dict[int, float] = field(default_factory=dict)  # phase seq -> real (monotonic) endsAt
    phase_seen: dict[int, float] = field(default_factory=dict)  # phase seq -> first receipt
    phase_kind: dict[int, str] = field(default_factory=dict)
    echo_ms: list[float] = field(default_factory=list)
    max_bytes: int = 0
    nudges: int = 0
    last_nudge: tuple = ()
    started: float = 0.0
    until: float = 0.0
    think_s: float = 0.5  # mean pause between two frames of the room (players think)

    def on_frame(self, player: Player, got: Received) -> None:
        self.max_bytes = max(self.max_bytes, got.size)
        data = got.data
        if not (isinstance(data, dict) and data.get("type") == "view"):
            return
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
    """Send one frame; what it caused is read from the stack's trace after the run."""
    t0 = time.monotonic()
    fid = await sender.send(action, **payload)
    room.sent.append((fid, action, t0, sender))


async def drive(room: RoomRun, until: float) -> None:
    """Play the room's game one frame at a time until it ends or time runs out: the bots'
    answers to their tasks, table talk, and the nudge every client sends when its countdown
    hits zero, all from this one loop, so no two frames of the room are ever in flight."""
    while not room.over and time.monotonic() < until:
        sender, frame = None, None
        left = room.seconds_left()
        seq = (room.players[0].view or {}).get("phase", {}).get("seq")
        if left is not None and left <= 0 and (seq, int(-left * 4)) != room.last_nudge:
            # at most ~4 nudges a second per room, and one frame of the room in flight at a time
            room.last_nudge = (seq, int(-left * 4))
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
            await asyncio.sleep(0.05 if left is None else max(0.05, min(0.1, left)))
            continue
        action = frame.pop("action")
        if DEBUG:
            print(f"{time.monotonic():.2f} {id(room) % 1000} send {action} {frame} "
                  f"phase={sender.phase_kind()} left={left}", file=sys.stderr)
        await measure(room, sender, action, frame)
        # The players think, but a countdown that reaches zero meanwhile is nudged soon (a
        # countdown already at zero: at the nudge pace, not in a busy loop of table talk).
        pause = room.rng.uniform(0.5, 1.5) * room.think_s
        left = room.seconds_left()
        await asyncio.sleep(pause if left is None else max(0.05, min(pause, left if left > 0 else 0.25)))


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
    """A room seated and ready, not started (`bench` starts every room once all are ready)."""
    seats = await fill_room(api, n_players, prefix=f"R{seed}P")
    players = await seat_ready(http, seats, timeout=60)
    rng = random.Random(seed)
    bots = [Bot(p, random.Random(seed * 1000 + i), confirm_yes=0.8) for i, p in enumerate(players)]
    room = RoomRun(players, bots, rng, think_s=think_s)
    for p in players:
        p.watch(room.on_frame)
    return room


async def introduce(players: list[Player]) -> dict[str, Player]:
    """Frame id -> socket: each socket sends one `ping` with its own id, so the trace
    names the connection behind every socket (a connection id is never shown to a client)."""
    return {await p.send("ping"): p for p in players}


async def fetch_trace(http: aiohttp.ClientSession, url: str) -> list[dict]:
    async with http.get(url + "_local/trace") as res:
        if res.status != 200:
            raise SystemExit(f"the stack does not trace its posts (start it with --trace-posts): {res.status}")
        return (await res.json())["invocations"]


def receipt(player: Player, version: int, after: float) -> float | None:
    """When ``player``'s socket received its view frame ``version`` (the first at or after ``after``)."""
    for got in player.frames:
        d = got.data
        if got.at >= after and isinstance(d, dict) and d.get("type") == "view" and d.get("version") == version:
            return got.at
    return None


def error_receipt(player: Player, fid: str, after: float) -> float | None:
    for got in player.frames:
        d = got.data
        if got.at >= after and isinstance(d, dict) and d.get("type") == "error" and d.get("id") == fid:
            return got.at
    return None


def socket_versions(players: list[Player]) -> tuple[int, int, int]:
    """Per socket, between its first and its last view frame: gaps (versions it never received;
    every connection of a viewer gets every version from its first full view on, docs/protocol.md),
    repeats (a view at the version it held) and views that arrived after a newer one (pushes of two
    invocations racing to one socket: the client keeps the newer, so not a gap)."""
    gaps = repeats = late = 0
    for p in players:
        seen: list[int] = []
        for got in p.frames:
            d = got.data
            if isinstance(d, dict) and d.get("type") == "view":
                v = d.get("version", 0)
                repeats += bool(seen) and v == seen[-1]
                late += bool(seen) and v < max(seen)
                seen.append(v)
        if seen:
            gaps += len(set(range(min(seen), max(seen) + 1)) - set(seen))
    return gaps, repeats, late


SPLIT = ("to_gateway", "queue", "handler", "posts", "write", "to_client")


def split(t0: float, inv: dict, views: list, last_arrival: float) -> dict:
    """Where one action's time went, in ms (they add up to its latency): the frame's way to the
    gateway (sent -> the gateway invoked the handler), the wait for a free container
    (invoked -> a container began it), the handler up to its first new view posted (its load,
    its own work, its write), the posts (first -> last of its new views, as the gateway got
    them), the gateway handing them to their sockets (-> the last handed over) and the last
    view's way through the socket into the client's loop. The client times on time.monotonic,
    the stack on time.time, one machine's two clocks (`CLOCKS`: their difference, bracketed).
    Each stamp is taken no later than what it marks, so causality keeps every span at or
    above zero but for the clocks' bracket (microseconds)."""
    posted = [post[4] for post in views]
    written = [post[5] if len(post) > 5 else post[4] for post in views]
    sent, arrived = t0 + CLOCKS, last_arrival + CLOCKS
    began = inv.get("began", inv["start"])
    spans = {
        "to_gateway": inv["start"] - sent,
        "queue": began - inv["start"],
        "handler": min(posted) - began,
        "posts": max(posted) - min(posted),
        "write": max(written) - max(posted),
        "to_client": arrived - max(written),
    }
    return {k: v * 1000 for k, v in spans.items()}


def clocks_offset(samples: int = 200) -> float:
    """time.time() - time.monotonic(), bracketed: the wall clock read between two monotonic
    reads, from the sample whose bracket was narrowest (a read preempted between the two clocks
    on a busy machine would shift every cross-process span by the preemption)."""
    best = None
    for _ in range(samples):
        m1 = time.monotonic()
        wall = time.time()
        m2 = time.monotonic()
        if best is None or m2 - m1 < best[0]:
            best = (m2 - m1, wall - (m1 + m2) / 2)
    return best[1]


CLOCKS = clocks_offset()


def tail_split(latencies: list[float], splits: list[dict], q: float) -> dict | None:
    """The mean split of the actions at or above the q-quantile latency (the tail), and their count."""
    cut = pct(latencies, q)
    if cut is None:
        return None
    tail = [s for ms, s in zip(latencies, splits, strict=True) if ms >= cut]
    return {"actions": len(tail), **{k: _r(sum(s[k] for s in tail) / len(tail), 1) for k in SPLIT}}


def tail_holders(latencies: list[float], timed: list[dict], invocations: list[dict], q: float) -> dict | None:
    """What the containers ran while the tail's actions (at or above the q-quantile latency)
    waited for one: per cause, the container time that overlapped those waits (ms, summed over
    the tail), and the longest invocations of the run (cause, ms in a container)."""
    cut = pct(latencies, q)
    if cut is None:
        return None
    ran = [i for i in invocations if "began" in i and "ended" in i]
    first = min((i["start"] for i in ran), default=0.0)
    held: dict[str, float] = {}
    tail: list[list] = []
    for ms, inv in zip(latencies, timed, strict=True):
        if ms < cut:
            continue
        tail.append([inv.get("action"), _r(ms, 1), _r(inv["start"] - first, 2)])
        a, b = inv["start"], inv.get("began", inv["start"])
        for other in ran:
            overlap = min(other["ended"], b) - max(other["began"], a)
            if overlap > 0 and other is not inv:
                held[other["holder"]] = held.get(other["holder"], 0.0) + overlap * 1000
    longest = sorted(ran, key=lambda i: i["ended"] - i["began"], reverse=True)[:8]
    return {
        "held_ms_by_cause": {k: _r(v, 1) for k, v in sorted(held.items(), key=lambda kv: -kv[1])},
        "longest_invocations": [[i["holder"], _r((i["ended"] - i["began"]) * 1000, 1)] for i in longest],
        "tail": sorted(tail, key=lambda t: t[2]),  # [action, ms, s after the run's first invocation]
    }


def attribute(rooms: list[RoomRun], invocations: list[dict], hello: dict[str, Player]) -> dict:
    """Join the stack's trace with what the sockets received: per action, the views it posted
    and when each arrived."""
    by_frame = {inv["frameId"]: inv for inv in invocations if inv.get("frameId") is not None}
    socket_of: dict[str, Player] = {}
    for fid, p in hello.items():
        inv = by_frame.get(fid)
        if inv and inv.get("connection"):
            socket_of[inv["connection"]] = p
    # A view is new to its socket when its version is above every one posted there before;
    # the others resend an unchanged view (an early nudge is answered with the current view,
    # docs/protocol.md): they changed nothing and are not timed as changes.
    top: dict[str, int] = {}
    for inv in invocations:
        inv["new"] = []
    flat = [(i, post) for i in invocations for post in i["posts"]]
    for owner, post in sorted(flat, key=lambda x: x[1][4]):  # in the order the gateway got them
        conn, kind, version = post[0], post[1], post[2]
        if kind == "view" and isinstance(version, int):
            if version > top.get(conn, -1):
                owner["new"].append(post)
            top[conn] = max(version, top.get(conn, -1))
    latencies, views_per_action, acks = [], [], []
    splits: list[dict] = []  # per timed action, where its time went (`SPLIT`), beside `latencies`
    timed: list[dict] = []  # per timed action, its invocation, beside `latencies`
    by_action: dict[str, list[float]] = {}
    splits_by_action: dict[str, list[dict]] = {}
    refused = unchanged = missing = untraced = 0
    ours: set = set()
    for r in rooms:
        for fid, action, t0, sender in r.sent:
            ours.add(fid)
            inv = by_frame.get(fid)
            if inv is None:
                untraced += 1
                continue
            views = inv["new"]
            if any(post[1] == "error" for post in inv["posts"]):
                refused += 1
                at = error_receipt(sender, fid, t0)
                if at is not None:
                    acks.append((at - t0) * 1000)
                continue
            if not views:
                unchanged += 1
                continue
            arrivals = []
            for conn, _kind, version, *_at in views:
                p = socket_of.get(conn)
                at = receipt(p, version, t0) if p is not None else None
                if at is None:
                    missing += 1
                else:
                    arrivals.append(at)
            if arrivals:
                ms = (max(arrivals) - t0) * 1000
                latencies.append(ms)
                splits.append(split(t0, inv, views, max(arrivals)))
                timed.append(inv)
                views_per_action.append(len(views))
                by_action.setdefault(action, []).append(ms)
                splits_by_action.setdefault(action, []).append(splits[-1])
    def cause(inv: dict) -> str:
        if inv.get("frameId") in ours:
            return "action"
        return f"{inv['route']}:{inv['action']}" if inv.get("action") else inv["route"]

    for inv in invocations:  # (a timed action by its frame's action too, for `tail_holders`)
        inv["cause"] = cause(inv)
        inv["holder"] = f"action:{inv.get('action')}" if inv["cause"] == "action" else inv["cause"]
    causes: dict[str, int] = {}
    posted: dict[tuple, list[str]] = {}  # (connection, version) -> what posted it, in order
    seen_by: dict[tuple, list] = {}
    for inv in sorted(invocations, key=lambda i: i["start"]):
        for conn, kind, version, _size, _at, *_written in inv["posts"]:
            if kind == "view":
                causes[inv["cause"]] = causes.get(inv["cause"], 0) + 1
                posted.setdefault((conn, version), []).append(inv["cause"])
                if DEBUG:
                    seen_by.setdefault((conn, version), []).append(
                        (round(inv["start"] % 1000, 3), inv["route"], inv.get("action"), _size, round(_at % 1000, 3)))
    # A version posted twice to one socket: the later post resent a view that had not changed.
    repeats: dict[str, int] = {}
    if DEBUG:
        for key, by in seen_by.items():
            if len(by) > 1:
                print("repeat", key[0][-6:], key[1], by, file=sys.stderr)
    for by in posted.values():
        for c in by[1:]:
            repeats[c] = repeats.get(c, 0) + 1
    return {"latencies": latencies, "splits": splits, "timed": timed, "views_per_action": views_per_action, "acks": acks,
            "by_action": by_action, "splits_by_action": splits_by_action,
            "refused": refused, "unchanged": unchanged, "missing": missing, "untraced": untraced,
            "causes": causes, "repeats": repeats, "sockets_known": len(socket_of)}


async def bench(url: str, n_rooms: int, n_players: int, duration: float, echo_interval: float,
                think_s: float) -> dict:
    load_before = os.getloadavg()
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:
        api = Api(http, url)
        sem = asyncio.Semaphore(5)
        hello: dict[str, Player] = {}
        started = time.monotonic()

        async def seat(i: int) -> RoomRun:
            async with sem:
                room = await setup_room(http, api, n_players, i + 1, think_s)
            hello.update(await introduce(room.players))
            return room

        async def play(room: RoomRun) -> RoomRun:
            # The host thinks before pressing start, as every player before every frame: the
            # rooms' starts (and so their phases' timers) are not all in the same millisecond.
            await asyncio.sleep(room.rng.uniform(0.5, 1.5) * room.think_s)
            await start_seated(room.players, timeout=60)
            # Each room plays as soon as it has started, so no phase runs out unattended.
            room.started = time.monotonic()
            until = room.until = room.started + duration
            await asyncio.gather(drive(room, until), echo_probe(room, until, echo_interval))
            return room

        # Every room is seated, readied and introduced before any plays: the set-up sends a
        # room's 11 `ready` frames in one millisecond (a harness's burst, not a table's), whose
        # conflicts held the containers for up to 1.9 s each and were the whole p99 of the rooms
        # already playing (`p99_holders`, 2026-12-06). Measured: play, the starts included.
        seated = await asyncio.gather(*(seat(i) for i in range(n_rooms)))
        # This one process is every room's phones: while they play, its cyclic collector is off
        # (as timeit does). On, its full collections over the frames it keeps paused all 60
        # sockets at once, up to 284 ms (5 of them in a 5-room run, 855 ms in all), and counted
        # as the system's latency (`to_client`) and the echo's alike.
        gc.collect()
        gc.freeze()
        gc.disable()
        try:
            rooms = await asyncio.gather(*(play(r) for r in seated))
        finally:
            gc.enable()
            gc.unfreeze()
        elapsed = time.monotonic() - started
        await asyncio.sleep(1.0)  # let the last frames of the last actions land
        invocations = await fetch_trace(http, url)
        for r in rooms:
            for p in r.players:
                await p.close()

    got = attribute(rooms, invocations, hello)
    latencies, lateness, echo = got["latencies"], [], []
    for r in rooms:
        for seq, seen in r.phase_seen.items():
            end = r.phase_end.get(seq - 1)
            # Only phases that ran out while the room's clients were playing (and nudging).
            if end is not None and seq > 1 and r.started < end < r.until - 1.0:
                lateness.append(seen - end)
                if DEBUG and seen - end > 1:
                    print(f"late {seen - end:.2f}s: {r.phase_kind.get(seq - 1)} -> {r.phase_kind.get(seq)} "
                          f"seq={seq} room={id(r) % 1000}", file=sys.stderr)
        echo.extend(r.echo_ms)
    gaps, repeats, late = socket_versions([p for r in rooms for p in r.players])
    p99, b99 = pct(latencies, 0.99), pct(echo, 0.99)
    scale = rooms[0].players[0].view.get("clockRate", 1.0) if rooms and rooms[0].players[0].view else 1.0
    late99 = pct(lateness, 0.99)
    vpa = got["views_per_action"]
    return {
        "method": METHOD,
        "rooms": n_rooms,
        "players": n_rooms * n_players,
        "actions": len(latencies),
        "p50_ms": _r(pct(latencies, 0.5)),
        "p99_ms": _r(p99),
        "ack_p50_ms": _r(pct(got["acks"], 0.5)),
        "baseline_p50_ms": _r(pct(echo, 0.5)),
        "baseline_p99_ms": _r(b99),
        "ratio_p99": _r(p99 / b99 if p99 is not None and b99 else None, 2),
        "p99_split_ms": tail_split(latencies, got["splits"], 0.99),
        "p50_split_ms": {k: _r(pct([s[k] for s in got["splits"]], 0.5), 1) for k in SPLIT},
        "min_split_ms": {k: _r(min((s[k] for s in got["splits"]), default=None), 1) for k in SPLIT},
        "p99_holders": tail_holders(latencies, got["timed"], invocations, 0.99),
        "views_per_action": _r(sum(vpa) / len(vpa) if vpa else None, 2),
        "max_message_bytes": max((r.max_bytes for r in rooms), default=0),
        "phase_end_lateness_p50_s": _r(pct(lateness, 0.5), 3),
        "phase_end_lateness_p99_s": _r(late99, 3),
        "phase_end_lateness_p99_game_s": _r(late99 * scale if late99 is not None else None, 3),
        "phase_ends": len(lateness),
        "p50_ms_by_action": {k: _r(pct(v, 0.5)) for k, v in sorted(got["by_action"].items())},
        "p50_split_ms_by_action": {
            a: {k: _r(pct([s[k] for s in v], 0.5), 1) for k in SPLIT} for a, v in sorted(got["splits_by_action"].items())
        },
        "sent_by_action": _count(a for r in rooms for _, a, _, _ in r.sent),
        "refused": got["refused"],
        "unchanged": got["unchanged"],
        "missing_views": got["missing"],
        "untraced": got["untraced"],
        "sockets_known": got["sockets_known"],
        "version_gaps": gaps,
        "version_repeats": repeats,
        "views_out_of_order": late,
        "pushes_by_cause": got["causes"],
        "version_repeats_by_cause": got["repeats"],
        "nudges": sum(r.nudges for r in rooms),
        "echoes": len(echo),
        "games_ended": sum(1 for r in rooms if r.over),
        "time_scale": scale,
        "seconds": _r(elapsed, 1),
        "actions_per_s": _r(len(latencies) / elapsed if elapsed else None, 1),
        "think_s": think_s,
        "load": {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in os.getloadavg()],
                 "cpus": os.cpu_count()},
    }


def _count(items) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in items:
        out[x] = out.get(x, 0) + 1
    return dict(sorted(out.items()))


def _r(x: float | None, nd: int = 1) -> float | None:
    return None if x is None else round(x, nd)


# A load "bends" latency where its p99 exceeds this many times the lightest load's.
BEND = 2.0


def sweep_summary(levels: list[dict]) -> dict:
    """`sweep` and `bend` of the output from each load's figures (lightest first)."""
    ref = levels[0]["p99_ms"]
    keys = ("rooms", "players", "actions", "p50_ms", "p99_ms", "baseline_p99_ms", "ratio_p99",
            "phase_end_lateness_p99_s", "actions_per_s", "load")
    sweep = [{**{k: lv[k] for k in keys}, "p99_vs_lightest": _r(lv["p99_ms"] / ref, 2) if ref and lv["p99_ms"] else None}
             for lv in levels]
    bent = next((lv["rooms"] for lv in sweep if (lv["p99_vs_lightest"] or 0) > BEND), None)
    return {"sweep": sweep, "bend": {"rooms": bent, "rule": f"the fewest rooms whose p99_ms > {BEND} x "
                                                            f"the lightest load's ({levels[0]['rooms']} rooms)"}}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rooms", default="1,5,20", help="the loads to sweep, lightest first (rooms, comma-separated)")
    p.add_argument("--players", type=int, default=12)
    p.add_argument("--time-scale", type=float, default=5.0)
    p.add_argument("--duration", type=float, default=90.0, help="real seconds of play at most")
    p.add_argument("--echo-interval", type=float, default=1.0, help="seconds between echoes per room")
    p.add_argument("--think", type=float, default=0.5,
                   help="mean real seconds between two frames of one room (the players' pace)")
    p.add_argument("--containers", type=int, default=4, help="handler processes of the stack it starts")
    p.add_argument("--url", help="bench a running stack (started with --echo-route --trace-posts) instead")
    p.add_argument("--debug", action="store_true", help="explain late phase ends on stderr")
    p.add_argument("--quick", action="store_true",
                   help="1 then 2 rooms x 4 players for 6 s each at time scale 20: checks it runs (tests/bench)")
    a = p.parse_args()
    loads = sorted(int(n) for n in a.rooms.split(","))
    if a.quick:
        loads, a.players, a.duration, a.time_scale, a.echo_interval = [1, 2], 4, 6.0, 20.0, 0.5
        a.containers = 2
    global DEBUG
    DEBUG = a.debug
    levels = []
    for n_rooms in loads:
        stack = None
        url = a.url
        if url is None:
            stack = start_stack("--echo-route", "--trace-posts", "--containers", str(a.containers),
                                time_scale=a.time_scale)
            url = stack.url
        try:
            levels.append(asyncio.run(bench(url, n_rooms, a.players, a.duration, a.echo_interval, a.think)))
        finally:
            if stack is not None:
                stack.stop()
    print(json.dumps({**levels[-1], **sweep_summary(levels)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
