"""Randomness (docs/rules.md, "Randomness"): one secret per game, a key per purpose
(HMAC-SHA-256 with the labels deal, play, aliases, bots), and a PRF stream over each key.

The attacks these tests answer: the deal followed from a 31-bit seed that also drew what
everyone sees (the bots' words, an anonymous game's aliases), so a search over seeds fed with
public outputs found the deal; and the in-game generator was a 48-bit LCG whose state two
outputs give away, so the random night victim could be named before the night ended.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections import Counter

import pytest

import mafia_engine as me
from mafia_engine import bots, fairness, rng, verify
from mafia_engine.presets import PRESETS
from mafia_engine.testing import random_game

IDS = [f"p{i}" for i in range(1, 9)]
CLASSIC = {"preset": "classic"}
SALT = "a1" * 32


def secret(i: int) -> str:
    """A secret of a room's shape (64 hex digits), one per i."""
    return hashlib.sha256(f"test secret {i}".encode()).hexdigest()


def deal(seed: int | str, options: dict = CLASSIC, ids: list[str] = IDS) -> list[str]:
    return [p["role"] for p in me.new_game(ids, options, seed=seed)["players"]]


# ---------------------------------------------------------------- the old generator, for the attack
_MULT, _ADD, _MASK = 0x5DEECE66D, 0xB, (1 << 48) - 1


def lcg_outputs(seed: int, k: int) -> list[int]:
    """k outputs of 31 bits of the generator this project used before (java.util.Random's)."""
    state, out = (seed ^ _MULT) & _MASK, []
    for _ in range(k):
        state = (state * _MULT + _ADD) & _MASK
        out.append(state >> 17)
    return out


def lcg_attack(r1: int, r2: int) -> list[int]:
    """The state-recovery attack: every 48-bit state whose output is r1 and whose next output
    is r2 (2**17 candidates), and for each the output after that (the prediction)."""
    predictions = []
    for low in range(1 << 17):
        s1 = (r1 << 17) | low
        s2 = (s1 * _MULT + _ADD) & _MASK
        if s2 >> 17 == r2:
            predictions.append(((s2 * _MULT + _ADD) & _MASK) >> 17)
    return predictions


def stream_outputs(key: str, k: int) -> list[int]:
    state, out = rng.stream(key), []
    for _ in range(k):
        state, r = rng.below(state, 1 << 31)
        out.append(r)
    return out


# ---------------------------------------------------------------- tests
def test_the_lcg_state_recovery_attack_predicts_nothing_of_the_prf_stream():
    """From two observed outputs the attack names the LCG's next output every time; fed the
    PRF stream's outputs it finds no consistent state (a chance match has odds 2**-14)."""
    for seed in (5, 1987654321):
        r1, r2, r3 = lcg_outputs(seed, 3)
        assert lcg_attack(r1, r2) == [r3]  # the attack is real: it breaks the old generator
    for i in range(3):
        r1, r2, r3 = stream_outputs(rng.derive(secret(i), "play"), 3)
        assert r3 not in lcg_attack(r1, r2)


def test_two_games_with_the_same_public_inputs_and_different_secrets_deal_differently():
    """Same seats, same options, 400 secrets: many different deals, and every seat is dealt
    a mafia card about as often as any other (no seat's card follows from public inputs)."""
    deals = [deal(secret(i)) for i in range(400)]
    assert len({tuple(d) for d in deals}) > 200
    mafia_at = Counter(seat for d in deals for seat, role in enumerate(d) if role == "mafia")
    per_seat = sum(mafia_at.values()) / len(IDS)
    assert set(mafia_at) == set(range(len(IDS)))
    assert all(abs(mafia_at[seat] - per_seat) < 0.4 * per_seat for seat in range(len(IDS)))


def test_keys_of_different_labels_are_different_and_depend_on_the_whole_secret():
    s = secret(1)
    keys = {label: rng.derive(s, label) for label in rng.LABELS}
    assert len(set(keys.values())) == len(rng.LABELS)
    assert all(len(k) == 64 and k != s for k in keys.values())
    flipped = s[:-1] + ("0" if s[-1] != "0" else "1")  # the secret's last hex digit changed
    assert not set(keys.values()) & {rng.derive(flipped, label) for label in rng.LABELS}
    with pytest.raises(ValueError):
        rng.derive(s, "weather")


def _swap_key(monkeypatch, label: str, other: str) -> None:
    """From now on the key of `label` is `other`'s; every other label keeps its own."""
    real = rng.derive
    monkeypatch.setattr(rng, "derive", lambda seed, lab: real(other if lab == label else seed, lab))


def test_changing_the_bots_key_or_the_aliases_key_leaves_the_deal_and_the_game_draws(monkeypatch):
    s = secret(2)
    before = me.new_game(IDS, CLASSIC, seed=s)
    for label in ("bots", "aliases"):
        with monkeypatch.context() as m:
            _swap_key(m, label, secret(3))
            after = me.new_game(IDS, CLASSIC, seed=s)
        assert after == before


def test_the_aliases_say_nothing_about_the_deal(monkeypatch):
    """Same aliases key, another deal key: the same seat shuffle and aliases, another deal
    (an anonymous game's public aliases cannot be searched for the deal)."""
    s = secret(4)
    aliases = rng.alias_draw(s, 8, 24, 24)
    dealt = deal(s)
    changed = 0
    for i in range(5, 12):
        with monkeypatch.context() as m:
            _swap_key(m, "deal", secret(i))
            assert rng.alias_draw(s, 8, 24, 24) == aliases
            changed += deal(s) != dealt
    assert changed >= 5


def test_the_game_draws_come_from_the_play_key_and_not_the_deal_key(monkeypatch):
    """A new game's generator is the play stream, untouched by the deal; changing the deal key
    changes the deal and not the generator, changing the play key the generator and not the deal."""
    s = secret(6)
    state = me.new_game(IDS, CLASSIC, seed=s)
    assert state["rng"] == {"key": rng.derive(s, "play"), "n": 0}
    assert state["rng"]["key"] != rng.derive(s, "deal")
    with monkeypatch.context() as m:
        _swap_key(m, "play", secret(7))
        other_play = me.new_game(IDS, CLASSIC, seed=s)
    assert deal(s) == [p["role"] for p in other_play["players"]]
    assert other_play["rng"] != state["rng"]


def test_an_integer_seed_goes_through_the_same_derivation():
    """The test mode (a small injected seed) is no other path: the JSON text is the key."""
    assert rng.material(7) == b"7" and rng.material("7") == b'"7"'
    assert rng.derive(7, "deal") != rng.derive("7", "deal")
    state = me.new_game(IDS, CLASSIC, seed=7)
    assert state["rng"] == rng.seed_state(7, "play")
    cards = PRESETS["classic"].deal(me.check_setup(CLASSIC, len(IDS)), len(IDS))
    assert rng.shuffle(rng.seed_state(7, "deal"), cards)[1] == deal(7)


def test_below_is_in_range_and_unbiased_and_never_changes_its_input():
    state = rng.seed_state(secret(8), "play")
    kept = copy.deepcopy(state)
    counts: Counter[int] = Counter()
    for _ in range(3000):
        nxt, v = rng.below(state, 3)
        assert state == kept or state["n"] < nxt["n"]
        state = nxt
        counts[v] += 1
    assert set(counts) == {0, 1, 2}
    assert all(abs(c - 1000) < 120 for c in counts.values())  # about 5 standard deviations
    assert rng.below(kept, 3) == rng.below(kept, 3) and kept == rng.seed_state(secret(8), "play")
    with pytest.raises(ValueError):
        rng.below(kept, 0)


def test_sample_and_shuffle_draw_distinct_values():
    state = rng.seed_state(secret(9), "aliases")
    _, picked = rng.sample(state, 24, 16)
    assert len(set(picked)) == 16 and all(0 <= x < 24 for x in picked)
    _, order = rng.shuffle(state, list(range(12)))
    assert sorted(order) == list(range(12))
    draw = rng.alias_draw(secret(9), 12, 24, 24)
    assert sorted(draw["order"]) == list(range(12))
    assert len(set(draw["adjectives"])) == len(set(draw["animals"])) == 12


def test_a_random_victim_comes_from_the_play_stream_and_apply_changes_no_input():
    """classic `mafiaMustKill: random`: the game draws from its play stream (the state holds
    it as JSON), ``apply`` leaves every input state as it was, dump/load keep it."""
    options = {"preset": "classic", "mafiaMustKill": "random"}
    drawn = 0
    for seed in range(1, 6):
        steps = list(random_game(8, seed, options, chat=False))
        for (_, _, before), (action, now, after) in zip(steps, steps[1:], strict=False):
            kept = copy.deepcopy(before)
            assert me.apply(before, action, now) == after
            assert before == kept
        last = steps[-1][2]
        drawn += last["rng"]["n"]
        assert json.loads(json.dumps(last)) == last and me.load(me.dump(last)) == last
        assert last["rng"]["key"] == rng.derive(seed, "play")
    assert drawn > 0  # some night ended without the mafia's choice


def test_verify_replays_the_deal_from_a_revealed_256_bit_secret(capsys):
    s = secret(10)
    state = me.new_game(IDS, CLASSIC, seed=s, now=0.0, salt=SALT)
    block = state["fairness"]
    argv = ["--seed", json.dumps(s), "--salt", SALT, "--commitment", block["commitment"]]
    assert verify.main([*argv, "--players", ",".join(IDS), "--options", json.dumps(CLASSIC), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verified"] is True
    assert [x["role"] for x in out["seats"]] == [p["role"] for p in state["players"]]
    assert out["keys"] == {label: rng.derive(s, label) for label in rng.LABELS}
    assert fairness.commitment(s, SALT, IDS, me.check_setup(CLASSIC, len(IDS))) == block["commitment"]


def test_verify_replays_an_anonymous_games_seat_shuffle_and_aliases(capsys):
    s = secret(11)
    published = fairness.commitment(s, SALT, IDS, me.check_setup(CLASSIC, len(IDS)))
    argv = ["--seed", json.dumps(s), "--salt", SALT, "--commitment", published]
    argv += ["--players", ",".join(IDS), "--options", json.dumps(CLASSIC), "--anonymous", "--json"]
    assert verify.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    draw = rng.alias_draw(s, len(IDS), *verify.ALIAS_WORDS)
    assert [x["lobby"] for x in out["seats"]] == [i + 1 for i in draw["order"]]
    assert [x["alias"] for x in out["seats"]] == [
        [a, b] for a, b in zip(draw["adjectives"], draw["animals"], strict=True)
    ]


def _day_one_bot_lines(deal_seed: str, bot_key: str) -> tuple[list[str], tuple]:
    """A classic table of p1 (idle) and seven bots given ``bot_key``: the deal, and the bots'
    first day-channel lines of day 1 (what the table reads before anything happened)."""
    state = me.new_game(IDS, CLASSIC, seed=deal_seed, now=0.0)
    stored, now = None, 0.0
    while now < 2000:
        state, stored, _, _ = bots.drain(state, stored, now, IDS[1:], bot_key)
        if state["phase"]["kind"] in ("discussion", "vote"):
            lines = [
                (m["from"], m.get("text"), m.get("phrase"), str(m.get("args")), m.get("variant"))
                for m in state["chat"]
                if m["channel"] == "day" and m["from"]
            ]
            if state["phase"]["kind"] == "vote" or len(lines) >= 4:
                return [p["role"] for p in state["players"]], tuple(lines[:4])
        now += 0.5
        ends = state["phase"]["endsAt"]
        if ends is not None and now >= ends:
            state = me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, ends)
    raise AssertionError("day 1 never came")


def test_the_bots_greetings_are_the_same_whatever_the_deal_under_one_bots_key():
    """A red team's attack replayed the bots' day-1 greetings over candidate seeds to find the
    deal. The bots draw from their own key: with that key fixed and the deal drawn anew,
    the greetings do not change, so they say nothing about the deal (and without the key,
    a 256-bit secret leaves nothing to search)."""
    key = rng.derive(secret(20), "bots")
    seen = [_day_one_bot_lines(secret(i), key) for i in range(21, 33)]
    assert len({tuple(d) for d, _ in seen}) > 6  # many deals
    assert len({lines for _, lines in seen}) == 1 and seen[0][1]  # one greeting, said


@pytest.mark.parametrize("seed", [True, None, 1.5, ["x"], "\ud800"])
def test_a_seed_that_is_no_integer_or_unicode_text_is_refused_with_bad_options(seed):
    """The seed's JSON text is the keys' material: a boolean, a float, a list or a string
    UTF-8 cannot hold (a lone surrogate) is refused with a code, for a salted game too."""
    for salt in (None, SALT):
        with pytest.raises(me.InvalidAction) as err:
            me.new_game(IDS, CLASSIC, seed=seed, salt=salt)
        assert err.value.code == "bad_options"


def test_a_game_saved_with_the_old_generator_draws_on_from_a_key_of_its_state():
    """A game running when the LCG was replaced was saved with its integer ``rng`` (state
    version 1); loaded (migrations.py), its next random victim comes from the play stream of a
    key derived from that integer, not a crash."""
    options = {"preset": "classic", "mafiaMustKill": "random"}
    for seed in range(1, 6):
        steps = list(random_game(8, seed, options, chat=False))
        for (_, _, before), (action, now, after) in zip(steps, steps[1:], strict=False):
            if after["rng"]["n"] > before["rng"]["n"]:
                old = {**before, "v": 1, "rng": 0x5DEECE66D}
                moved = me.apply(me.load(old), action, now)
                assert moved["rng"]["key"] == rng.derive(0x5DEECE66D, "play") and moved["rng"]["n"] > 0
                assert old["rng"] == 0x5DEECE66D
                return
    raise AssertionError("no random victim in these games")
