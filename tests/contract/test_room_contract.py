"""The room layer's side of the contract, for every registered preset: the functions tier's real
handlers (REST and WebSocket events, the in-memory store) seat the preset's own player range, show its own
option defaults, refuse a start below its minimum, and run a room of bots to the end."""

from __future__ import annotations

import contractkit as kit
from registry import rejoin_test_only

import mafia_engine as me
from mafia_engine import actions
from mafia_engine.presets import PRESETS
from mafia_engine.tasks import TASKS
from service.protocol import frames


def _defaults(preset: str) -> dict:
    return me.presets(only=preset)[preset]["defaults"]


def _add_bots(api, k: int) -> None:
    for _ in range(k):
        api.send("cp1", {"action": "addBot"})


def test_a_room_seats_the_presets_own_range_and_shows_its_own_defaults(api, preset) -> None:
    rejoin_test_only()
    p = PRESETS[preset]
    api.create("Host", preset=preset)
    status, summary = api.rest("GET", f"/rooms/{api.code}")
    assert status == 200 and summary["maxPlayers"] == p.max_players
    assert summary["options"] == _defaults(preset)
    for i in range(2, p.max_players + 1):
        api.join(f"P{i}")
    status, body = api.rest("POST", f"/rooms/{api.code}/players", {"name": "One too many"})
    assert status >= 400 and body["error"]["code"] == "room_full", body
    assert len(api.snapshot().room["players"]) == p.max_players
    assert api.connect("cp1", "p1") == 200
    api.send("cp1", {"action": "sync"})
    lobby = api.gw.last("cp1", "view")["view"]
    assert lobby["options"] == _defaults(preset) and len(lobby["players"]) == p.max_players
    # the engine's word on these options at this count, nothing the room layer makes up
    assert (lobby["room"]["setupError"] or {}).get("code") == kit.setup_code(_defaults(preset), p.max_players)


def test_a_room_below_the_presets_minimum_does_not_start(api, preset) -> None:
    rejoin_test_only()
    p = PRESETS[preset]
    api.create("Host", preset=preset)
    assert api.connect("cp1", "p1") == 200
    _add_bots(api, p.min_players - 2)
    api.send("cp1", {"action": "sync"})
    short = api.gw.last("cp1", "view")["view"]["room"]["setupError"]
    assert short["code"] == "too_few_players" and short["message"], short
    api.send("cp1", {"action": "start", "id": "start"})
    assert api.snapshot().room["status"] == "lobby"
    refusal = api.gw.last("cp1", "error")
    assert refusal["code"] == "too_few_players" and refusal["message"], refusal
    _add_bots(api, 1)
    api.send("cp1", {"action": "start", "id": "start"})
    assert api.snapshot().room["status"] == "running", api.gw.last("cp1", "error")
    assert len(api.state()["players"]) == p.min_players


def _play_out(api, limit: int = 3000) -> dict:
    """Step the clock to the next armed delivery or deadline, deliver, and nudge, until the room has ended."""
    for _ in range(limit):
        if api.snapshot().room["status"] != "running":
            break
        view = api.gw.last("cp1", "view")["view"]
        if (view.get("private") or {}).get("task") == "ready":  # the host is no bot: says it once
            api.send("cp1", {"action": TASKS["ready"].action})
        due = [t for t in (api.next_wake(), view["phase"]["endsAt"]) if t is not None]
        api.clock.t = max([api.clock.t, *due]) + 0.01
        api.fire_due()  # the Scheduler delivers what is due: the bots' private wakes, the phase timer
        if api.snapshot().room["status"] == "running":
            api.send("cp1", {"action": "nudge", "phase": view["phase"]["seq"]})
    return api.gw.last("cp1", "view")["view"]


def test_a_room_of_bots_plays_to_the_end_at_both_ends_of_the_range(api, preset) -> None:
    p = PRESETS[preset]
    for n in sorted({p.min_players, p.max_players}):
        options = next(o for o, m in kit.legal_setups(preset) if m == n)  # some declared options deal n
        api.create("Host", preset=preset, options={k: v for k, v in options.items() if k != "preset"})
        assert api.connect("cp1", "p1") == 200
        _add_bots(api, n - 1)
        api.send("cp1", {"action": "start", "id": "start"})
        assert api.snapshot().room["status"] == "running", api.gw.last("cp1", "error")
        ended = _play_out(api)
        assert api.snapshot().room["status"] == "ended", ended["phase"]
        assert ended["preset"] == preset and len(ended["players"]) == n
        assert ended["result"]["winner"] == me.result(api.state())["winner"]
        refused = [e for e in api.errors("cp1") if e.get("code") not in ("stale_phase", "too_early")]
        assert refused == [], refused
        api.disconnect("cp1")
        api.gw.clear()


def test_every_action_the_preset_declares_itself_is_a_client_frame(preset) -> None:
    """A preset's own actions (``Preset.action_models``) reach the wire: the socket's frame
    union is built from the registered presets (functions/service/protocol/frames.py ``FrameSet``), so
    none of them is refused as an unknown action before its room's engine sees it."""
    own = {actions.type_of(m) for m in PRESETS[preset].action_models}
    taken = {f.tag() for f in frames.ENGINE_FRAMES} | frames.ROOM_ACTIONS
    assert own <= taken, own - taken
    for typ in sorted(own):  # the frame carries the preset's own model to the engine
        assert frames.FRAMES[typ].model in PRESETS[preset].action_models or typ in frames.ROOM_ACTIONS
