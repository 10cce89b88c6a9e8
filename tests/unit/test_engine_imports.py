"""What the engine imports (a Lambda cold start imports it: docs/operations.md "Cold starts"), how
the pydantic action models refuse malformed actions, and how messages quote client input (never
unbounded: functions/service/protocol/quoting.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pydantic
import pytest
from enginekit import Table, refused

import mafia_engine as me
from mafia_engine import actions
from mafia_engine.errors import quoted
from mafia_engine.presets import BUILT_IN, PRESETS

ENGINE = Path(__file__).resolve().parents[2] / "layers" / "engine"
EIGHT = ["mafia", "mafia", "police", "doctor", "citizen", "citizen", "citizen", "citizen"]

# Runs in a fresh interpreter: plays one whole game of PRESET (bots in half the seats, the
# other half random legal actions), then prints which heavy modules were ever imported.
_PLAY = """
import json, sys
sys.path.insert(0, {engine!r})
import mafia_engine as me
from mafia_engine import bots
from mafia_engine.testing import random_game

preset = {preset!r}
seen = {{"import": sorted(m for m in sys.modules if m.startswith("mafia_engine.presets."))}}
info = me.presets(only=preset), me.presets_info(only=preset), me.lobby_roster({{"preset": preset}}, 3)
last = None
for _a, _now, state in random_game(n=8, seed=3, options={{"preset": preset}}):
    last = state
    me.view(state, "p1"), me.view(state, None), me.roster(state["options"], 8)
assert me.result(last) is not None
ids = [f"p{{i}}" for i in range(1, 9)]
state = me.new_game(ids, {{"preset": preset}}, seed=5, now=100.0)
stored = bots.plan_room(state, ids, 5, 100.0)
state, stored, _applied, _dropped = bots.drain(state, stored, 200.0, ids, 5)
me.check_setup({{"preset": preset}}, 8)
me.load(me.dump(state))
seen["played"] = sorted(m for m in sys.modules if m.startswith("mafia_engine.presets."))
print(json.dumps(seen))
"""


@pytest.mark.parametrize("preset", list(BUILT_IN))
def test_a_game_imports_its_own_preset_and_no_other(preset):
    """Import only what the handler's path needs (docs/operations.md "Cold starts"): the engine
    imports without any preset; a game (API, views, roster, bots) imports only its own."""
    code = _PLAY.format(engine=str(ENGINE), preset=preset)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout.splitlines()[-1])
    assert seen["import"] == ["mafia_engine.presets.base"]
    module = BUILT_IN[preset][0]
    own = f"mafia_engine.presets.{module}"  # a module, or a package and its parts
    assert [m for m in seen["played"] if m != own and not m.startswith(own + ".")] == [
        "mafia_engine.presets.base",
        "mafia_engine.presets.shared",
    ]
    assert own in seen["played"]


def test_names_and_membership_import_no_preset():
    code = (
        f"import sys; sys.path.insert(0, {str(ENGINE)!r}); import mafia_engine as me;"
        "from mafia_engine.presets import PRESETS;"
        "assert me.PRESET_NAMES == ('classic', 'city', 'original') == tuple(PRESETS);"
        "assert 'city' in PRESETS and 'nope' not in PRESETS and len(PRESETS) == 3;"
        "assert me.load(me.dump({'v': 1, 'preset': 'city', 'options': {}, 'rng': 0, 'seq': 0, 'day': 1,"
        " 'phase': {}, 'players': [], 'chat': [], 'events': [], 'winner': None, 'result': None}));"
        "print(sorted(m for m in sys.modules if m.startswith('mafia_engine.presets.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "['mafia_engine.presets.base']"


def test_listings_still_hold_every_preset():
    assert list(me.presets()) == list(me.presets_info()) == list(BUILT_IN) == list(me.PRESET_NAMES)
    assert me.presets(only="city") == {"city": me.presets()["city"]}
    assert me.presets_info(only="original") == {"original": me.presets_info()["original"]}
    assert me.presets(only="nope") == {} == me.presets_info(only="nope")
    assert dict(PRESETS.items()).keys() == set(BUILT_IN)


def test_every_built_in_preset_has_a_model_for_each_action_it_names():
    for preset in PRESETS.values():
        union = actions.union_of(preset)
        assert set(preset.actions) | actions.CORE_TYPES == set(union.types), preset.name
        assert actions.union_of(preset) is union  # built once per preset


def test_the_union_is_per_preset():
    """A classic game accepts only classic's actions: another preset's is an unknown type."""
    t = Table(EIGHT, firstPhase="night")
    t.timeout()
    e = refused(lambda: t.act("arrest", "p1", target="p5"), "bad_action")
    assert "unknown action type 'arrest'" in str(e)
    assert "arrest" in me.ACTION_TYPES  # the original preset has it


# ------------------------------------------------------------------ pydantic refusals


def _refusal(action: dict) -> str:
    t = Table(EIGHT, firstPhase="night")
    t.timeout()
    return str(refused(lambda: t.do(action), "bad_action"))


@pytest.mark.parametrize(
    "action, says",
    [
        (
            {"type": "mafiaTarget", "player": "p1", "target": 5},
            "target: expected a string or null, not an integer",
        ),
        ({"type": "heal", "player": "p4", "target": ["p1"]}, "target: expected a string, not a list"),
        ({"type": "heal", "player": "p4", "target": None}, "target: expected a string, not null"),
        ({"type": "heal", "player": None, "target": "p1"}, "player: expected a string, not null"),
        ({"type": "heal", "player": "p4"}, "target: missing"),
        ({"type": "heal", "player": "p4", "target": "p1", "why": 1}, "unknown field 'why'"),
        ({"type": "fly", "player": "p1"}, "unknown action type 'fly' in a classic game"),
        ({"type": 7, "player": "p1"}, "type: expected a string, not an integer"),
        ({"player": "p1"}, "an action needs a 'type'"),
        (
            {"type": "presence", "player": "p1", "connected": 1},
            "connected: expected true or false, not an integer",
        ),
        ({"type": "adjustTime", "player": "p1", "delta": True}, "delta: expected an integer, not a boolean"),
        ({"type": "adjustTime", "player": "p1", "delta": 15.0}, "delta: expected an integer, not a number"),
        ({"type": "adjustTime", "player": "p1", "delta": 10}, "delta: 10 is not one of 15/-15"),
        ({"type": "phaseTimeout", "phase": True}, "phase: expected an integer or null, not a boolean"),
        ({"type": "phaseTimeout", "phase": "3"}, "phase: expected an integer or null, not a string"),
        ({"type": "confirm", "player": "p1", "choice": "maybe"}, "choice: 'maybe' is not one of yes/no"),
        ({"type": "vote", 3: "x", "player": "p1"}, "field names must be strings"),
    ],
)
def test_malformed_actions_are_refused_naming_the_field_and_the_problem(action, says):
    assert says in _refusal(action)


def test_an_accepted_action_is_frozen():
    a = actions.parse({"type": "vote", "player": "p1", "target": "p2"}, PRESETS["classic"])
    assert (a.type, a.player, a.target) == ("vote", "p1", "p2")
    with pytest.raises(pydantic.ValidationError):
        a.target = "p3"
    assert isinstance(a, pydantic.BaseModel) and a.model_config["frozen"]


def test_a_preset_action_model_must_be_a_tagged_action():
    class Loose(pydantic.BaseModel):
        player: str

    with pytest.raises(ValueError, match="not an action model"):
        actions.type_of(Loose)


# ------------------------------------------------------------------ quoting client input


def test_quoted_keeps_a_short_prefix_of_any_input():
    assert quoted("abc") == "'abc'"
    assert quoted("x" * 3000) == "'" + "x" * 32 + "…'"
    assert quoted("\ud800" * 100).startswith("'\\ud800") and len(quoted("\ud800" * 100)) == 35
    quoted("\ud800" * 100).encode()  # escaped: no lone surrogate reaches a message
    assert (quoted(None), quoted(True), quoted(15), quoted(1.5)) == ("null", "true", "15", "1.5")
    assert quoted(10**400) == "a very large integer"
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    assert quoted(deep) == "a list" and quoted({"a": deep}) == "an object"


@pytest.mark.parametrize(
    "action",
    [
        {"type": "x" * 3000, "player": "p1"},
        {"type": "mafiaTarget", "player": "p1", "target": "p" * 3000},
        {"type": "mafiaTarget", "player": "q" * 3000, "target": "p5"},
        {"type": "heal", "player": "p4", "target": "p1", "f" * 3000: 1},
        {"type": "confirm", "player": "p1", "choice": "y" * 3000},
        {"type": "chat", "player": "p1", "channel": "c" * 3000, "text": "hi"},
    ],
)
def test_a_3000_character_input_comes_back_as_a_short_prefix(action):
    t = Table(EIGHT, firstPhase="night")
    t.timeout()
    with pytest.raises(me.InvalidAction) as e:
        t.do(action)
    assert len(str(e.value)) < 120, str(e.value)


def test_options_seed_and_preset_names_are_quoted_short():
    long = "z" * 3000
    for call in (
        lambda: me.new_game(["a", "b", "c", "d", "e", "f"], {"preset": long}),
        lambda: me.new_game(["a", "b", "c", "d", "e", "f"], {long: 1}),
        lambda: me.new_game(["a", "b", "c", "d", "e", "f"], {"openVote": long}),
        lambda: me.new_game(["a", "b", "c", "d", "e", "f"], {}, seed=[long]),
        lambda: me.view(me.new_game([f"p{i}" for i in range(1, 9)]), long),
    ):
        with pytest.raises(me.InvalidAction) as e:
            call()
        assert len(str(e.value)) < 120, str(e.value)
