"""Tiny stand-ins for the real handlers, to test the gateway machinery on its own.

Started with ``--handler '$default=tests.e2e.fake_handlers:default'`` etc. Frames are JSON
commands (``{"action": "echo"}``...) that exercise one management-API path each.
"""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime

import boto3

management = boto3.client("apigatewaymanagementapi", endpoint_url=os.environ["WS_MANAGEMENT_ENDPOINT"])
scheduler = boto3.client("scheduler")
dynamodb = boto3.client("dynamodb")
CONNECTED: set[str] = set()


def _reply(cid: str, **frame) -> None:
    management.post_to_connection(ConnectionId=cid, Data=json.dumps(frame).encode())


def connect(event, _context):
    query = event.get("queryStringParameters") or {}
    if query.get("token") == "bad":
        return {"statusCode": 401, "body": "bad token"}
    if query.get("crash"):
        raise RuntimeError("connect crashed")
    CONNECTED.add(event["requestContext"]["connectionId"])
    return {"statusCode": 200}


def disconnect(event, _context):
    CONNECTED.discard(event["requestContext"]["connectionId"])
    return {"statusCode": 200}


def default(event, _context):
    ctx = event["requestContext"]
    cid = ctx["connectionId"]
    try:
        frame = json.loads(event["body"])
        if not isinstance(frame, dict):
            raise ValueError("not an object")
    except ValueError:
        _reply(cid, type="error", code="bad_frame", message="not JSON")
        return {"statusCode": 400}
    action = frame.get("action")
    if action == "echo":
        _reply(cid, type="echo", event=event)
    elif action == "broadcast":
        gone = []
        for other in sorted(CONNECTED):
            try:
                _reply(other, type="broadcast", text=frame.get("text") or "z" * frame.get("size", 1))
            except management.exceptions.GoneException:
                gone.append(other)
        _reply(cid, type="broadcasted", gone=gone)
    elif action == "post":
        try:
            management.post_to_connection(ConnectionId=frame["to"], Data=("x" * frame.get("size", 1)).encode())
            _reply(cid, type="posted")
        except management.exceptions.GoneException:
            _reply(cid, type="error", code="gone")
        except management.exceptions.PayloadTooLargeException:
            _reply(cid, type="error", code="too_large")
    elif action == "info":
        info = management.get_connection(ConnectionId=frame.get("of", cid))
        _reply(cid, type="info", sourceIp=info["Identity"]["SourceIp"],
               connectedAt=info["ConnectedAt"].isoformat())
    elif action == "kick":
        try:
            management.delete_connection(ConnectionId=frame.get("of", cid))
        except management.exceptions.GoneException:
            _reply(cid, type="error", code="gone")
    elif action == "schedule":
        at = datetime.fromtimestamp(frame["at"], UTC).strftime("%Y-%m-%dT%H:%M:%S")
        scheduler.create_schedule(
            Name=frame["name"], GroupName=os.environ["SCHEDULE_GROUP"],
            ScheduleExpression=f"at({at})", FlexibleTimeWindow={"Mode": "OFF"},
            ActionAfterCompletion="DELETE",
            Target={"Arn": os.environ["TIMER_FUNCTION_ARN"], "RoleArn": os.environ["SCHEDULER_ROLE_ARN"],
                    "Input": json.dumps({"connectionId": cid, "name": frame["name"]})},
        )
        _reply(cid, type="scheduled")
    elif action == "unschedule":
        scheduler.delete_schedule(Name=frame["name"], GroupName=os.environ["SCHEDULE_GROUP"])
        _reply(cid, type="unscheduled")
    elif action == "schedules":
        names = [s["Name"] for s in scheduler.list_schedules(GroupName=os.environ["SCHEDULE_GROUP"])["Schedules"]]
        _reply(cid, type="schedules", names=names)
    elif action == "putItem":
        dynamodb.put_item(TableName=os.environ["TABLE_NAME"], Item={
            "pk": {"S": frame["pk"]}, "sk": {"S": "x"}, "expiresAt": {"N": str(frame["expiresAt"])}})
        _reply(cid, type="put")
    elif action == "getItem":
        item = dynamodb.get_item(TableName=os.environ["TABLE_NAME"], Key={"pk": {"S": frame["pk"]}, "sk": {"S": "x"}})
        _reply(cid, type="item", found="Item" in item)
    elif action == "txn":
        _reply(cid, type="txn", **_transactions(frame["prefix"]))
    elif action == "env":
        _reply(cid, type="env", env={k: os.environ.get(k) for k in (
            "TABLE_NAME", "WS_URL", "WS_MANAGEMENT_ENDPOINT", "SCHEDULE_GROUP", "MAFIA_CLOCK_RATE",
            "MAFIA_CLOCK_ORIGIN", "ALLOWED_ORIGINS", "POWERTOOLS_TRACE_DISABLED")})
    elif action == "sleep":
        time.sleep(frame.get("seconds", 1))
        _reply(cid, type="slept")
    elif action == "raise":
        raise RuntimeError("handler crashed")
    else:
        _reply(cid, type="error", code="unknown_action")
    return {"statusCode": 200}


def _transactions(prefix: str) -> dict:
    """TransactWriteItems semantics the room store relies on (moto's is patched in local/)."""
    table = os.environ["TABLE_NAME"]

    def key(name: str) -> dict:
        return {"pk": {"S": f"{prefix}{name}"}, "sk": {"S": "x"}}

    def put(name: str, version: int, cond: int | None = None) -> dict:
        op = {"TableName": table, "Item": {**key(name), "version": {"N": str(version)}}}
        if cond is not None:
            op["ConditionExpression"] = "version = :v"
            op["ExpressionAttributeValues"] = {":v": {"N": str(cond)}}
        return {"Put": op}

    dynamodb.put_item(TableName=table, Item={**key("A"), "version": {"N": "1"}})
    dynamodb.transact_write_items(TransactItems=[put("A", 2, cond=1), put("B", 1)])
    out: dict = {}
    try:
        dynamodb.transact_write_items(TransactItems=[put("A", 3, cond=1), put("C", 1)])
        out["second"] = "written"
    except dynamodb.exceptions.TransactionCanceledException as exc:
        out["second"] = [r.get("Code") for r in exc.response.get("CancellationReasons", [])]
    try:
        dynamodb.transact_write_items(TransactItems=[put("D", 1), put("A", 4, cond=2),
                                                     {"Delete": {"TableName": table, "Key": key("B")}}])
        out["third"] = "written"
    except dynamodb.exceptions.TransactionCanceledException as exc:
        out["third"] = [r.get("Code") for r in exc.response.get("CancellationReasons", [])]

    def get(name: str) -> int | None:
        item = dynamodb.get_item(TableName=table, Key=key(name), ConsistentRead=True).get("Item")
        return int(item["version"]["N"]) if item else None

    out["items"] = {n: get(n) for n in "ABCD"}
    page = dynamodb.query(TableName=table, KeyConditionExpression="pk = :p",
                          ExpressionAttributeValues={":p": {"S": f"{prefix}A"}}, ConsistentRead=True)
    out["query"] = [it["version"]["N"] for it in page["Items"]]
    return out


def timer(event, _context):
    # Scheduler hands over the schedule's Input, parsed.
    now = float(os.environ.get("MAFIA_CLOCK_ORIGIN", "0"))
    rate = float(os.environ.get("MAFIA_CLOCK_RATE", "1"))
    virtual_now = now + (time.time() - now) * rate
    try:
        _reply(event["connectionId"], type="fired", name=event["name"], at=virtual_now)
    except management.exceptions.GoneException:
        pass


def rest(event, _context):
    if (event.get("pathParameters") or {}).get("roomCode") == "BOOM":
        raise RuntimeError("rest crashed")
    return {
        "statusCode": 200,
        "headers": {"Content-Type": "application/json", "X-Test": "1"},
        "multiValueHeaders": {"Set-Cookie": ["a=1", "b=2"]},
        "body": json.dumps({"event": event}),
        "isBase64Encoded": False,
    }
