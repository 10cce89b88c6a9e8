"""The gateway machinery of the offline stack, around tiny fake handlers: the events it
builds, the management API's AWS-shaped answers, bad frames, Scheduler and TTL emulation."""

from __future__ import annotations

import asyncio
import json
import math
import signal
import time

import aiohttp
import pytest

from .stackproc import FAKE_HANDLERS, run, start_stack

MINUTE = 60.0


async def _ws(http: aiohttp.ClientSession, stack, query: str = "room=AB&token=t", **kw):
    return await http.ws_connect(f"{stack.ws_url}?{query}", headers={"Origin": "http://example.test"}, **kw)


async def _ask(ws, frame: dict, timeout: float = 10) -> dict:
    await ws.send_str(json.dumps(frame))
    msg = await ws.receive(timeout=timeout)
    assert msg.type == aiohttp.WSMsgType.TEXT, msg
    return json.loads(msg.data)


def test_static_client_and_config(fake_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            async with http.get(fake_stack.url + "config.json") as r:
                assert r.status == 200
                # the offline stack turns the client's test hooks on (web/js/testhooks.js), and
                # names no public STUN server (none is reachable offline: voice's candidates are
                # the host's own and the TURN relay's)
                assert await r.json() == {"apiUrl": "/api", "testHooks": True, "iceServers": []}
            async with http.get(fake_stack.url) as r:
                assert r.status == 200
                assert "<html" in (await r.text()).lower()
                assert r.headers["Content-Type"].startswith("text/html")
            async with http.get(fake_stack.url + "../../etc/passwd") as r:
                assert r.status == 404

    run(body())


def test_ready_line_is_printed_once(fake_stack):
    assert [ln for ln in fake_stack.lines if ln.startswith("ready ")] == [f"ready {fake_stack.url}"]


def test_rest_proxy_event_and_response(fake_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            url = fake_stack.url + "api/rooms/ABCD/players?x=1&x=2"
            async with http.post(url, json={"name": "Bob"}, headers={"Origin": "http://o.test"}) as r:
                assert r.status == 200
                assert r.headers["X-Test"] == "1"
                event = (await r.json())["event"]
        assert event["httpMethod"] == "POST"
        assert event["path"] == "/rooms/ABCD/players"
        assert event["resource"] == "/rooms/{roomCode}/players"
        assert event["pathParameters"] == {"roomCode": "ABCD"}
        assert event["queryStringParameters"] == {"x": "2"}
        assert event["multiValueQueryStringParameters"] == {"x": ["1", "2"]}
        assert event["headers"]["Origin"] == "http://o.test"
        assert json.loads(event["body"]) == {"name": "Bob"}
        assert event["isBase64Encoded"] is False
        ctx = event["requestContext"]
        assert ctx["stage"] == "api" and ctx["resourcePath"] == "/rooms/{roomCode}/players"
        # behind the site's CloudFront: API Gateway sees its edge; the viewer and the origin
        # secret arrive as the headers CloudFront sets
        assert ctx["requestId"] and ctx["identity"]["sourceIp"] == "192.0.2.1"
        assert event["headers"]["CloudFront-Viewer-Address"].startswith("127.0.0.1:")
        assert len(event["headers"]["X-Mafia-Origin"]) >= 32
        # Powertools' own model of the event accepts it.
        from aws_lambda_powertools.utilities.parser.models import APIGatewayProxyEventModel

        APIGatewayProxyEventModel.model_validate(event)

    run(body())


def test_rest_unknown_route_and_handler_crash(fake_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            async with http.get(fake_stack.url + "api/nothing/here/at/all") as r:
                assert r.status == 403
                assert await r.json() == {"message": "Missing Authentication Token"}
            async with http.get(fake_stack.url + "api/rooms/BOOM") as r:
                assert r.status == 502
                assert await r.json() == {"message": "Internal server error"}

    run(body())


def test_connect_event_and_refusals(fake_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            ws = await _ws(http, fake_stack, "room=AB&token=t")
            event = (await _ask(ws, {"action": "echo"}))["event"]
            ctx = event["requestContext"]
            assert ctx["routeKey"] == "$default" and ctx["eventType"] == "MESSAGE"
            assert ctx["stage"] == "ws" and ctx["connectionId"] and ctx["messageId"]
            assert event["body"] == json.dumps({"action": "echo"})
            from aws_lambda_powertools.utilities.parser.models import APIGatewayWebSocketMessageEventModel

            APIGatewayWebSocketMessageEventModel.model_validate(event)
            await ws.close()
            for query, status in (("room=AB&token=bad", 403), ("room=AB&crash=1", 500)):
                with pytest.raises(aiohttp.WSServerHandshakeError) as info:
                    await _ws(http, fake_stack, query)
                assert info.value.status == status

    run(body())


def test_management_api_answers_like_aws(fake_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            a = await _ws(http, fake_stack)
            b = await _ws(http, fake_stack)
            info = await _ask(a, {"action": "info"})
            assert info["sourceIp"] == "127.0.0.1"
            # Unknown connection -> botocore raises GoneException (410).
            assert await _ask(a, {"action": "post", "to": "nope0000000000=", "size": 1}) == {
                "type": "error", "code": "gone"}
            # Over 128 KB -> PayloadTooLargeException (413).
            assert (await _ask(a, {"action": "post", "to": "nope0000000000=", "size": 140_000}))["code"] == "too_large"
            # DELETE closes the socket; afterwards the id is gone.
            await a.send_str(json.dumps({"action": "kick"}))
            msg = await a.receive(timeout=5)
            assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
            assert a.close_code == 1001
            await b.close()
            # Raw HTTP on the management endpoint: the error shape botocore parses.
            async with http.post(fake_stack.url + "ws/@connections/nope0000000000%3D", data=b"x") as r:
                assert r.status == 410
                assert r.headers["x-amzn-ErrorType"] == "GoneException"
            async with http.get(fake_stack.url + "@connections/nope") as r:
                assert r.status == 410

    run(body())


def test_bad_frames_get_aws_answers_and_the_process_survives(fake_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            ws = await _ws(http, fake_stack)
            # Non-JSON goes to $default (route selection finds no action); the handler answers.
            await ws.send_str("not json at all")
            assert json.loads((await ws.receive(timeout=5)).data)["code"] == "bad_frame"
            # A handler that raises: API Gateway's own error frame.
            reply = await _ask(ws, {"action": "raise"})
            assert reply["message"] == "Internal server error" and reply["connectionId"]
            # Binary frames: API Gateway closes with 1003.
            await ws.send_bytes(b"\x00\x01")
            msg = await ws.receive(timeout=5)
            assert msg.type == aiohttp.WSMsgType.CLOSE and msg.data == 1003
            # A frame over 32 KB: closed with 1009 (message too big).
            ws = await _ws(http, fake_stack)
            await ws.send_str(json.dumps({"action": "echo", "pad": "x" * 40_000}))
            msg = await ws.receive(timeout=5)
            assert msg.type == aiohttp.WSMsgType.CLOSE and msg.data == 1009
            # A frame over 128 KB (the message limit) too.
            ws = await _ws(http, fake_stack)
            await ws.send_str("y" * 200_000)
            msg = await ws.receive(timeout=5)
            assert msg.type == aiohttp.WSMsgType.CLOSE and msg.data == 1009
            # Still serving.
            ws = await _ws(http, fake_stack)
            assert (await _ask(ws, {"action": "echo"}))["type"] == "echo"
            await ws.close()
        assert fake_stack.alive()

    run(body())


def test_a_frame_nested_too_deep_for_json_still_gets_an_answer(fake_stack):
    # Route selection parses the body for `action`; Python's json recurses, and a frame ~1,000
    # levels deep raised RecursionError there, killing the task: no answer at all. API Gateway
    # sends such a body to $default like any body without a usable `action`.
    async def body():
        async with aiohttp.ClientSession() as http:
            ws = await _ws(http, fake_stack)
            for depth in (990, 5000):
                await ws.send_str("[" * depth + "]" * depth)
                msg = await ws.receive(timeout=5)
                assert msg.type == aiohttp.WSMsgType.TEXT, msg
            assert (await _ask(ws, {"action": "echo"}))["type"] == "echo"
            await ws.close()
        assert fake_stack.alive()

    run(body())


def test_a_rest_body_that_is_not_in_its_content_encoding_is_415_as_api_gateway_answers(fake_stack):
    # API Gateway decompresses request payloads by default; "if the specified coding isn't
    # supported or the supplied payload isn't compressed with specified coding, API Gateway
    # returns the 415 Unsupported Media Type error response" (API Gateway developer guide,
    # "Call an API method with a compressed payload"). The gateway used to answer 500.
    import gzip

    async def body():
        # one connection per request: a body the server could not decode ends its connection
        connector = aiohttp.TCPConnector(force_close=True)
        async with aiohttp.ClientSession(auto_decompress=False, connector=connector) as http:
            url = fake_stack.url + "api/rooms/ABCD/players"
            for encoding, data in (("gzip", b'{"name": "Bob"}'), ("br-or-whatever", b"{}")):
                headers = {"Content-Encoding": encoding, "Content-Type": "application/json"}
                async with http.post(url, data=data, headers=headers) as r:
                    assert r.status == 415, (encoding, r.status, await r.text())
                    assert await r.json() == {"message": "Unsupported Media Type"}
            # A real gzip body reaches the handler decompressed.
            headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
            async with http.post(url, data=gzip.compress(b'{"name": "Bob"}'), headers=headers) as r:
                assert r.status == 200
                assert json.loads((await r.json())["event"]["body"]) == {"name": "Bob"}
        assert fake_stack.alive()

    run(body())


def test_clients_that_vanish_mid_send_are_gone_not_fatal(fake_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            sender = await _ws(http, fake_stack)
            victims = [await _ws(http, fake_stack, f"room=AB&token=v{i}") for i in range(5)]
            # Abort the victims' TCP connections without a close frame while big posts go out.
            await sender.send_str(json.dumps({"action": "broadcast", "size": 100_000}))
            for v in victims:
                v._response.connection.transport.abort()  # noqa: SLF001 - the rude client
            deadline = time.time() + 10
            while True:
                msg = await sender.receive(timeout=10)
                data = json.loads(msg.data)
                if data["type"] == "broadcasted":
                    break
                assert time.time() < deadline
            # A vanished client whose $disconnect never came: the next post gets 410.
            spy = await _ws(http, fake_stack, "room=AB&token=spy")
            async with http.post(fake_stack.url + "_local/vanish?token=spy") as r:
                vanished = (await r.json())["vanished"]
            assert len(vanished) == 1
            reply = await _ask(sender, {"action": "broadcast", "text": "hi"}, timeout=10)
            while reply["type"] != "broadcasted":
                reply = json.loads((await sender.receive(timeout=10)).data)
            assert vanished[0] in reply["gone"]
            await spy.close()
            await sender.close()
        assert fake_stack.alive()

    run(body())


def test_scheduler_fires_inside_the_minute_at_least_once_and_deletes(fake_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            ws = await _ws(http, fake_stack)
            env = (await _ask(ws, {"action": "env"}))["env"]
            origin, rate = float(env["MAFIA_CLOCK_ORIGIN"]), float(env["MAFIA_CLOCK_RATE"])

            def vnow() -> float:
                return origin + (time.time() - origin) * rate

            # Half-way into a minute that starts at least 10 game seconds from now, so that
            # nothing can fire before t2 is deleted.
            at = math.ceil((vnow() + 10) / MINUTE) * MINUTE + 30
            assert (await _ask(ws, {"action": "schedule", "name": "t1", "at": at}))["type"] == "scheduled"
            # A schedule deleted before its time never fires.
            assert (await _ask(ws, {"action": "schedule", "name": "t2", "at": at}))["type"] == "scheduled"
            assert (await _ask(ws, {"action": "unschedule", "name": "t2"}))["type"] == "unscheduled"
            minute = math.floor(at / MINUTE) * MINUTE
            slack = 0.5 * rate  # half a real second of polling and thread hops
            fired = []
            while vnow() < minute + MINUTE + slack:
                try:
                    msg = await ws.receive(timeout=0.5)
                except TimeoutError:
                    continue
                data = json.loads(msg.data)
                if data.get("type") == "fired":
                    fired.append((data["name"], data["at"]))
            # Delivered twice (the fake stack's duplicate probability is 1), inside the at()
            # minute: possibly before the second asked for, never before the minute.
            assert [n for n, _ in fired] == ["t1", "t1"], fired
            for _, t in fired:
                assert minute - slack <= t <= minute + MINUTE + slack, (at, fired)
            # ActionAfterCompletion=DELETE: the schedule is gone after the first delivery.
            names = (await _ask(ws, {"action": "schedules"}))["names"]
            assert "t1" not in names
            await ws.close()

    run(body(), timeout=60)


def test_ttl_deletes_expired_items_after_a_lag(fake_stack):
    async def body():
        async with aiohttp.ClientSession() as http:
            ws = await _ws(http, fake_stack)
            env = (await _ask(ws, {"action": "env"}))["env"]
            origin, rate = float(env["MAFIA_CLOCK_ORIGIN"]), float(env["MAFIA_CLOCK_RATE"])
            vnow = origin + (time.time() - origin) * rate
            await _ask(ws, {"action": "putItem", "pk": "old", "expiresAt": int(vnow - 1)})
            await _ask(ws, {"action": "putItem", "pk": "fresh", "expiresAt": int(vnow + 3600)})
            # Expired but not deleted yet: readers must filter it themselves.
            assert (await _ask(ws, {"action": "getItem", "pk": "old"}))["found"] is True
            deadline = time.time() + 10
            while (await _ask(ws, {"action": "getItem", "pk": "old"}))["found"]:
                assert time.time() < deadline, "TTL never deleted the expired item"
                await asyncio.sleep(0.2)
            assert (await _ask(ws, {"action": "getItem", "pk": "fresh"}))["found"] is True
            await ws.close()

    run(body(), timeout=30)


def test_moto_transactions_stay_all_or_nothing(fake_stack):
    """local/moto_fixes.py replaces moto's TransactWriteItems: check its semantics."""
    async def body():
        async with aiohttp.ClientSession() as http:
            ws = await _ws(http, fake_stack)
            out = await _ask(ws, {"action": "txn", "prefix": "txn-"})
            await ws.close()
        # A failed condition cancels the whole transaction and writes nothing.
        assert out["second"] == ["ConditionalCheckFailed", "None"]
        # A passing one writes everything: D put, A bumped, B deleted.
        assert out["third"] == "written"
        assert out["items"] == {"A": 4, "B": None, "C": None, "D": 1}
        assert out["query"] == ["4"]

    run(body())


def test_idle_sockets_close_and_sigterm_stops_everything_cleanly():
    stack = start_stack(*FAKE_HANDLERS, "--idle-timeout", "1")

    async def body():
        async with aiohttp.ClientSession() as http:
            idle = await _ws(http, stack)
            msg = await idle.receive(timeout=5)  # API Gateway's idle timeout, shortened
            assert msg.type == aiohttp.WSMsgType.CLOSE and msg.data == 1001
            ws = await _ws(http, stack)
            stack.proc.send_signal(signal.SIGTERM)
            msg = await ws.receive(timeout=10)
            assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)

    run(body(), timeout=30)
    # the one SIGTERM above stops it: wait for that stop (a loaded machine takes seconds to
    # tear a stack down) rather than signal again, which would end the teardown half-way (-15)
    assert stack.proc.wait(60) == 0, stack.log()
    assert "Traceback" not in stack.log(), stack.log()
