"""Voice signaling, in bytes: what the game's socket carries for WebRTC at each phase change
(docs/rules.md, "Voice"; docs/protocol.md, "Voice signaling").

The client keeps one peer connection per pair of seats the policy joins (`voice_pair`: either's
voice reaches the other) and closes it when the policy no longer joins them; a pair that stays
joined only turns its microphone track on or off (`replaceTrack`: no signaling at all). So a
phase change costs one exchange per pair it *opens*: an offer, an answer and each side's ICE
candidates, each sent by one page as a `signal` frame and posted by the relay to the other as a
`signal` frame. The SDP and candidates are a real Chromium exchange (bench/voice_sample.json);
the frames are encoded as the client (`JSON.stringify`) and the relay (`server_frames`) do.
The phase changes are those of random engine games (`mafia_engine.testing.random_game`) per
preset, every seat a person in voice.

    .venv/bin/python bench/voice.py            # --quick: 2 games per preset (tests/bench)

Prints ONE JSON object: `perOpenedPair` (bytes of one pair's exchange, up and down), and per
preset and phase change (`from>to`): how many changes, pairs opened/kept/closed on average,
signaling bytes per change (all pairs), per pair of the table (bytes / n(n-1)/2) and per opened
pair; and the bytes of the view's `voice` key per viewer.

`perGame` (the bill, docs/operations.md "Costs"): per preset at `GAME_SEATS` seats, the pairs a
whole game opens, the `signal` frames it sends up (each opened pair's exchange) and as many
relayed down, and what they cost at the list prices of `PRICES_DATE` (`SIGNAL_PRICE`: per
signal, one inbound and one outbound WebSocket message, one `$default` invocation and its
compute, one strongly consistent Query of the room, a tenth of a budget transaction). A cut in
the frames per pair (fewer ICE frames) or in the pairs opened (a pair kept across phases) shows
here as fewer `signalsUp`: run it before and after (`framesPerPair` says what was counted).
"""

from __future__ import annotations

import itertools
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engine"), str(ROOT / "functions")]

import mafia_engine as me  # noqa: E402
from mafia_engine.testing import random_game  # noqa: E402
from service.protocol import server_frames  # noqa: E402

SAMPLE = json.loads((ROOT / "bench" / "voice_sample.json").read_text())
SEATS = 8
GAME_SEATS = 12  # the bill's table (docs/operations.md, "Costs": a 12-player game)

# us-east-1 list prices as read on PRICES_DATE (the pricing pages: aws.amazon.com/api-gateway/pricing,
# aws.amazon.com/lambda/pricing (Arm), aws.amazon.com/dynamodb/pricing (on-demand)); bench/backend.py
# carries the same figures for the rest of the game.
PRICES_DATE = "2026-12-06"
WS_MESSAGE = 1.00 / 1e6  # per WebSocket message (32 KB units; a signal frame is one)
LAMBDA_REQUEST = 0.20 / 1e6
LAMBDA_GB_SECOND_ARM = 0.0000133334
DDB_RRU = 0.125 / 1e6  # on-demand read request unit (a strongly consistent read of 4 KB)
DDB_WRU = 0.625 / 1e6
LAMBDA_GB = 1.0  # the functions' memory (template.yaml Globals: 1,024 MB)
SIGNAL_BILLED_S = 0.025  # one Query (8 ms) + one post (15 ms) + the handler's own work (~2 ms), as bench/backend.py assumes
SIGNAL_RRU = 2  # the room partition's Query: the room item (about 4.6 KB) and its connection items
SIGNAL_WRU = 0.4  # one budget transaction (2 items, 4 write units) per 10 signals a container relays
SIGNAL_PRICE = {
    "websocket_in": WS_MESSAGE,
    "websocket_out": WS_MESSAGE,
    "lambda_request": LAMBDA_REQUEST,
    "lambda_compute": SIGNAL_BILLED_S * LAMBDA_GB * LAMBDA_GB_SECOND_ARM,
    "dynamodb": SIGNAL_RRU * DDB_RRU + SIGNAL_WRU * DDB_WRU,
}
PRESETS = {
    "classic": {"preset": "classic", "firstPhase": "day", "extraRoles": ["lovers"]},
    "city": {"preset": "city"},
    "original": {"preset": "original"},
}
METHOD = (
    "random engine games (8 seats, every seat a person in voice); at each phase change the pairs "
    "voice_pair joins before and after; an opened pair costs one offer, one answer and each side's "
    "ICE candidates from a recorded Chromium exchange, counted as the client's signal frames (up) "
    "plus the relay's signal frames (down); kept pairs only switch tracks (no bytes)"
)


def client_frame(n: int, to: str, kind: str, sdp: str | None = None, candidate: dict | None = None) -> bytes:
    """The client's `signal` frame as connection.js sends it (JSON.stringify, no spaces)."""
    payload = {"action": "signal", "id": f"c{n}", "to": to, "kind": kind}
    if sdp is not None:
        payload["sdp"] = sdp
    if candidate is not None:
        payload["candidate"] = candidate
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()


def relayed(sender: str, kind: str, sdp: str | None = None, candidate: dict | None = None) -> bytes:
    return server_frames.encode(
        server_frames.SignalFrame(from_=sender, kind=kind, sdp=sdp, candidate=candidate)
    )


def pair_exchange(a: str = "p1", b: str = "p8") -> dict:
    """Bytes of one pair's exchange (a offers, b answers), up (to the server) and down."""
    frames = [(a, b, "offer", SAMPLE["offer"], None), (b, a, "answer", SAMPLE["answer"], None)]
    frames += [(a, b, "ice", None, c) for c in SAMPLE["iceOfferer"]]
    frames += [(b, a, "ice", None, c) for c in SAMPLE["iceAnswerer"]]
    up = sum(len(client_frame(100 + i, to, kind, sdp, c)) for i, (_, to, kind, sdp, c) in enumerate(frames))
    down = sum(len(relayed(frm, kind, sdp, c)) for frm, _, kind, sdp, c in frames)
    return {"frames": len(frames), "up": up, "down": down, "total": up + down}


def joined(state: dict) -> set[tuple[str, str]]:
    ids = [p["id"] for p in state["players"]]
    return {(a, b) for a, b in itertools.combinations(ids, 2) if me.voice_pair(state, a, b)}


def voice_key_bytes(state: dict) -> list[int]:
    out = []
    for p in state["players"]:
        v = me.view(state, p["id"])
        out.append(len(json.dumps(v["voice"], separators=(",", ":")).encode()))
    return out


def preset_figures(options: dict, games: int, per_pair: int) -> dict:
    pairs_at_table = SEATS * (SEATS - 1) // 2
    acc: dict[str, dict] = defaultdict(lambda: {"changes": 0, "opened": 0, "kept": 0, "closed": 0})
    key_bytes: list[int] = []
    for seed in range(games):
        before = None  # (kind, pairs) of the phase before
        seq = None
        for _, _, state in random_game(SEATS, seed=seed, options=options, chat=False):
            if state["seq"] == seq:
                continue
            seq = state["seq"]
            kind = state["phase"]["kind"]
            pairs = joined(state) if kind != "ended" else set()
            if kind != "ended":
                key_bytes.extend(voice_key_bytes(state))
            if before is not None and before[0] is not None:
                a = acc[f"{before[0]}>{kind}"]
                a["changes"] += 1
                a["opened"] += len(pairs - before[1])
                a["kept"] += len(pairs & before[1])
                a["closed"] += len(before[1] - pairs)
            before = (kind, pairs)
    changes = {}
    for name, a in sorted(acc.items()):
        n = a["changes"]
        opened = a["opened"] / n
        changes[name] = {
            "changes": n,
            "opened": round(opened, 2),
            "kept": round(a["kept"] / n, 2),
            "closed": round(a["closed"] / n, 2),
            "bytesPerChange": round(opened * per_pair),
            "bytesPerTablePair": round(opened * per_pair / pairs_at_table),
            "bytesPerOpenedPair": per_pair if a["opened"] else 0,
        }
    return {
        "seats": SEATS,
        "games": games,
        "phaseChanges": changes,
        "voiceKeyBytes": {
            "min": min(key_bytes),
            "max": max(key_bytes),
            "mean": round(sum(key_bytes) / len(key_bytes)),
        },
    }


def per_game(options: dict, games: int, frames_per_pair: int, seats: int = GAME_SEATS) -> dict:
    """A whole game's signaling at `seats` seats, every seat in voice: the pairs it opens (each
    phase change's newly joined pairs; the first phase's pairs open at the start), the signals up
    (`frames_per_pair` per opened pair) and down (each relayed once), and their cost."""
    opened: list[int] = []
    for seed in range(games):
        n, before, seq = 0, set(), None
        for _, _, state in random_game(seats, seed=seed, options=options, chat=False):
            if state["seq"] == seq:
                continue
            seq = state["seq"]
            pairs = joined(state) if state["phase"]["kind"] != "ended" else set()
            n += len(pairs - before)
            before = pairs
        opened.append(n)
    pairs = sum(opened) / len(opened)
    up = pairs * frames_per_pair
    per_signal = sum(SIGNAL_PRICE.values())
    return {
        "seats": seats,
        "games": games,
        "pairsOpened": round(pairs, 1),
        "pairsOpenedMax": max(opened),
        "signalsUp": round(up),
        "signalsDown": round(up),
        "costUsd": round(up * per_signal, 6),
    }


def main() -> int:
    quick = "--quick" in sys.argv[1:]
    games = 2 if quick else 30
    exchange = pair_exchange()
    out = {
        "method": METHOD,
        "sample": SAMPLE["source"],
        "perOpenedPair": exchange,
        "presets": {name: preset_figures(opts, games, exchange["total"]) for name, opts in PRESETS.items()},
        "perGame": {
            "framesPerPair": exchange["frames"],
            "pricesDate": PRICES_DATE,
            "perSignalUsd": {k: round(v * 1e6, 4) for k, v in SIGNAL_PRICE.items()} | {"unit": "USD per million"},
            "presets": {name: per_game(opts, games, exchange["frames"]) for name, opts in PRESETS.items()},
        },
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
