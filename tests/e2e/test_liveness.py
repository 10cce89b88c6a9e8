"""Liveness when `$disconnect` never comes (docs/protocol.md, "Heartbeat"), on the offline stack
with every `$disconnect` lost (`--disconnect-loss 1`) and sockets killed by `/_local/vanish`.

Bounds (docs/protocol.md, "Heartbeat"): a vanished socket is dropped at the next heartbeat
of the connection before it in the room's ring, i.e. within one heartbeat interval (60 s,
plus the silent bound of 150 s on AWS while API Gateway has not noticed the socket is gone);
`takeHost` asks API Gateway about the host's sockets itself and succeeds HOST_AWAY_SECONDS
(60 s) after that. The tests send the heartbeats the web client sends every 60 s, and step
the stack's manual clock past the grace and the host's minute instead of sleeping.
"""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from local.client import Api, Player, fill_room, start_game
from service.room.operations import HOST_AWAY_SECONDS
from service.room.rooms import CONNECT_GRACE_SECONDS

from .stackproc import SEED, run, start_stack

MAX_SPECTATORS = 2  # template.yaml's MaxSpectators, set for this stack


@pytest.fixture(scope="module")
def lossy_stack():
    # one handler container: these tests send one request at a time (a container boots in ~0.8 CPU-s)
    stack = start_stack("--disconnect-loss", "1", "--max-spectators", str(MAX_SPECTATORS), "--containers", "1",
                        manual_clock=True, seed=SEED)
    yield stack
    rc = stack.stop()
    assert rc == 0, stack.log()


def connected(view: dict, pid: str) -> bool:
    return next(p for p in view["players"] if p["id"] == pid)["connected"]


async def vanish(http, stack, seat) -> None:
    async with http.post(stack.url + f"_local/vanish?room={seat.room}&token={seat.token}") as r:
        assert len((await r.json())["vanished"]) == 1


async def heartbeat(players: list[Player]) -> None:
    for p in players:
        reply = await p.request("ping")
        assert reply.get("type") in ("pong", "view"), reply


def test_players_who_vanished_in_the_lobby_are_marked_disconnected_at_the_next_heartbeat(lossy_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            api = Api(http, lossy_stack.url)
            seats = await fill_room(api, 5)
            players = [await Player.connect(http, s) for s in seats]
            await players[0].wait_view(lambda v: all(p["connected"] for p in v["players"]), timeout=10)
            await lossy_stack.astep(advance=CONNECT_GRACE_SECONDS * 1.5)
            await vanish(http, lossy_stack, seats[2])  # no close frame, no $disconnect
            await players[3].close()  # a clean close, but its $disconnect is lost
            live = [players[0], players[1], players[4]]
            await asyncio.sleep(1.0)
            summary = await api.summary(seats[0].room)
            assert all(p["connected"] for p in summary["players"])  # nothing has told the room yet
            await heartbeat(live)  # one round of heartbeats (every 60 s in the web client)
            view = await players[0].wait_view(
                lambda v: not connected(v, seats[2].player_id) and not connected(v, seats[3].player_id),
                timeout=10,
            )
            assert connected(view, seats[0].player_id) and connected(view, seats[4].player_id)
            summary = await api.summary(seats[0].room)
            marks = {p["id"]: p["connected"] for p in summary["players"]}
            assert marks == {"p1": True, "p2": True, "p3": False, "p4": False, "p5": True}
            for p in live:
                await p.close()

    run(body())


def test_take_host_succeeds_after_the_host_vanished(lossy_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            api = Api(http, lossy_stack.url)
            seats = await fill_room(api, 4)
            players = await start_game(http, seats)
            await lossy_stack.astep(advance=CONNECT_GRACE_SECONDS * 1.5)
            await vanish(http, lossy_stack, seats[0])  # the host
            fid = await players[1].send("takeHost")
            first = await players[1].wait_for(lambda p: p.error_for(fid), timeout=10)
            assert first["code"] == "host_present", first
            view = await players[1].wait_view(lambda v: v["room"]["hostAwaySince"] is not None, timeout=10)
            assert not connected(view, "p1")
            await lossy_stack.astep(advance=HOST_AWAY_SECONDS + 0.5)
            await players[1].send("takeHost")
            view = await players[2].wait_view(lambda v: v["room"]["host"] == "p2", timeout=10)
            assert view["room"]["hostAwaySince"] is None
            for p in players[1:]:
                await p.close()

    run(body())


def test_the_spectator_cap_parameter_reaches_connect_on_the_offline_stack(lossy_stack):
    """`--max-spectators` values MAFIA_MAX_SPECTATORS as template.yaml's `MaxSpectators` does
    on AWS; the next spectator is refused at the upgrade, players are not."""

    async def body():
        async with aiohttp.ClientSession() as http:
            api = Api(http, lossy_stack.url)
            seats = await fill_room(api, 2)
            room, ws_url = seats[0].room, seats[0].ws_url
            spectators = [await Player.connect(http, ws_url=ws_url, room=room) for _ in range(MAX_SPECTATORS)]
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await Player.connect(http, ws_url=ws_url, room=room)
            assert refused.value.status == 403
            player = await Player.connect(http, seats[1])  # players are never refused for it
            for p in [*spectators, player]:
                await p.close()

    run(body())
