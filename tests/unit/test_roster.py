"""The roster: how many of each role a game deals, public in the lobby and in every view.

``mafia_engine.roster(options, n)`` and ``view["roster"]`` are what the client's rules sheet
shows ("roles in this game"); they must be exactly what ``new_game`` deals, for every preset,
whatever the options and the shuffle. Option sets are drawn from each preset's own option
schema, so a new preset is covered without touching this file.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

import mafia_engine as me

SAMPLES = 400  # random option sets per preset (each with its own player count and seed)


def random_options(rng: random.Random, name: str, schema: list[dict]) -> dict:
    """Options for preset ``name``: each key left out or set to a value its schema allows."""
    opts: dict = {"preset": name}
    for o in schema:
        if rng.random() < 0.3:
            continue
        if o["type"] == "bool":
            opts[o["key"]] = rng.random() < 0.5
        elif o["type"] == "choice":
            opts[o["key"]] = rng.choice(o["choices"])
        elif o["type"] == "multi":
            opts[o["key"]] = [c for c in o["choices"] if rng.random() < 0.4]
        elif o["type"] == "int":
            opts[o["key"]] = rng.randint(o["min"], o["max"])
    return opts


def cases(name: str) -> list[tuple[dict, int, int]]:
    info = me.presets()[name]
    rng = random.Random(f"roster-{name}")
    out = []
    for i in range(SAMPLES):
        # one player too few and one too many now and then: roster must refuse those too
        n = rng.randint(info["minPlayers"] - 1, info["maxPlayers"] + 1)
        out.append((random_options(rng, name, info["options"]), n, i))
    return out


@pytest.mark.parametrize("name", sorted(me.presets()))
def test_roster_is_what_the_game_deals(name: str) -> None:
    """For every preset, over many option sets and seeds: ``roster(options, n)`` counts exactly
    the roles ``new_game`` hands out, and is None exactly when ``new_game`` refuses."""
    started = refused = 0
    for opts, n, seed in cases(name):
        ids = [f"p{i}" for i in range(1, n + 1)]
        counts = me.roster(opts, n)
        try:
            state = me.new_game(ids, opts, seed=seed)
        except me.InvalidAction:
            assert counts is None, (opts, n, counts)
            refused += 1
            continue
        started += 1
        assert counts == dict(Counter(p["role"] for p in state["players"])), (opts, n, seed)
    assert started > SAMPLES // 5 and refused > 0, (started, refused)


@pytest.mark.parametrize("name", sorted(me.presets()))
def test_every_viewer_gets_the_same_roster_all_game(name: str) -> None:
    """``view["roster"]`` is public: the same for every seat and spectators, in every phase,
    and equal to ``roster(options, n)`` (it reads the options and the seat count, never who
    holds which card)."""
    info = me.presets()[name]
    n = (info["minPlayers"] + info["maxPlayers"]) // 2
    ids = [f"p{i}" for i in range(1, n + 1)]
    for seed in range(5):
        state = me.new_game(ids, {"preset": name}, seed=seed)
        expected = me.roster({"preset": name}, n)
        assert expected is not None
        now = 0.0
        for _ in range(12):
            views = [me.view(state, v)["roster"] for v in [None, *ids]]
            assert all(r == expected for r in views), (seed, state["phase"]["kind"], views)
            ends = me.deadline(state)
            if ends is None:
                break
            now = max(now, ends)
            state = me.apply(state, {"type": "phaseTimeout", "phase": me.phase_seq(state)}, now)


def test_lobby_roster_shows_the_smallest_game_until_enough_have_joined() -> None:
    """A lobby filling up shows the deal for the preset's minimum, then for the players there."""
    for name, info in me.presets().items():
        low = info["minPlayers"]
        for joined in range(0, info["maxPlayers"] + 2):
            expected = me.roster({"preset": name}, max(joined, low))
            assert me.lobby_roster({"preset": name}, joined) == expected, (name, joined)
        assert me.lobby_roster({"preset": name}, info["maxPlayers"] + 1) is None
    assert me.lobby_roster({"preset": "nope"}, 8) is None
    assert me.roster({"preset": "classic", "mafiaCount": "many"}, 8) is None
