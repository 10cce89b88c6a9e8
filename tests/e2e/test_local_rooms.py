"""`POST /_local/rooms` on the running offline stack (local/rooms.py): a room written at a
chosen phase is live — its seats' tokens open sockets to their own views, its bots play, its
phase timer is armed in the stack's Scheduler — and a room it cannot write is refused."""

from __future__ import annotations

import aiohttp
import pytest

from local.client import Player, Seat
from local.process import RoomRefused

from .stackproc import run

SEATS = [
    {"name": "Ann", "role": "police"},
    {"name": "Bob", "role": "mafia"},
    {"name": "Cat", "bot": True},
    {"name": "Dan", "bot": True},
    {"name": "Eve", "bot": True},
]


def test_a_room_written_at_night_two_is_live_for_its_seats_and_its_timer(manual_stack):
    room = manual_stack.room(
        {
            "options": {"firstPhase": "night"},
            "seats": SEATS,
            "steps": ["timeout", {"type": "investigate", "player": "Ann", "target": "Bob"}],
            "until": {"phase": "night", "day": 2},
        }
    )
    assert (room["phase"], room["day"]) == ("night", 2)
    ann = next(s for s in room["seats"] if s["name"] == "Ann")

    async def body():
        async with aiohttp.ClientSession() as http:
            seat = Seat(room["roomCode"], ann["playerId"], ann["token"], room["wsUrl"], "Ann")
            p = await Player.connect(http, seat)
            view = p.view
            assert view["you"]["id"] == ann["playerId"] and view["you"]["role"] == "police"
            assert (view["phase"]["kind"], view["day"]) == ("night", 2)
            # the night-1 check is the police's own result
            assert [(r["target"], r["result"]) for r in view["private"]["results"]] == [("p2", "mafia")]
            # its whole time is ahead of the stack's clock, and the stack's Scheduler ends it
            assert view["phase"]["endsAt"] > view["serverNow"]
            # "next" is the stack's next delivery, any room's (other tests' rooms still wake):
            # up to 400 of them, as many as this room's night needs
            for _ in range(400):
                await manual_stack.astep(to="next")
                if p.view["phase"]["kind"] != "night" or p.view["day"] != 2:
                    break
                await p.send("sync")
            await p.wait_for(lambda q: q.view["phase"]["kind"] != "night", timeout=10)
            await p.close()

    run(body())


def test_a_room_that_cannot_be_written_is_refused(manual_stack):
    with pytest.raises(RoomRefused) as err:
        manual_stack.room({"seats": SEATS, "steps": [{"type": "vote", "player": "Ann", "target": "Bob"}]})
    assert err.value.code == "wrong_phase" and "steps.0" in err.value.message
    with pytest.raises(RoomRefused) as err:
        manual_stack.room({"seats": "Ann"})
    assert err.value.code == "bad_request"
