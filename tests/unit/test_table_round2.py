"""Rules read for the table's second round (docs/rules.md names each test): what the host's
pause, resume and removal say of the phase; city's public "ready to vote" count; the
original rules' bots that have nothing to say in their speech turn."""

from __future__ import annotations

import pytest
from enginekit import Table

from mafia_engine import bots

EIGHT = ["mafia", "mafia", "police", "doctor", "citizen", "citizen", "citizen", "citizen"]
ORIGINAL_EIGHT = ["mafia", "godfather", "police", "citizen", "citizen", "citizen", "citizen", "citizen"]


@pytest.mark.parametrize("preset", ["classic", "city", "original"])
def test_pause_resume_and_removal_name_the_phase_they_happened_in(preset: str) -> None:
    roles = ORIGINAL_EIGHT if preset == "original" else EIGHT
    t = Table(roles, preset=preset, **({"expansion": True} if preset == "original" else {}))
    t.until("night")
    t.act("pause", "p1")
    t.act("resume", "p1")
    t.act("remove", "p8")
    night = t.events()[-3:]
    assert [(e["kind"], e.get("phase")) for e in night] == [("paused", "night"), ("resumed", "night"), ("death", "night")]
    assert night[-1]["by"] == "removed"
    day_kind = next(k for k in ("discussion", "speech") if k in _kinds(preset))
    t.until(day_kind)
    t.act("pause", "p1")
    assert t.events()[-1] == {**t.events()[-1], "kind": "paused", "phase": day_kind}
    # the phase a death by night or vote happened in is not added: its cause says it already
    assert all("phase" not in e for e in t.events("death") if e["by"] != "removed")


def _kinds(preset: str) -> set[str]:
    from mafia_engine.presets import PRESETS

    return set(PRESETS[preset].phases)


def test_city_ready_to_vote_count_is_public_and_names_nobody() -> None:
    t = Table(EIGHT, preset="city")
    t.until("discussion")
    assert t.view(None)["phase"]["readyCount"] == 0
    t.act("readyEarly", "p3")
    t.act("readyEarly", "p5")
    for viewer in (None, "p1", "p6"):
        phase = t.view(viewer)["phase"]
        assert phase["readyCount"] == 2
        assert "ready" not in phase  # who is ready stays off the views


def test_original_bot_with_nothing_to_say_ends_its_speech_turn_early() -> None:
    """Day 2 of a quiet game (no deaths, no claims): a speaking bot that plans no line ends its
    turn in the first fifth of the 20 s speech instead of using 45-85 % of it."""
    quick = normal = 0
    for seed in range(30):
        t = Table(ORIGINAL_EIGHT, seed=seed, preset="original", expansion=True, speechSeconds=20)
        t.until("speech")
        while t.kind == "speech":  # day 1: no nominations, every speaker ends the turn
            t.act("endTurn", t.state["phase"]["speaker"])
        t.until("speech")
        speaker = t.state["phase"]["speaker"]
        start = t.now
        planned = bots.plan(t.view(speaker), seed, start, deadline=start + 20)
        said = [a for _, a in planned if a["type"] == "chat"]
        turn = [at for at, a in planned if a["type"] in ("nominate", "endTurn")]
        assert len(turn) == 1
        if said:
            normal += 1
        else:
            quick += 1
            assert turn[0] - start <= 0.2 * 20 + 1e-6, (seed, planned)
    assert quick > 0  # the quiet case happens (else this test proves nothing)
