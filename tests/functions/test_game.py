"""A whole classic game through the handlers, with a recording gateway."""

from __future__ import annotations

import random

import pytest

from mafia_engine.testing import legal_actions

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)


def play(api, n: int, seed: int, max_steps: int = 1500) -> int:
    """Random legal frames from the players' sockets; timers and nudges end the phases."""
    rng = random.Random(seed)
    steps = 0
    while api.snapshot().room["status"] == "running" and steps < max_steps:
        steps += 1
        state = api.state()
        roll = rng.random()
        if roll < 0.12:
            api.clock.advance(max(0.0, state["phase"]["endsAt"] - api.clock.t) + rng.choice([0.0, 0.5, 45.0]))
            if rng.random() < 0.5:
                api.fire(state["seq"])  # the Scheduler
            else:
                api.send(f"cp{rng.randint(1, n)}", {"action": "nudge"})  # a client's countdown
            continue
        choices = [a for a in legal_actions(state) if a["type"] != "chat" or rng.random() < 0.3]
        if not choices:
            continue
        action = dict(rng.choice(choices))
        pid = action.pop("player")
        action["action"] = action.pop("type")
        action["id"] = steps
        api.clock.advance(0.8)
        api.send(f"c{pid}", action)
    return steps


@pytest.mark.whole_game
@pytest.mark.parametrize("seed", [1, 2])
def test_a_whole_classic_game(api, seed):
    n = 8
    api.start(n)
    api.connect("s1")
    steps = play(api, n, seed)
    snap = api.snapshot()
    assert snap.room["status"] == "ended", f"not over after {steps} steps"
    winner = snap.state["result"]["winner"]
    for pid in (f"p{i}" for i in range(1, n + 1)):
        view = api.gw.last(f"c{pid}")["view"]
        assert view["result"]["winner"] == winner and view["phase"]["kind"] == "ended"
    # the spectator never learned a role before the end, except what was revealed
    for conn, frame in api.gw.sent:
        if conn == "s1" and frame["type"] == "view" and frame["view"]["result"] is None:
            assert all(p["role"] is None for p in frame["view"]["players"])
            assert frame["view"]["you"] is None and frame["view"]["private"] is None
    # every frame fits API Gateway's 32 KB frame and versions never go back
    assert max(api.gw.sizes) < 32 * 1024
    versions = [f["version"] for c, f in api.gw.sent if c == "cp1" and f["type"] == "view"]
    assert versions == sorted(versions)
    assert snap.size < 64 * 1024


def test_room_scoreboard_gives_every_winner_a_point_across_new_games(api):
    """docs/rulebooks/000-classic.txt §6: one point to every member of the winning team, the dead
    included; the room keeps the tally through `newGame`, and a game ended by the host scores
    nothing."""
    n = 6
    api.start(n)
    play(api, n, seed=3)
    snap = api.snapshot()
    assert snap.room["status"] == "ended"
    won = {p["id"] for p in snap.state["result"]["players"] if p["won"]}
    expected = {f"p{i}": int(f"p{i}" in won) for i in range(1, n + 1)}
    assert api.gw.last("cp2")["view"]["room"]["scores"] == expected
    api.send("cp1", {"action": "newGame"})
    for i in range(2, n + 1):
        api.send(f"cp{i}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    api.send("cp1", {"action": "endGame"})
    assert api.snapshot().room["status"] == "ended"
    assert api.gw.last("cp3")["view"]["room"]["scores"] == expected
