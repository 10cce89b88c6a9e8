"""Scheduler deliveries: early, late, duplicate and stale timeouts; arming."""

from __future__ import annotations

import boto3
import pytest

from service.infra import timers


def schedules():
    return boto3.client("scheduler").list_schedules(GroupName="mafia-test-phases")["Schedules"]


def test_fire_minute_is_the_first_whole_minute_after_the_deadline():
    assert timers.fire_minute(120.0) == 120
    assert timers.fire_minute(120.5) == 180
    assert timers.fire_minute(100.0, after=120) == 180


def test_late_timeout_ends_the_phase_once_and_a_duplicate_changes_nothing(api):
    api.start(4)
    seq = api.state()["seq"]
    api.clock.advance(api.state()["phase"]["endsAt"] - api.clock.t + 30)
    assert api.fire(seq)["outcome"] == "applied"
    after = api.item()
    assert api.state()["seq"] == seq + 1
    assert api.fire(seq)["outcome"] == "stale_timeout"
    assert api.item() == after


@pytest.mark.fresh_aws  # lists the whole schedule group
def test_early_timeout_changes_nothing_and_rearms_the_next_minute(api):
    api.start(4)
    state = api.state()
    seq, deadline = state["seq"], state["phase"]["endsAt"]
    first = timers.fire_minute(deadline)
    before = api.item()
    api.gw.clear()
    assert api.fire(seq, at=first)["outcome"] == "too_early"
    assert api.item() == before and api.gw.sent == []
    names = {s["Name"] for s in schedules()}
    assert timers.schedule_name(api.code, seq, first) in names
    assert timers.schedule_name(api.code, seq, first + 60) in names


def test_stale_timeout_for_an_old_phase_changes_nothing(api):
    api.start(4)
    seq = api.state()["seq"]
    api.clock.advance(3600)
    api.fire(seq)
    before = api.item()
    assert api.fire(seq - 1)["outcome"] == "stale_timeout"
    assert api.fire(seq)["outcome"] == "stale_timeout"
    assert api.item() == before


def test_timeout_for_a_lobby_or_unknown_room_is_harmless(api):
    api.lobby(2)
    assert api.fire(0)["outcome"] == "not_running"
    assert api.fire(1, room="ZZZZZ")["outcome"] == "room_not_found"
    from fnkit import CTX

    from handlers import timer

    assert timer.handler({"nonsense": True}, CTX) == {"outcome": "malformed"}


@pytest.mark.fresh_aws  # lists the whole schedule group
def test_every_phase_change_arms_exactly_one_new_schedule(api):
    api.start(4)
    assert len(schedules()) == 1
    for _ in range(3):
        state = api.state()
        api.clock.advance(state["phase"]["endsAt"] - api.clock.t + 1)
        api.fire(state["seq"])
    assert len(schedules()) == 4
    payloads = [
        boto3.client("scheduler").get_schedule(GroupName="mafia-test-phases", Name=s["Name"])["Target"][
            "Input"
        ]
        for s in schedules()
    ]
    assert all(f'"room": "{api.code}"' in p for p in payloads)


def test_a_failing_scheduler_does_not_fail_the_action(api, monkeypatch):
    def boom(**kwargs):
        raise RuntimeError("scheduler down")

    monkeypatch.setattr(api.svc.timers.client, "create_schedule", boom)
    api.start(4)
    assert api.snapshot().room["status"] == "running"
