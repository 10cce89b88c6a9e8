"""A seeded generator of hostile WebSocket frames, and the checks every reply must pass.

Used by the fuzz tier (tests/functions/test_fuzz.py through the handlers, on the in-memory
store and on moto, tests/e2e/test_fuzz.py through the offline stack's sockets) and by
bench/fuzz.py (a soak).
Each frame is the raw text a client could send: deep nesting (also inside `target` and the
options), lone UTF-16 surrogates, NaN / Infinity / 1e999, wrong types, huge strings, room
hints of any shape, and well-formed room operations in any order (setOptions with odd
option values, addBot, kick, start, leave, ready, takeHost, newGame, chatLog), voice signals
(offers, answers and ICE candidates to any seat, of any size and shape), mixed with real play.
The frames it mangles are every frame model the server has (`ROOM_ACTIONS`, `ENGINE_ACTIONS`).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mafia_engine as me
from service.protocol import frames  # the functions' code: on the path by pyproject.toml's pythonpath

# Every frame the server accepts, from its models (functions/service/protocol/frames.py): room
# operations (the heartbeat too: answered with a pong) and every engine action of every preset.
ROOM_ACTIONS = tuple(f.tag() for f in frames.ROOM_FRAMES)
ENGINE_ACTIONS = tuple(f.tag() for f in frames.ENGINE_FRAMES)
# a minimal session description the relay passes (`protocol/sdp.py`): one audio section
AUDIO_SDP = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
OPTION_KEYS = (
    "mafiaCount", "extraRoles", "roleRevealSeconds", "firstPhase", "noVoteDayOne", "discussionPerAlive",
    "nightSeconds", "deathReveal", "openVote", "kidSafeChat", "doctorSelfHeal", "voteSeconds", "preset",
)  # fmt: skip
# Option values and chat channels from the engine's declarations (the classic rulebook's extra
# roles, every channel a role of any preset writes in), never a list of our own
EXTRA_ROLES = next(tuple(o["choices"]) for o in me.presets(only="classic")["classic"]["options"]
                   if o["key"] == "extraRoles")  # fmt: skip
CHANNELS = ("day", *sorted({r["channel"] for i in me.presets_info().values() for r in i["rules"]["roles"]
                            if r["channel"]}), "system", "dead")  # fmt: skip
FAREWELLS = frozenset({"left", "kicked"})  # error frames that close a seat after a write
NAMES = (
    "Bot 1", "bot 1", "BOT 1", "Ann", "Host", "Нost", "P1", "p1", "P2", "Ｐ２", "Ann\u200b", "\u200b",
    "\u202eevil", "a\u0000b", "Zoë", "Zoe\u0308", "이름", "Имя", "  spaced  ", "x" * 24, "x" * 25, "",
    "fuck", "www.example.com",
)  # fmt: skip
SURROGATES = ("\\ud800", "\\udfff", "a\\ud83d", "\\ude00b", "\\udbff\\udbff")


def _strict_constant(name: str) -> Any:
    raise ValueError(f"non-strict JSON constant {name}")


def strict_loads(data: bytes | str) -> Any:
    """What a strict client parser does: refuse NaN/Infinity (and anything else not JSON)."""
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    return json.loads(data, parse_constant=_strict_constant)


@dataclass
class Room:
    """What the generator knows of the room it attacks (ids are public)."""

    code: str
    players: list[str] = field(default_factory=list)
    phase_seq: int = 0


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


class HostileFrames:
    """Raw frame texts from one seeded random stream."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    # ------------------------------------------------------------ building blocks
    def deep(self, leaf: str = "1") -> str:
        depth = self.rng.choice((9, 40, 200, 1000, 3000))
        if self.rng.random() < 0.5:
            return "[" * depth + leaf + "]" * depth
        return '{"a":' * depth + leaf + "}" * depth

    def non_finite(self) -> str:
        return self.rng.choice(("NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1E400"))

    def surrogate(self) -> str:
        return '"' + self.rng.choice(SURROGATES) + '"'

    def string(self) -> str:
        r = self.rng.random()
        if r < 0.3:
            return json.dumps(self.rng.choice(NAMES))
        if r < 0.5:
            return json.dumps(self.rng.choice(("p1", "p2", "p3", "p9", "p0", "P1", "", "*", "p1 ", "null")))
        if r < 0.65:
            return json.dumps("x" * self.rng.choice((39, 40, 41, 64, 65, 200, 3000)))
        if r < 0.8:
            return self.surrogate()
        return json.dumps("".join(chr(self.rng.randint(1, 0x2FFF)) for _ in range(self.rng.randint(0, 12))))

    def scalar(self) -> str:
        r = self.rng.random()
        if r < 0.15:
            return self.non_finite()
        if r < 0.5:
            return self.string()
        return self.rng.choice(
            ("null", "true", "false", "0", "-1", "1", "2", "7", "1.5", "-0", "1e308", str(10**30), "[]", "{}",
             '["p1"]', '{"p1":1}', "12345678901234567890")
        )  # fmt: skip

    def value(self) -> str:
        """Any hostile JSON value (as text)."""
        r = self.rng.random()
        if r < 0.12:
            return self.deep(self.scalar())
        return self.scalar()

    def option_value(self, key: str) -> str:
        legit = {
            "mafiaCount": ('"auto"', "1", "2", "3", "4", "5", "0", "2.0", "true"),
            "extraRoles": (
                _compact([EXTRA_ROLES[0]]),
                _compact([EXTRA_ROLES[0]] * 2),
                _compact(list(EXTRA_ROLES[1:])),
                '["x"]',
                "[1]",
            ),
            "roleRevealSeconds": ("5", "120", "4", "121", "60.0", "60.5"),
            "firstPhase": ('"day"', '"night"', '"dusk"'),
            "preset": ('"classic"', '"city"', '"original"', '"nope"', "1", "[]", "{}", "null", '""'),
        }.get(key, ("true", "false", '"on"', '"off"', "15", "30", "10"))
        return self.rng.choice(legit) if self.rng.random() < 0.6 else self.value()

    def options(self) -> str:
        keys = self.rng.sample(OPTION_KEYS, self.rng.randint(0, 3))
        if self.rng.random() < 0.1:
            keys.append(self.rng.choice(("\\ud800", "x" * 300, "", "__proto__")))
        return "{" + ",".join(f'"{k}":{self.option_value(k)}' for k in keys) + "}"

    # ------------------------------------------------------------ frames
    def frame(self, room: Room) -> str:
        """One hostile frame as raw text."""
        r = self.rng.random()
        if r < 0.30:
            return self._room_operation(room)
        if r < 0.40:
            return self._signal(room)
        if r < 0.75:
            return self._mangled(room)
        return self._garbage(room)

    def _id(self) -> str:
        r = self.rng.random()
        if r < 0.5:
            return str(self.rng.randint(0, 10**6))
        if r < 0.7:
            return json.dumps(f"f{self.rng.randint(0, 99)}")
        return self.value()

    def _room_operation(self, room: Room) -> str:
        """A well-formed room operation with plausible (sometimes odd) values: the lobby mix."""
        action = self.rng.choice(("setOptions", "addBot", "kick", "start", "ready", "leave", "takeHost",
                                  "newGame", "sync", "nudge", "setOptions", "addBot", "kick", "start", "chatLog"))  # fmt: skip
        parts = [f'"action":"{action}"', f'"id":{self.rng.randint(0, 10**6)}']
        if action == "setOptions":
            parts.append(f'"options":{self.options()}')
            if self.rng.random() < 0.3:
                parts.append(f'"preset":{self.option_value("preset")}')
        elif action == "addBot" and self.rng.random() < 0.6:
            parts.append(f'"name":{json.dumps(self.rng.choice(NAMES))}')
        elif action == "kick":
            target = self.rng.choice(room.players + ["p99", "", "p1"]) if room.players else "p2"
            parts.append(f'"target":{json.dumps(target)}')
        elif action == "ready":
            parts.append(f'"ready":{self.rng.choice(("true", "false", "1", "null"))}')
        elif action == "nudge" and self.rng.random() < 0.5:
            parts.append(f'"phase":{self.rng.choice((room.phase_seq, room.phase_seq + 1, 0))}')
        elif action == "chatLog" and self.rng.random() < 0.5:
            parts.append(f'"before":{self.rng.choice((0, 3, 10**6))}')
        return "{" + ",".join(parts) + "}"

    def _signal(self, room: Room) -> str:
        """A voice signal (`frames.Signal`): to a seat or not, any kind, a payload of any size."""
        to = self.rng.choice((*room.players, "p1", "p99", "", "P2", "p1\u0000")) if room.players else "p2"
        kind = self.rng.choice(("offer", "answer", "ice", "ice", "hello", "OFFER"))
        parts = [
            '"action":"signal"',
            f'"id":{self._id()}',
            f'"to":{json.dumps(to)}',
            f'"kind":{json.dumps(kind)}',
        ]
        r = self.rng.random()
        if r < 0.4:
            size = self.rng.choice((1, 200, 3000, 30_000, 30_001, 40_000))
            sdp = self.rng.choice((
                AUDIO_SDP, AUDIO_SDP + "a=note:p4 is mafia\r\n", AUDIO_SDP + "m=video 9 RTP/SAVPF 96\r\n",
                AUDIO_SDP + "a=rtcp-mux\r\n" * (size // 12), "v=0 " + "a" * size,
            ))  # fmt: skip
            parts.append(f'"sdp":{json.dumps(sdp)}')
        elif r < 0.8:
            cand = self.rng.choice((
                '{"candidate":"candidate:1 1 udp 1 10.0.0.1 9 typ host","sdpMid":"0","sdpMLineIndex":0}',
                '{"candidate":""}', '{"candidate":"' + "c" * 2000 + '"}', '{"candidate":1}',
                '{"candidate":"x","sdpMLineIndex":-1}', '{"candidate":"x","extra":' + self.deep() + "}",
                '{"candidate":"x","sdpMLineIndex":' + self.non_finite() + "}",
            ))  # fmt: skip
            parts.append(f'"candidate":{cand}')
        else:
            parts.append(f'"{self.rng.choice(("sdp", "candidate"))}":{self.value()}')
        return "{" + ",".join(parts) + "}"

    def _mangled(self, room: Room) -> str:
        """A frame of a known action with one or more hostile values."""
        action = self.rng.choice(ROOM_ACTIONS + ENGINE_ACTIONS)
        parts = {"action": json.dumps(action), "id": self._id()}
        keys = ("target", "text", "channel", "room", "options", "ready", "phase", "name", "player", "type",
                "preset", "seconds", "connected", "extra", "before", "to", "kind", "sdp", "candidate")  # fmt: skip
        for key in self.rng.sample(keys, self.rng.randint(1, 4)):
            if key == "room":
                parts[key] = self.rng.choice(
                    (json.dumps(room.code), json.dumps(room.code.lower()), json.dumps("Z" * 3000),
                     json.dumps("ABC"), json.dumps("../x"), json.dumps("ZZZZZ"), self.value())
                )  # fmt: skip
            elif key == "channel":
                parts[key] = self.rng.choice((*(json.dumps(c) for c in CHANNELS), self.value()))
            elif key == "text":
                parts[key] = self.rng.choice(
                    (json.dumps("hello"), json.dumps("x" * 201), json.dumps("visit www.x.com"), self.value())
                )
            elif key == "options":
                parts[key] = self.options() if self.rng.random() < 0.7 else self.value()
            else:
                parts[key] = self.value()
        return "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in parts.items()) + "}"

    def _garbage(self, room: Room) -> str:
        """Not a frame at all, or barely one."""
        return self.rng.choice(
            (
                lambda: self.deep(),
                lambda: '{"action":"vote","target":' + self.deep('"p2"') + "}",
                lambda: '{"action":"sync","id":' + self.deep() + "}",
                lambda: '{"action":"setOptions","options":{"mafiaCount":' + self.deep() + "}}",
                lambda: '{"action":"chat","channel":"day","text":' + self.surrogate() + "}",
                lambda: '{"action":' + self.surrogate() + "}",
                lambda: '{"action":"sync","id":' + self.non_finite() + "}",
                lambda: '{"action":"vote","target":"p2","id":' + self.non_finite() + "}",
                lambda: '{"action":"sync",' + self.surrogate() + ":1}",
                lambda: self.value(),
                lambda: "",
                lambda: "{",
                lambda: '{"action":"sync"}{"action":"sync"}',
                lambda: '{"action":"sync","action":"start"}',
                lambda: "\ufeff" + '{"action":"sync"}',
                lambda: '{"action":"chat","channel":"day","text":"' + "a" * 9000 + '"}',
                lambda: '{"action":"sync","room":' + json.dumps("Q" * 3000) + "}",
            )
        )()


# ------------------------------------------------------------ checks on what came back
@dataclass
class Tally:
    """What the fuzz run saw."""

    frames: int = 0
    replies: int = 0
    refused: int = 0
    internal_errors: int = 0
    invalid_json: int = 0
    changed_by_refusal: int = 0
    codes: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def note(self, problem: str) -> None:
        if len(self.problems) < 20:
            self.problems.append(problem)

    def summary(self) -> dict:
        return {
            "frames": self.frames,
            "replies": self.replies,
            "refused": self.refused,
            "internalErrors": self.internal_errors,
            "invalidJsonReplies": self.invalid_json,
            "changedByRefusal": self.changed_by_refusal,
            "codes": dict(sorted(self.codes.items(), key=lambda kv: -kv[1])),
        }


def check_reply(tally: Tally, data: bytes | str, sent: str) -> dict | None:
    """Parse one reply strictly and check its shape; count what is wrong. Returns the frame."""
    tally.replies += 1
    try:
        frame = strict_loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        tally.invalid_json += 1
        tally.note(f"invalid JSON reply {str(data)[:120]!r} ({exc}) to {sent[:120]!r}")
        return None
    if not isinstance(frame, dict) or frame.get("type") not in (
        "view",
        "error",
        "chatLog",
        "pong",
        "signal",
        "display",
    ):
        tally.invalid_json += 1
        tally.note(
            f"reply neither a view, a chat log page, a pong, a signal, a display link nor an error: {str(frame)[:120]} to {sent[:120]!r}"
        )
        return None
    if frame["type"] == "error":
        code, message = frame.get("code"), frame.get("message")
        if not (isinstance(code, str) and code and isinstance(message, str) and message):
            tally.invalid_json += 1
            tally.note(f"error frame without code/message: {frame} to {sent[:120]!r}")
        tally.codes[code] = tally.codes.get(code, 0) + 1
        if code == "internal_error":
            tally.internal_errors += 1
            tally.note(f"internal_error for {sent[:200]!r}")
        if isinstance(message, str) and len(message) > 300:
            tally.note(f"long message ({len(message)} chars) for {sent[:120]!r}")
    return frame


def room_problems(room: dict, state: Any, normalize: Callable[[str], str] | None = None) -> list[str]:
    """Invariants a room's data keeps under any order of operations."""
    out = []
    ids = [p["id"] for p in room["players"]]
    if len(set(ids)) != len(ids):
        out.append(f"duplicate player ids {ids}")
    if any(int(i[1:]) >= room["nextId"] for i in ids):
        out.append(f"player id beyond nextId {room['nextId']}: {ids}")
    humans = [p["id"] for p in room["players"] if not p.get("bot") and not p.get("left")]
    host = room.get("host")
    if host is not None and host not in ids:
        out.append(f"host {host} is not a seat ({ids})")
    if host is not None and host not in humans and humans and room["status"] == "lobby":
        out.append(f"host {host} is a bot or gone while {humans} are seated")
    if room["status"] == "lobby" and state is not None:
        out.append("a lobby with an engine state")
    if room["status"] != "lobby" and state is None:
        out.append(f"status {room['status']} without an engine state")
    if state is not None and room["status"] != "lobby":
        engine_ids = [p["id"] for p in state["players"]]
        if engine_ids != ids:
            out.append(f"engine players {engine_ids} differ from the seats {ids}")
    if normalize is not None:
        names = [normalize(p["name"]) for p in room["players"]]
        if len(set(names)) != len(names):
            out.append(f"names equal after normalization: {[p['name'] for p in room['players']]}")
    if not isinstance(room.get("options"), dict):
        out.append("options not an object")
    if any(isinstance(v, float) and not math.isfinite(v) for v in room.get("options", {}).values()):
        out.append("non-finite option stored")
    return out
