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


def main() -> int:
    quick = "--quick" in sys.argv[1:]
    games = 2 if quick else 30
    exchange = pair_exchange()
    out = {
        "method": METHOD,
        "sample": SAMPLE["source"],
        "perOpenedPair": exchange,
        "presets": {name: preset_figures(opts, games, exchange["total"]) for name, opts in PRESETS.items()},
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
