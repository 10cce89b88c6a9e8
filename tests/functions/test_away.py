""" "While you were away" in the room layer (docs/rules.md, "While you were away";
functions/service/features/away.py): the marker a seat's last socket leaves, what its return writes
into the seat's own view, and that no one else's view learns anything of it."""

from __future__ import annotations

import json
import random

import pytest

from service.features import away, fairness

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)


def kind(api) -> str:
    return api.state()["phase"]["kind"]


def step(api) -> None:
    """The phase's deadline passes and the Scheduler delivers its timeout."""
    s = api.state()
    api.clock.advance(max(0.0, s["phase"]["endsAt"] - api.clock.t) + 0.5)
    assert api.fire(s["seq"])["outcome"] == "applied"


def until(api, wanted: str) -> None:
    for _ in range(20):
        if kind(api) == wanted:
            return
        step(api)
    raise AssertionError(f"never reached {wanted}, at {kind(api)}")


def role_of(api, role: str) -> str:
    return next(p["id"] for p in api.state()["players"] if p["role"] == role)


def away_of(api, conn: str):
    return ((api.gw.last(conn) or {}).get("view") or {}).get("you", {}).get("away")


def night_with_a_check(api) -> tuple[str, str]:
    """A 7-seat classic game at its first night; the police has checked a mafioso."""
    api.start(7)
    until(api, "night")
    police, mafioso = role_of(api, "police"), role_of(api, "mafia")
    api.send(f"c{police}", {"action": "investigate", "target": mafioso, "id": "check"})
    assert api.errors(f"c{police}") == []
    return police, mafioso


def test_a_seat_back_after_a_missed_phase_sees_what_it_missed_in_its_own_view(api):
    police, mafioso = night_with_a_check(api)
    seq = api.state()["seq"]
    events = len(api.state()["events"])
    api.disconnect(f"c{police}")  # the tab closes during the night
    marker = api.snapshot().room["away"][police]
    assert marker == {"from": {"seq": seq, "events": events, "results": 0}, "to": None}
    step(api)  # the morning comes without the police
    assert kind(api) != "night"
    api.connect("back", police)
    api.send("back", {"action": "sync", "id": "s"})
    mine = away_of(api, "back")
    now = api.state()
    assert mine == {
        "since": seq,
        "back": now["seq"],
        "events": [events, len(now["events"])],
        "results": [0, 1],
    }
    view = api.gw.last("back")["view"]
    missed = view["private"]["results"][mine["results"][0] : mine["results"][1]]
    assert missed == [{"day": 1, "kind": "investigate", "target": mafioso, "result": "mafia"}]
    assert [e["kind"] for e in view["events"][mine["events"][0] :]][-1] == "morning"


def test_coming_back_in_the_same_phase_leaves_no_marker(api):
    police, _ = night_with_a_check(api)
    api.disconnect(f"c{police}")
    api.clock.advance(3)  # a reload: back before the phase ends
    api.connect("back", police)
    assert "away" not in api.snapshot().room
    api.send("back", {"action": "sync", "id": "s"})
    assert away_of(api, "back") is None


def test_a_second_device_while_the_first_is_live_is_not_away(api):
    police, _ = night_with_a_check(api)
    api.connect("phone", police)
    api.disconnect(f"c{police}")  # the laptop closes; the phone stays
    step(api)
    assert "away" not in api.snapshot().room
    api.send("phone", {"action": "sync", "id": "s"})
    assert away_of(api, "phone") is None


def test_the_marker_goes_once_a_phase_passes_with_the_seat_back(api):
    police, _ = night_with_a_check(api)
    api.disconnect(f"c{police}")
    step(api)
    api.connect("back", police)
    marker = api.snapshot().room["away"][police]
    assert marker["to"] is not None
    api.connect("phone", police)  # another device of the seat, now that it is back
    assert api.snapshot().room["away"][police] == marker  # changes nothing
    step(api)  # a phase lived with the seat back
    assert "away" not in api.snapshot().room
    assert away_of(api, "back") is None


def test_the_marker_is_in_no_other_seats_view_and_no_spectators(api):
    police, _ = night_with_a_check(api)
    api.connect("watcher")  # a spectator
    api.disconnect(f"c{police}")
    step(api)
    api.connect("back", police)
    for conn in [f"cp{i}" for i in range(1, 8) if f"p{i}" != police] + ["watcher", "back"]:
        api.send(conn, {"action": "sync", "id": "s"})
    for conn, frame in api.gw.sent:
        if conn != "back":
            assert '"away"' not in json.dumps(frame), conn
    assert away_of(api, "back") is not None


def test_a_spectator_never_gets_a_marker(api):
    night_with_a_check(api)
    api.connect("watcher")
    api.disconnect("watcher")
    step(api)
    assert "away" not in api.snapshot().room
    api.connect("watcher2")
    api.send("watcher2", {"action": "sync", "id": "s"})
    assert api.gw.last("watcher2")["view"]["you"] is None


def test_the_marker_changes_no_other_viewers_view_bytes(api, monkeypatch):
    """The same game twice, with the marker and with `away.left` doing nothing: every frame
    to every other seat and to a spectator is the same, byte for byte."""
    monkeypatch.setattr(fairness, "new_salt", lambda: "00" * 32)
    start = api.clock.t

    def run() -> dict[str, list[str]]:
        drawn = random.Random(5)
        monkeypatch.setattr(fairness, "new_secret", lambda: f"{drawn.getrandbits(256):064x}")
        api.clock.t = start
        api.gw.clear()
        police, _ = night_with_a_check(api)
        api.connect("watcher")
        api.disconnect(f"c{police}")
        step(api)
        api.connect("back", police)
        step(api)
        api.disconnect("back")
        step(api)
        code = api.code
        # per connection, in the order it got them (pushes of one change go out in parallel)
        got: dict[str, list[str]] = {}
        for (conn, _), (_, wire) in zip(api.gw.sent, api.gw.wire, strict=True):
            if conn not in {f"c{police}", "back"}:
                got.setdefault(conn, []).append(json.dumps(wire, sort_keys=True).replace(code, "ROOM"))
        return got

    marked = run()
    monkeypatch.setattr(away, "left", lambda *a: None)
    unmarked = run()
    assert len(marked) == 7 and sum(map(len, marked.values())) > 40  # six seats, a spectator
    assert marked == unmarked
