"""The handlers' one `RoomService`, wired at module scope: built when a handler module is first
imported (Lambda's init phase, once per execution environment), from the environment
(`service.config.build_service`: the boto3 clients, the table, the gateway, the timers), and
reused by every warm invocation, as Powertools' guides create clients outside the handler.

Each handler imports it by name (`from handlers.wiring import room_service`) and passes it
into the service code; nothing looks it up at run time. Tests and benches put their own
(moto-backed, a fake gateway) in its place on each handler module: `harness/wiring.py`.
"""

from __future__ import annotations

from service import config

room_service = config.build_service()
