"""Play now under a race, over real HTTP (docs/rules.md, "Public rooms"): 20 clients press Play
now at once for a public room with 2 seats left; the offline stack runs the REST function in
several containers at once, as Lambda does. Exactly 2 get its seats, nobody gets a seat twice,
and no room holds more than its maximum (tests/functions/test_public_rooms.py has the race on
moto in one process)."""

from __future__ import annotations

import asyncio

import aiohttp

from local.client import Api

from .stackproc import run

RACERS = 20


def test_twenty_clients_racing_for_the_last_two_seats_over_http_never_overfill(game_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            api = Api(http, game_stack.url)
            lang = "ru"  # the session's other tests make no public rooms
            status, made = await api.call(
                "POST",
                "/rooms",
                {
                    "name": "Host",
                    "preset": "classic",
                    "lang": lang,
                    "options": {"public": True, "autoStart": 12},
                },
            )
            assert status == 201, made
            code = made["roomCode"]
            for i in range(9):  # 10 of classic's 12 seats (fewer than autoStart: no countdown)
                status, out = await api.call("POST", f"/rooms/{code}/players", {"name": f"Guest{i}"})
                assert status == 201, out
            answers = await asyncio.gather(
                *(
                    api.call("POST", "/quickplay", {"name": f"Racer{i}", "lang": lang, "preset": "classic"})
                    for i in range(RACERS)
                )
            )
            assert all(s == 201 for s, _ in answers), [a for a in answers if a[0] != 201]
            seats = [out for _, out in answers]
            here = [s for s in seats if s["roomCode"] == code]
            assert len(here) == 2, [s["roomCode"] for s in seats]
            assert len({(s["roomCode"], s["playerId"]) for s in seats}) == RACERS
            for room in {s["roomCode"] for s in seats}:
                status, summary = await api.call("GET", f"/rooms/{room}")
                assert status == 200 and len(summary["players"]) <= summary["maxPlayers"], summary
            status, summary = await api.call("GET", f"/rooms/{code}")
            assert len(summary["players"]) == 12
            status, page = await api.call("GET", f"/rooms?public=1&lang={lang}&preset=classic")
            assert code not in [r["roomCode"] for r in page["rooms"]]  # full: off the list

    run(body())
