"""The AWS side of the offline stack: moto's server for DynamoDB and Scheduler, the
environment the handlers read (set before they are imported: they build boto3 clients at
module scope), the table from ``template.yaml`` and the schedule group."""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time

import boto3

log = logging.getLogger("local.aws")

REGION = "us-east-1"
ACCOUNT_ID = "123456789012"
TABLE_NAME = "mafia-local"
SCHEDULE_GROUP = "mafia-local"
SCHEDULER_ROLE_ARN = f"arn:aws:iam::{ACCOUNT_ID}:role/mafia-local-scheduler"
TIMER_FUNCTION_ARN = f"arn:aws:lambda:{REGION}:{ACCOUNT_ID}:function:mafia-local-timer"
SESSION_SECRET_NAME = "mafia-local-SessionSecret"  # template.yaml's SessionSecret (passkey sign-in's sessions)
TURN_SECRET_NAME = "mafia-local-TurnSecret"  # template.yaml's TurnSecret (local/turn.py's coturn holds it too)


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class Moto:
    """moto's server app on a free loopback port, served on a thread of this process, with
    the fixes of ``local.moto_fixes`` (one DynamoDB request at a time, among others)."""

    def __init__(self) -> None:
        from moto.moto_server.werkzeug_app import (
            DomainDispatcherApplication,
            MotoRequestHandler,
            create_backend_app,
        )
        from werkzeug.serving import make_server

        from .moto_fixes import patch_moto, serialize_dynamodb

        patch_moto()
        # What moto's ThreadedMotoServer serves, wrapped in the DynamoDB lock.
        app = serialize_dynamodb(DomainDispatcherApplication(create_backend_app))
        self.port = free_port()
        self.server = make_server(
            "127.0.0.1", self.port, app, threaded=True, request_handler=MotoRequestHandler
        )
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, name="moto", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        if self.thread.is_alive():
            self.server.shutdown()
        self.server.server_close()


def stack_environment(
    *,
    host: str,
    port: int,
    moto_url: str,
    time_scale: float,
    clock_origin: float,
    clock_file: str | None = None,
) -> dict[str, str]:
    """Every variable docs/architecture.md lists, with local values."""
    public_host = host if host not in ("0.0.0.0", "::", "") else "127.0.0.1"
    base = f"{public_host}:{port}"
    return {
        # Dummy credentials: nothing here may ever reach real AWS.
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
        "AWS_SESSION_TOKEN": "local",
        "AWS_DEFAULT_REGION": REGION,
        "AWS_REGION": REGION,
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_ENDPOINT_URL_DYNAMODB": moto_url,
        "AWS_ENDPOINT_URL_SCHEDULER": moto_url,
        "AWS_ENDPOINT_URL_SECRETS_MANAGER": moto_url,
        "AWS_ENDPOINT_URL_APIGATEWAYMANAGEMENTAPI": f"http://{base}/ws",
        "TABLE_NAME": TABLE_NAME,
        "WS_URL": f"ws://{base}/ws",
        "WS_MANAGEMENT_ENDPOINT": f"http://{base}/ws",
        "SCHEDULE_GROUP": SCHEDULE_GROUP,
        "SCHEDULER_ROLE_ARN": SCHEDULER_ROLE_ARN,
        "TIMER_FUNCTION_ARN": TIMER_FUNCTION_ARN,
        "ALLOWED_ORIGINS": "*",
        # The secret the site's CloudFront adds to every REST request (template.yaml OriginSecret):
        # a new one for every stack; the gateway adds it as CloudFront does (local/gateway.py).
        "MAFIA_ORIGIN_SECRET": secrets.token_urlsafe(32),
        "MAFIA_CLOCK_RATE": repr(float(time_scale)),
        "MAFIA_CLOCK_ORIGIN": repr(float(clock_origin)),
        # A manual clock (--manual-clock): the file every handler container reads the time from.
        **({"MAFIA_CLOCK_FILE": clock_file} if clock_file else {}),
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_SERVICE_NAME": "mafia",
        "POWERTOOLS_METRICS_NAMESPACE": "Mafia",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "POWERTOOLS_LOG_LEVEL": os.environ.get("POWERTOOLS_LOG_LEVEL", "WARNING"),
        "POWERTOOLS_DEV": os.environ.get("POWERTOOLS_DEV", "false"),
    }


def create_table(table_name: str) -> str | None:
    """Create the game table as template.yaml defines it; returns its TTL attribute name (or None)."""
    from . import template

    return template.create_table(boto3.client("dynamodb"), table_name)


def create_secret(name: str, value: str) -> str:
    """A Secrets Manager secret (moto's): its ARN."""
    return boto3.client("secretsmanager").create_secret(Name=name, SecretString=value)["ARN"]


def create_schedule_group(name: str) -> None:
    client = boto3.client("scheduler")
    try:
        client.create_schedule_group(Name=name)
    except client.exceptions.ConflictException:
        pass


def wait_for_port(host: str, port: int, timeout: float = 10.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.02)
    raise TimeoutError(f"{host}:{port} did not open")
