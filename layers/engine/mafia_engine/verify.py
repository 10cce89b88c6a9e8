"""Replay a game's deal from what its end screen reveals, and check the commitment.

    python -m mafia_engine.verify --seed '"<64 hex digits>"' --salt <hex> --commitment <hex> \\
        --players p1,p2,p3,p4,p5 --options '{"preset": "classic", ...}' \\
        [--roles mafia,citizen,...] [--scheme sha256/mafia-deal-v2] [--anonymous]
    python -m mafia_engine.verify --scheme sha256/mafia-deal-v3 --server-commitment <hex> \
        --contributions '[{"commitment": "<hex>", "value": "<hex>" or null}, ...]' --seed ... (as above)

Everything it needs is public after the end (docs/rules.md, "A provably fair deal"): the
seed and salt the end screen reveals, the commitment every view carried from the start, the
game's options (``view.options``) and the seat list (player ids in seat order). It checks that
SHA-256 of seed, salt, seat list and options is the commitment (``sha256/mafia-deal-v2``: a
rotated or reversed seat list, another preset or option fails here), deals again with the engine's own ``new_game``
(the same code the server ran, so the replay cannot drift from the game), and prints every
seat's role (none when the hash does not match). ``--roles`` (the role the end screen shows
for each id of ``--players``, in that order) are compared with the replay: any seat that differs fails. A game committed
the old way (``--scheme sha256/mafia-deal-v1``, games started before state version 3) hashed
the secret and salt alone: the hash does not bind its seat list, which the command says, and
only ``--roles`` can refute a wrong seat list then. ``--anonymous`` replays an anonymous game's
seat shuffle and aliases too (``rng.alias_draw``: each seat's place in the lobby's join order,
1-based, and its alias as word indices into ``functions/service/features/aliases.py``'s tables), and
every purpose's key is printed (``rng.derive``: the game's draws, the bots'; docs/rules.md,
"Randomness"). Exit status: 0 when the hash matches (and the roles, when given), 1 when
either does not, 2 for input it cannot replay.
A v3 game (``sha256/mafia-deal-v3``, docs/rules.md "Randomness") was dealt from the server's
secret mixed with the values its clients revealed: the command checks the lobby's commitment to
the secret (``--server-commitment``), that every revealed value hashes to its client's
commitment (a changed value fails), recomputes the mixed secret (``fairness.mix``) and deals
from it; it says how many values were dropped (committed, never revealed).
The end screen shows this command filled in for its game.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from . import check_setup, fairness, new_game, rng
from .errors import InvalidAction

# how many adjectives and animals an anonymous game's aliases are drawn from: the sizes of
# ADJECTIVES and ANIMALS in functions/service/features/aliases.py (tests/functions/test_room_randomness.py
# checks they agree)
ALIAS_WORDS = (24, 24)


def deal(
    players: list[str], options: dict, seed: int | str, salt: str, contributions: list[dict] | None = None
) -> list[dict[str, Any]]:
    """Every seat's role as ``new_game`` deals it: ``[{"seat", "id", "role"}]`` in seat order
    (a v3 game's with its ``contributions``: dealt from the mixed secret)."""
    state = new_game(players, options, seed=seed, now=0.0, salt=salt, contributions=contributions)
    return [{"seat": p["seat"], "id": p["id"], "role": p["role"]} for p in state["players"]]


def aliases(n: int, seed: int | str) -> list[dict[str, Any]]:
    """An anonymous game's draw for its n seats, in seat order: ``{"lobby": the seat's place in
    the lobby (1-based), "alias": [adjective, animal]}`` (``rng.alias_draw``)."""
    draw = rng.alias_draw(seed, n, *ALIAS_WORDS)
    return [
        {"lobby": place + 1, "alias": [a, b]}
        for place, a, b in zip(draw["order"], draw["adjectives"], draw["animals"], strict=True)
    ]


def _seed(text: str) -> int | str:
    """The revealed seed as the view shows it: an integer, or a JSON string in quotes."""
    try:
        value = json.loads(text)
    except ValueError:
        return text  # a bare word: a string seed typed without its quotes
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise argparse.ArgumentTypeError(f"seed must be an integer or a string, not {text!r}")
    return value


def _options(text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"options must be a JSON object: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("options must be a JSON object")
    return value


def _contributions(text: str) -> list[dict]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"contributions must be a JSON list: {exc}") from None
    if not isinstance(value, list):
        raise argparse.ArgumentTypeError("contributions must be a JSON list of {commitment, value}")
    return value


def _players(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m mafia_engine.verify",
        description="Check a game's deal commitment and print every seat's role.",
    )
    ap.add_argument("--seed", type=_seed, required=True, help="the revealed seed (view.fairness.seed)")
    ap.add_argument("--salt", required=True, help="the revealed salt (view.fairness.salt)")
    ap.add_argument("--commitment", required=True, help="the commitment published at the start")
    ap.add_argument(
        "--players", type=_players, required=True, help="player ids in seat order, comma separated"
    )
    ap.add_argument(
        "--options", type=_options, required=True, help="the game's options as JSON (view.options)"
    )
    ap.add_argument(
        "--roles",
        type=_players,
        default=None,
        help="the role the end screen shows for each id of --players, in that order, comma separated: "
        "compared with the replay",
    )
    ap.add_argument(
        "--scheme",
        choices=fairness.SCHEMES,
        default=fairness.SCHEME,
        help="the commitment's scheme (view.fairness.scheme); v1 binds the secret alone",
    )
    ap.add_argument(
        "--server-commitment",
        default=None,
        help="v3: the lobby's commitment to the server's secret (view.fairness.serverCommitment)",
    )
    ap.add_argument(
        "--contributions",
        type=_contributions,
        default=None,
        help="v3: the clients' commitments and revealed values as JSON (view.fairness.contributions)",
    )
    ap.add_argument(
        "--anonymous", action="store_true", help="an anonymous game: replay the seat shuffle and aliases too"
    )
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    v1 = args.scheme == fairness.SCHEME_V1
    v3 = args.scheme == fairness.SCHEME_V3
    if v3 and (args.contributions is None or args.server_commitment is None):
        print("a v3 deal needs --contributions and --server-commitment", file=sys.stderr)
        return 2
    secret = args.seed  # what the game's draws derive from: v3's is mixed with the clients' values
    server_ok = True
    try:
        if v1:
            computed = fairness.commitment(args.seed, args.salt)
        elif v3:
            opts = check_setup(args.options, len(args.players))
            parts = fairness.check_contributions(args.contributions)  # a changed reveal: bad_reveal
            computed = fairness.commitment_v3(args.seed, args.salt, args.players, opts, parts)
            server = fairness.server_commitment(args.seed, args.salt)
            server_ok = server == args.server_commitment.strip().lower()
            secret = fairness.mix(args.seed, parts)
        else:
            opts = check_setup(args.options, len(args.players))
            computed = fairness.commitment(args.seed, args.salt, args.players, opts)
        seats = deal(args.players, args.options, args.seed, args.salt, args.contributions if v3 else None)
        if args.anonymous:
            for seat, drawn in zip(seats, aliases(len(seats), secret), strict=True):
                seat.update(drawn)
    except InvalidAction as exc:
        print(f"cannot replay this deal: {exc.code}: {exc}", file=sys.stderr)
        if exc.code == "bad_reveal":  # a value that is not the one committed to: refuted
            if args.json:
                print(json.dumps({"verified": False, "reason": "bad_reveal", "seats": None}))
            return 1
        return 2
    if not server_ok:
        print(
            "server commitment DOES NOT MATCH: the secret revealed is not the one the lobby committed to "
            "before the clients revealed",
            file=sys.stderr,
        )
        if args.json:
            print(json.dumps({"verified": False, "reason": "server_commitment", "seats": None}))
        return 1
    ok = computed == args.commitment.strip().lower()
    if not ok:
        # no roles then: a deal that is not the committed one must not read as the game's
        what = "secret" if v1 else "secret, seat list and options"
        print(f"commitment DOES NOT MATCH: sha256 = {computed}", file=sys.stderr)
        print(
            f"expected {args.commitment.strip().lower()}: not the {what} committed at the start",
            file=sys.stderr,
        )
        if args.json:
            print(json.dumps({"verified": False, "commitment": computed, "seats": None}))
        return 1
    differ = []
    if args.roles is not None:
        if len(args.roles) != len(seats):
            differ = [s["seat"] for s in seats]
        else:
            differ = [s["seat"] for s, shown in zip(seats, args.roles, strict=True) if s["role"] != shown]
    if differ:
        print(
            f"roles DO NOT MATCH the end screen at seats {', '.join(map(str, differ))}: "
            "not the deal committed at the start (a wrong seat list, options or roles)",
            file=sys.stderr,
        )
        if args.json:
            print(json.dumps({"verified": False, "commitment": computed, "seats": None, "differ": differ}))
        return 1
    caveat = (
        "committed the old way (sha256/mafia-deal-v1): the hash binds the secret only, "
        "not this seat list or these options"
        + ("; the roles given match the replay" if args.roles is not None else "; pass --roles to check them")
        if v1
        else None
    )
    keys = {label: rng.derive(secret, label) for label in rng.LABELS}
    dropped = sum(1 for c in args.contributions or () if c.get("value") is None) if v3 else 0
    if args.json:
        out = {"verified": True, "commitment": computed, "seats": seats, "keys": keys}
        if caveat:
            out["caveat"] = caveat
        if v3:
            out["mixed"] = {"secret": secret, "values": len(args.contributions) - dropped, "dropped": dropped}
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(f"commitment matches: sha256 = {computed}")
        if caveat:
            print(f"note: {caveat}")
        if v3:
            print(
                f"server commitment matches; mixed with {len(args.contributions) - dropped} client values"
                f" ({dropped} committed and never revealed: dropped)"
            )
        for s in seats:
            drawn = f"  lobby {s['lobby']:>2}  alias {s['alias'][0]}/{s['alias'][1]}" if "lobby" in s else ""
            print(f"seat {s['seat']:>2}  {s['id']:<8} {s['role']}{drawn}")
        for label, key in keys.items():
            print(f"key {label:<8} {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
