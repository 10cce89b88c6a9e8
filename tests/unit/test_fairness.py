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


def committed(n: int, options: dict, seed: int, salt: str) -> str:
    """The commitment a game of ``n`` seats (p1..pn) with ``options`` publishes (v2)."""
    return fairness.commitment(seed, salt, ids(n), me.check_setup(options, n))


def test_commitment_is_sha256_of_the_salt_and_the_seeds_json_text():
    """A v1 game's preimage (state version 2 and before) is `mafia-deal-v1:<salt>:<seed as JSON>`;
    this vector is also checked by the web client's WebCrypto test (tests/browser/test_fair_deal.py),
    so both sides agree."""
    expected = hashlib.sha256(f"mafia-deal-v1:{SALT_A}:{SEED}".encode()).hexdigest()
    assert fairness.commitment(SEED, SALT_A) == expected
    assert expected == VECTOR
    # 7 and "7" deal differently (rng.material: the keys derive from the JSON text), so they must commit differently
    assert fairness.commitment(7, SALT_A) != fairness.commitment("7", SALT_A)
    assert fairness.preimage("7", SALT_A).endswith(b':"7"')


def test_the_commitment_binds_the_seat_list_in_order_and_the_options():
    """v2's preimage is `mafia-deal-v2:<salt>:<seed as JSON>:<game>`, the game as canonical JSON
    (sorted keys, no spaces) of the checked options and the ids in seat order; the browser's
    test (tests/browser/test_fair_deal.py) hashes the same text with WebCrypto."""
    opts = me.check_setup({"preset": "classic"}, 5)
    game = json.dumps({"options": opts, "players": ids(5)}, sort_keys=True, separators=(",", ":"))
    expected = hashlib.sha256(f"mafia-deal-v2:{SALT_A}:{SEED}:{game}".encode()).hexdigest()
    assert fairness.commitment(SEED, SALT_A, ids(5), opts) == expected
    state = me.new_game(ids(5), {"preset": "classic"}, seed=SEED, salt=SALT_A)
    assert state["fairness"]["commitment"] == expected
    assert state["fairness"]["scheme"] == fairness.SCHEME == "sha256/mafia-deal-v2"
    rotated, reversed_ = ids(5)[1:] + ids(5)[:1], ids(5)[::-1]
    assert fairness.commitment(SEED, SALT_A, rotated, opts) != expected
    assert fairness.commitment(SEED, SALT_A, reversed_, opts) != expected
    assert fairness.commitment(SEED, SALT_A, ids(5), {**opts, "deathReveal": "none"}) != expected


@pytest.mark.parametrize("preset,n,options", GAMES, ids=[g[0] for g in GAMES])
def test_every_view_carries_the_same_commitment_from_the_first_to_the_last(preset, n, options):
    states = replay(n, options, SEED, SALT_A, log_of(n, options))
    published = committed(n, options, SEED, SALT_A)
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
        view = me.view(last, v)
        seats = [p["id"] for p in sorted(view["players"], key=lambda p: p["seat"])]
        assert fairness.verified(block["seed"], block["salt"], block["commitment"], seats, view["options"])


@pytest.mark.parametrize("preset,n,options", GAMES, ids=[g[0] for g in GAMES])
def test_views_of_one_deal_with_different_seeds_differ_only_in_the_commitment(preset, n, options):
    """The commitment leaks nothing: the same deal under another seed and salt, played the
    same way, gives every viewer views with the same keys, the same byte lengths and the same
    bytes but for the 64 hex digits of the hash, in every phase until the end."""
    other = same_deal_other_seed(n, options, SEED)
    log = log_of(n, options)
    a = replay(n, options, SEED, SALT_A, log)
    b = replay(n, options, other, SALT_B, log)
    ca, cb = committed(n, options, SEED, SALT_A), committed(n, options, other, SALT_B)
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
    published = committed(n, options, SEED, SALT_A)
    opts = me.check_setup(options, n)
    deal = deal_of(n, options, SEED)
    others = [s for s in range(1, 400) if deal_of(n, options, s) != deal]
    assert others
    assert not any(fairness.verified(s, SALT_A, published, ids(n), opts) for s in others)
    assert not fairness.verified(SEED, SALT_B, published, ids(n), opts)
    assert fairness.verified(SEED, SALT_A, published, ids(n), opts)


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


def _end_screen(preset: str, n: int, options: dict) -> tuple[dict, list[str], list[str]]:
    """An ended game's public record: its view, its seat list and the roles its end screen shows."""
    last = replay(n, options, SEED, SALT_A, log_of(n, options))[-1]
    view = me.view(last, None)
    seats = [p["id"] for p in sorted(view["players"], key=lambda p: p["seat"])]
    shown = {p["id"]: p["role"] for p in view["result"]["players"]}
    return view, seats, [shown[i] for i in seats]


def _argv(view: dict, seats: list[str], options: dict | None = None) -> list[str]:
    block = view["fairness"]
    return [
        "--seed", json.dumps(block["seed"]), "--salt", block["salt"], "--commitment", block["commitment"],
        "--players", ",".join(seats), "--options", json.dumps(options or view["options"]), "--json",
    ]  # fmt: skip


@pytest.mark.parametrize("preset,n,options", GAMES, ids=[g[0] for g in GAMES])
def test_verify_refuses_a_rotated_or_reversed_seat_list(preset, n, options, capsys):
    """docs/rules.md, "A provably fair deal": the true secret and salt with the seat list rotated or reversed said
    "verified" (the commitment bound the secret alone) while the roles differed from the end
    screen's; the seat list is in the commitment now."""
    view, seats, roles = _end_screen(preset, n, options)
    assert verify.main([*_argv(view, seats), "--roles", ",".join(roles)]) == 0
    assert json.loads(capsys.readouterr().out)["verified"] is True
    shown = dict(zip(seats, roles, strict=True))
    for wrong in (seats[1:] + seats[:1], seats[-1:] + seats[:-1], seats[::-1]):
        assert verify.main([*_argv(view, wrong), "--roles", ",".join(shown[i] for i in wrong)]) == 1
        out = capsys.readouterr()
        assert json.loads(out.out) == {
            "verified": False,
            "commitment": json.loads(out.out)["commitment"],
            "seats": None,
        }
        assert "DOES NOT MATCH" in out.err


@pytest.mark.parametrize("preset,n,options", GAMES, ids=[g[0] for g in GAMES])
def test_verify_refuses_a_changed_option_or_preset(preset, n, options, capsys):
    view, seats, _ = _end_screen(preset, n, options)
    other_preset = "classic" if preset != "classic" else "city"
    for changed in ({**view["options"], "dayTimer": view["options"].get("dayTimer", 60) + 1},
                    {"preset": other_preset}):  # fmt: skip
        assert verify.main(_argv(view, seats, changed)) in (1, 2)
        assert 'verified": true' not in capsys.readouterr().out


@pytest.mark.parametrize("preset,n,options", GAMES, ids=[g[0] for g in GAMES])
def test_verify_refuses_roles_that_are_not_the_replayed_deal(preset, n, options, capsys):
    """`--roles` (the end screen's, seat order) are compared with the replay: one swapped pair fails."""
    view, seats, roles = _end_screen(preset, n, options)
    i = next(k for k in range(1, n) if roles[k] != roles[0])
    swapped = [roles[i], *roles[1:i], roles[0], *roles[i + 1 :]]
    assert verify.main([*_argv(view, seats), "--roles", ",".join(swapped)]) == 1
    out = capsys.readouterr()
    assert json.loads(out.out)["differ"] == [1, i + 1]
    assert "roles DO NOT MATCH" in out.err


def test_a_game_committed_the_old_way_keeps_its_commitment_and_verify_says_what_it_binds(capsys):
    """A state saved at version 2 (the v1 commitment: secret and salt alone) migrates with its
    commitment and a scheme saying how it was made; verify checks it as such, says the seat
    list is not bound, and still refuses a rotated seat list whose roles the end screen contradicts."""
    from mafia_engine import migrations

    n, options = 7, {"preset": "classic"}
    state = me.new_game(ids(n), options, seed=SEED, salt=SALT_A)
    old = json.loads(json.dumps(state))
    old["v"] = 2
    old["fairness"] = {"seed": SEED, "salt": SALT_A, "commitment": fairness.commitment(SEED, SALT_A)}
    up = migrations.migrate(old)
    assert up["v"] == migrations.STATE_VERSION
    assert up["fairness"] == {**old["fairness"], "scheme": fairness.SCHEME_V1}
    assert me.view(up, None)["fairness"]["scheme"] == "sha256/mafia-deal-v1"
    roles = [p["role"] for p in state["players"]]
    argv = ["--seed", str(SEED), "--salt", SALT_A, "--commitment", old["fairness"]["commitment"],
            "--options", json.dumps(options), "--scheme", fairness.SCHEME_V1, "--json"]  # fmt: skip
    assert verify.main([*argv, "--players", ",".join(ids(n)), "--roles", ",".join(roles)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verified"] is True and "binds the secret only" in out["caveat"]
    assert verify.main([*argv, "--players", ",".join(ids(n))]) == 0  # the v2 scheme would refuse it
    capsys.readouterr()
    assert verify.main([*argv[:-3], "--json", "--players", ",".join(ids(n))]) == 1
    capsys.readouterr()
    # the end screen shows each id's role: a rotated seat list deals those ids other roles
    shown = dict(zip(ids(n), roles, strict=True))
    rotated = ids(n)[1:] + ids(n)[:1]
    assert (
        verify.main([*argv, "--players", ",".join(rotated), "--roles", ",".join(shown[i] for i in rotated)])
        == 1
    )
    assert "roles DO NOT MATCH" in capsys.readouterr().err


def test_verify_prints_no_roles_for_a_seed_that_is_not_the_committed_one(capsys):
    published = committed(5, {"preset": "classic"}, SEED, SALT_A)
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
    argv = ["--seed", "77", "--salt", SALT_A, "--commitment", committed(5, {"preset": "classic"}, 77, SALT_A)]
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
