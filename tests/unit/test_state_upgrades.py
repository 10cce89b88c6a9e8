"""Upgrades with games in flight: states saved by earlier releases load and play to the end.

tests/unit/golden/<release>/<preset>-<phase>.json are states the engine of an earlier release
saved (`golden/make_states.py`, run against a worktree of that commit): every preset at its
role reveal (the state a room's lobby starts), a night, a day vote, a defence and more, and
ended. Loaded by this release (`mafia_engine.load`: migrations.py), each plays on with the
random legal-action player to the end, and shows every view and the review on the way out.

Releases (commits of main, each folder named after one):
- bc3b1e5: before classic's bookkeeping moved into `extra` (978fbc7, merged by 6566d99), with
  the 48-bit LCG's integer `rng`: a classic game saved then fails at its first vote's end
  without the migration (KeyError 'extra');
- 6566d99: `extra` moved, the LCG still (the generator changed with 3718119);
- b208b0a: the previous release (main before this cycle's changes).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mafia_engine as me
from mafia_engine import migrations
from mafia_engine.testing import play_on

GOLDEN = Path(__file__).resolve().parent / "golden"
RELEASES = ("bc3b1e5", "6566d99", "b208b0a")
PHASES = {  # what every release saved of each preset (make_states.PHASES)
    "classic": {"roleReveal", "night", "vote", "defense", "confirm", "ended"},
    "city": {"roleReveal", "night", "vote", "defense", "ended"},
    "original": {"roleReveal", "night", "speech", "vote", "defense", "ended"},
}
FILES = sorted(GOLDEN.glob("*/*.json"))
IDS = [f"{p.parent.name}/{p.stem}" for p in FILES]


def saved(path: Path) -> dict:
    return json.loads(path.read_text())


def golden(release: str, name: str) -> dict:
    return saved(GOLDEN / release / f"{name}.json")


def play_to_the_end(state: dict, now: float, seed: int) -> dict:
    steps = list(play_on(state, now, seed))
    return steps[-1][2] if steps else state


def test_every_release_saved_every_preset_at_every_phase():
    assert set(me.PRESET_NAMES) == set(PHASES)
    for release in RELEASES:
        for preset, phases in PHASES.items():
            for phase in phases:
                doc = golden(release, f"{preset}-{phase}")
                assert (doc["release"], doc["preset"], doc["phase"]) == (release, preset, phase)
                assert doc["state"]["phase"]["kind"] == phase and doc["state"]["v"] == 1
    assert len(FILES) == len(RELEASES) * sum(len(p) for p in PHASES.values())


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_a_state_saved_by_an_earlier_release_loads_and_plays_to_the_end(path):
    doc = saved(path)
    state = me.load(doc["state"])
    assert state["v"] == me.STATE_VERSION and state["phase"]["kind"] == doc["phase"]
    for seed in (1, 2, 3):
        end = play_to_the_end(state, doc["now"], seed)
        assert end["phase"]["kind"] == "ended" and end["result"]["winner"], f"seed {seed}"
        for viewer in [None, *(p["id"] for p in end["players"])]:
            assert me.view(end, viewer)["result"]["winner"] == end["result"]["winner"]
        assert me.review(end)["players"]


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_a_migrated_state_has_the_shape_this_release_makes(path):
    """The same keys as a state this release starts for that preset: nothing left over from
    the old shape, nothing missing (the player's, the top level's, the preset's `extra`)."""
    doc = saved(path)
    state = me.load(doc["state"])
    fresh = me.new_game(
        [p["id"] for p in state["players"]], {"preset": doc["preset"]}, seed=5, salt="ab" * 32
    )
    assert set(state) == set(fresh)
    assert set(state["extra"]) == set(fresh["extra"])
    assert all(set(p) == set(fresh["players"][0]) for p in state["players"])
    assert isinstance(state["rng"], dict) and set(state["rng"]) == set(fresh["rng"])


def test_a_classic_game_saved_before_extra_moved_needs_its_migration():
    """The defect the migration mends: the old state itself fails at the first vote's end."""
    doc = golden("bc3b1e5", "classic-vote")
    with pytest.raises(KeyError, match="extra"):
        play_to_the_end(doc["state"], doc["now"], 1)
    migrated = me.load(doc["state"])
    assert migrated["extra"] == {
        "mvpVotes": doc["state"]["mvpVotes"],
        "nominatedBy": doc["state"]["nominatedBy"],
    }
    assert all("soldierUsed" in p for p in migrated["players"])  # classic's armour stays


def test_another_preset_drops_classic_bookkeeping_and_keeps_its_own():
    doc = golden("bc3b1e5", "original-night")
    migrated = me.load(doc["state"])
    assert migrated["extra"] == doc["state"]["extra"]
    assert "mvpVotes" not in migrated and "nominatedBy" not in migrated
    assert not any("soldierUsed" in p for p in migrated["players"])


def test_an_old_generator_state_draws_on_from_a_key_of_it():
    doc = golden("6566d99", "classic-night")
    assert isinstance(doc["state"]["rng"], int)
    migrated = me.load(doc["state"])
    assert migrated["rng"] == {"key": me.rng.derive(doc["state"]["rng"], "play"), "n": 0}


def test_load_leaves_the_saved_state_as_it_was_and_migrates_the_same_way_twice():
    doc = golden("bc3b1e5", "classic-defense")
    before = json.dumps(doc["state"], sort_keys=True)
    first, second = me.load(doc["state"]), me.migrate(doc["state"])
    assert json.dumps(doc["state"], sort_keys=True) == before
    assert first == second and first is not doc["state"]


def test_a_current_state_is_migrated_as_itself():
    state = me.new_game([f"p{i}" for i in range(1, 8)], {"preset": "classic"}, seed=3)
    assert me.migrate(state) is state  # no copy on the room layer's every read
    assert me.load(me.dump(state)) == state


def test_a_state_saved_by_a_newer_release_is_refused_with_a_clear_error():
    state = me.new_game([f"p{i}" for i in range(1, 8)], {"preset": "classic"}, seed=3)
    newer = {**state, "v": me.STATE_VERSION + 1}
    for read in (me.load, me.migrate):
        with pytest.raises(me.InvalidAction) as err:
            read(newer)
        assert err.value.code == "state_too_new"
        assert f"state version {me.STATE_VERSION + 1}" in str(err.value.message)
        assert f"up to {me.STATE_VERSION}" in str(err.value.message)


@pytest.mark.parametrize("v", [None, 0, -1, "2", True, 1.0])
def test_a_state_without_a_version_is_refused(v):
    state = me.new_game([f"p{i}" for i in range(1, 8)], {"preset": "classic"}, seed=3)
    with pytest.raises(me.InvalidAction) as err:
        me.migrate({**state, "v": v})
    assert err.value.code == "bad_state"


def test_every_version_bump_has_its_step():
    assert me.STATE_VERSION == 6 and len(migrations.STEPS) == me.STATE_VERSION - 1
