"""Tests and benches give the handlers their own `RoomService` (moto-backed, a fake or counting
gateway) in place of the one each handler module wired at import (`handlers/wiring.py`).

`inject(svc)` sets it on every handler module (each imported it by name) and answers a
function that puts the previous ones back. `cold_handlers()` lets a stack started in this
process import the handlers afresh, as a cold start does, so they wire a service from the
environment that stack set (and puts the modules this process had back afterwards).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

# every module that holds the handlers' service: the wiring and each handler importing it
HANDLERS = (
    "handlers.rest",
    "handlers.ws_connect",
    "handlers.ws_disconnect",
    "handlers.ws_default",
    "handlers.ws_report",
    "handlers.timer",
)
WIRED = ("handlers.wiring", *HANDLERS)


def inject(svc: Any) -> Callable[[], None]:
    """Every handler serves `svc` from now on; call the answer to undo it."""
    modules = [importlib.import_module(name) for name in WIRED]
    before = [m.room_service for m in modules]
    for m in modules:
        m.room_service = svc

    def undo() -> None:
        for m, old in zip(modules, before, strict=True):
            m.room_service = old

    return undo


@contextmanager
def cold_handlers() -> Iterator[None]:
    """Inside: the handler modules are not imported yet (the next import wires them from the
    environment of that moment); after: this process's own modules are back."""
    saved = {name: sys.modules.pop(name) for name in WIRED if name in sys.modules}
    try:
        yield
    finally:
        for name in WIRED:
            sys.modules.pop(name, None)
        sys.modules.update(saved)
        package = sys.modules.get("handlers")
        for name, module in saved.items():
            if package is not None:
                setattr(package, name.rpartition(".")[2], module)
