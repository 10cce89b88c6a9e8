"""A fourth preset defined in the tests alone (tinypreset.py) plays through the engine's
public API, the random player and a full all-bot room: a new rule system is one module."""

from __future__ import annotations

from typing import Literal

import pytest
import tinypreset

import mafia_engine as me
from mafia_engine import bots
from mafia_engine.actions import PlayerAction
from mafia_engine.presets import PRESETS, Preset, register, unregister
from mafia_engine.testing import random_game


@pytest.fixture(autouse=True)
def tiny():
    tinypreset.register()
    try:
        yield tinypreset.TINY
    finally:
        tinypreset.unregister()
    assert "tiny" not in PRESETS and "tiny" not in me.PRESET_NAMES


def test_a_registered_preset_is_listed_with_its_player_range_and_rules():
    info = me.presets_info()["tiny"]
    assert (info["minPlayers"], info["maxPlayers"], info["untimed"]) == (4, 6, True)
    assert info["rules"]["confirmLocks"] and info["rules"]["canAbstain"]
    assert "tiny" in me.PRESET_NAMES and me.presets()["tiny"]["defaults"]["nightSeconds"] == 30
    with pytest.raises(me.InvalidAction) as e:
        me.check_setup({"preset": "tiny"}, 7)
    assert e.value.code == "too_many_players"


def test_tiny_plays_a_night_then_a_day_vote_through_the_public_api():
    ids = ["a", "b", "c", "d"]
    s = me.new_game(ids, {"preset": "tiny", "kidSafeChat": False}, seed=4, now=0.0)
    mafia = next(p["id"] for p in s["players"] if p["role"] == "mafia")
    town = [pid for pid in ids if pid != mafia]
    v = me.view(s, mafia)
    assert v["phase"]["kind"] == "night" and v["private"]["task"] == "mafiaTarget"
    assert v["rules"] == me.view(s, None)["rules"] == me.presets_info()["tiny"]["rules"]
    assert me.view(s, town[0])["players"][ids.index(mafia)]["role"] is None  # the gate holds
    s = me.apply(s, {"type": "chat", "player": mafia, "channel": "mafia", "text": "hm"}, 1.0)
    assert not any(m["channel"] == "mafia" for m in me.view(s, town[0])["chat"])
    s = me.apply(s, {"type": "mafiaTarget", "player": mafia, "target": town[0]}, 2.0)
    for i, pid in enumerate(town):
        s = me.apply(s, {"type": "sleep", "player": pid}, 3.0 + i)
    assert s["phase"]["kind"] == "vote" and not next(p for p in s["players"] if p["id"] == town[0])["alive"]
    with pytest.raises(me.InvalidAction) as e:
        me.apply(s, {"type": "mafiaTarget", "player": mafia, "target": town[1]}, 9.0)
    assert e.value.code == "wrong_phase"
    for pid in town[1:]:
        s = me.apply(s, {"type": "vote", "player": pid, "target": mafia}, 10.0)
    s = me.apply(s, {"type": "vote", "player": mafia, "target": "abstain"}, 11.0)
    result = me.result(s)
    assert result is not None and result["winner"] == "town"
    assert {r["id"] for r in result["players"] if r["won"]} == set(town)
    assert me.load(me.dump(s)) == s


def test_tiny_random_games_end_and_keep_the_view_keys():
    keys = set(me.view(me.new_game(["a", "b", "c", "d"], {"preset": "tiny"}), None))
    for seed in range(20):
        last = None
        for _a, _now, state in random_game(n=4 + seed % 3, seed=seed, options={"preset": "tiny"}):
            last = state
            assert set(me.view(state, "p1")) == keys
        assert last is not None and me.result(last) is not None


def test_tiny_full_bot_room_plays_to_the_end():
    """The room layer's loop (plan_room / drain / wake_at) with every seat a bot."""
    for seed in range(6):
        ids = [f"p{i}" for i in range(1, 5 + seed % 2)]
        now = 100.0
        state = me.new_game(ids, {"preset": "tiny"}, seed=seed, now=now)
        stored = bots.plan_room(state, ids, seed, now, bots.LANGS[seed % 3])
        for _ in range(2000):
            wake, ends = bots.wake_at(stored), me.deadline(state)
            if wake is None and (ends is None or state["phase"]["kind"] == "ended"):
                break
            now = max(now, wake if wake is not None and (ends is None or wake < ends) else ends)
            state, stored, _applied, dropped = bots.drain(state, stored, now, ids, seed)
            assert dropped == []
            ends = me.deadline(state)
            if ends is not None and now >= ends:
                state = me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, now)
                stored = bots.plan_room(state, ids, seed, now)
        assert me.result(state) is not None, state["phase"]


class _Wave(PlayerAction):
    """A preset's own action: a pydantic model whose ``type`` is a one-value Literal."""

    type: Literal["wave"]


def test_a_preset_brings_its_own_action_models_into_the_union(tiny):
    def wave(g, a):
        g.event("wave", player=a.player)

    waving = Preset(
        **{
            **{f: getattr(tiny, f) for f in tiny.__dataclass_fields__},
            "name": "waving",
            "actions": {**tiny.actions, "wave": wave},
            "action_models": (*tiny.action_models, _Wave),
            "phases": {
                k: (p if k != "night" else type(p)(**{**p.__dict__, "actions": p.actions | {"wave"}}))
                for k, p in tiny.phases.items()
            },
        }
    )
    assert "wave" not in me.ACTION_TYPES
    register(waving)
    try:
        assert "wave" in me.ACTION_TYPES
        s = me.new_game(["a", "b", "c", "d"], {"preset": "waving"}, seed=1)
        s = me.apply(s, {"type": "wave", "player": "a"}, 1.0)
        assert s["events"][-1] == {"kind": "wave", "day": 1, "player": "a"}
    finally:
        unregister("waving")
    assert "wave" not in me.ACTION_TYPES
    with pytest.raises(me.InvalidAction):
        me.apply(s, {"type": "wave", "player": "a"}, 2.0)


def test_a_preset_naming_an_action_without_a_model_is_refused(tiny):
    fields = {f: getattr(tiny, f) for f in tiny.__dataclass_fields__}
    broken = Preset(
        **{**fields, "name": "broken", "actions": {**tiny.actions, "nonsense": lambda g, a: None}}
    )
    with pytest.raises(ValueError, match="nonsense"):
        register(broken)
    assert "broken" not in PRESETS and "nonsense" not in me.ACTION_TYPES
