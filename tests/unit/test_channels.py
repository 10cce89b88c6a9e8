"""Chat channels are the presets' declarations (``Preset.channels``): the engine's wire list
(``actions.CHANNELS``, what the client frame schema offers) is exactly what the built-in presets
declare, and a preset registered with a channel of its own chats in it with no engine change."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tinypreset import TINY

import mafia_engine as me
from mafia_engine import actions
from mafia_engine.errors import InvalidAction
from mafia_engine.presets import BUILT_IN, PRESETS, register, unregister
from mafia_engine.presets.shared import act_chat
from mafia_engine.roles import MAFIA, team_of


def test_the_wire_list_is_the_built_in_presets_declarations():
    declared = [c for name in BUILT_IN for c in PRESETS[name].channels]
    assert set(actions.CHANNELS) == set(declared)
    for name in BUILT_IN:
        channels = PRESETS[name].channels
        assert set(actions.CORE_CHANNELS) <= set(channels), name
        assert len(set(channels)) == len(channels), name
        # a built-in preset's chat is the library's own model: its wire format is unchanged
        assert actions.union_of(PRESETS[name]).models["chat"] is actions.Chat


def test_every_channel_a_game_shows_is_one_its_preset_declares():
    for name in BUILT_IN:
        preset = PRESETS[name]
        n = preset.min_players
        ids = [f"p{i}" for i in range(1, n + 1)]
        state = me.new_game(ids, {"preset": name}, seed=3)
        for viewer in (None, *ids):
            v = me.view(state, viewer)
            assert set(v["channels"]["read"]) | set(v["channels"]["write"]) <= set(preset.channels)


def _owl_write(s: dict, p: dict | None) -> tuple[str, ...]:
    if p is not None and p["alive"] and team_of(p["role"]) == MAFIA and s["phase"]["kind"] == "night":
        return ("owls",)
    return TINY.write_channels(s, p)


def _owl_read(s: dict, p: dict | None) -> tuple[str, ...]:
    mine = ("owls",) if p is not None and team_of(p["role"]) == MAFIA else ()
    return (*TINY.read_channels(s, p), *mine)


def _owl_refusal(s: dict, p: dict, channel: str) -> str | None:
    return None if channel in _owl_write(s, p) else f"you cannot write in the {channel} channel now"


def _owl_chat(g, a) -> None:
    act_chat(g, a, _owl_refusal)


@pytest.fixture
def owls():
    preset = replace(
        TINY,
        name="owls",
        channels=(*TINY.channels, "owls"),
        write_channels=_owl_write,
        read_channels=_owl_read,
        actions={**TINY.actions, "chat": _owl_chat},
    )
    register(preset)
    yield preset
    unregister("owls")


def test_a_registered_preset_chats_in_a_channel_of_its_own(owls):
    ids = ["p1", "p2", "p3", "p4"]
    state = me.new_game(ids, {"preset": "owls"}, seed=1)
    mafioso = next(p["id"] for p in me.dump(state)["players"] if p["role"] == "mafia")
    other = next(pid for pid in ids if pid != mafioso)
    state = me.apply(state, {"type": "chat", "player": mafioso, "channel": "owls", "text": "hoo"}, 1.0)
    assert [m["text"] for m in me.view(state, mafioso)["chat"] if m["channel"] == "owls"] == ["hoo"]
    assert "owls" not in me.view(state, other)["channels"]["read"]
    with pytest.raises(InvalidAction) as refused:
        me.apply(state, {"type": "chat", "player": other, "channel": "owls", "text": "hoo"}, 1.0)
    assert refused.value.code == "no_permission"
    # the other presets' chat is untouched: "owls" is no channel of theirs
    with pytest.raises(InvalidAction) as bad:
        actions.parse({"type": "chat", "player": "p1", "channel": "owls", "text": "hi"}, PRESETS["classic"])
    assert bad.value.code == "bad_action"
    assert "day/mafia/yakuza/dead/lovers/system" in str(bad.value)
