"""Whole games on the offline stack with the real handlers, engine and moto: scripted
players over real WebSockets, refresh, dead sockets, spectators, tokens, phase timing.

`game_stack` runs on the real scaled clock (the soak: complete games whose phases end by
the clock and the client's nudges); the others use `manual_stack` and step game time."""

from __future__ import annotations

import asyncio
import json
import math
import random
import time

import aiohttp
import pytest

from local.client import Api, Bot, Player, fill_room, start_game
from service.room.rooms import CONNECT_GRACE_SECONDS

from .stackproc import drive, run

MINUTE = 60.0


def _strip_clock(view: dict) -> dict:
    return {k: v for k, v in view.items() if k not in ("serverNow", "clockRate")}


async def _game(http, stack, n: int = 6, patches: bool = False) -> tuple[Api, list[Player]]:
    api = Api(http, stack.url)
    seats = await fill_room(api, n)
    return api, await start_game(http, seats, patches=patches)


def test_rest_create_join_and_summary(game_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            api = Api(http, game_stack.url)
            seats = await fill_room(api, 6)
            assert [s.player_id for s in seats] == ["p1", "p2", "p3", "p4", "p5", "p6"]
            assert seats[0].ws_url == game_stack.ws_url
            summary = await api.summary(seats[0].room)
            assert summary["status"] == "lobby" and len(summary["players"]) == 6
            assert "token" not in json.dumps(summary)
            status, out = await api.call("GET", "/rooms/ZZZZZ")
            assert status == 404 and out["error"]["code"]

    run(body())


async def _patched_view_is_the_full_view(p: Player) -> bool:
    """The view `p` holds equals the full view a `sync` answers (same version); returns
    whether the view held was built from a patch."""
    for _ in range(3):  # a push between the two makes them differ in version: again
        n, held = len(p.frames), (p.version, _strip_clock(p.view))
        from_patch = p.frames[-1].patch is not None
        await p.send("sync")
        answer = await p.wait_for(lambda q, n=n: next(
            (f.data for f in q.frames[n:] if f.patch is None and (f.data or {}).get("type") == "view"), None
        ))  # fmt: skip
        if answer["version"] == held[0]:
            assert held[1] == _strip_clock(answer["view"]), p.name
            return from_patch
    raise AssertionError(f"{p.name}: the view kept changing")


@pytest.mark.timeout(420)
def test_complete_classic_games_reach_a_winner(game_stack):
    """Three games at once on the real scaled clock, every socket on patches (as the web client):
    each reaches a winner, and every view a socket built from patches is the full view a
    `sync` answers. The bots play by the server's policy (local/client.py `Bot`): one run
    under load played 4, 5 and 10 days (phase seq 12, 13 and 38; the random bots before
    played 26 days in one), so the limits below only catch a game that stopped."""

    async def one(http, seed: int) -> dict:
        api, players = await _game(http, game_stack, patches=True)
        spectator = await Player.connect(http, room=players[0].room, ws_url=game_stack.ws_url, patches=True)
        bots = [Bot(p, random.Random(seed * 100 + i)) for i, p in enumerate(players)]
        finals = await asyncio.gather(*(b.play(timeout=300) for b in bots))
        await spectator.wait_view(lambda v: v.get("result"), timeout=10)
        winners = {f["result"]["winner"] for f in finals}
        # how long the scripted players' game ran (pytest -s shows it)
        print({"soakGame": {"seed": seed, "days": finals[0]["result"]["days"], "phases": finals[0]["phase"]["seq"]}})
        assert len(winners) == 1 and winners <= {"town", "mafia"}
        # Every seat's role is known to everyone once the game is over.
        assert all(p["role"] for p in spectator.view["players"])
        summary = await api.summary(players[0].room)
        assert summary["status"] == "ended"
        built = [await _patched_view_is_the_full_view(p) for p in players + [spectator]]
        assert any(built), "no socket held a view built from a patch at the end"
        for p in players + [spectator]:
            await p.close()
        return finals[0]

    async def body():
        async with aiohttp.ClientSession() as http:
            results = await asyncio.gather(one(http, 1), one(http, 2), one(http, 3))
        assert all(r["result"]["days"] >= 1 for r in results)

    run(body(), timeout=400)


def test_spectator_sees_public_information_only(manual_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            _, players = await _game(http, manual_stack)
            spectator = await Player.connect(http, room=players[0].room, ws_url=manual_stack.ws_url)
            bots = [Bot(p, random.Random(7 + i)) for i, p in enumerate(players)]
            tasks = [asyncio.create_task(b.play(timeout=90)) for b in bots]
            at_night = lambda: (spectator.view or {}).get("phase", {}).get("kind") == "night"  # noqa: E731
            try:
                await drive(manual_stack, at_night)
                await spectator.wait_view(lambda v: v["phase"]["kind"] == "night", timeout=10)
            finally:
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            for got in spectator.frames:
                data = got.data
                if not (isinstance(data, dict) and data.get("type") == "view"):
                    continue
                view = data["view"]
                if view.get("result"):
                    continue
                assert view["you"] is None and view["private"] is None
                assert all(p.get("role") is None for p in view["players"])
                assert set(view["channels"]["read"]) <= {"day", "system"}
                assert all(m["channel"] in ("day", "system") for m in view["chat"])
            # Views may still arrive (the night goes on); wait for this frame's own answer.
            fid = await spectator.send("vote", target="p1")
            reply = await spectator.wait_for(lambda p: p.error_for(fid), timeout=10)
            assert reply["code"] == "spectator"
            for p in players + [spectator]:
                await p.close()

    run(body())


def test_bad_token_is_refused_at_connect(game_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            api = Api(http, game_stack.url)
            seat = await api.create_room("Ann")
            with pytest.raises(aiohttp.WSServerHandshakeError) as info:
                await Player.connect(http, room=seat.room, token="not-a-token", ws_url=seat.ws_url)
            assert info.value.status == 403
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await Player.connect(http, room="NOSUCH", token=seat.token, ws_url=seat.ws_url)

    run(body())


def test_refresh_mid_game_restores_the_full_view(manual_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            _, players = await _game(http, manual_stack)
            bots = [Bot(p, random.Random(40 + i), nudge=(i != 2)) for i, p in enumerate(players)]
            others = [asyncio.create_task(b.play(timeout=90)) for i, b in enumerate(bots) if i != 2]
            me = players[2]
            await drive(manual_stack, lambda: (me.view or {}).get("phase", {}).get("kind")
                        in ("night", "discussion", "vote"))
            before = me.view
            await me.close()  # the refresh: the tab's socket goes away ...
            again = await Player.connect(http, me_seat(me), sync=True)  # ... and a new one syncs
            after = again.view
            for key in ("you", "preset", "options", "players", "room"):
                if key == "players":
                    # Presence may have flickered during the refresh.
                    strip = [{k: v for k, v in p.items() if k != "connected"} for p in after[key]]
                    old = [{k: v for k, v in p.items() if k != "connected"} for p in before[key]]
                    if after["phase"]["seq"] == before["phase"]["seq"]:
                        assert strip == old
                else:
                    assert after[key] == before[key], key
            assert set(after) == set(before)
            assert after["you"]["role"] and after["private"] is not None
            bots[2] = Bot(again, random.Random(42))
            mine = asyncio.create_task(bots[2].play(timeout=90))
            await drive(manual_stack, lambda: mine.done() and all(t.done() for t in others))
            final = await mine
            assert final["result"]["winner"]
            await asyncio.gather(*others)
            for p in players + [again]:
                await p.close()

    run(body(), timeout=150)


def me_seat(player: Player):
    from local.client import Seat

    return Seat(player.room, (player.view or {}).get("you", {}).get("id", ""), player.token or "",
                player.ws_url, player.name)


def test_a_dead_socket_is_dropped_at_the_next_fanout(manual_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            api = Api(http, manual_stack.url)
            seats = await fill_room(api, 6)
            players = [await Player.connect(http, s) for s in seats]
            victim = seats[3]
            await players[0].wait_view(lambda v: all(p["connected"] for p in v["players"]), timeout=10)
            # A connection younger than the grace survives a 410 (its $connect may not have
            # returned yet); this one is old enough to be dropped once the grace has passed.
            await manual_stack.astep(advance=CONNECT_GRACE_SECONDS + 0.5)
            # The socket vanishes and API Gateway never delivers $disconnect.
            async with http.post(manual_stack.url + f"_local/vanish?room={victim.room}&token={victim.token}") as r:
                assert len((await r.json())["vanished"]) == 1
            summary = await api.summary(victim.room)
            assert next(p for p in summary["players"] if p["id"] == victim.player_id)["connected"] is True
            # The next change pushes to every connection; the post to the dead one answers 410.
            await players[1].send("ready", ready=True)
            await players[0].wait_view(
                lambda v: next(p for p in v["players"] if p["id"] == victim.player_id)["connected"] is False,
                timeout=10)
            summary = await api.summary(victim.room)
            assert next(p for p in summary["players"] if p["id"] == victim.player_id)["connected"] is False
            for i, p in enumerate(players):
                if i != 3:
                    await p.close()

    run(body())


def test_a_nudge_ends_the_phase_on_time(manual_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            _, players = await _game(http, manual_stack)
            p = players[0]
            seq = p.view["phase"]["seq"]
            # Too early: nothing changes, the answer is the current view (to correct the clock).
            reply = await p.request("nudge")
            assert reply["type"] == "view" and reply["view"]["phase"]["seq"] == seq
            left, ends_at = p.seconds_left(), p.view["phase"]["endsAt"]
            assert left is not None and left > 0
            await manual_stack.astep(to=ends_at - 1)  # a second short of the deadline
            reply = await p.request("nudge")  # still early: refused without a change
            assert reply["type"] == "view" and reply["view"]["phase"]["seq"] == seq
            await manual_stack.astep(to=ends_at)
            t0 = time.monotonic()
            await p.send("nudge")
            await p.wait_view(lambda v: v["phase"]["seq"] > seq, timeout=5)
            assert time.monotonic() - t0 < 1.0
            for q in players:
                await q.close()

    run(body())


def test_without_clients_the_scheduler_ends_the_phase_within_its_minute(manual_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            api, players = await _game(http, manual_stack)
            view = players[0].view
            seq, ends_at = view["phase"]["seq"], view["phase"]["endsAt"]
            for p in players:
                await p.close()
            # Nobody nudges: only the Scheduler can end the phase, inside the minute after it.
            room = players[0].room
            start_phase = (await api.summary(room))["phase"]
            latest = (math.ceil(ends_at / MINUTE) * MINUTE) + MINUTE  # armed at the next whole minute
            short = await manual_stack.astep(to=ends_at - 1)
            assert not [f for f in short["fired"] if f.startswith(f"mafia-{room}-{seq}-")]
            assert (await api.summary(room))["phase"] == start_phase
            fired = await manual_stack.astep(to="next")
            while not [f for f in fired["fired"] if f.startswith(f"mafia-{room}-{seq}-")]:
                assert fired["now"] <= latest, "the Scheduler never ended the phase"
                fired = await manual_stack.astep(to="next")  # another room's schedule came first
            assert ends_at <= fired["now"] <= latest
            assert (await api.summary(room))["phase"] != start_phase
            spectator = await Player.connect(http, room=room, ws_url=manual_stack.ws_url)
            assert spectator.view["phase"]["seq"] > seq
            await spectator.close()

    run(body(), timeout=60)


def test_bad_frames_with_the_real_handlers(game_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            api = Api(http, game_stack.url)
            seat = await api.create_room("Ann")
            p = await Player.connect(http, seat)
            await p.send_raw("{not json")
            err = await p.wait_for(lambda q: q.errors and q.errors[-1])
            assert err["code"] == "bad_frame"
            reply = await p.request("noSuchAction")
            assert reply["type"] == "error"
            await p.send_raw(b"\x00binary")
            assert await p.wait_closed() == 1003
            p = await Player.connect(http, seat)
            await p.send_raw(json.dumps({"action": "sync", "pad": "x" * 50_000}))
            assert await p.wait_closed() == 1009
            p = await Player.connect(http, seat)
            assert (await p.request("sync"))["type"] == "view"
            await p.close()
        assert game_stack.alive()

    run(body())
