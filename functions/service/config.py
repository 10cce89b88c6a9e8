"""Settings and clients from the environment, built once per process and injected.

Endpoints come only from the environment (boto3 honours AWS_ENDPOINT_URL_<SERVICE>), so the
same code runs on AWS, in the offline stack and in tests; there is no "if local" anywhere.
`build_service` wires a RoomService from them; the handlers call it once, at module scope
(`handlers/wiring.py`), and tests build their own with a fake gateway.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import boto3
from botocore.config import Config

from .infra.fanout import ApiGateway, Gateway
from .infra.storage import Store
from .infra.timers import Timers
from .room.rooms import RoomService


@dataclass(frozen=True)
class Settings:
    table_name: str
    ws_url: str
    ws_management_endpoint: str
    schedule_group: str
    scheduler_role_arn: str
    timer_function_arn: str
    allowed_origins: tuple[str, ...]
    timer_dead_letter_arn: str = ""

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ
        origins = tuple(
            o.strip().rstrip("/") for o in env.get("ALLOWED_ORIGINS", "*").split(",") if o.strip()
        )
        return cls(
            table_name=env.get("TABLE_NAME", "mafia"),
            ws_url=env.get("WS_URL", ""),
            ws_management_endpoint=env.get("WS_MANAGEMENT_ENDPOINT", ""),
            schedule_group=env.get("SCHEDULE_GROUP", "default"),
            scheduler_role_arn=env.get("SCHEDULER_ROLE_ARN", "arn:aws:iam::000000000000:role/scheduler"),
            timer_function_arn=env.get(
                "TIMER_FUNCTION_ARN", "arn:aws:lambda:us-east-1:000000000000:function:timer"
            ),
            allowed_origins=origins or ("*",),
            timer_dead_letter_arn=env.get("TIMER_DEAD_LETTER_ARN", ""),
        )


_BOTO = Config(retries={"mode": "standard", "max_attempts": 3}, max_pool_connections=32)


def build_service(settings: Settings | None = None, gateway: Gateway | None = None) -> RoomService:
    """A RoomService wired to boto3 clients made from the environment."""
    s = settings or Settings.from_env()
    dynamodb = boto3.client("dynamodb", config=_BOTO)
    scheduler = boto3.client("scheduler", config=_BOTO)
    if gateway is None:
        mgmt = boto3.client(
            "apigatewaymanagementapi", endpoint_url=s.ws_management_endpoint or None, config=_BOTO
        )
        gateway = ApiGateway(mgmt)
    timers = Timers(
        scheduler, s.schedule_group, s.scheduler_role_arn, s.timer_function_arn, s.timer_dead_letter_arn
    )
    return RoomService(
        Store(dynamodb, s.table_name), gateway, timers, ws_url=s.ws_url, allowed_origins=s.allowed_origins
    )
