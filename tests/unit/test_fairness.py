"""A provably fair deal (docs/rules.md, "A provably fair deal"; `mafia_engine/fairness.py`).

Games come from `mafia_engine.testing.random_game` (its action log), replayed with a salt, so
every view of a real game of every preset is checked: the commitment is in each from the
start, the seed and salt in none before the end, and two deals that are the same but for
their seed give views that differ only in the hash's digits.
"""

from __future__ import annotations

import functools
import hashlib
import json

import pytest

import mafia_engine as me
from mafia_engine import fairness, rng, verify
from mafia_engine.testing import random_game

SALT_A = "a1" * 32
SALT_B = "b2" * 32
SEED = 1234567891  # digits that no time or count of these games spells
# SHA-256 of "mafia-deal-v1:" + SALT_A + ":1234567891" (`printf %s ... | sha256sum`)
VECTOR = "de54d52207530035d025ecc470ab88119c550fecd7a2d89f859a211298e4ec3d"
GAMES = [
    ("classic", 7, {"preset": "classic", "extraRoles": ["soldier", "politician"], "deathReveal": "role"}),
    ("city", 8, {"preset": "city", "openVote": True}),
    ("original", 10, {"preset": "original", "expansion": True}),
]


def ids(n: int) -> list[str]:
    return [f"p{i}" for i in range(1, n + 1)]


def deal_of(n: int, options: dict, seed: int) -> list[str]:
    return [p["role"] for p in me.new_game(ids(n), options, seed=seed)["players"]]


@functools.cache
def _log(n: int, options: str) -> tuple[tuple[dict, float], ...]:
    steps = random_game(n, seed=SEED, options=json.loads(options), chat=True, max_steps=4000)
    return tuple((a, now) for a, now, _ in steps if a is not None)


def log_of(n: int, options: dict) -> list[tuple[dict, float]]:
    """The action log of one random game dealt with SEED (played without a salt: the salt
    changes no rule), played to its end."""
    return list(_log(n, json.dumps(options, sort_keys=True)))


def replay(n: int, options: dict, seed: int, salt: str, log: list[tuple[dict, float]]) -> list[dict]:
    states = [me.new_game(ids(n), options, seed=seed, now=0.0, salt=salt)]
    for action, now in log:
        states.append(me.apply(states[-1], action, now))
    return states


def viewers(state: dict) -> list[str | None]:
    return [None, *[p["id"] for p in state["players"]]]


def same_deal_other_seed(n: int, options: dict, seed: int) -> int:
    """Another seed that deals every seat the same role (there are few deals, many seeds)."""
    want = deal_of(n, options, seed)
    return next(s for s in range(1, 1_000_000) if s != seed and deal_of(n, options, s) == want)


def test_commitment_is_sha256_of_the_salt_and_the_seeds_json_text():
    """The preimage is `mafia-deal-v1:<salt>:<seed as JSON>`; this vector is also checked by
    the web client's WebCrypto test (tests/browser/test_fair_deal.py), so both sides agree."""
    expected = hashlib.sha256(f"mafia-deal-v1:{SALT_A}:{SEED}".encode()).hexdigest()
    assert fairness.commitment(SEED, SALT_A) == expected
    assert expected == VECTOR
    # 7 and "7" deal differently (rng.material: the keys derive from the JSON text), so they must commit differently
    assert fairness.commitment(7, SALT_A) != fairness.commitment("7", SALT_A)
    assert fairness.preimage("7", SALT_A).endswith(b':"7"')


@pytest.mark.parametrize("preset,n,options", GAMES, ids=[g[0] for g in GAMES])
def test_every_view_carries_the_same_commitment_from_the_first_to_the_last(preset, n, options):
    states = replay(n, options, SEED, SALT_A, log_of(n, options))
    published = fairness.commitment(SEED, SALT_A)
    for s in states:
        for v in viewers(s):
            block = me.view(s, v)["fairness"]
            assert block["commitment"] == published
            assert block["scheme"] == fairness.SCHEME


@pytest.mark.parametrize("preset,n,options", GAMES, ids=[g[0] for g in GAMES])
def test_seed_and_salt_reach_no_view_or_refusal_before_the_end(preset, n, options):
    states = replay(n, options, SEED, SALT_A, log_of(n, options))
    assert states[-1]["phase"]["kind"] == "ended"
    secrets_ = (SALT_A, str(SEED))
    for i, s in enumerate(states):
        if s["phase"]["kind"] == "ended":
            break
        for v in viewers(s):
            view = me.view(s, v)
            assert view["fairness"]["seed"] is None and view["fairness"]["salt"] is None
            text = json.dumps(view)
            assert not any(x in text for x in secrets_), (i, v)
        if i % 5 == 0:  # refusals quote their input, never the state's secrets
            for bad in (
                {"type": "vote", "player": "p1", "target": "nobody"},
                {"type": "heal", "player": "p2", "target": "p1"},
                {"type": "phaseTimeout", "phase": s["seq"] + 1},
            ):
                with pytest.raises(me.InvalidAction) as err:
                    me.apply(s, bad, 0.0)
                assert not any(x in str(err.value) for x in secrets_)


@pytest.mark.parametrize("preset,n,options", GAMES, ids=[g[0] for g in GAMES])
def test_the_end_reveals_a_seed_and_salt_that_hash_to_the_commitment(preset, n, options):
    last = replay(n, options, SEED, SALT_A, log_of(n, options))[-1]
    assert last["phase"]["kind"] == "ended"
    for v in viewers(last):
        block = me.view(last, v)["fairness"]
        assert (block["seed"], block["salt"]) == (SEED, SALT_A)
        assert fairness.verified(block["seed"], block["salt"], block["commitment"])


@pytest.mark.parametrize("preset,n,options", GAMES, ids=[g[0] for g in GAMES])
def test_views_of_one_deal_with_different_seeds_differ_only_in_the_commitment(preset, n, options):
    """The commitment leaks nothing: the same deal under another seed and salt, played the
    same way, gives every viewer views with the same keys, the same byte lengths and the same
    bytes but for the 64 hex digits of the hash, in every phase until the end."""
    other = same_deal_other_seed(n, options, SEED)
    log = log_of(n, options)
    a = replay(n, options, SEED, SALT_A, log)
    b = replay(n, options, other, SALT_B, log)
    ca, cb = fairness.commitment(SEED, SALT_A), fairness.commitment(other, SALT_B)
    assert ca != cb and len(ca) == len(cb) == 64
    compared = 0
    for sa, sb in zip(a, b, strict=True):
        if sa["phase"]["kind"] == "ended":
            break
        for v in viewers(sa):
            va, vb = json.dumps(me.view(sa, v)), json.dumps(me.view(sb, v))
            assert len(va) == len(vb)
            assert va.count(ca) == vb.count(cb) == 1
            assert va.replace(ca, "#" * 64) == vb.replace(cb, "#" * 64)
            compared += 1
    assert compared > 50


def test_a_deal_cannot_change_without_the_commitment_failing():
    """Another seed (a different deal) or another salt never reproduces the published hash."""
    n, options = 7, {"preset": "classic"}
    published = fairness.commitment(SEED, SALT_A)
    deal = deal_of(n, options, SEED)
    others = [s for s in range(1, 400) if deal_of(n, options, s) != deal]
    assert others
    assert not any(fairness.verified(s, SALT_A, published) for s in others)
    assert not fairness.verified(SEED, SALT_B, published)
    assert fairness.verified(SEED, SALT_A, published)


@pytest.mark.parametrize("preset,n,options", GAMES, ids=[g[0] for g in GAMES])
def test_verify_replays_every_seats_role_from_what_the_end_screen_shows(preset, n, options, capsys):
    """`python -m mafia_engine.verify` given the ended view's seed, salt, commitment, options and
    seat list prints the roles the view's result shows (the end screen's list)."""
    last = replay(n, options, SEED, SALT_A, log_of(n, options))[-1]
    view = me.view(last, None)
    seats = [p["id"] for p in sorted(view["players"], key=lambda p: p["seat"])]
    block = view["fairness"]
    argv = [
        "--seed", json.dumps(block["seed"]), "--salt", block["salt"], "--commitment", block["commitment"],
        "--players", ",".join(seats), "--options", json.dumps(view["options"]), "--json",
    ]  # fmt: skip
    assert verify.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verified"] is True
    shown = {p["id"]: p["role"] for p in view["result"]["players"]}
    assert {s["id"]: s["role"] for s in out["seats"]} == shown
    assert [s["id"] for s in out["seats"]] == seats


def test_verify_prints_no_roles_for_a_seed_that_is_not_the_committed_one(capsys):
    published = fairness.commitment(SEED, SALT_A)
    argv = [
        "--seed",
        str(SEED + 1),
        "--salt",
        SALT_A,
        "--commitment",
        published,
        "--players",
        "p1,p2,p3,p4,p5",
    ]
    assert verify.main([*argv, "--options", '{"preset": "classic"}']) == 1
    out = capsys.readouterr()
    assert "DOES NOT MATCH" in out.err
    assert not any(role in out.out for role in ("mafia", "police", "doctor", "citizen"))


def test_verify_prints_every_seat_line_by_line(capsys):
    argv = ["--seed", "77", "--salt", SALT_A, "--commitment", fairness.commitment(77, SALT_A)]
    assert verify.main([*argv, "--players", "p1,p2,p3,p4,p5", "--options", '{"preset": "classic"}']) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("commitment matches")
    roles = deal_of(5, {"preset": "classic"}, 77)
    assert [line.split() for line in lines[1:6]] == [
        ["seat", str(i + 1), f"p{i + 1}", r] for i, r in enumerate(roles)
    ]
    # then every purpose's key (docs/rules.md, "Randomness"), to replay the bots and the game's draws
    assert [line.split() for line in lines[6:]] == [
        ["key", label, rng.derive(77, label)] for label in rng.LABELS
    ]


@pytest.mark.parametrize("salt", ["ab" * 15, "AB" * 16, "zz" * 16, "abc" * 11, 12345, "ab" * 65])
def test_new_game_refuses_a_salt_that_is_not_16_to_64_bytes_of_lowercase_hex(salt):
    with pytest.raises(me.InvalidAction) as err:
        me.new_game(ids(5), {"preset": "classic"}, seed=1, salt=salt)
    assert err.value.code == "bad_salt"


def test_a_game_started_without_a_salt_has_no_commitment():
    """States saved before the commitment existed (and engine tests) keep working."""
    s = me.new_game(ids(5), {"preset": "classic"}, seed=1)
    assert "fairness" not in s
    assert all(me.view(s, v)["fairness"] is None for v in viewers(s))


def test_the_commitment_survives_dump_and_load_and_changes_no_deal():
    plain = me.new_game(ids(6), {"preset": "city"}, seed=SEED)
    salted = me.new_game(ids(6), {"preset": "city"}, seed=SEED, salt=SALT_A)
    assert [p["role"] for p in salted["players"]] == [p["role"] for p in plain["players"]]
    assert salted["rng"] == plain["rng"]
    assert me.load(me.dump(salted)) == salted
