"""The bots' randomness carries the game's secret salt (service/botplay.py `bot_seed`): their
play cannot be replayed from the room's 31-bit deal seed to find the deal."""

from __future__ import annotations

import mafia_engine as me
from mafia_engine import bots
from service import botplay

IDS = [f"p{i}" for i in range(1, 9)]
SALT_A, SALT_B = "a" * 32, "b" * 32


def _plan(salt: str) -> dict:
    state = me.new_game(players=IDS, options={"preset": "classic"}, seed=7, now=0.0, salt=salt)
    room = {"seed": 7}
    seed = botplay.bot_seed(room, state)
    return seed, bots.plan_room(state, IDS[1:], seed, 0.0, "en", {p: p for p in IDS})


def test_bots_draw_from_the_seed_and_the_secret_salt() -> None:
    seed_a, plan_a = _plan(SALT_A)
    seed_b, plan_b = _plan(SALT_B)
    # the same deal (same room seed), two salts: the bots' seeds differ, and so does their play
    assert seed_a != seed_b and SALT_A in str(seed_a)
    assert plan_a["due"] != plan_b["due"]
    # the same salt again: the same play (bots stay reproducible for whoever holds the salt)
    assert _plan(SALT_A)[1] == plan_a


def test_a_game_without_a_salt_keeps_the_room_seed() -> None:
    state = me.new_game(players=IDS, options={"preset": "classic"}, seed=7, now=0.0)
    assert botplay.bot_seed({"seed": 7}, state) == 7
