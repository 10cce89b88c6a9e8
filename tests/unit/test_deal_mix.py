"""No one chooses the deal: the server's secret mixed with values the clients revealed
(docs/rules.md, "Randomness"; `mafia_engine/fairness.py`, scheme `sha256/mafia-deal-v3`).

Engine tier: the mixing, the record a game keeps and shows, and `python -m mafia_engine.verify`
recomputing a v3 deal from the ended view alone (the public record), refusing a changed reveal,
a changed seat list or another server secret, and saying how many values were dropped.
"""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

import mafia_engine as me
from mafia_engine import fairness, rng, verify
from mafia_engine.testing import play_on

SECRET = "5e" * 32  # a room's secret: 64 hex digits
SALT = "a1" * 32
VALUES = ["0f" * 16, "1e" * 32, "2d" * 24]  # three clients' values (16, 32 and 24 bytes)
IDS = [f"p{i}" for i in range(1, 8)]
OPTIONS = {"preset": "classic"}


def parts(values: list[str | None], dropped: int = 0) -> list[dict]:
    """The contributions of clients who revealed ``values``, and ``dropped`` who committed to a
    value they never revealed."""
    out = [{"commitment": fairness.client_commitment(v), "value": v} for v in values]
    lost = [fairness.client_commitment(f"{i + 1:02x}" * 16) for i in range(dropped)]
    return out + [{"commitment": c, "value": None} for c in lost]


def dealt(contributions: list[dict], players: list[str] = IDS) -> dict:
    return me.new_game(players, OPTIONS, seed=SECRET, now=0.0, salt=SALT, contributions=contributions)


def ended(contributions: list[dict]) -> dict:
    state = dealt(contributions)
    for _action, _now, after in play_on(state, 0.0, seed=3, chat=False, max_steps=4000):
        state = after
    assert me.result(state) is not None
    return state


def argv(view: dict, players: list[str] | None = None) -> list[str]:
    """`verify`'s arguments from the ended view alone: what its end screen shows."""
    f = view["fairness"]
    seats = players or [p["id"] for p in sorted(view["players"], key=lambda p: p["seat"])]
    shown = {p["id"]: p["role"] for p in view["result"]["players"]}
    return [
        "--scheme", f["scheme"],
        "--seed", json.dumps(f["seed"]),
        "--salt", f["salt"],
        "--commitment", f["commitment"],
        "--server-commitment", f["serverCommitment"],
        "--contributions", json.dumps(f["contributions"]),
        "--players", ",".join(seats),
        "--options", json.dumps(view["options"]),
        "--roles", ",".join(shown[p] for p in seats),
    ]  # fmt: skip


def test_the_deal_is_the_secret_mixed_with_every_revealed_value():
    """The game's draws derive from HMAC-SHA-256(secret, the revealed values in the
    contributions' order): the vector is computed here from the definition."""
    c = parts(VALUES)
    ordered = [x["value"] for x in sorted(c, key=lambda x: x["commitment"])]
    message = "mafia-deal-v3-mix:" + json.dumps(ordered, separators=(",", ":"))
    mixed = hmac.new(json.dumps(SECRET).encode(), message.encode(), hashlib.sha256).hexdigest()
    assert fairness.mix(SECRET, c) == mixed
    state = dealt(c)
    assert state["rng"] == rng.seed_state(mixed, "play")
    assert [p["role"] for p in state["players"]] == [
        p["role"] for p in me.new_game(IDS, OPTIONS, seed=mixed)["players"]
    ]


def test_every_client_value_changes_the_mixed_secret():
    base = fairness.mix(SECRET, parts(VALUES))
    for i in range(len(VALUES)):
        other = list(VALUES)
        other[i] = "77" * 16
        assert fairness.mix(SECRET, parts(other)) != base, i
    assert fairness.mix("6f" * 32, parts(VALUES)) != base  # and the server's secret does too
    assert fairness.mix(SECRET, []) != base


def test_the_contributions_order_is_canonical_not_the_callers():
    c = parts(VALUES, dropped=1)
    assert dealt(c)["fairness"] == dealt(list(reversed(c)))["fairness"]


def test_client_and_server_commitments_are_sha256_of_their_prefixed_text():
    v = VALUES[0]
    assert fairness.client_commitment(v) == hashlib.sha256(f"mafia-deal-v3-client:{v}".encode()).hexdigest()
    server = hashlib.sha256(f"mafia-deal-v3-server:{SALT}:{json.dumps(SECRET)}".encode()).hexdigest()
    assert fairness.server_commitment(SECRET, SALT) == server
    assert dealt(parts(VALUES))["fairness"]["serverCommitment"] == server


def test_the_record_is_public_from_the_start_but_the_secret_and_salt_only_at_the_end():
    state = dealt(parts(VALUES, dropped=1))
    for viewer in [None, *IDS]:
        f = me.view(state, viewer)["fairness"]
        assert f["scheme"] == "sha256/mafia-deal-v3"
        assert f["seed"] is None and f["salt"] is None
        assert f["serverCommitment"] == fairness.server_commitment(SECRET, SALT)
        assert len(f["contributions"]) == 4
    dumped = json.dumps(me.view(state, "p1"))
    assert SECRET not in dumped and SALT not in dumped
    assert fairness.mix(SECRET, state["fairness"]["contributions"]) not in dumped


def test_a_dropped_reveal_is_visible_in_the_public_record():
    """A client that committed and never revealed: its value takes no part, and every view
    shows its commitment with a null value (dropped)."""
    with_drop = dealt(parts(VALUES, dropped=1))
    shown = me.view(with_drop, None)["fairness"]["contributions"]
    assert [c["value"] is None for c in shown].count(True) == 1
    assert fairness.mix(SECRET, shown) == fairness.mix(SECRET, parts(VALUES))  # dropped: no part
    # but the record differs from a game where that client never committed: the drop is seen
    assert with_drop["fairness"]["commitment"] != dealt(parts(VALUES))["fairness"]["commitment"]


@pytest.mark.parametrize(
    ("contributions", "code"),
    [
        ("nope", "bad_contributions"),
        ([{"commitment": "ab" * 32}], "bad_contributions"),
        ([{"commitment": "AB" * 32, "value": None}], "bad_contributions"),
        ([{"commitment": "ab" * 32, "value": VALUES[0]}], "bad_reveal"),
        ([{"commitment": fairness.client_commitment(VALUES[0]), "value": "0f" * 8}], "bad_reveal"),
        (parts([VALUES[0], VALUES[0]]), "bad_contributions"),
    ],
)
def test_bad_contributions_are_refused_with_a_code(contributions, code):
    with pytest.raises(me.InvalidAction) as err:
        dealt(contributions)
    assert err.value.code == code


def test_verify_recomputes_a_mixed_deal_from_the_public_record_alone(capsys):
    state = ended(parts(VALUES, dropped=1))
    view = me.view(state, None)
    assert view["fairness"]["seed"] == SECRET
    assert verify.main([*argv(view), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verified"] is True
    assert out["mixed"] == {"secret": fairness.mix(SECRET, parts(VALUES)), "values": 3, "dropped": 1}
    assert [s["role"] for s in out["seats"]] == [p["role"] for p in state["players"]]
    assert verify.main(argv(view)) == 0
    assert "(1 committed and never revealed: dropped)" in capsys.readouterr().out


def test_a_changed_reveal_fails_verify(capsys):
    view = me.view(ended(parts(VALUES)), None)
    forged = json.loads(json.dumps(view))
    forged["fairness"]["contributions"][0]["value"] = "99" * 16  # not the committed value
    assert verify.main(argv(forged)) == 1
    assert "bad_reveal" in capsys.readouterr().err
    # a value hidden as dropped changes the record the game committed to
    hidden = json.loads(json.dumps(view))
    hidden["fairness"]["contributions"][0]["value"] = None
    assert verify.main(argv(hidden)) == 1


def test_verify_refuses_another_server_secret_or_a_rotated_seat_list(capsys):
    view = me.view(ended(parts(VALUES)), None)
    other = json.loads(json.dumps(view))
    other["fairness"]["serverCommitment"] = fairness.server_commitment("6f" * 32, SALT)
    assert verify.main(argv(other)) == 1
    assert "server commitment DOES NOT MATCH" in capsys.readouterr().err
    seats = [p["id"] for p in sorted(view["players"], key=lambda p: p["seat"])]
    assert verify.main(argv(view, seats[1:] + seats[:1])) == 1


def test_verify_needs_the_record_for_a_v3_deal(capsys):
    view = me.view(ended(parts(VALUES)), None)
    args = argv(view)
    cut = args.index("--contributions")
    assert verify.main(args[:cut] + args[cut + 2 :]) == 2


def test_a_game_dealt_before_keeps_its_v2_record_through_the_migration():
    old = me.new_game(IDS, OPTIONS, seed=SECRET, now=0.0, salt=SALT)
    saved = {**me.dump(old), "v": 4}
    loaded = me.load(saved)
    assert loaded["v"] == me.STATE_VERSION == 6
    assert loaded["fairness"] == old["fairness"] and loaded["fairness"]["scheme"] == "sha256/mafia-deal-v2"
