"""Drive the handlers with API-Gateway-shaped events, as the deployed stack would."""

from __future__ import annotations

import json
from typing import Any

import boto3

from handlers import rest, timer, ws_connect, ws_default, ws_disconnect
from harness.clock import Clock
from harness.gateways import FakeGateway
from local import events
from local.lambda_runtime import LambdaContext
from service.infra import storage

CTX = LambdaContext(function_name="mafia-test", memory_limit_in_mb=512)
__all__ = ["CTX", "Api", "Clock", "FakeGateway", "rest_event", "ws_event"]


def rest_event(method: str, path: str, body: Any = None, headers: dict | None = None) -> dict:
    """A REST proxy event for `path` (built by the offline stack's builders)."""
    return events.rest_event(
        method=method,
        path=path,
        headers={"Content-Type": "application/json", **(headers or {})},
        body=body if isinstance(body, str) or body is None else json.dumps(body),
    )


def ws_event(
    route: str, conn_id: str, body: str | None = None, query: dict | None = None, headers=None
) -> dict:
    """A WebSocket event for `route` on connection `conn_id`."""
    if route == "$connect":
        return events.ws_connect_event(connection=conn_id, query=query, headers=headers)
    if route == "$disconnect":
        return events.ws_disconnect_event(connection=conn_id)
    return events.ws_message_event(connection=conn_id, body=body, route_key=route)


class Api:
    """A room-level test driver over the real handlers."""

    def __init__(self, svc, gateway, clock) -> None:
        self.svc = svc
        self.gw = gateway
        self.clock = clock
        self.tokens: dict[str, str] = {}
        self.code: str | None = None
        self.patches = False  # connections ask for patches (`?patches=1`, service/protocol/patches.py)

    # REST
    def rest(self, method: str, path: str, body: Any = None, headers: dict | None = None) -> tuple[int, dict]:
        out = rest.handler(rest_event(method, path, body, headers), CTX)
        return out["statusCode"], json.loads(out["body"]) if out.get("body") else {}

    def create(self, name: str = "Ann", **extra) -> str:
        status, body = self.rest("POST", "/rooms", {"name": name, **extra})
        assert status == 201, body
        self.code = body["roomCode"]
        self.tokens[body["playerId"]] = body["token"]
        return self.code

    def join(self, name: str, code: str | None = None) -> str:
        status, body = self.rest("POST", f"/rooms/{code or self.code}/players", {"name": name})
        assert status == 201, body
        self.tokens[body["playerId"]] = body["token"]
        return body["playerId"]

    # WebSocket
    def connect(
        self, conn_id: str, pid: str | None = None, token: str | None = None, room=None, origin=None
    ) -> int:
        query = {"room": room or self.code, **({"patches": "1"} if self.patches else {})}
        if token or pid:
            query["token"] = token or self.tokens[pid]
        headers = {"Origin": origin} if origin else {}
        return ws_connect.handler(ws_event("$connect", conn_id, query=query, headers=headers), CTX)[
            "statusCode"
        ]

    def send(self, conn_id: str, frame: Any) -> None:
        body = frame if isinstance(frame, str) else json.dumps(frame)
        ws_default.handler(ws_event("$default", conn_id, body=body), CTX)

    def disconnect(self, conn_id: str) -> None:
        ws_disconnect.handler(ws_event("$disconnect", conn_id), CTX)

    def fire(self, phase: int, at: int | None = None, room: str | None = None) -> dict:
        return timer.handler({"room": room or self.code, "phase": phase, "at": at}, CTX)

    # The Scheduler's deliveries as armed (the in-memory timers' record, or moto's schedules)
    def armed(self, room: str | None = None) -> list[dict]:
        """Every delivery armed for the room and not fired here yet, earliest first."""
        code = (room or self.code or "").upper()
        timers = self.svc.timers
        if hasattr(timers, "armed"):
            found = dict(timers.armed)
        else:
            found = {}
            kwargs = {"GroupName": timers.group, "NamePrefix": f"mafia-{code}-"}
            for page in timers.client.get_paginator("list_schedules").paginate(**kwargs):
                for item in page["Schedules"]:
                    one = timers.client.get_schedule(GroupName=timers.group, Name=item["Name"])
                    found[item["Name"]] = json.loads(one["Target"]["Input"])
        fired = self.__dict__.setdefault("_fired", set())
        out = [(p["at"], name, p) for name, p in found.items() if p["room"] == code and name not in fired]
        return [{**p, "name": name} for _, name, p in sorted(out, key=lambda x: (x[0], x[1]))]

    def next_wake(self, room: str | None = None) -> float | None:
        """When the earliest armed delivery is due (a bots' private wake or a phase timer)."""
        armed = self.armed(room)
        return float(armed[0]["at"]) if armed else None

    def fire_due(self, room: str | None = None) -> int:
        """Deliver every armed delivery due by the clock, in order, as Scheduler would (each
        once); returns how many were delivered."""
        n = 0
        while True:
            due = [a for a in self.armed(room) if a["at"] <= self.clock.t]
            if not due:
                return n
            first = due[0]
            self.__dict__["_fired"].add(first["name"])
            timer.handler({"room": first["room"], "phase": first["phase"], "at": first["at"]}, CTX)
            n += 1

    # Setup helpers
    def lobby(self, n: int, connect: bool = True, **extra) -> list[str]:
        """A room with n players (p1 host), each connected as c<pid> when `connect`."""
        self.create("P1", **extra)
        pids = ["p1"] + [self.join(f"P{i}") for i in range(2, n + 1)]
        if connect:
            for pid in pids:
                assert self.connect(f"c{pid}", pid) == 200
        return pids

    def start(self, n: int, **extra) -> list[str]:
        pids = self.lobby(n, **extra)
        for pid in pids[1:]:
            self.send(f"c{pid}", {"action": "ready"})
        self.send("cp1", {"action": "start", "id": "start"})
        assert self.snapshot().room["status"] == "running", self.gw.last("cp1", "error")
        return pids

    # Storage peeks
    def snapshot(self, code: str | None = None):
        return self.svc.store.load(code or self.code)

    def state(self) -> dict:
        return self.snapshot().state

    def item(self) -> Any:
        """The room as stored: the DynamoDB item; on the in-memory store (no `client`), the
        snapshot (a write changes its version)."""
        if not hasattr(self.svc.store, "client"):
            return self.svc.store.load(self.code)
        out = boto3.client("dynamodb").get_item(
            TableName=self.svc.store.table,
            Key={"pk": {"S": storage.room_pk(self.code)}, "sk": {"S": "STATE"}},
        )
        return out.get("Item")

    def errors(self, conn_id: str) -> list[dict]:
        return [f for f in self.gw.to(conn_id) if f["type"] == "error"]
