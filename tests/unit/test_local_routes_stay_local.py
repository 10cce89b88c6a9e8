"""Test routes stay local (docs/architecture.md, "Offline stack"): the offline stack's ``/_local/*`` hooks (the
table's endpoint, the room writer, the clock) and the management API (``@connections``: post a
frame to any phone, drop any socket) answer only a caller on the same machine, whatever address
the game is served on - a LAN guest at a party gets 404, as for a route that does not exist."""

from __future__ import annotations

import asyncio
import socket

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from local.gateway import GatewayServer, same_machine


def _gateway() -> GatewayServer:
    async def step_clock(by=None, to=None) -> dict:
        return {"now": 0.0, "fired": [], "next": None, "ttlDeleted": 0}

    return GatewayServer(runtime=None, web_dir=None, rest_resources=(), step_clock=step_clock)


def test_same_machine_is_loopback_or_the_servers_own_address():
    assert same_machine("127.0.0.1", "192.168.1.20")
    assert same_machine("::1", "192.168.1.20")
    assert same_machine("127.0.0.5", "0.0.0.0")
    assert same_machine("192.168.1.20", "192.168.1.20")  # the stack calling its own LAN address
    assert not same_machine("192.168.1.31", "192.168.1.20")  # a guest's phone at the party
    assert not same_machine("10.0.0.2", "0.0.0.0")
    assert not same_machine(None, "192.168.1.20")


def _lan_address() -> str | None:
    """This machine's address on a non-loopback interface, if it has one."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent; the kernel picks a route
            addr = s.getsockname()[0]
    except OSError:
        return None
    return None if addr.startswith("127.") else addr


async def _status(app: web.Application, path: str, method: str, remote: str) -> int:
    """The status a caller at ``remote`` gets (aiohttp's test server, its peer rewritten)."""

    @web.middleware
    async def as_remote(request: web.Request, handler):
        return await handler(request.clone(remote=remote))

    app.middlewares.insert(0, as_remote)
    async with TestClient(TestServer(app)) as client:
        res = await client.request(method, path, json={"advance": 1})
        return res.status


def test_local_routes_answer_a_guest_on_the_lan_404():
    for method, path in (
        ("GET", "/_local/env"),
        ("GET", "/_local/stats"),
        ("POST", "/_local/clock"),
        ("POST", "/_local/rooms"),
        ("POST", "/_local/vanish"),
        ("GET", "/_local/trace"),
        ("POST", "/ws/@connections/abc="),
        ("DELETE", "/@connections/abc="),
    ):
        status = asyncio.run(_status(_gateway().app(), path, method, "192.0.2.77"))
        assert status == 404, (method, path, status)


def test_local_routes_still_answer_the_machine_itself():
    assert asyncio.run(_status(_gateway().app(), "/_local/stats", "GET", "127.0.0.1")) == 200
    assert asyncio.run(_status(_gateway().app(), "/_local/clock", "POST", "127.0.0.1")) == 200
    # the management API on loopback: an unknown connection is gone, not hidden
    assert asyncio.run(_status(_gateway().app(), "/ws/@connections/abc=", "POST", "127.0.0.1")) == 410


def test_the_game_itself_still_answers_a_guest_on_the_lan():
    assert asyncio.run(_status(_gateway().app(), "/config.json", "GET", "192.0.2.77")) == 200


def test_a_stack_served_on_a_lan_address_hides_its_hooks_from_that_address_only_for_others():
    """Served on this machine's LAN address, the hooks still answer a call from this machine."""
    lan = _lan_address()
    if lan is None:  # no interface but loopback: the rule above is all there is to see
        lan = "127.0.0.1"

    async def body() -> int:
        runner = web.AppRunner(_gateway().app(), handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, lan, 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # noqa: SLF001
        try:
            from aiohttp import ClientSession

            async with ClientSession() as s, s.get(f"http://{lan}:{port}/_local/stats") as res:
                return res.status
        finally:
            await runner.cleanup()

    assert asyncio.run(body()) == 200
