"""The engine's side of the contract, for every registered preset (tests/contract/conftest.py):
it deals every player count and option it declares, its random games reach every phase it
declares and end with a result, and no view depends on a secret its viewer may not know."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache

import contractkit as kit

import mafia_engine as me
from mafia_engine.game import clone
from mafia_engine.presets import PRESETS

MIN_GAMES, MAX_GAMES = 20, 200  # random games per preset: each must end; enough to see every phase
GATE_GAMES = 6  # random games whose every fourth state is checked from every seat


@cache
def _games(name: str) -> tuple:
    return tuple(kit.games(name, GATE_GAMES))


def test_every_declared_player_count_deals_with_some_declared_options(preset) -> None:
    legal = {n for _o, n in kit.legal_setups(preset)}
    assert legal == set(kit.player_range(preset))
    p = PRESETS[preset]
    assert kit.setup_code({"preset": preset}, p.min_players - 1) == "too_few_players"
    assert kit.setup_code({"preset": preset}, p.max_players + 1) == "too_many_players"


def test_every_legal_setup_deals_its_roster_and_tells_each_seat_its_own_role(preset) -> None:
    for options in kit.option_variants(preset):
        for n in kit.player_range(preset):
            ids = [f"p{i}" for i in range(1, n + 1)]
            code = kit.setup_code(options, n)
            if code is not None:  # refused the same way when a game is asked for
                try:
                    me.new_game(ids, options, seed=n, now=0.0)
                except me.InvalidAction as e:
                    assert e.code == code, (options, n)
                    continue
                raise AssertionError(f"check_setup refuses {options} for {n} ({code}); new_game deals it")
            s = me.new_game(ids, options, seed=n, now=0.0)
            dealt = Counter(p["role"] for p in s["players"])
            assert dealt == Counter(me.roster(options, n)), (options, n)
            assert [p["id"] for p in s["players"]] == ids and all(p["alive"] for p in s["players"])
            for p in s["players"]:
                assert me.view(s, p["id"])["you"]["role"] == p["role"]
            assert all(q["role"] is None for q in me.view(s, None)["players"])


def test_random_games_end_reach_every_declared_phase_and_more_than_one_winner(preset) -> None:
    declared, reached, winners = set(PRESETS[preset].phases), set(), Counter()
    for i, (options, n, states) in enumerate(kit.games(preset, MAX_GAMES)):
        last = states[-1]
        result = me.result(last)
        assert result is not None, (options, n, last["phase"]["kind"])
        assert isinstance(result["winner"], str) and result["winner"]
        assert [r["id"] for r in result["players"]] == [p["id"] for p in last["players"]]
        assert [r["role"] for r in result["players"]] == [p["role"] for p in states[0]["players"]]
        assert any(r["won"] for r in result["players"]) == (result["winner"] not in ("draw", "none"))
        assert me.view(last, None)["result"] == result
        winners[result["winner"]] += 1
        reached |= {s["phase"]["kind"] for s in states}
        if i + 1 >= MIN_GAMES and reached >= declared and len(winners) >= 2:
            break  # rare phases (original's allOrNone) and wins may take more games
    assert reached == declared
    assert len(winners) >= 2, winners


def _swap_roles(s: dict, a: str, b: str) -> dict:
    t = clone(s)
    pa = next(p for p in t["players"] if p["id"] == a)
    pb = next(p for p in t["players"] if p["id"] == b)
    pa["role"], pb["role"] = pb["role"], pa["role"]
    return t


def _without_unread_chat(s: dict, read: list[str]) -> dict:
    return {**s, "chat": [m for m in s["chat"] if m["channel"] in read]}  # views never change a state


def _gate_states(name: str):
    for _o, _n, states in _games(name):
        yield from states[::4]
        yield states[-1]


def test_no_view_depends_on_a_role_its_viewer_may_not_know(preset) -> None:
    """Swap the roles of two seats the viewer sees no role for: its view is the same."""
    checked = 0
    for s in _gate_states(preset):
        by = {p["id"]: p for p in s["players"]}
        for viewer in [None, *by]:
            v = me.view(s, viewer)
            hidden = [q["id"] for q in v["players"] if q["role"] is None and q["revealed"] is None and q["id"] != viewer]
            pair = next(((a, b) for a in hidden for b in hidden if by[a]["role"] != by[b]["role"]), None)
            if pair is None:
                continue
            assert me.view(_swap_roles(s, *pair), viewer) == v, (preset, viewer, pair, s["phase"]["kind"])
            checked += 1
    assert checked


def test_no_view_depends_on_chat_its_viewer_may_not_read(preset) -> None:
    """Drop every message in a channel the viewer cannot read: its view is the same."""
    secret = 0
    for s in _gate_states(preset):
        for viewer in [None, *(p["id"] for p in s["players"])]:
            v = me.view(s, viewer)
            read = v["channels"]["read"]
            assert {m["channel"] for m in v["chat"]} <= set(read)
            unread = [m for m in s["chat"] if m["channel"] not in read]
            if unread and s["phase"]["kind"] != "ended":  # after the end the review shows it all
                secret += 1
                assert me.view(_without_unread_chat(s, read), viewer) == v, (preset, viewer)
    assert secret  # some seat could not read some message: the check had something to hide


def test_spectators_see_no_secret_and_every_view_keeps_one_shape(preset) -> None:
    for _o, _n, states in _games(preset):
        keys = set(me.view(states[0], None))
        rules = me.view(states[0], None)["rules"]
        for s in [*states[::4], states[-1]]:
            spectator = me.view(s, None)
            running = s["phase"]["kind"] != "ended"
            assert spectator["you"] is None and spectator["private"] is None
            if running:
                assert all(q["role"] is None for q in spectator["players"])
            for viewer in [None, *(p["id"] for p in s["players"])]:
                v = me.view(s, viewer)
                assert set(v) == keys
                assert v["rules"] == rules  # public, the same for everyone all game
                json.dumps(v)  # JSON-ready
