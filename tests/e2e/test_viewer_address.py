"""The budgets see the player, not CloudFront, over real HTTP: the offline stack's front adds
what the site's CloudFront adds to every REST request (the secret origin header and
`CloudFront-Viewer-Address`, local/gateway.py), and API Gateway's sourceIp is one edge for
everyone. Two clients behind that edge (127.0.0.2 and 127.0.0.3: loopback addresses other than
the offline stack's own 127.0.0.1 count as any address) keep separate address budgets, and a
client cannot forge either header."""

from __future__ import annotations

import aiohttp

from service.features import limits

from .stackproc import run

PER_IP = limits.CREATE_ROOM.per_ip
PER_DEVICE = limits.CREATE_ROOM.per_device


def session(address: str) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0)))


async def create(http: aiohttp.ClientSession, base: str, device: str, headers: dict | None = None):
    async with http.post(
        base + "api/rooms", json={"name": "Host", "device": device}, headers=headers or {}
    ) as r:
        return r.status, await r.json()


def test_two_clients_behind_one_edge_keep_separate_budgets_and_cannot_forge_them(manual_stack):
    base = manual_stack.url

    async def body():
        async with session("127.0.0.2") as first, session("127.0.0.3") as second:
            # the first client spends its address's whole budget (PER_DEVICE rooms a device)
            for i in range(PER_IP):
                status, out = await create(first, base, f"viewer-two-device-{i // PER_DEVICE:06d}")
                assert status == 201, (i, out)
            status, out = await create(first, base, "viewer-two-device-fresh")
            assert status == 429 and out["error"]["code"] == "too_many_requests", out
            # forging the headers CloudFront sets changes nothing: the front replaces them
            forged = {"CloudFront-Viewer-Address": "203.0.113.9:1", "X-Mafia-Origin": "guess"}
            status, out = await create(first, base, "viewer-two-device-forged", forged)
            assert status == 429, out
            # the second client, behind the same edge, has its own budget
            status, out = await create(second, base, "viewer-three-device-0")
            assert status == 201, out
            # and cannot spend the first one's by naming its address
            status, out = await create(second, base, "viewer-three-device-1", {"CloudFront-Viewer-Address": "127.0.0.2:9"})
            assert status == 201, out

    run(body())


async def quick_play(http: aiohttp.ClientSession, base: str, name: str):
    async with http.post(base + "api/quickplay", json={"name": name, "lang": "ru", "preset": "city"}) as r:
        return r.status, await r.json()


def test_a_flood_from_one_address_leaves_another_clients_play_now_alone(manual_stack):
    """Over real HTTP, behind one edge: one address presses "Play now" until its own budget
    refuses it (`429 too_many_requests`: quick play's, or the creation budget its new rooms
    spend), which happens within its quick-play budget; another address's "Play now" is seated
    meanwhile. (Loopback addresses are not keyed for one seat per address: the flooder may sit
    in a lobby more than once here, never on AWS.)"""
    base = manual_stack.url
    bound = limits.QUICK_PLAY.per_ip + 1

    async def body():
        async with session("127.0.0.4") as flooder, session("127.0.0.5") as other:
            statuses = []
            for i in range(bound):
                status, out = await quick_play(flooder, base, f"Flood{i}")
                statuses.append(status)
                if status == 429:
                    assert out["error"]["code"] == "too_many_requests" and out["error"]["retryAfter"] >= 1
                    break
                assert status == 201, (i, out)
            assert statuses[-1] == 429, len(statuses)
            status, seat = await quick_play(other, base, "Stranger")
            assert status == 201 and seat["token"], seat

    run(body())
