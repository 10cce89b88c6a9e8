"""Backend benchmark: a scripted 12-player classic game through the Lambda handlers on moto.

Prints ONE JSON object. Every AWS call the handlers make is counted (botocore events on the
service's own clients); pushes go through a counting gateway; whether a connection's view
changed is decided here independently (full view before vs after, without serverNow).

    .venv/bin/python bench/backend.py            # --quick: every figure from a small run (seconds)
                                                 # --full-views: sockets that do not ask for patches

Not part of the pass/fail suite. Figures are from moto in process: call counts, sizes and
ratios are exact; times are this machine's.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engine"), str(ROOT / "functions")]
from harness import env  # noqa: E402 - stdlib only: before boto3 and the handlers

env.apply(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", TABLE_NAME="mafia-bench",
          WS_URL="wss://bench.example/dev", WS_MANAGEMENT_ENDPOINT="https://bench.example/dev",
          SCHEDULE_GROUP="mafia-bench-phases",
          TIMER_FUNCTION_ARN="arn:aws:lambda:us-east-1:123456789012:function:mafia-bench-timer",
          POWERTOOLS_LOG_LEVEL="ERROR")

import warnings  # noqa: E402

warnings.filterwarnings("ignore")

import boto3  # noqa: E402
from botocore import xform_name  # noqa: E402
from moto import mock_aws  # noqa: E402

import mafia_engine as me  # noqa: E402
from harness.clock import Clock  # noqa: E402
from harness.gateways import CountingGateway  # noqa: E402
from local import events, template  # noqa: E402
from local.lambda_runtime import LambdaContext  # noqa: E402
from mafia_engine.testing import legal_actions  # noqa: E402

# ---------------------------------------------------------------- list prices (us-east-1)
# Taken from the AWS pricing pages as known on 2025-01-15 (DynamoDB on-demand after the
# November 2024 price cut). Check them before quoting these figures.
PRICES_DATE = "2025-01-15"
PRICE = {
    "ws_message": 1.00 / 1e6,  # API Gateway WebSocket, per message (32 KB units), first 1 B
    "ws_connection_minute": 0.25 / 1e6,
    "rest_request": 3.50 / 1e6,  # API Gateway REST API, first 333 M
    "lambda_request": 0.20 / 1e6,
    "lambda_gb_second_arm": 0.0000133334,
    "ddb_wru": 0.625 / 1e6,  # on-demand write request unit (1 KB; transactional = 2)
    "ddb_rru": 0.125 / 1e6,  # on-demand read request unit (4 KB strongly consistent)
    "scheduler_invocation": 1.00 / 1e6,
    "logs_gb": 0.50,  # CloudWatch Logs ingestion
}
LAMBDA_MEMORY_GB = template.load()["Globals"]["Function"]["MemorySize"] / 1024  # the functions' (arm64)
# Lambda gives a function CPU in proportion to its memory: one full vCPU at 1,769 MB (the Lambda
# developer guide, "Configuring Lambda function memory"); the handlers are single-threaded, so
# more memory than that buys no speed. Compared: 512 MB, 1,024 MB (the template's) and 1,769 MB.
FULL_VCPU_MB = 1769
MEMORY_SIZES_MB = (512, 1024, 1769)
AWS_CALL_MS = 8.0  # assumed in-region latency of one DynamoDB / Scheduler call
PUSH_BATCH_MS = 15.0  # assumed latency of one parallel fan-out batch
LOG_BYTES_PER_INVOCATION = 600  # Lambda START/END/REPORT lines + our info lines


CTX = LambdaContext(function_name="bench", memory_limit_in_mb=512)


CLOCK = Clock()
LOBBY_ARRIVAL_SECONDS = 3.0  # between two players' arrivals in the scripted lobby (above the 2 s grace)


def item_bytes(item: dict) -> int:
    """DynamoDB's item size: attribute names + values (approximation of the documented rules)."""
    total = 0
    for name, value in item.items():
        total += len(name.encode())
        ((kind, v),) = value.items()
        if kind == "S":
            total += len(v.encode())
        elif kind == "B":
            total += len(v)
        elif kind == "N":
            total += math.ceil(len(v.lstrip("-").replace(".", "")) / 2) + 1
        else:
            total += len(json.dumps(v))
    return total


class Recorder:
    """Counts (and keeps, for the replay) every call made through the instrumented clients."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, dict]] = []
        self.wru = 0.0
        self.rru = 0.0
        self.on = True

    def attach(self, client, service: str) -> None:
        def params(params, model, **kwargs):
            if self.on:
                self.calls.append((service, model.name, dict(params)))
                if model.name == "PutItem":
                    self.wru += math.ceil(item_bytes(params["Item"]) / 1024)
                elif model.name == "TransactWriteItems":
                    for op in params["TransactItems"]:
                        ((kind, body),) = op.items()
                        size = item_bytes(body["Item"]) if kind == "Put" else 100
                        self.wru += 2 * math.ceil(size / 1024)
                elif model.name == "BatchWriteItem":
                    self.wru += sum(len(v) for v in params["RequestItems"].values())
                elif model.name == "DeleteItem":
                    self.wru += 1

        def response(parsed, model, **kwargs):
            if self.on and model.name in ("Query", "GetItem"):
                items = parsed.get("Items") or ([parsed["Item"]] if parsed.get("Item") else [])
                size = sum(item_bytes(i) for i in items)
                consistent = model.name == "Query"
                self.rru += max(1, math.ceil(size / 4096)) * (1 if consistent else 0.5)

        client.meta.events.register(
            f"provide-client-params.{client.meta.service_model.service_name}.*", params
        )
        client.meta.events.register(f"after-call.{client.meta.service_model.service_name}.*", response)

    def by_operation(self, calls) -> dict:
        out: dict[str, int] = {}
        for _, op, _ in calls:
            out[op] = out.get(op, 0) + 1
        return out


class Split:
    """Where the handler's CPU goes: process time inside named functions (inclusive; nested ones
    are counted in their callers too), and inside every boto3 call of the service's clients
    (`aws`: the calls the raw replay makes too). `take` returns and clears what one action spent.

    The probes cost CPU of their own (~1.4 us each, ~86 an action: ~0.12 ms, 1 % of a handler),
    counted in the handler they time: `probe(False)` puts the plain functions back, so the
    actions that measure the handler against its calls (`cpu_ratio_median`) run without them."""

    # (module, attribute, label): the view and patch path (docs/architecture.md, "Views as patches")
    POINTS = (
        ("service.room.viewframes", "frames_for", "frames"),
        ("service.room.viewframes", "view_of", "view_build"),
        ("service.protocol.views", "game_view", "engine_view"),  # one viewer's (a sync, a rebuilt base)
        ("service.protocol.views", "game_views", "engine_view"),  # a change's: every viewer's at once
        ("service.protocol.views", "render", "render"),
        ("service.room.viewframes", "_patch", "patch"),
        ("service.protocol.patches", "parse", "patch_parse"),
        ("service.protocol.patches", "diff", "patch_diff"),
        ("service.room.featureset", "before", "features_before"),
        ("service.room.featureset", "after", "features_after"),
        ("service.room.pipeline", "own_copy", "room_copy"),  # the attempt's copy of the room document
    )

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self._swaps: list[tuple[object, str, object, object]] = []  # (owner, attribute, plain, probed)

    def _add(self, label: str, fn):
        spent = self.spent

        def timed(*args, **kwargs):
            t0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.process_time() - t0

        return timed

    def attach(self, clients) -> None:
        import importlib

        for mod, attr, label in self.POINTS:
            m = importlib.import_module(mod)
            self._swaps.append((m, attr, getattr(m, attr), self._add(label, getattr(m, attr))))
        for client in clients:  # every AWS call (an instance attribute shadows the class's method)
            self._swaps.append((client, "_make_api_call", client._make_api_call,
                                self._add("aws", client._make_api_call)))
        self.probe(True)

    def probe(self, on: bool) -> None:
        """The probes in (True) or the plain functions back (False)."""
        for owner, attr, plain, probed in self._swaps:
            setattr(owner, attr, probed if on else plain)

    def take(self) -> dict[str, float]:
        out = dict(self.spent)
        self.spent.clear()
        return out


# The regions whose moto backends replay the game's calls beside it (`Bench(replays=n)`): each
# its own table and schedule group, the same calls in the same order, so the same results.
REPLAY_REGIONS = ("us-west-2", "eu-west-1", "ap-southeast-2", "sa-east-1", "ca-central-1")


class Bench:
    def __init__(self, replays: int = 0) -> None:
        from handlers import rest, timer, ws_connect, ws_default, ws_disconnect
        from harness import wiring
        from service import config
        from service.infra import clock, storage

        clock.now = CLOCK
        from service.features import fairness
        from service.room import operations, rest_ops

        class FixedSeed:  # the same roles every run: a deterministic benchmark
            choice = staticmethod(rest_ops.secrets.choice)

            @staticmethod
            def randbits(k: int) -> int:
                return 20261129

            @staticmethod
            def token_hex(n: int) -> str:  # the deal's secret and salt (features/fairness.py)
                return "5e" * n

        rest_ops.secrets = operations.secrets = fairness.secrets = FixedSeed
        self.h = {
            "rest": rest,
            "timer": timer,
            "connect": ws_connect,
            "default": ws_default,
            "disconnect": ws_disconnect,
        }
        self.config = config
        self.storage = storage
        self.gw = CountingGateway()
        self.svc = config.build_service(gateway=self.gw)
        wiring.inject(self.svc)  # in place of the handlers' own (harness/wiring.py)
        self.rec = Recorder()
        self.rec.attach(self.svc.store.client, "dynamodb")
        self.rec.attach(self.svc.timers.client, "scheduler")
        self.split = Split()
        self.split.attach((self.svc.store.client, self.svc.timers.client))
        self.peek = boto3.client("dynamodb")  # not instrumented: the bench's own reads
        self.peek_store = storage.Store(self.peek, os.environ["TABLE_NAME"])
        self.handler_s = 0.0
        self.invocations = {"rest": 0, "ws": 0, "timer": 0}
        self.per_action: list[dict] = []
        self.item_sizes: list[int] = []
        self.code = ""
        # the calls replayed alone right after each invocation, in `replays` other regions
        # (`catch_up`): each call's CPU there, the median over the regions (`call_cpu`)
        self.replayers = []
        for region in REPLAY_REGIONS[:replays]:
            ddb = boto3.client("dynamodb", region_name=region)
            sch = boto3.client("scheduler", region_name=region)
            template.create_table(ddb, os.environ["TABLE_NAME"])
            sch.create_schedule_group(Name=os.environ["SCHEDULE_GROUP"])
            self.replayers.append({"dynamodb": ddb, "scheduler": sch})
        self.call_cpu: list[float] = []
        self.replay_errors = 0

    # -------------------------------------------------------------- invocation wrappers
    def timed(self, fn, *args):
        t0 = time.process_time()  # CPU time: steadier than wall time on a shared machine
        out = fn(*args)
        spent = time.process_time() - t0
        self.handler_s += spent
        self.split.spent["handler"] = self.split.spent.get("handler", 0.0) + spent
        self.catch_up()
        return out

    def catch_up(self) -> None:
        """Replay the calls recorded since the last time, each alone, in every replay region:
        beside the invocation that made them, so a busier or quieter moment of the machine
        weighs on both alike (`handler_cpu_ratio_median`)."""
        if not self.replayers:
            return
        for service, op, params in self.rec.calls[len(self.call_cpu) :]:
            spent = []
            for clients in self.replayers:
                t0 = time.process_time()
                try:
                    getattr(clients[service], xform_name(op))(**params)
                except Exception:  # noqa: BLE001 - a conflict replays as a conflict
                    self.replay_errors += 1
                spent.append(time.process_time() - t0)
            self.call_cpu.append(statistics.median(spent))

    def rest(self, method, path, body=None) -> dict:
        self.invocations["rest"] += 1
        out = self.timed(
            self.h["rest"].handler,
            events.rest_event(
                method=method,
                path=path,
                headers={"Content-Type": "application/json"},
                body=json.dumps(body) if body is not None else None,
            ),
            CTX,
        )
        return json.loads(out["body"])

    def room_state(self):
        self.rec.on = False
        snap = self.peek_store.load(self.code)
        out = self.peek.get_item(
            TableName=os.environ["TABLE_NAME"], Key={"pk": {"S": f"ROOM#{self.code}"}, "sk": {"S": "STATE"}}
        )
        self.item_sizes.append(item_bytes(out["Item"]))
        self.rec.on = True
        return snap

    def views_of(self, snap) -> dict[str, dict]:
        from service.room import viewframes

        connected = {p for p in snap.conns.values() if p}
        out = {}
        for conn, pid in snap.conns.items():
            v = viewframes.view_of(snap.room, snap.state, connected, pid, None)
            out[conn] = json.dumps(v, sort_keys=True, default=str)
        return out

    def action(self, kind: str, fn) -> None:
        """Run one counted action; measure its calls, pushes and changed views. Every second
        action runs with the split's probes (`probed`: `cpu_split`), the others without
        (`cpu_ratio_median`)."""
        before = self.room_state()
        v0 = self.views_of(before)
        n_calls, n_push = len(self.rec.calls), len(self.gw.sizes)
        probed = len(self.per_action) % 2 == 0
        self.split.take()  # the bench's own reads above are not the handler's
        self.split.probe(probed)
        try:
            fn()
        finally:
            self.split.probe(True)
        split = self.split.take()
        after = self.room_state()
        v1 = self.views_of(after)
        changed = sum(1 for c in v1 if v0.get(c) != v1[c])
        calls = self.rec.calls[n_calls:]
        wrote = after.version != before.version
        pushes = len(self.gw.sizes) - n_push
        self.per_action.append(
            {
                "kind": kind,
                "calls": len(calls),
                "ops": self.rec.by_operation(calls),
                "pushes": pushes,
                "changed": changed,
                "floor": 1 + (1 if wrote else 0) + changed,
                "split": split,
                "probed": probed,
                "call_span": (n_calls, len(self.rec.calls)),  # its calls in `rec.calls` (the replay's)
            }
        )

    def send(self, conn: str, frame: dict, kind: str | None = None) -> None:
        self.invocations["ws"] += 1
        self.action(
            kind or frame["action"],
            lambda: self.timed(
                self.h["default"].handler,
                events.ws_message_event(connection=conn, body=json.dumps(frame)),
                CTX,
            ),
        )

    def fire(self, phase: int, at: int | None = None) -> None:
        self.invocations["timer"] += 1
        event = {"room": self.code, "phase": phase, "at": at}
        self.action("timer", lambda: self.timed(self.h["timer"].handler, event, CTX))

    # -------------------------------------------------------------- the scripted game
    def play(self, n: int = 12, seed: int = 7, spectators: int = 0) -> dict:
        rng = random.Random(seed)
        out = self.rest("POST", "/rooms", {"name": "Player1", "preset": "classic"})
        self.code = out["roomCode"]
        tokens = {"p1": out["token"]}
        for i in range(2, n + 1):
            got = self.rest("POST", f"/rooms/{self.code}/players", {"name": f"Player{i}"})
            tokens[got["playerId"]] = got["token"]
        want = {"patches": "1"} if PATCHES else {}
        for pid, token in tokens.items():
            self.invocations["ws"] += 1
            self.timed(
                self.h["connect"].handler,
                events.ws_connect_event(connection=f"c{pid}", query={"room": self.code, "token": token, **want}),
                CTX,
            )
            # $connect runs in another Lambda function than $default: its warm connection cache
            # is not shared, so the first frame of each connection looks the room up (GetItem).
            self.svc._conn_rooms.pop(f"c{pid}", None)
            self.send(f"c{pid}", {"action": "sync"})
            # people arrive one by one, seconds apart: the sockets already there are past the
            # connect grace (connections.CONNECT_GRACE_SECONDS) and get the lobby's changes as
            # patches; each new socket's first view (its `sync`) is a full view, as always
            CLOCK.advance(LOBBY_ARRIVAL_SECONDS)
        for i in range(spectators):
            self.invocations["ws"] += 1
            self.timed(
                self.h["connect"].handler,
                events.ws_connect_event(connection=f"s{i}", query={"room": self.code, **want}),
                CTX,
            )
        for pid in list(tokens)[1:]:
            self.send(f"c{pid}", {"action": "ready"})
        setup_calls = len(self.rec.calls)
        start_clock = CLOCK.t
        self.per_action.clear()
        self.game_from = len(self.gw.sizes)  # the pushes from the start on (the lobby's are full views)
        self.send("cp1", {"action": "start"})
        while True:
            state = self.room_state().state
            if state["phase"]["kind"] == "ended":
                break
            self.play_phase(state, rng)
        game_minutes = (CLOCK.t - start_clock) / 60
        for pid in tokens:
            self.invocations["ws"] += 1
            self.timed(self.h["disconnect"].handler, events.ws_disconnect_event(connection=f"c{pid}"), CTX)
        return {"setup_calls": setup_calls, "game_minutes": game_minutes, "players": n}

    def play_phase(self, state: dict, rng: random.Random) -> None:
        kind, seq, ends = state["phase"]["kind"], state["seq"], state["phase"]["endsAt"]
        span = max(1.0, ends - CLOCK.t)
        alive = [p["id"] for p in state["players"] if p["alive"]]
        acts: list[dict] = []
        if kind in ("greeting", "discussion", "defense"):
            talkers = alive if kind != "defense" else [state["phase"].get("accused")]
            per = {"greeting": 1, "discussion": 3, "defense": 2}[kind]
            for pid in talkers:
                for _ in range(per):
                    acts.append({"player": pid, "type": "chat", "channel": "day", "text": rng.choice(CHAT)})
        else:
            wanted = {"vote", "confirm", "mafiaTarget", "investigate", "heal", "mediumPeek"}
            legal = [a for a in legal_actions(state, chat=False) if a["type"] in wanted]
            by_player: dict[str, list[dict]] = {}
            for a in legal:
                by_player.setdefault(a["player"], []).append(a)
            for options in by_player.values():
                acts.append(rng.choice(options))
            if kind == "night":
                for p in state["players"]:
                    if p["alive"] and p["role"] == "mafia":
                        acts.append({"player": p["id"], "type": "chat", "channel": "mafia", "text": "them?"})
        rng.shuffle(acts)
        step = span * 0.8 / max(1, len(acts))
        for a in acts:
            CLOCK.t += max(0.75, step) if step < span else 0.75
            if CLOCK.t >= ends:
                break
            a = dict(a)
            pid = a.pop("player")
            frame = {"action": a.pop("type"), "id": rng.randint(1, 10**6), **a}
            self.send(f"c{pid}", frame)
        # the deadline: two clients' countdowns nudge (one wins, one is late), then the Scheduler
        CLOCK.t = max(CLOCK.t, ends) + 0.05
        first, second = rng.sample(alive, 2)
        self.send(f"c{first}", {"action": "nudge", "phase": seq})
        self.send(f"c{second}", {"action": "nudge", "phase": seq}, kind="nudge(late)")
        self.fire(seq)  # Scheduler delivery inside the next minute: stale by now

    # -------------------------------------------------------------- the raw-call baseline
    def replay_seconds(self, calls) -> float:
        """The same boto3 calls, raw, against a fresh table (same results: same sequence)."""
        with mock_aws():
            ddb = boto3.client("dynamodb")
            sch = boto3.client("scheduler")
            template.create_table(ddb, os.environ["TABLE_NAME"])
            sch.create_schedule_group(Name=os.environ["SCHEDULE_GROUP"])
            clients = {"dynamodb": ddb, "scheduler": sch}
            t0 = time.process_time()
            for service, op, params in calls:
                try:
                    getattr(clients[service], xform_name(op))(**params)
                except Exception:  # noqa: BLE001 - a conflict replays as a conflict
                    pass
            return time.process_time() - t0


CHAT = (
    "hi all",
    "I trust Player3",
    "who is it?",
    "not me",
    "vote 5",
    "hmm",
    "quiet night...",
    "why so silent, 7?",
)


def long_game_item_bytes(n: int = 12, days: int = 30, preset: str = "classic") -> dict:
    """Room item size after a long game with chat at the rate limit (engine-direct; see notes)."""
    from service.infra import storage

    players = [f"p{i}" for i in range(1, n + 1)]
    now = 1_800_000_000.0
    options = {"preset": "classic", "mafiaMustKill": "noKill"} if preset == "classic" else {"preset": preset}
    state = me.new_game(players, options, seed=3, now=now)
    text = "x" * 200
    max_bytes = 0
    while state["day"] <= days and state["phase"]["kind"] != "ended":
        kind = state["phase"]["kind"]
        t = now
        # every living player writes at the rate limit until the channel windows are full (80 per phase)
        writers = [(p, ch) for p in state["players"] for ch in me.view(state, p["id"])["channels"]["write"]]
        sent = 0
        while writers and sent < 80 and t + 0.7 < state["phase"]["endsAt"]:
            t += 0.7
            for p, ch in writers:
                try:
                    state = me.apply(
                        state, {"type": "chat", "player": p["id"], "channel": ch, "text": text}, now=t
                    )
                    sent += 1
                except me.InvalidAction:
                    pass
        del kind
        now = state["phase"]["endsAt"] if state["phase"]["endsAt"] is not None else t + 30
        try:
            state = me.apply(state, {"type": "phaseTimeout", "phase": state["seq"]}, now=now)
        except me.InvalidAction:  # an untimed phase: everyone confirms a skip / sleep
            state = advance_untimed(state, now)
        room = {
            "code": "BENCH",
            "preset": "classic",
            "options": {},
            "status": "running",
            "host": "p1",
            "nextId": n + 1,
            "seed": 1,
            "players": [
                {"id": p, "name": "N" * 24, "tokenHash": "h" * 64, "ready": True, "bot": False}
                for p in players
            ],
            "views": {p: "0123456789abcdef" for p in [*players, "*"]},
            "timer": [state["seq"], state["phase"]["endsAt"]],
            "archive": {  # every channel's buffer one line short of its batch
                "seq": 99,
                "first": 1,
                "buffers": {
                    ch: [
                        {"id": f"{ch}:{i}", "channel": ch, "from": "p1", "text": text, "at": now, "day": 1}
                        for i in range(24)
                    ]
                    for ch in sorted({m["channel"] for m in state["chat"]})
                },
            },
        }
        item = storage.Store(None, "t").state_item("BENCH", 9999, room, me.dump(state))
        max_bytes = max(max_bytes, item_bytes(item))
    return {"preset": preset, "players": n, "days": state["day"], "max_room_item_bytes": max_bytes}


def advance_untimed(state: dict, now: float) -> dict:
    """Every living player does what its task asks with no target (skip / sleep / ready)."""
    from mafia_engine import bots

    before = state["seq"]
    for p in state["players"]:
        for a in bots.decide(me.view(state, p["id"]), 1, now):
            if a["type"] == "chat":
                continue
            try:
                state = me.apply(state, {**a, "player": p["id"]}, now=now)
            except me.InvalidAction:
                pass
            if state["seq"] != before:
                return state
    return state


HANDLERS = ("rest", "ws_connect", "ws_disconnect", "ws_default", "ws_report", "timer")
_CHILD_PATH = "import sys;sys.path[:0]=['{r}','{r}/layers/engine','{r}/functions'];"


def _child(code: str, env: dict | None = None, stdin: str | None = None, answer: list | None = None) -> float:
    """Run `code` in a fresh interpreter (a cold Lambda); the seconds it prints last (the line
    before it, parsed, appended to `answer` when given)."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD_PATH.format(r=ROOT) + code],
        capture_output=True,
        text=True,
        env=env or {**os.environ},
        input=stdin,
        check=True,
    )
    lines = out.stdout.strip().splitlines()
    if answer is not None:
        answer.append(json.loads(lines[-2]))
    return float(lines[-1])


def _shipped_tree(into: Path) -> Path:
    """Our code laid out and compiled as `sam build` ships it (the root Makefile's build targets:
    scripts/bytecode.py, unchecked-hash .pyc), for this machine's Python; the dependencies stay
    in the venv, precompiled by pip as in the artifact."""
    for src, dst in (("functions/handlers", "handlers"), ("functions/service", "service"),
                     ("layers/engine/mafia_engine", "mafia_engine")):  # fmt: skip
        shutil.copytree(ROOT / src, into / dst, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, str(ROOT / "scripts/bytecode.py"), str(into)], check=True)
    return into


def import_ratio(rounds: int = 5, handlers: tuple[str, ...] = HANDLERS) -> dict:
    """Each handler's cold import / a cold `import boto3`: fresh interpreters, interleaved (a
    busy machine slows both sides of each ratio alike), the median of `rounds`.

    Two layouts: `source`, our modules compiled at import (as the repo runs them, and as a
    deploy without bytecode would: /var/task is read-only); `shipped`, precompiled as the SAM
    build ships them (a cold start imports only its handler's path in both: docs/operations.md
    "Cold starts").
    """
    code = "import time;t=time.perf_counter();import {m};print(time.perf_counter()-t)"
    with tempfile.TemporaryDirectory() as tmp:
        shipped = _shipped_tree(Path(tmp))
        layouts = {"source": None, "shipped": f"import sys;sys.path[:0]=[{str(shipped)!r}];"}
        ratios: dict[str, dict[str, list[float]]] = {k: {h: [] for h in handlers} for k in layouts}
        bases = []
        for _ in range(rounds):
            for h in handlers:
                for layout, prelude in layouts.items():
                    base = _child(code.format(m="boto3"))
                    bases.append(base)
                    ratios[layout][h].append(_child((prelude or "") + code.format(m=f"handlers.{h}")) / base)
    out: dict = {"boto3_import_s": round(statistics.median(bases), 3)}
    for layout, by in ratios.items():
        per = {h: round(statistics.median(r), 2) for h, r in by.items()}
        out[layout] = {"by_handler": per, "max": max(per.values())}
    out["by_handler"], out["max"] = out["source"]["by_handler"], out["source"]["max"]
    return out


# A cold handler's first event: import it, build the process-wide service (its boto3 clients),
# handle one event against moto's server (a loopback port). The baseline: `import boto3` and the
# three clients `service.config.build_service` creates, with no calls.
_FIRST_EVENT = (
    "import json,time;event=json.loads(sys.stdin.read())\n"
    "class Ctx:\n function_name='bench';memory_limit_in_mb=256;aws_request_id='r1';log_stream_name='s'\n"
    " invoked_function_arn='arn:aws:lambda:us-east-1:123456789012:function:bench'\n"
    "t=time.perf_counter();import handlers.{m} as h;r=h.handler(event,Ctx());t=time.perf_counter()-t\n"
    "print(json.dumps(r));print(t)"
)
_CLIENTS = (
    "import time;t=time.perf_counter();import boto3;from botocore.config import Config\n"
    "c=Config(retries={'mode':'standard','max_attempts':3},max_pool_connections=32)\n"
    "[boto3.client(s,config=c) for s in ('dynamodb','scheduler','apigatewaymanagementapi')]\n"
    "print(time.perf_counter()-t)"
)


_Posts = CountingGateway  # a gateway for the fixtures the parent builds: nothing is sent


def first_event_ratio(rounds: int = 5, handlers: tuple[str, ...] = HANDLERS) -> dict:
    """Each handler's cold import (the shipped layout, as `import_ratio`'s `shipped`) + its first
    event (a realistic one, against moto's server) /
    `import boto3` + creating the clients the handler uses; interleaved, median of `rounds`.

    Per round and handler, a fresh lobby (p1 host, p2 joined, both connected) and the event:
    rest GET /rooms/{code}; ws_connect p2's second socket; ws_default p2's `ready` (a write and
    a push to each socket); ws_disconnect p2's socket; ws_report a report in the lobby
    (refused `not_started` after reading the room); timer a phase timeout in the lobby.
    """
    from local.aws import Moto
    from service.infra import clock
    from service.infra.storage import Store
    from service.infra.timers import Timers
    from service.room.rooms import RoomService

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's server logs every request
    # The children run on the real clock (they are cold handlers): the fixtures and the checks
    # here must too, or a room the child wrote (expiring a day after real time) reads as expired
    # under the game's bench clock (`Bench` sets `clock.now = CLOCK`, months ahead).
    saved_now, clock.now = clock.now, clock.ScaledClock.from_env().now
    shipped = _shipped_tree(Path(tempfile.mkdtemp()))  # our code as `sam build` ships it
    prelude = f"import sys;sys.path[:0]=[{str(shipped)!r}];"
    moto = Moto()
    moto.start()
    try:
        table = group = f"mafia-first-event-{os.urandom(3).hex()}"  # moto keeps state per process
        env = {
            **os.environ,
            "AWS_ENDPOINT_URL_DYNAMODB": moto.url,
            "AWS_ENDPOINT_URL_SCHEDULER": moto.url,
            "WS_MANAGEMENT_ENDPOINT": moto.url,
            "TABLE_NAME": table,
            "SCHEDULE_GROUP": group,
        }
        ddb = boto3.client("dynamodb", endpoint_url=moto.url)
        sched = boto3.client("scheduler", endpoint_url=moto.url)
        template.create_table(ddb, table)
        sched.create_schedule_group(Name=group)
        timers = Timers(sched, group, env["SCHEDULER_ROLE_ARN"], env["TIMER_FUNCTION_ARN"])
        svc = RoomService(Store(ddb, table), _Posts(), timers, ws_url=env["WS_URL"])

        fixtures: list[str] = []  # room codes

        def fixture(h: str, i: int) -> dict:
            room = svc.create_room("Host")
            code = room["roomCode"]
            seat = svc.join_room(code, "Guest")
            fixtures.append(code)
            c1, c2 = f"{h}{i}a=", f"{h}{i}b="
            svc.connect(c1, code, room["token"])
            svc.connect(c2, code, seat["token"])
            if h == "rest":
                return events.rest_event(
                    method="GET",
                    path=f"/rooms/{code}",
                    resource="/rooms/{roomCode}",
                    path_parameters={"roomCode": code},
                )
            if h == "ws_connect":
                return events.ws_connect_event(
                    connection=f"{h}{i}c=",
                    query={"room": code, "token": seat["token"]},
                    headers={"Origin": "https://x"},
                )
            if h == "ws_default":  # p2 ready: a write, a push to each of the two sockets
                return events.ws_message_event(connection=c2, body=json.dumps({"action": "ready", "id": 1}))
            if h == "ws_disconnect":
                return events.ws_disconnect_event(connection=c2)
            if h == "ws_report":
                body = json.dumps({"action": "report", "target": "p1", "reason": "spam"})
                return events.ws_message_event(connection=c2, body=body, route_key="report")
            return {"room": code, "phase": 0, "at": int(time.time())}

        ratios: dict[str, list[float]] = {h: [] for h in handlers}
        firsts: dict[str, list[float]] = {h: [] for h in handlers}
        bases = []
        for i in range(rounds):
            for h in handlers:
                stdin = json.dumps(fixture(h, i))
                base = _child(_CLIENTS, env)
                bases.append(base)
                answer: list = []
                first = _child(prelude + _FIRST_EVENT.format(m=h), env, stdin, answer)
                if h == "timer":
                    assert answer[0]["outcome"] == "not_running", answer  # a read, nothing due
                else:
                    assert answer[0]["statusCode"] == 200, (h, answer)
                if h == "ws_default":  # the frame was applied, not refused
                    assert [p.get("ready") for p in svc.store.load(fixtures[-1]).room["players"]] == [
                        False,
                        True,
                    ]
                firsts[h].append(first)
                ratios[h].append(first / base)
    finally:
        moto.stop()
        clock.now = saved_now
        shutil.rmtree(shipped, ignore_errors=True)
    per = {h: round(statistics.median(r), 2) for h, r in ratios.items()}
    return {
        "boto3_and_clients_s": round(statistics.median(bases), 3),
        "first_event_s": {h: round(statistics.median(f), 3) for h, f in firsts.items()},
        "by_handler": per,
        "max": max(per.values()),
        "note": "handler import + first event against moto's server on a loopback port (its "
        "latency, not AWS's) / import boto3 + the dynamodb, scheduler and apigatewaymanagementapi "
        f"clients; fresh interpreters, interleaved, median of {rounds}",
    }


def spectator_fanout(played: tuple, counts=(0, 20), players: int = 12) -> dict:
    """The same scripted 12-player game with 0 and 20 spectators (the default cap): pushes,
    WebSocket messages out and what they cost (docs/operations.md, "Spectators"). `played`:
    (bench, info) of that game without spectators, played already by `run`."""
    out = {}
    for k in counts:
        if k == 0:
            bench, info = played
        else:
            with mock_aws():
                ddb = boto3.client("dynamodb")
                template.create_table(ddb, os.environ["TABLE_NAME"])
                boto3.client("scheduler").create_schedule_group(Name=os.environ["SCHEDULE_GROUP"])
                bench = Bench()
                info = bench.play(players, spectators=k)
        acts = bench.per_action
        pushes = sum(a["pushes"] for a in acts)
        messages = sum(math.ceil(s / 32768) for s in bench.gw.sizes)
        minutes = info["game_minutes"] + 2
        out[str(k)] = {
            "actions": len(acts),
            "pushes": pushes,
            "pushes_per_action": round(pushes / len(acts), 2),
            "ws_messages_out": messages,
            "ws_message_cost_usd": round(messages * PRICE["ws_message"], 6),
            "ws_connection_minute_cost_usd": round((players + k) * minutes * PRICE["ws_connection_minute"], 6),
        }
    return out


# The game's sockets ask for patches (`?patches=1`), as the web client and local/client.py do;
# `--full-views` measures sockets that do not (every push a whole view).
PATCHES = True


def main(argv: list[str] | None = None) -> None:
    global PATCHES
    args = sys.argv[1:] if argv is None else argv
    quick = "--quick" in args
    PATCHES = "--full-views" not in args
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # Powertools may print EMF metrics; stdout carries only the result
    try:
        out = run(**QUICK) if quick else run()
    finally:
        sys.stdout = real_stdout
    print(json.dumps(out))


# `--quick` (the test that keeps this script running, tests/bench/test_backend_bench.py): every
# figure from a run small enough for seconds, not a measurement: a 4-player game (the fewest
# classic seats) and the fan-out's second with 2 spectators, long games of 2 days, one round of
# the cold-start figures for one handler (`make bench` runs the full figures).
QUICK = {"players": 4, "rounds": 1, "spectators": 2, "days": 2, "handlers": ("ws_default",), "replays": 1}


def memory_sizes(own_cpu_s: float, actions: int, calls: int, invocations: int, other_cost: float) -> dict:
    """Per-action latency and the game's cost at each of MEMORY_SIZES_MB, as AWS Lambda Power
    Tuning compares them, from the handlers' measured CPU: their own work (the handler's CPU
    beyond its boto3 calls, measured here on one full core, taken as one Lambda vCPU) stretched
    by the share of a vCPU the size gets, plus the AWS calls' and pushes' waits (AWS_CALL_MS,
    PUSH_BATCH_MS), which memory does not change. Compute is billed per GB-second; the rest of
    the game's cost (`other_cost`: messages, DynamoDB, requests...) does not depend on memory."""
    wait_ms = (calls * AWS_CALL_MS + actions * PUSH_BATCH_MS) / actions
    out = {}
    for mb in MEMORY_SIZES_MB:
        share = min(1.0, mb / FULL_VCPU_MB)
        cpu_ms = own_cpu_s * 1000 / actions / share
        billed_s = own_cpu_s / share + (calls * AWS_CALL_MS + actions * PUSH_BATCH_MS) / 1000 + invocations * 0.001
        compute = billed_s * mb / 1024 * PRICE["lambda_gb_second_arm"]
        out[str(mb)] = {
            "vcpu": round(share, 3),
            "handler_cpu_ms_per_action": round(cpu_ms, 1),
            "latency_ms_per_action": round(cpu_ms + wait_ms, 1),
            "lambda_compute_usd_per_game": round(compute, 7),
            "cost_per_game_usd": round(other_cost + compute, 6),
        }
    return out


def cpu_split(acts: list[dict], players: int) -> dict:
    """The handler's CPU per action, split (`Split`): for the `chat` actions that changed every
    seat's view (the 12-viewer action of a 12-player game) and for all actions. `own_ms`: the
    handler's CPU beyond its AWS calls (`aws_ms`: moto's work, which the raw replay repeats);
    each label's time is inclusive (`view_build` holds `engine_view`, `patch` holds `patch_parse`
    and `patch_diff`, `frames` holds them all). Over the actions run with the probes (`probed`,
    every second one)."""
    acts = [a for a in acts if a["probed"]]

    def mean(group: list[dict]) -> dict:
        if not group:
            return {"n": 0}
        labels = sorted({k for a in group for k in a["split"]})
        per = {k: round(statistics.fmean(a["split"].get(k, 0.0) for a in group) * 1000, 3) for k in labels}
        owns = [a["split"].get("handler", 0.0) - a["split"].get("aws", 0.0) for a in group]
        medians = {
            f"{k}_ms_median": round(statistics.median(a["split"].get(k, 0.0) for a in group) * 1000, 3)
            for k in ("handler", "aws", "frames")
        }
        return {
            "n": len(group),
            "own_ms": round(statistics.fmean(owns) * 1000, 3),
            "own_ms_median": round(statistics.median(owns) * 1000, 3),
            **medians,
            **{f"{k}_ms": v for k, v in per.items()},
        }

    chat = [a for a in acts if a["kind"] == "chat" and a["changed"] >= players]
    return {
        f"chat_{players}_viewers": mean(chat),
        "all_actions": mean(acts),
        "note": "process CPU per action in ms, means (and the medians of own, handler, aws, frames: "
        "a garbage collection of moto's heap lands in a few actions); labels inclusive (frames > "
        "engine_view, view_build, render, patch; patch > patch_parse, patch_diff; every viewer's "
        "engine view is made at once before view_build, views.game_views); own = handler - aws",
    }


def cpu_ratio_median(acts: list[dict], per_call: list[float], players: int, replays: int) -> dict:
    """The handler's CPU over its boto3 calls replayed alone right after it (`Bench.catch_up`:
    each call's median over `replays` regions), action by action, and the median of those
    ratios: a garbage collection of moto's heap or a busy neighbour lands in a few actions,
    which move a total (`handler_cpu_ratio`: all the game's handler CPU over all its calls
    replayed) and not the median. Over the actions run without the split's probes (every second
    one: `Split.probe`), whose own CPU would count as the handler's."""
    acts = [a for a in acts if not a["probed"]]

    def ratios(group: list[dict]) -> list[float]:
        out = []
        for a in group:
            raw = sum(per_call[a["call_span"][0] : a["call_span"][1]])
            if raw > 0:
                out.append(a["split"].get("handler", 0.0) / raw)
        return out

    chat = [a for a in acts if a["kind"] == "chat" and a["changed"] >= players]
    every, chats = ratios(acts), ratios(chat)
    return {
        "all_actions": round(statistics.median(every), 3) if every else None,
        f"chat_{players}_viewers": round(statistics.median(chats), 3) if chats else None,
        "actions": len(every),
        "replays": replays,
        "note": "per action: handler process CPU / its boto3 calls replayed alone right after it in "
        "other regions' tables (each call's median over the replays); the median over the actions run "
        "without the split's probes (every second action)",
    }


def run(
    rounds: int = 5,
    spectators: int = 20,
    players: int = 12,
    days: int = 30,
    handlers: tuple[str, ...] = HANDLERS,
    replays: int = 3,
) -> dict:
    """Every figure; `players` in the scripted game; `rounds` of the cold-start measurements of
    `handlers`; `spectators`: the fan-out's second game has that many; long games of `days`;
    `replays` of the game's boto3 calls alone (each call's median CPU: `handler_cpu_ratio_median`)."""
    with mock_aws():
        ddb = boto3.client("dynamodb")
        template.create_table(ddb, os.environ["TABLE_NAME"])
        boto3.client("scheduler").create_schedule_group(Name=os.environ["SCHEDULE_GROUP"])
        bench = Bench(replays)
        info = bench.play(players)
        calls = list(bench.rec.calls)
        handler_s = bench.handler_s
    # the calls alone, as replayed beside each invocation (`Bench.catch_up`), else after the game
    raw_s = sum(bench.call_cpu) if replays else bench.replay_seconds(calls)

    acts = bench.per_action
    n = len(acts)
    total_calls = sum(a["calls"] for a in acts)
    ops: dict[str, int] = {}
    for a in acts:
        for op, k in a["ops"].items():
            ops[op] = ops.get(op, 0) + k
    pushes = sum(a["pushes"] for a in acts)
    ops["PostToConnection"] = pushes  # pushes are management-API calls too
    sizes = sorted(bench.gw.sizes)
    game_sizes = sizes
    # from the start on: the lobby's pushes are a full view for each socket's first view (the
    # answer to its `sync`) and patches after (players arrive LOBBY_ARRIVAL_SECONDS apart)
    in_game = sorted(bench.gw.sizes[bench.game_from:])
    scans = sum(1 for _, op, _ in calls if op == "Scan")
    by_kind: dict[str, dict] = {}
    for a in acts:
        k = by_kind.setdefault(a["kind"], {"n": 0, "calls": 0, "floor": 0, "pushes": 0, "changed": 0})
        k["n"] += 1
        for f in ("calls", "floor", "pushes", "changed"):
            k[f] += a[f]
    per_kind = {
        k: {
            "n": v["n"],
            "calls": round(v["calls"] / v["n"], 2),
            "floor": round(v["floor"] / v["n"], 2),
            "pushes": round(v["pushes"] / v["n"], 2),
            "changed_views": round(v["changed"] / v["n"], 2),
        }
        for k, v in sorted(by_kind.items())
    }

    # ---- cost of this game (all calls, setup included)
    minutes = info["game_minutes"] + 2  # + about 2 minutes in the lobby
    invocations = sum(bench.invocations.values())
    messages = sum(math.ceil(s / 32768) for s in sizes)
    own_cpu_s = max(0.0, handler_s - raw_s)
    # at the template's memory the handler's own work gets a share of a vCPU (memory_sizes)
    own_at_size_s = own_cpu_s / min(1.0, LAMBDA_MEMORY_GB * 1024 / FULL_VCPU_MB)
    billed_s = own_at_size_s + (len(calls) * AWS_CALL_MS + n * PUSH_BATCH_MS) / 1000 + invocations * 0.001
    inbound = bench.invocations["ws"]  # client frames are messages too
    cost = {
        "websocket_messages": (messages + inbound) * PRICE["ws_message"],
        "websocket_connection_minutes": info["players"] * minutes * PRICE["ws_connection_minute"],
        "rest_requests": bench.invocations["rest"] * PRICE["rest_request"],
        "lambda_requests": invocations * PRICE["lambda_request"],
        "lambda_compute": billed_s * LAMBDA_MEMORY_GB * PRICE["lambda_gb_second_arm"],
        "dynamodb": bench.rec.wru * PRICE["ddb_wru"] + bench.rec.rru * PRICE["ddb_rru"],
        "scheduler": ops.get("CreateSchedule", 0) * PRICE["scheduler_invocation"],
        "logs": invocations * LOG_BYTES_PER_INVOCATION / 1e9 * PRICE["logs_gb"],
    }
    total_cost = sum(cost.values())
    by_memory = memory_sizes(own_cpu_s, n, len(calls), invocations, total_cost - cost["lambda_compute"])
    long_game = long_game_item_bytes(days=days)
    city = long_game_item_bytes(16, days, "city")
    imports = import_ratio(rounds, handlers)
    first_events = first_event_ratio(rounds, handlers)
    fanout = spectator_fanout((bench, info), counts=(0, spectators), players=players)

    out = {
        "handler_cpu_split": cpu_split(acts, info["players"]),
        "game": {
            "players": info["players"],
            "preset": "classic",
            "simulated_minutes": round(info["game_minutes"], 1),
            "actions": n,
            "setup_calls": info["setup_calls"],
        },
        "aws_calls_per_action": round((total_calls + pushes) / n, 3),
        "aws_calls_per_action_by_operation": {k: round(v / n, 3) for k, v in sorted(ops.items())},
        "floor_calls_per_action": round(sum(a["floor"] for a in acts) / n, 3),
        "calls_over_floor_per_action": round((total_calls + pushes - sum(a["floor"] for a in acts)) / n, 3),
        "scans": scans,
        "pushes_per_action": round(pushes / n, 3),
        "changed_views_per_action": round(sum(a["changed"] for a in acts) / n, 3),
        "pushes_without_a_changed_view": sum(max(0, a["pushes"] - a["changed"]) for a in acts),
        "changed_views_not_pushed": sum(max(0, a["changed"] - a["pushes"]) for a in acts),
        "pushes_as": "patches after a full view (?patches=1)" if PATCHES else "full views",
        "max_push_bytes": max(game_sizes),
        "p50_push_bytes": int(statistics.median(game_sizes)),
        "p95_push_bytes": game_sizes[int(0.95 * (len(game_sizes) - 1))],
        "in_game_push_bytes": {
            "pushes": len(in_game),
            "mean": round(statistics.fmean(in_game)),
            "p50": int(statistics.median(in_game)),
            "p95": in_game[int(0.95 * (len(in_game) - 1))],
            "max": max(in_game),
        },
        "max_room_item_bytes": max(bench.item_sizes),
        "max_room_item_bytes_long_game": max(long_game["max_room_item_bytes"], city["max_room_item_bytes"]),
        "long_game_city_16": city,
        "long_game": {
            **{k: v for k, v in long_game.items() if k != "max_room_item_bytes"},
            "note": "no preset allows 16 players for 30 days: classic caps at 12 players (no draw rule, so 30 days "
            "without deaths is possible: mafiaMustKill noKill, no votes); city seats 16 but draws after six "
            "results without elimination (long_game_city_16). Engine-direct, every writer at the 0.7 s "
            "rate limit with 200-char messages until the chat windows are full each phase, room data at "
            "its largest (every channel's archive buffer full, 24-char names)",
        },
        "handler_cpu_ratio": round(handler_s / raw_s, 3),
        "handler_cpu_ratio_median": cpu_ratio_median(acts, bench.call_cpu, info["players"], replays),
        "handler_seconds": round(handler_s, 3),
        "raw_boto3_seconds": round(raw_s, 3),
        "import_ratio": imports["max"],
        "import_ratio_by_handler": imports["by_handler"],
        "import_ratio_shipped": imports["shipped"]["max"],
        "import_ratio_shipped_by_handler": imports["shipped"]["by_handler"],
        "first_event_ratio": first_events["max"],
        "first_event": first_events,
        "cost_per_game_usd": round(total_cost, 6),
        "cost_per_20_minute_game_usd": round(total_cost * 20 / minutes, 6),
        "cost_breakdown_usd": {k: round(v, 7) for k, v in cost.items()},
        "cost_inputs": {
            "prices_date": PRICES_DATE,
            "prices_usd": PRICE,
            "minutes_billed": round(minutes, 1),
            "lambda_invocations": invocations,
            "lambda_billed_seconds_est": round(billed_s, 2),
            "ws_messages_out": messages,
            "ws_messages_in": inbound,
            "dynamodb_wru": round(bench.rec.wru, 1),
            "dynamodb_rru": round(bench.rec.rru, 1),
        },
        "by_action_kind": per_kind,
        "spectator_fanout": fanout,
        "memory_sizes": by_memory,
    }
    return out


if __name__ == "__main__":
    main()
