"""The benchmark's baseline: a WebSocket route that posts the frame straight back through
the management API, the same way the game handlers fan out (boto3, module-scope client).
Served only when the stack runs with ``--echo-route``."""

from __future__ import annotations

import os

import boto3

_client = None


def _management():
    global _client
    if _client is None:
        _client = boto3.client("apigatewaymanagementapi", endpoint_url=os.environ["WS_MANAGEMENT_ENDPOINT"])
    return _client


def handler(event: dict, _context: object) -> dict:
    _management().post_to_connection(
        ConnectionId=event["requestContext"]["connectionId"], Data=(event.get("body") or "").encode()
    )
    return {"statusCode": 200}
