"""template.yaml, the sample events and the OpenAPI document stay in step with the code."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

from fnkit import CTX
from service import storage

ROOT = Path(__file__).resolve().parents[2]


def resources():
    return storage.load_template(str(ROOT / "template.yaml"))["Resources"]


def test_the_table_is_on_demand_with_ttl_and_pitr():
    props = storage.table_definition(str(ROOT / "template.yaml"))
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}
    assert props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
    assert [k["AttributeName"] for k in props["KeySchema"]] == ["pk", "sk"]


def test_the_test_table_is_the_template_table(aws):
    desc = aws.describe_table(TableName=os.environ["TABLE_NAME"])["Table"]
    assert desc["KeySchema"] == storage.table_definition(str(ROOT / "template.yaml"))["KeySchema"]
    ttl = aws.describe_time_to_live(TableName=os.environ["TABLE_NAME"])["TimeToLiveDescription"]
    assert ttl["AttributeName"] == "expiresAt"


def test_every_function_handler_exists_and_uses_the_engine_layer():
    res = resources()
    functions = {k: v for k, v in res.items() if v["Type"] == "AWS::Serverless::Function"}
    handlers = sorted(v["Properties"]["Handler"] for v in functions.values())
    assert handlers == [
        "handlers.rest.handler",
        "handlers.timer.handler",
        "handlers.ws_connect.handler",
        "handlers.ws_default.handler",
        "handlers.ws_disconnect.handler",
    ]
    for h in handlers:
        module, attr = h.rsplit(".", 1)
        assert callable(getattr(importlib.import_module(module), attr))
    layer = res["EngineLayer"]
    assert layer["Properties"]["ContentUri"] == "layers/engine"
    assert layer["Metadata"]["BuildMethod"] == "python3.11"
    ws = res["WebSocketApi"]["Properties"]
    assert ws["ProtocolType"] == "WEBSOCKET" and ws["RouteSelectionExpression"] == "$request.body.action"
    routes = sorted(
        v["Properties"]["RouteKey"] for v in res.values() if v["Type"] == "AWS::ApiGatewayV2::Route"
    )
    assert routes == ["$connect", "$default", "$disconnect"]


def test_no_function_may_scan():
    text = (ROOT / "template.yaml").read_text()
    assert "dynamodb:Scan" not in text and "dynamodb:*" not in text
    for path in (ROOT / "functions").rglob("*.py"):
        assert ".scan(" not in path.read_text(), path


def test_sample_events_run_through_their_handlers(api):
    from handlers import rest, timer, ws_connect, ws_default, ws_disconnect

    code = api.create("Host")
    for name in ("P2", "P3"):
        api.join(name)
    events = ROOT / "events"

    def load(name: str) -> dict:
        text = (events / name).read_text().replace("ABCDE", code)
        return json.loads(text.replace("replace-with-a-token-from-POST-rooms", api.tokens["p1"]))

    assert rest.handler(load("rest_create_room.json"), CTX)["statusCode"] == 201
    assert rest.handler(load("rest_join_room.json"), CTX)["statusCode"] == 201
    assert rest.handler(load("rest_get_room.json"), CTX)["statusCode"] == 200
    assert ws_connect.handler(load("ws_connect.json"), CTX)["statusCode"] == 200
    assert ws_default.handler(load("ws_default.json"), CTX)["statusCode"] == 200
    assert api.gw.last("SampleConn1=", "error")["code"] == "not_started"
    assert timer.handler(load("timer.json"), CTX) == {"outcome": "not_running"}
    assert ws_disconnect.handler(load("ws_disconnect.json"), CTX)["statusCode"] == 200
    assert api.snapshot().conns == {}


def test_openapi_document_is_current():
    from handlers import rest

    path = ROOT / "docs" / "openapi.json"
    generated = rest.openapi_json()
    if os.environ.get("UPDATE_OPENAPI") or not path.exists():
        path.write_text(generated + "\n")
    assert json.loads(path.read_text()) == json.loads(generated), (
        "run: UPDATE_OPENAPI=1 pytest tests/functions"
    )
    spec = json.loads(generated)
    assert {"/rooms", "/rooms/{roomCode}", "/rooms/{roomCode}/players"} <= set(spec["paths"])
