"""The role reveal in every preset (docs/rules.md, "Room rules"): it ends as soon as
every living player has seen their card (``seenRole``), at the latest after the generous
``roleRevealSeconds``; who has seen their card is never public, and every seat sends the
same action whatever its role."""

from __future__ import annotations

import json

import pytest
from enginekit import refused

import mafia_engine as me
from mafia_engine import bots

PRESETS = ["classic", "city", "original"]
SIZES = {"classic": 6, "city": 6, "original": 8}
AFTER = {"classic": "greeting", "city": "night", "original": "night"}  # the defaults' first phase


def new(preset: str, **options) -> tuple[dict, list[str]]:
    ids = [f"p{i}" for i in range(1, SIZES[preset] + 1)]
    return me.new_game(ids, {"preset": preset, **options}, seed=3, now=0.0), ids


def dump(x) -> str:
    return json.dumps(x, sort_keys=True)


@pytest.mark.parametrize("preset", PRESETS)
def test_role_reveal_ends_when_everyone_has_seen_their_card(preset):
    """A role reveal of a fixed few seconds ended before a first-time player had tapped their
    card: it ends when everyone has seen their card, with a generous limit."""
    state, ids = new(preset)
    assert state["phase"]["kind"] == "roleReveal"
    for i, pid in enumerate(ids):
        assert state["phase"]["kind"] == "roleReveal", f"moved on before {pid} had seen their card"
        state = me.apply(state, {"type": "seenRole", "player": pid}, 1.0 + i)
    assert state["phase"]["kind"] == AFTER[preset]  # at once (t = 6 s or 8 s), long before the limit


@pytest.mark.parametrize("preset", PRESETS)
def test_role_reveal_ends_at_a_generous_limit_when_someone_has_not_seen_their_card(preset):
    """The generous limit: ``roleRevealSeconds``, 60 s unless the host sets it."""
    state, ids = new(preset)
    assert state["options"]["roleRevealSeconds"] == 60
    assert me.deadline(state) == 60.0
    for pid in ids[1:]:  # one first-time player has not tapped yet
        state = me.apply(state, {"type": "seenRole", "player": pid}, 5.0)
    refused(lambda: me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, 59.9), "too_early")
    state = me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, 60.0)
    assert state["phase"]["kind"] == AFTER[preset]


@pytest.mark.parametrize("preset", PRESETS)
def test_role_reveal_seconds_is_the_same_option_in_every_preset(preset):
    spec = next(o for o in me.presets()[preset]["options"] if o["key"] == "roleRevealSeconds")
    assert (spec["type"], spec["default"], spec["min"], spec["max"]) == ("int", 60, 5, 120)
    state, _ = new(preset, roleRevealSeconds=20)
    assert me.deadline(state) == 20.0


@pytest.mark.parametrize("preset", PRESETS)
def test_who_has_seen_their_card_is_not_public(preset):
    """Every seat sends the same action; other players' views do not change when one sends it
    (no count, no list, no timing to read roles from); the sender's own task says done."""
    state, ids = new(preset)
    sender, watcher = ids[0], ids[1]
    before = {v: dump(me.view(state, v)) for v in (watcher, None)}
    assert me.view(state, sender)["private"]["task"] == "ready"
    state = me.apply(state, {"type": "seenRole", "player": sender}, 2.0)
    assert {v: dump(me.view(state, v)) for v in (watcher, None)} == before
    assert me.view(state, sender)["private"]["task"] == "done"
    assert me.view(state, watcher)["private"]["task"] == "ready"


@pytest.mark.parametrize("preset", PRESETS)
def test_seeing_the_card_twice_or_outside_the_reveal_is_refused_and_changes_nothing(preset):
    state, ids = new(preset)
    state = me.apply(state, {"type": "seenRole", "player": ids[0]}, 1.0)
    e = refused(lambda: me.apply(state, {"type": "seenRole", "player": ids[0]}, 2.0), "already_ready")
    assert "seen your role" in str(e)
    later = me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, 60.0)
    before = dump(later)
    refused(lambda: me.apply(later, {"type": "seenRole", "player": ids[1]}, 61.0), "wrong_phase")
    assert dump(later) == before


@pytest.mark.parametrize("preset", PRESETS)
def test_ready_early_in_the_role_reveal_counts_as_having_seen_the_card(preset):
    """The reveal's ``ready`` task (performed by ``readyEarly``, what the single-device flow and
    older clients send) and ``seenRole`` are one thing: any mix of them ends the reveal."""
    state, ids = new(preset)
    for i, pid in enumerate(ids):
        kind = "readyEarly" if i % 2 else "seenRole"
        state = me.apply(state, {"type": kind, "player": pid}, 1.0 + i)
    assert state["phase"]["kind"] == AFTER[preset]


@pytest.mark.parametrize("preset", PRESETS)
def test_a_player_who_leaves_during_the_reveal_is_not_waited_for(preset):
    state, ids = new(preset)
    for pid in ids[:-1]:
        state = me.apply(state, {"type": "seenRole", "player": pid}, 2.0)
    assert state["phase"]["kind"] == "roleReveal"
    state = me.apply(state, {"type": "leave", "player": ids[-1]}, 3.0)
    assert state["phase"]["kind"] != "roleReveal"


def test_classic_role_reveal_can_keep_the_seeds_eight_seconds():
    """docs/rulebooks/000-classic.txt §4.4: "역할 확인 화면 8초 후 `firstPhase`로 시작" — with
    roleRevealSeconds 8 the reveal lasts at most the seed's 8 s (and ends earlier once everyone has
    seen their card)."""
    state, _ = new("classic", roleRevealSeconds=8)
    assert me.deadline(state) == 8.0
    state = me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, 8.0)
    assert state["phase"]["kind"] == "greeting"


@pytest.mark.parametrize("preset", PRESETS)
def test_bots_see_their_card_early_with_the_same_action_whatever_their_role(preset):
    """Bots count as having seen their card: each plans one ``seenRole`` in the first part of
    the reveal (the same action, its time drawn from the bot's seed, not its role), so a table
    waits only for its humans."""
    state, ids = new(preset)
    stored = bots.plan_room(state, ids, 7, 0.0)
    seen = [(at, pid, a) for at, pid, a in stored["due"] if a["type"] != "chat"]
    assert sorted(pid for _, pid, _ in seen) == sorted(ids)
    assert all(a == {"type": "seenRole"} for _, _, a in seen)
    assert all(at <= 0.15 * 60 for at, _, _ in seen)
    state, stored, applied, dropped = bots.drain(state, stored, 0.15 * 60, ids, 7)
    assert dropped == []
    assert state["phase"]["kind"] == AFTER[preset]
