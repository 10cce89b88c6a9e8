"""The offline stack's manual clock steps after what the gateway has received
(`local/gateway.py` `clock_step`): a test that clicked, then steps past a deadline, has its
click counted, however slow that frame's invocation is."""

from __future__ import annotations

import asyncio
import json

from local.gateway import GatewayServer


class _Request:
    def __init__(self, body: dict) -> None:
        self.body = body

    async def json(self) -> dict:
        return self.body


def test_a_clock_step_waits_for_the_frames_the_gateway_received_before_it():
    order: list[str] = []

    async def step_clock(by=None, to=None) -> dict:
        order.append(f"step {by}")
        return {"now": 0.0, "fired": [], "next": None, "ttlDeleted": 0}

    async def slow_frame() -> None:  # a frame's invocation still running
        await asyncio.sleep(0.2)
        order.append("frame")

    async def body() -> dict:
        gw = GatewayServer(runtime=None, web_dir=None, rest_resources=(), step_clock=step_clock)
        gw._spawn(slow_frame())  # noqa: SLF001 - as the socket reader does for a message
        res = await gw.clock_step(_Request({"advance": 5}))
        return json.loads(res.body)

    answer = asyncio.run(body())
    assert order == ["frame", "step 5"]
    assert answer["now"] == 0.0
