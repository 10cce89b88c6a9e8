"""The headless client's bot (local/client.py ``Bot``) is the server's bot policy
(``mafia_engine.bots.policy``) behind a socket: whole engine games where every seat is a client
``Bot`` reading its own view, its frames applied to the engine in turn and the phase timeout at
the deadline once no bot has anything to send. No sockets: what the bot reads of a ``Player``
(``view``, ``server_now``) is a stand-in, so every preset plays in a second."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

import mafia_engine as me
from local.client import Bot
from mafia_engine.bots import policy
from mafia_engine.presets import PRESETS

IMPLEMENTED = ["classic", "city", "original"]
ROUNDS = 3000  # rounds of every bot deciding once at most (a game at the minimum takes a few hundred)


@dataclass
class Socket:
    """What ``Bot`` reads of a ``Player``: the view held and the server clock."""

    view: dict | None = None
    now: float = 0.0

    def server_now(self) -> float:
        return self.now


@dataclass
class Game:
    state: dict
    sent: list[tuple[str, dict, dict]]  # (player, action, the view it was decided on)
    refused: list[tuple[str, dict, str]]
    rounds: int


def _play(preset: str, make_bot, n: int | None = None, seed: int = 5) -> Game:
    n = n or PRESETS[preset].min_players
    pids = [f"p{i}" for i in range(1, n + 1)]
    state = me.new_game(players=pids, options={"preset": preset}, seed=seed, now=0.0)
    sockets = {pid: Socket() for pid in pids}
    bots = {pid: make_bot(i, sockets[pid]) for i, pid in enumerate(pids)}
    now = 0.0
    sent, refused = [], []
    rounds = 0
    while rounds < ROUNDS and not me.result(state):
        rounds += 1
        moved = False
        for pid in pids:
            socket = sockets[pid]
            socket.view, socket.now = me.view(state, pid), now
            frame = bots[pid].decide()
            if frame is None:
                continue
            moved = True
            action = {"type": frame.pop("action"), **frame}
            sent.append((pid, action, socket.view))
            try:
                state = me.apply(state, {**action, "player": pid}, now)
            except me.InvalidAction as e:
                refused.append((pid, action, e.code))
        if not moved:
            now = me.deadline(state) if me.deadline(state) is not None else now + 1.0
            state = me.apply(state, {"type": "phaseTimeout"}, now)
    return Game(state, sent, refused, rounds)


def _bot(i: int, socket: Socket, **knobs) -> Bot:
    return Bot(socket, random.Random(100 + i), **knobs)  # type: ignore[arg-type]


@pytest.mark.parametrize("preset", IMPLEMENTED)
def test_client_bots_play_every_preset_to_a_result_without_a_refusal(preset) -> None:
    game = _play(preset, _bot)
    assert me.result(game.state), (preset, game.state["phase"], game.rounds)
    assert game.refused == []


@pytest.mark.parametrize("preset", IMPLEMENTED)
def test_client_bot_sends_the_policys_game_actions(preset) -> None:
    """Every frame is an action the policy's ``decide`` wants on that view, or the discussion's
    unseen ``readyEarly`` that the policy's ``plan`` holds (one scripted player, no second copy)."""
    seeds: dict[str, int] = {}

    def bot(i: int, socket: Socket) -> Bot:
        b = _bot(i, socket)
        seeds[f"p{i + 1}"] = b.seed
        return b

    game = _play(preset, bot)
    assert game.sent
    for pid, action, view in game.sent:
        wanted = policy.decide(view, seeds[pid], 0.0)
        planned = [a for _, a in policy.plan(view, seeds[pid], 0.0) if a["type"] == "readyEarly"]
        assert action in wanted + planned, (pid, action, view["phase"])
    assert not any(a["type"] == "chat" for _, a, _ in game.sent)  # chat is off by default


def test_client_bot_presses_the_unseen_ready_early_once_a_discussion() -> None:
    game = _play("classic", _bot)
    presses = [(pid, v["phase"]["seq"]) for pid, a, v in game.sent if a["type"] == "readyEarly"]
    assert presses and len(presses) == len(set(presses))
    quiet = _play("classic", lambda i, s: _bot(i, s, ready_early=False))
    assert not any(a["type"] == "readyEarly" for _, a, _ in quiet.sent)
    assert me.result(quiet.state) and quiet.refused == []


def test_client_bot_chats_only_when_asked() -> None:
    game = _play("classic", lambda i, s: _bot(i, s, chat=True))
    lines = [a for _, a, _ in game.sent if a["type"] == "chat"]
    assert lines and all(a["channel"] and (a.get("text") or a.get("phrase")) for a in lines)
    assert me.result(game.state) and game.refused == []


def test_confirm_yes_replaces_the_policys_ballot_once_a_phase() -> None:
    game = _play("classic", lambda i, s: _bot(i, s, confirm_yes=1.0), n=8)
    ballots = [(pid, v["phase"]["seq"], a["choice"]) for pid, a, v in game.sent if a["type"] == "confirm"]
    assert ballots and {c for _, _, c in ballots} == {"yes"}
    assert len(ballots) == len({(pid, seq) for pid, seq, _ in ballots})
    assert me.result(game.state) and game.refused == []


def test_client_bots_seeded_alike_play_the_same_game() -> None:
    a, b = _play("city", _bot), _play("city", _bot)
    assert [(p, x) for p, x, _ in a.sent] == [(p, x) for p, x, _ in b.sent]
    assert me.result(a.state) == me.result(b.state)
