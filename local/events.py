"""Builders for the events API Gateway hands to Lambda: REST API v1 proxy events and
WebSocket ``$connect`` / message / ``$disconnect`` events, with the fields AWS sends.

The one set of builders: the offline gateway, the function tests (``tests/functions/fnkit.py``)
and ``bench/backend.py`` use them, and ``tests/functions/test_events.py`` checks their output
and ``events/*.json`` against the models the handlers parse with."""

from __future__ import annotations

import base64
import os
import secrets
import time
import uuid
from collections.abc import Iterable, Mapping
from email.utils import formatdate

ACCOUNT_ID = "123456789012"
API_ID = "local"
DOMAIN = "localhost"
SOURCE_IP = "127.0.0.1"


def connection_id() -> str:
    """An id shaped like API Gateway's (12 random bytes, base64: e.g. ``L0SM9cOFvHcCIhw=``)."""
    return base64.b64encode(secrets.token_bytes(10)).decode()


def api_id() -> str:
    return secrets.token_hex(5)


def request_time(epoch_s: float | None = None) -> str:
    """``09/Apr/2015:12:34:56 +0000``: the format of ``requestContext.requestTime``."""
    t = time.gmtime(epoch_s if epoch_s is not None else time.time())
    return time.strftime("%d/%b/%Y:%H:%M:%S +0000", t)


def http_date(epoch_s: float) -> str:
    return formatdate(epoch_s, usegmt=True)


class _Items(list):
    """A list of header pairs read as a mapping (`items`, `get`: the last value)."""

    def items(self):  # noqa: D102
        return list(self)

    def get(self, key: str, default: str | None = None) -> str | None:
        found = [v for k, v in self if k.lower() == key.lower()]
        return found[-1] if found else default


def _single_and_multi(items: Iterable[tuple[str, str]]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """API Gateway's two views of repeated keys: the last value, and all values."""
    single: dict[str, str] = {}
    multi: dict[str, list[str]] = {}
    for key, value in items:
        single[key] = value
        multi.setdefault(key, []).append(value)
    return single, multi


def _identity(source_ip: str, user_agent: str | None) -> dict:
    return {
        "accessKey": None,
        "accountId": None,
        "apiKey": None,
        "apiKeyId": None,
        "caller": None,
        "cognitoAuthenticationProvider": None,
        "cognitoAuthenticationType": None,
        "cognitoIdentityId": None,
        "cognitoIdentityPoolId": None,
        "principalOrgId": None,
        "sourceIp": source_ip,
        "user": None,
        "userAgent": user_agent,
        "userArn": None,
    }


# What the site's CloudFront adds to every request of its REST behaviour (template.yaml,
# WebDistribution): the stack's secret origin header, and the viewer's address and port.
ORIGIN_HEADER = "X-Mafia-Origin"
VIEWER_HEADER = "CloudFront-Viewer-Address"
VIEWER_PORT = 46532


def cloudfront_headers(
    headers: Mapping[str, str] | Iterable[tuple[str, str]],
    viewer_ip: str,
    origin_secret: str,
    viewer_port: int = VIEWER_PORT,
) -> list[tuple[str, str]]:
    """The headers CloudFront sends the REST origin for a viewer's request: the viewer's own
    (the AllViewerExceptHostHeader policy; Host, which CloudFront sets to the origin's domain,
    is the offline stack's own either way) without any header CloudFront sets itself (a viewer
    cannot forge them), then the origin secret and `CloudFront-Viewer-Address` (the viewer's
    address and port, ``198.51.100.7:46532``)."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    own = {ORIGIN_HEADER.lower(), VIEWER_HEADER.lower()}
    kept = [(k, v) for k, v in items if k.lower() not in own]
    return [*kept, (ORIGIN_HEADER, origin_secret), (VIEWER_HEADER, f"{viewer_ip}:{viewer_port}")]


def rest_event(
    *,
    method: str,
    path: str,
    resource: str | None = None,
    path_parameters: dict[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    query: Mapping[str, str] | None = None,
    body: bytes | str | None = b"",
    stage: str = "api",
    api: str = API_ID,
    domain_name: str = DOMAIN,
    source_ip: str = SOURCE_IP,
    viewer: str | None = None,
    origin_secret: str | None = None,
    cloudfront: bool = True,
) -> dict:
    """A REST API (v1) Lambda proxy event, as API Gateway sends it. ``cloudfront``: the request
    came through the site's CloudFront (`cloudfront_headers`: ``viewer`` its viewer's address,
    by default ``source_ip``; ``origin_secret`` by default the stack's, ``MAFIA_ORIGIN_SECRET``); False: the
    ``execute-api`` URL called directly, the headers as given."""
    now = time.time()
    headers = headers or {}
    if cloudfront:
        secret = origin_secret if origin_secret is not None else os.environ.get("MAFIA_ORIGIN_SECRET", "")
        headers = _Items(cloudfront_headers(headers, viewer or source_ip, secret))
    query = query or {}
    resource = resource or path
    body = body.encode("utf-8") if isinstance(body, str) else (body or b"")
    single_h, multi_h = _single_and_multi(headers.items())
    single_q, multi_q = _single_and_multi(query.items())
    if body:
        try:
            text, is_b64 = body.decode("utf-8"), False
        except UnicodeDecodeError:
            text, is_b64 = base64.b64encode(body).decode(), True
    else:
        text, is_b64 = None, False
    request_id = str(uuid.uuid4())
    return {
        "resource": resource,
        "path": path,
        "httpMethod": method,
        "headers": single_h or None,
        "multiValueHeaders": multi_h or None,
        "queryStringParameters": single_q or None,
        "multiValueQueryStringParameters": multi_q or None,
        "pathParameters": path_parameters or None,
        "stageVariables": None,
        "requestContext": {
            "resourceId": secrets.token_hex(3),
            "resourcePath": resource,
            "httpMethod": method,
            "extendedRequestId": base64.b64encode(secrets.token_bytes(6)).decode(),
            "requestTime": request_time(now),
            "path": f"/{stage}{path}",
            "accountId": ACCOUNT_ID,
            "protocol": "HTTP/1.1",
            "stage": stage,
            "domainPrefix": domain_name.split(".")[0].split(":")[0],
            "requestTimeEpoch": int(now * 1000),
            "requestId": request_id,
            "identity": _identity(source_ip, single_h.get("User-Agent") or headers.get("User-Agent")),
            "domainName": domain_name,
            "apiId": api,
        },
        "body": text,
        "isBase64Encoded": is_b64,
    }


def _ws_context(
    *,
    route_key: str,
    event_type: str,
    connection: str,
    connected_at_ms: int | None,
    stage: str,
    api: str,
    domain_name: str,
    source_ip: str,
    user_agent: str | None,
) -> dict:
    now = time.time()
    return {
        "routeKey": route_key,
        "eventType": event_type,
        "extendedRequestId": base64.b64encode(secrets.token_bytes(6)).decode(),
        "requestTime": request_time(now),
        "messageDirection": "IN",
        "stage": stage,
        "connectedAt": connected_at_ms if connected_at_ms is not None else int(now * 1000),
        "requestTimeEpoch": int(now * 1000),
        "identity": {"userAgent": user_agent, "sourceIp": source_ip},
        "requestId": base64.b64encode(secrets.token_bytes(6)).decode(),
        "domainName": domain_name,
        "connectionId": connection,
        "apiId": api,
    }


def ws_connect_event(
    *,
    connection: str,
    connected_at_ms: int | None = None,
    headers: Mapping[str, str] | None = None,
    query: Mapping[str, str] | None = None,
    stage: str = "ws",
    api: str = API_ID,
    domain_name: str = DOMAIN,
    source_ip: str = SOURCE_IP,
) -> dict:
    """The ``$connect`` event: headers and query string of the upgrade request."""
    headers = headers or {}
    single_h, multi_h = _single_and_multi(headers.items())
    event = {
        "headers": single_h,
        "multiValueHeaders": multi_h,
        "requestContext": _ws_context(
            route_key="$connect",
            event_type="CONNECT",
            connection=connection,
            connected_at_ms=connected_at_ms,
            stage=stage,
            api=api,
            domain_name=domain_name,
            source_ip=source_ip,
            user_agent=headers.get("User-Agent"),
        ),
        "isBase64Encoded": False,
    }
    if query:
        single_q, multi_q = _single_and_multi(query.items())
        event["queryStringParameters"] = single_q
        event["multiValueQueryStringParameters"] = multi_q
    return event


def ws_message_event(
    *,
    body: str | None,
    connection: str,
    route_key: str = "$default",
    connected_at_ms: int | None = None,
    stage: str = "ws",
    api: str = API_ID,
    domain_name: str = DOMAIN,
    source_ip: str = SOURCE_IP,
    user_agent: str | None = None,
) -> dict:
    """A message event (``$default`` or a custom route): no headers, the frame as ``body``."""
    context = _ws_context(
        route_key=route_key,
        event_type="MESSAGE",
        connection=connection,
        connected_at_ms=connected_at_ms,
        stage=stage,
        api=api,
        domain_name=domain_name,
        source_ip=source_ip,
        user_agent=user_agent,
    )
    context["messageId"] = base64.b64encode(secrets.token_bytes(6)).decode()
    return {"requestContext": context, "body": body, "isBase64Encoded": False}


def ws_disconnect_event(
    *,
    connection: str,
    connected_at_ms: int | None = None,
    status_code: int = 1000,
    reason: str = "Client-side close frame status code '1000'",
    domain_name: str = DOMAIN,
    stage: str = "ws",
    api: str = API_ID,
    source_ip: str = SOURCE_IP,
    user_agent: str | None = None,
) -> dict:
    """The ``$disconnect`` event (best effort on AWS; always sent here)."""
    headers = {"Host": domain_name, "x-api-key": "", "X-Forwarded-For": "", "x-restapi": ""}
    context = _ws_context(
        route_key="$disconnect",
        event_type="DISCONNECT",
        connection=connection,
        connected_at_ms=connected_at_ms,
        stage=stage,
        api=api,
        domain_name=domain_name,
        source_ip=source_ip,
        user_agent=user_agent,
    )
    context["disconnectStatusCode"] = status_code
    context["disconnectReason"] = reason
    return {
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "requestContext": context,
        "isBase64Encoded": False,
    }
