"""The offline stack's manual clock (`python -m local --manual-clock`, local/scheduler.py
`advance`): game time stands still until `POST /_local/clock` steps it, the handlers read the
same second (views' `serverNow`), and due schedules are delivered in time order before the
step answers."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import aiohttp
import pytest

from local.client import Api, Player, fill_room, start_game

from .stackproc import run


def _post(stack, body) -> tuple[int, dict]:
    req = urllib.request.Request(stack.url + "_local/clock", data=json.dumps(body).encode(), method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return res.status, json.load(res)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)


def test_game_time_stands_still_until_stepped_and_the_handlers_read_it(manual_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            seats = await fill_room(Api(http, manual_stack.url), 4)
            p = await Player.connect(http, seats[0])
            first = p.view["serverNow"]
            assert p.view["clockRate"] == 0
            await asyncio.sleep(0.5)  # real time passes, game time does not
            assert (await p.request("sync"))["view"]["serverNow"] == first
            stepped = await manual_stack.astep(advance=42)
            assert stepped["now"] == pytest.approx(first + 42, abs=0.01)
            assert (await p.request("sync"))["view"]["serverNow"] == pytest.approx(first + 42, abs=0.01)
            await p.close()

    run(body())


def test_a_step_delivers_due_schedules_in_time_order_before_it_answers(manual_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            api = Api(http, manual_stack.url)
            rooms = []
            for _ in range(2):
                players = await start_game(http, await fill_room(api, 5))
                rooms.append((players[0].room, players[0].view["phase"]["seq"]))
                for q in players:
                    await q.close()
            summaries = [await api.summary(r) for r, _ in rooms]
            out = await manual_stack.astep(advance=10 * 60)
            # by their minutes: Scheduler fires an at() anywhere inside its minute, so two wakes
            # of one minute (a bots' wake asks for its second) may come in either order
            minutes = [int(name.rsplit("-", 1)[1]) // 60 for name in out["fired"]]
            assert minutes == sorted(minutes)
            for (room, seq), before in zip(rooms, summaries, strict=True):
                assert any(name.startswith(f"mafia-{room}-{seq}-") for name in out["fired"])
                # Answered after delivery: the phase has already moved when the step returns.
                assert (await api.summary(room))["phase"] != before["phase"]

    run(body())


def test_the_clock_endpoint_refuses_bad_steps(manual_stack, game_stack):
    for bad in ({}, {"advance": -1}, {"advance": "10"}, {"to": "soon"}, {"advance": True}, []):
        status, out = _post(manual_stack, bad)
        assert status == 400 and out["error"], bad
    status, out = _post(game_stack, {"advance": 1})  # a scaled clock cannot be stepped
    assert status == 409 and "manual" in out["error"]
