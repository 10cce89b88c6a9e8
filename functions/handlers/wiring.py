"""The handlers' one `RoomService`, wired at module scope: built when a handler module is first
imported (Lambda's init phase, once per execution environment), from the environment
(`service.config.build_service`: the boto3 clients, the table, the gateway, the timers), and
reused by every warm invocation, as Powertools' guides create clients outside the handler.

Each handler imports it by name (`from handlers.wiring import room_service`) and passes it
into the service code; nothing looks it up at run time. Tests and benches put their own
(moto-backed, a fake gateway) in its place on each handler module: `harness/wiring.py`.
"""

from __future__ import annotations

import gc

from service import config

room_service = config.build_service()

# What the init phase made (the modules, boto3's service models and clients, pydantic's
# validators) lives as long as the execution environment: frozen out of the collector, so a
# full collection walks only what invocations made. Unfrozen, the first one came a few seconds
# after a cold start and took 130-150 ms of a container's CPU while a player's action waited
# (the offline stack's four containers, each alike); frozen, full collections took 16-36 ms
# (docs/operations.md, "Cold starts").
gc.freeze()
