"""Voice signal floods over the offline stack with several handler containers
(functions/service/features/voice.py, docs/protocol.md "Voice signaling"): the table's budgets
hold whatever container takes a frame, and the flooded seat's socket stays responsive.

Measured, not slept: the flooders send as fast as their sockets take frames, the test counts
what reached the target and what was refused, and times the target's pings during the flood.
Responsive is judged against the flood itself, not a wall-clock bound (which a loaded machine
would miss): a ping queued behind a flood's backlog takes about as long as the flood (17.7 s
before the gateway's per-socket cap); one that is not takes a small part of it."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
import pytest

from local.client import Player, Seat
from service.features import voice

from .stackproc import run, start_stack

SEATS = [{"name": n} for n in ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")]
CONTAINERS = 3
PINGS = 5


@pytest.fixture(scope="module")
def flood_stack():
    stack = start_stack("--containers", str(CONTAINERS), "--max-spectators", "12", manual_clock=True)
    yield stack
    assert stack.stop() == 0, stack.log()


def live_day(stack) -> dict:
    room = stack.room({"options": {"firstPhase": "day"}, "seats": SEATS, "until": {"phase": "discussion"}})
    assert room["phase"] == "discussion"
    return room


def seat(room: dict, name: str) -> Seat:
    s = next(s for s in room["seats"] if s["name"] == name)
    return Seat(room["roomCode"], s["playerId"], s["token"], room["wsUrl"], name)


async def pings_during(target: Player, flood: asyncio.Future) -> list[float]:
    """The target's ping round trips (seconds), one after another while the flood runs."""
    times = []
    for _ in range(PINGS):
        at = time.monotonic()
        reply = await target.request("ping", timeout=30)
        times.append(time.monotonic() - at)
        assert reply.get("type") in ("pong", "view"), reply
    await flood
    return times


async def flood(senders: list[Player], frames_each: int, frame: dict) -> None:
    raw = json.dumps(frame)
    for _ in range(frames_each):
        for s in senders:
            await s.send_raw(raw)


def signals_to(target: Player) -> int:
    return sum(1 for f in target.other if isinstance(f, dict) and f.get("type") == "signal")


async def settle(target: Player, senders: list[Player], sent: int) -> tuple[int, int]:
    """Wait until every flooded frame is answered (relayed to the target or refused to its
    sender): (relayed, refused)."""

    def refused() -> int:
        return sum(1 for s in senders for e in s.errors if e.get("code") == "voice_rate_limited")

    deadline = time.monotonic() + 300  # a bound for a wedged stack, not a measure
    while signals_to(target) + refused() < sent and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return signals_to(target), refused()


def test_a_flood_from_one_socket_is_budgeted_and_the_target_answers_pings(flood_stack):
    room = live_day(flood_stack)
    frames = 1000

    async def body():
        async with aiohttp.ClientSession() as http:
            target = await Player.connect(http, seat(room, "Ann"))
            flooder = await Player.connect(http, seat(room, "Bob"))
            # offers (an answer or ICE goes only within a pair one side offered: voice_not_offered)
            sdp = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
            offer = {"action": "signal", "to": target.seat_id(), "kind": "offer", "sdp": sdp}
            start = time.monotonic()
            times = await pings_during(target, asyncio.ensure_future(flood([flooder], frames, offer)))
            relayed, refused = await settle(target, [flooder], frames)
            took = time.monotonic() - start
            await target.close()
            await flooder.close()
            return times, relayed, refused, took

    times, relayed, refused, took = run(body())
    print(json.dumps({"flood": "one seat", "sent": frames, "relayed": relayed, "refused": refused, "pings": times, "floodSeconds": took}))
    assert relayed + refused == frames
    assert refused > 0 and relayed <= voice.PER_SEAT  # its buckets (one per container) and the seat's budget
    assert max(times) < took / 4, (times, took)  # no ping waited behind the flood's backlog


def test_a_flood_from_ten_sockets_is_budgeted_and_the_target_answers_pings(flood_stack):
    room = live_day(flood_stack)
    frames_each = 60  # 600 frames: twice the listeners' shared budget

    async def body():
        async with aiohttp.ClientSession() as http:
            target = await Player.connect(http, seat(room, "Ann"))
            spectators = [
                await Player.connect(http, ws_url=room["wsUrl"], room=room["roomCode"]) for _ in range(10)
            ]
            listen = {"action": "signal", "to": target.seat_id(), "kind": "listen"}
            start = time.monotonic()
            times = await pings_during(target, asyncio.ensure_future(flood(spectators, frames_each, listen)))
            relayed, refused = await settle(target, spectators, frames_each * len(spectators))
            took = time.monotonic() - start
            for p in (target, *spectators):
                await p.close()
            return times, relayed, refused, took

    times, relayed, refused, took = run(body())
    sent = frames_each * 10
    print(json.dumps({"flood": "ten spectators", "sent": sent, "relayed": relayed, "refused": refused, "pings": times, "floodSeconds": took}))
    assert relayed + refused == sent
    # all of a room's listeners share one budget per window (the manual clock stands still)
    assert relayed <= voice.PER_LISTENERS
    assert max(times) < took / 4, (times, took)  # no ping waited behind the flood's backlog
