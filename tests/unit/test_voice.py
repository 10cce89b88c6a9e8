"""The voice policy (mafia_engine/voice.py; docs/rules.md, "Voice"): whom each viewer may speak
to and hear in this phase, from the chat's channel rules, and never from a role the viewer
may not know."""

from __future__ import annotations

import pytest
from enginekit import Table

import mafia_engine as me
from mafia_engine.game import clone
from mafia_engine.presets import PRESETS
from mafia_engine.testing import random_game

# p1 p2 mafia, p3 police, p4 doctor, p5..p8 citizens
CLASSIC = ["mafia", "mafia", "police", "doctor", "citizen", "citizen", "citizen", "citizen"]
# p1 mafia, p2 godfather, p3 investigator, p4..p8 citizens
ORIGINAL = ["mafia", "godfather", "police", "citizen", "citizen", "citizen", "citizen", "citizen"]


def voice(t: Table, viewer: str | None) -> dict:
    """The policy without `toSpectators` (its own tests below)."""
    v = dict(t.view(viewer)["voice"])
    v.pop("toSpectators")
    return v


def others(t: Table, pid: str | None, alive: bool | None = None) -> list[str]:
    return [q for q in t.ids if q != pid and (alive is None or t.alive(q) == alive)]


def test_voice_day_discussion_the_living_speak_and_everyone_at_the_table_hears():
    t = Table(CLASSIC)
    t.until("discussion")
    for pid in t.ids:
        assert voice(t, pid) == {"on": True, "speakTo": others(t, pid), "hearFrom": others(t, pid)}
    assert voice(t, None) == {"on": True, "speakTo": [], "hearFrom": t.ids}


def test_voice_the_dead_listen_to_the_day_and_talk_only_among_the_dead():
    t = Table(CLASSIC)
    t.execute("p5")
    t.night(mafia=("p1", "p6"))
    assert t.kind == "discussion" and not t.alive("p5") and not t.alive("p6")
    dead = voice(t, "p5")
    assert dead["hearFrom"] == others(t, "p5")  # the living by the day chat, p6 by the dead chat
    assert dead["speakTo"] == ["p6"]
    assert "p5" not in voice(t, "p7")["hearFrom"] and "p5" not in voice(t, None)["hearFrom"]


def test_voice_at_night_only_a_shared_night_channel_speaks_the_mafia():
    t = Table(CLASSIC)
    t.to_night()
    assert voice(t, "p1") == {"on": True, "speakTo": ["p2"], "hearFrom": ["p2"]}
    assert voice(t, "p2") == {"on": True, "speakTo": ["p1"], "hearFrom": ["p1"]}
    for pid in ("p3", "p4", "p5"):
        assert voice(t, pid) == {"on": True, "speakTo": [], "hearFrom": []}
    assert voice(t, None) == {"on": True, "speakTo": [], "hearFrom": []}


def test_voice_at_night_the_lovers_speak_to_each_other_in_classic():
    t = Table(["mafia", "lover", "lover", "police", "doctor", "citizen", "citizen", "citizen"])
    t.to_night()
    assert voice(t, "p2") == {"on": True, "speakTo": ["p3"], "hearFrom": ["p3"]}
    assert voice(t, "p1") == {"on": True, "speakTo": [], "hearFrom": []}


def test_voice_the_dead_hear_the_mafia_at_night_only_when_they_read_the_mafia_chat():
    for see_all, heard in ((False, []), (True, ["p1", "p2"])):
        t = Table(CLASSIC, deadSeeAll=see_all)
        t.execute("p5")
        t.to_night()
        assert voice(t, "p5")["hearFrom"] == heard
        assert voice(t, "p5")["speakTo"] == []  # the dead write only the dead chat


def test_voice_the_medium_reads_the_dead_chat_at_night_but_stays_text_only():
    t = Table(["mafia", "medium", "police", "doctor", "citizen", "citizen", "citizen", "citizen"])
    t.execute("p5")
    t.to_night()
    assert "dead" in t.view("p2")["channels"]["write"]
    assert voice(t, "p2") == {"on": True, "speakTo": [], "hearFrom": []}
    assert voice(t, "p5") == {"on": True, "speakTo": [], "hearFrom": []}


def test_voice_during_the_defense_only_the_accused_speaks():
    t = Table(CLASSIC)
    t.nominate("p5")
    assert t.kind == "defense"
    assert voice(t, "p5")["speakTo"] == others(t, "p5")
    for pid in others(t, "p5"):
        assert voice(t, pid)["speakTo"] == [] and voice(t, pid)["hearFrom"] == ["p5"]
    assert voice(t, None)["hearFrom"] == ["p5"]


def test_voice_original_turn_based_discussion_opens_only_the_speakers_microphone():
    t = Table(ORIGINAL, preset="original", expansion=True)
    t.until("speech")
    speaker = t.state["phase"]["speaker"]
    assert voice(t, speaker)["speakTo"] == others(t, speaker)
    for pid in others(t, speaker):
        assert voice(t, pid) == {"on": True, "speakTo": [], "hearFrom": [speaker]}


def test_voice_original_groups_plan_aloud_only_on_the_first_night():
    t = Table(ORIGINAL, preset="original", expansion=True)
    t.until("night")
    assert t.state["day"] == 1
    assert voice(t, "p1")["speakTo"] == ["p2"] and voice(t, "p2")["hearFrom"] == ["p1"]
    assert voice(t, "p4") == {"on": True, "speakTo": [], "hearFrom": []}


def test_voice_single_device_mode_has_no_voice():
    t = Table(ORIGINAL, preset="original", expansion=True, untimed=True)
    for pid in (None, *t.ids):
        assert voice(t, pid) == {"on": False, "speakTo": [], "hearFrom": []}
    assert not me.voice_pair(t.state, *t.ids[:2])


def test_voice_is_off_in_the_lobby():
    v = me.lobby_view(["p1", "p2"], {"preset": "classic"}, "p1")
    assert v["voice"] == {"on": False, "speakTo": [], "hearFrom": [], "toSpectators": False}


def test_voice_pair_is_either_direction_of_the_policy():
    t = Table(CLASSIC)
    t.nominate("p5")
    assert me.voice_pair(t.state, "p5", "p6") and me.voice_pair(t.state, "p6", "p5")
    assert not me.voice_pair(t.state, "p6", "p7")
    assert not me.voice_pair(t.state, "p5", "p5") and not me.voice_pair(t.state, "p5", "p99")
    t.to_night()
    assert me.voice_pair(t.state, "p1", "p2")
    assert not me.voice_pair(t.state, "p1", "p3") and not me.voice_pair(t.state, "p3", "p4")


# --- non-interference: the policy never depends on a role its viewer may not know ----------------
GAMES = [
    ("classic", 8, {"preset": "classic", "extraRoles": ["medium", "lovers"]}),
    ("classic", 9, {"preset": "classic", "deadSeeAll": True, "extraRoles": ["lovers"]}),
    ("city", 8, {"preset": "city"}),
    ("original", 10, {"preset": "original", "expansion": True}),
]


def _swap(s: dict, a: str, b: str) -> dict:
    t = clone(s)
    pa = next(p for p in t["players"] if p["id"] == a)
    pb = next(p for p in t["players"] if p["id"] == b)
    pa["role"], pb["role"] = pb["role"], pa["role"]
    return t


def _states(options: dict, n: int, seed: int):
    for i, (_a, _t, s) in enumerate(random_game(n=n, seed=seed, options=options, chat=False)):
        if i % 3 == 0:
            yield s


@pytest.mark.parametrize(("name", "n", "options"), GAMES, ids=[f"{g[0]}-{g[1]}" for g in GAMES])
def test_voice_policy_of_a_citizen_and_a_spectator_is_byte_identical_whatever_the_others_roles(
    name, n, options
):
    """Every role swap of two seats the viewer does not know leaves the viewer's policy as it
    was, byte for byte: a citizen's (at night too) and a spectator's."""
    import json

    checked = 0
    for seed in (1, 2):
        for s in _states(options, n, seed):
            if s["phase"]["kind"] == "ended":
                continue
            citizen = next(p["id"] for p in s["players"] if p["role"] == "citizen")
            for viewer in (citizen, None):
                v = me.view(s, viewer)
                hidden = [p["id"] for p in v["players"] if p["role"] is None and p["id"] != viewer]
                mine = json.dumps(v["voice"])
                for i, a in enumerate(hidden):
                    for b in hidden[i + 1 :]:
                        swapped = me.view(_swap(s, a, b), viewer)["voice"]
                        assert json.dumps(swapped) == mine, (viewer, a, b, s["phase"]["kind"])
                        checked += 1
    assert checked > 100


@pytest.mark.parametrize(("name", "n", "options"), GAMES, ids=[f"{g[0]}-{g[1]}" for g in GAMES])
def test_voice_never_carries_what_the_chat_would_not(name, n, options):
    """Wherever a voice reaches a seat, the chat lets the speaker write a channel that seat
    reads (the policy is the chat's rules, narrowed to what both can tell)."""
    preset = PRESETS[name]
    pairs = 0
    for s in _states(options, n, 3):
        by = {p["id"]: p for p in s["players"]}
        for a in by:
            for b in me.view(s, a)["voice"]["speakTo"]:
                shared = set(preset.write_channels(s, by[a])) & set(preset.read_channels(s, by[b]))
                assert shared - {"system"}, (a, b, s["phase"]["kind"])
                assert a in me.view(s, b)["voice"]["hearFrom"]
                pairs += 1
    assert pairs > 50


@pytest.mark.parametrize(("name", "n", "options"), GAMES, ids=[f"{g[0]}-{g[1]}" for g in GAMES])
def test_voice_spectators_listen_where_their_chat_lets_them_read_and_each_seat_knows_if_they_hear_it(
    name, n, options
):
    """A seat's `toSpectators` is exactly "the spectators' policy hears this seat" (and
    `voice_to_spectators`, the relay's question): the living by day, nobody at night."""
    seen = set()
    for s in _states(options, n, 4):
        if s["phase"]["kind"] == "ended":
            continue
        heard = me.view(s, None)["voice"]["hearFrom"]
        for p in s["players"]:
            mine = me.view(s, p["id"])["voice"]["toSpectators"]
            assert mine == (p["id"] in heard) == me.voice_to_spectators(s, p["id"]), (p["id"], s["phase"])
            seen.add((s["phase"]["kind"], mine))
        if s["phase"]["kind"] == "night":
            assert heard == []
    assert ("night", False) in seen and any(on for _, on in seen)
    assert me.view(s, None)["voice"]["toSpectators"] is False
    assert not me.voice_to_spectators(s, "p99")
