"""The test-only fourth preset (tests/unit/tinypreset.py) plays through the room layer: a host
creates a "tiny" room over the same service, adds bots, starts, and the game reaches its end.
Nothing outside that module and its tests names it: a new rule system is one module."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from mafia_engine.presets import PRESETS
from service.protocol import views

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)

_SPEC = importlib.util.spec_from_file_location(
    "tinypreset_room", Path(__file__).resolve().parents[1] / "unit" / "tinypreset.py"
)
tinypreset = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(tinypreset)


@pytest.fixture
def tiny():
    tinypreset.register()
    try:
        yield
    finally:
        tinypreset.unregister()
    assert "tiny" not in PRESETS


def test_a_preset_registered_in_tests_plays_a_bot_room_to_the_end(api, tiny):
    api.create("Host", preset="tiny")
    api.connect("cp1", "p1")
    for _ in range(3):
        api.send("cp1", {"action": "addBot"})
    api.send("cp1", {"action": "start"})
    assert api.snapshot().room["status"] == "running", api.gw.last("cp1")
    for _ in range(400):
        snap = api.snapshot()
        if snap.room["status"] != "running":
            break
        view = api.gw.last("cp1", "view")["view"]
        task = (view.get("private") or {}).get("task")
        if task == "ready":
            api.send("cp1", {"action": "seenRole"})
        wake, ends = api.next_wake(), view["phase"]["endsAt"]
        due = [t for t in (wake, ends) if t is not None]
        api.clock.t = max([api.clock.t, *due]) + 0.01
        api.fire_due()  # the Scheduler delivers what is due: the bots' private wakes, the phase timer
        api.send("cp1", {"action": "nudge", "phase": view["phase"]["seq"]})
    snap = api.snapshot()
    assert snap.room["status"] == "ended"
    ended = api.gw.last("cp1", "view")["view"]
    assert ended["preset"] == "tiny" and ended["result"]["winner"] in {"town", "mafia"}


def test_a_preset_registered_after_another_was_read_keeps_its_own_limits_and_defaults(api):
    """The room layer asks the engine per preset: reading classic first must not hide a preset
    registered later (it once fell back to 16 seats and no defaults)."""
    assert views.preset_info("classic")["maxPlayers"] == PRESETS["classic"].max_players
    tinypreset.register()
    try:
        _tiny_room_keeps_its_limits(api)
    finally:
        tinypreset.unregister()


def _tiny_room_keeps_its_limits(api) -> None:
    info = views.preset_info("tiny")
    assert (info["minPlayers"], info["maxPlayers"]) == (4, 6)
    assert info["defaults"]["nightSeconds"] == 30 and info["defaults"]["voteSeconds"] == 40
    api.create("Host", preset="tiny")
    api.connect("cp1", "p1")
    api.send("cp1", {"action": "sync"})
    lobby = api.gw.last("cp1", "view")["view"]
    assert lobby["options"]["nightSeconds"] == 30  # the preset's default, shown in the lobby
    assert [r["id"] for r in lobby["rules"]["roles"]] == [r.id for r in PRESETS["tiny"].roles]
    for _ in range(5):
        api.send("cp1", {"action": "addBot"})
    assert len(api.snapshot().room["players"]) == 6  # the tiny room seats 6, never 16
    api.send("cp1", {"action": "addBot"})
    assert len(api.snapshot().room["players"]) == 6
    assert api.gw.last("cp1", "error")["code"] == "room_full"
