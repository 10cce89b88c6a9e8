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

`signalOnce` (12 seats, every seat a person in voice): signal frames and bytes per whole game,
before (a pair closed when the policy parts it and opened again, with trickled ICE: the
exchange above at every opening) and after "signal once, switch locally" (web/js/voice/mesh.js:
each pair negotiated once, when the policy first joins it, an offer and an answer with their
ICE candidates inside; kept across phases), the reduction, and what the signal frames cost
per game (`PRICES`).
`perGame` (the bill, docs/operations.md "Costs"): per preset at `GAME_SEATS` seats, the pairs a
whole game opens, the `signal` frames it sends up (each opened pair's exchange) and as many
relayed down, and what they cost at the list prices of `PRICES_DATE` (`SIGNAL_PRICE`: per
signal, one inbound and one outbound WebSocket message, one `$default` invocation and its
compute, one strongly consistent Query of the room, a tenth of a budget transaction). A cut in
the frames per pair (fewer ICE frames) or in the pairs opened (a pair kept across phases) shows
here as fewer `signalsUp`: run it before and after (`framesPerPair` says what was counted).
`perGame` counts a pair's exchange at every opening (the page before "signal once"); today's
page is `signalOnce`'s `after`.
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
    "plus the relay's signal frames (down); kept pairs only switch tracks (no bytes). signalOnce: 12 seats, "
    "before = every opening of a pair (the policy joins it again) costs the trickled exchange; after = "
    "each pair ever joined costs one offer and one answer with the candidates inside (no glare, no "
    "retry: both cost frames on a real network)"
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


# us-east-1 list prices per unit (2026-12-06): an API Gateway WebSocket message (up or down), a
# Lambda request and the $default handler's ~25 ms at 1,024 MB (Arm), a strongly consistent Query
# of the room (~2 on-demand read units), an on-demand write unit (the pair's offer mark: 1; the
# budget leases: 0.4 a signal).
PRICES = {
    "message": 1.00e-6,
    "lambdaRequest": 0.20e-6,
    "lambdaCompute": 0.025 * 0.0000133334,
    "query": 2 * 0.125e-6,
    "writeUnit": 0.625e-6,
}
GAME_SEATS = 12


def non_trickled() -> dict:
    """Bytes of one pair's exchange as the page sends it now: the offer and the answer, each
    with its side's ICE candidates inside (a=candidate lines), up and down."""
    offer = SAMPLE["offer"] + "".join(f"a={c['candidate']}\r\n" for c in SAMPLE["iceOfferer"])
    answer = SAMPLE["answer"] + "".join(f"a={c['candidate']}\r\n" for c in SAMPLE["iceAnswerer"])
    frames = [("p1", "p12", "offer", offer), ("p12", "p1", "answer", answer)]
    up = sum(len(client_frame(100 + i, to, kind, sdp)) for i, (_, to, kind, sdp) in enumerate(frames))
    down = sum(len(relayed(frm, kind, sdp)) for frm, _, kind, sdp in frames)
    return {"frames": len(frames), "up": up, "down": down, "total": up + down}


def signal_cost(up_frames: float, pairs_marked: float) -> float:
    """Dollars for `up_frames` signals sent (each relayed down once) and the pairs' marks."""
    per_up = PRICES["message"] + PRICES["lambdaRequest"] + PRICES["lambdaCompute"] + PRICES["query"]
    per_up += 0.4 * PRICES["writeUnit"]  # the budget leases
    return up_frames * (per_up + PRICES["message"]) + pairs_marked * PRICES["writeUnit"]


def signal_once(options: dict, games: int, before: dict, after: dict) -> dict:
    """Signal frames, bytes and cost per whole 12-seat game, before and after."""
    opened_total = ever_total = 0
    for seed in range(games):
        ever: set[tuple[str, str]] = set()
        prev: set[tuple[str, str]] = set()
        seq = None
        for _, _, state in random_game(GAME_SEATS, seed=seed, options=options, chat=False):
            if state["seq"] == seq:
                continue
            seq = state["seq"]
            pairs = joined(state) if state["phase"]["kind"] != "ended" else set()
            opened_total += len(pairs - prev)
            ever |= pairs
            prev = pairs
        ever_total += len(ever)
    opened, ever_joined = opened_total / games, ever_total / games
    # every frame of an exchange is sent up by one page and relayed down to the other once
    b_up, a_up = opened * before["frames"], ever_joined * after["frames"]
    out = {
        "seats": GAME_SEATS,
        "games": games,
        "before": {
            "pairExchanges": round(opened, 1),
            "framesUp": round(b_up),
            "framesDown": round(b_up),
            "bytes": round(opened * before["total"]),
            "signalCost": round(signal_cost(b_up, 0), 5),
        },
        "after": {
            "pairExchanges": round(ever_joined, 1),
            "framesUp": round(a_up),
            "framesDown": round(a_up),
            "bytes": round(ever_joined * after["total"]),
            "signalCost": round(signal_cost(a_up, ever_joined), 5),
        },
    }
    out["framesDownPercent"] = round(100 * (1 - a_up / b_up), 1) if b_up else 0.0
    return out


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
    once = non_trickled()
    out = {
        "method": METHOD,
        "sample": SAMPLE["source"],
        "perOpenedPair": exchange,
        "perPairOnce": once,
        "presets": {name: preset_figures(opts, games, exchange["total"]) for name, opts in PRESETS.items()},
        "signalOnce": {name: signal_once(opts, games, exchange, once) for name, opts in PRESETS.items()},
        "prices": PRICES,
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
