"""Load model: recorded games replayed at N concurrent tables, frames per second per route
(docs/operations.md, "Capacity").

1. Record. Seeded 12-player classic games (the script's choices and the room's fair-deal secret) are played through the Lambda handlers on moto, as
   bench/backend.py plays them (its `Bench`: REST to create and join, `$connect`, `sync`, `ready`,
   `start`, chat, votes and night actions at a game clock, two nudges and the Scheduler's delivery
   at each deadline, `$disconnect`). Every handler invocation (by API route and, for `$default`,
   by frame action), every management-API push (`PostToConnection`), every Scheduler call and every
   DynamoDB call (with its read/write units, backend.py's rules) is stamped with the game clock.
   The lobby's set-up, which the script does in one instant, is spread over LOBBY_S before the
   start; the closing `$disconnect`s over CLOSE_S.
2. Overlay what the script does not send, from the client's own constants:
   - the heartbeat: each socket sends `ping` every HEARTBEAT_S (web/js/connection.js
     HEARTBEAT_MS, plus a random 0-2 s) and gets `pong`; the cost of one ping (its invocation,
     push and DynamoDB calls) is measured in the recorded game;
   - voice (`--voice`, the "with voice" figures): at each phase change every pair of seats the
     policy opens (`mafia_engine.voice_pair`, every seat in voice) exchanges one offer, one answer
     and each side's ICE candidates: up as `$default` `signal` frames, down as relay pushes
     (bench/voice.py's recorded Chromium exchange), spread over VOICE_S after the change.
3. Replay at N tables: each table plays one of the recorded games, back to back (a table starts
   its next game when one ends), at a uniformly random phase; frames are counted per second of a
   WINDOW_S window. The mean is exact (N x frames per game / game length); the peak second is
   the simulation's.

Also: the public list polled by phones on the home screen (web/js/screens/public-list.js POLL_MS),
with and without CloudFront caching each key for a few seconds, and the number of tables at which
each limit of the template (stage throttles, read from template.yaml) and each default quota in
the path (docs/operations.md cites each) is reached.

    .venv/bin/python bench/load.py            # 3 seeded games; 100, 1,000 and 10,000 tables
    .venv/bin/python bench/load.py --quick    # 1 game of 4 players; 10 and 100 tables (tests/bench)

Prints ONE JSON object: `method`; `recorded` (games, seeds, seconds, phase changes and voice
pairs opened per game, what one ping costs); `assumptions`; `limits` (the template's throttles
and the default quotas); per mode, `without_voice` and `with_voice`: `per_table_per_s` and
`per_game` (per route: `ws $connect`, `ws $default` and `ws $default:<action>`, `ws $disconnect`,
`ws report`, `rest <route>`, `push PostToConnection`, `scheduler <call>`, `lambda timer
(Scheduler)`, `dynamodb <call>`, `dynamodb reads`/`writes`/`RRU`/`WRU`, and the totals `ws inbound
(stage throttle)`, `rest (all routes)`, `lambda invocations`), `phase_change_burst`, `tables` (per
N: each key's mean and busiest second), `tables_at_limit`, `lambda_busy_s_per_table`,
`room_partition`; `public_list`; `quick`. Counts are exact for the recorded script; rates scale
them by the game clock (the script's pace: a frame every 0.75 s or slower per room).
"""

from __future__ import annotations

import json
import math
import random
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)]
import backend  # noqa: E402 - sets the environment before boto3 and the handlers (bench/backend.py)
import voice  # noqa: E402 - bench/voice.py: one pair's recorded signaling exchange

import mafia_engine as me  # noqa: E402
from local import template  # noqa: E402

ROOT = HERE.parent
METHOD = (
    "seeded classic games played through the handlers on moto (bench/backend.py's script), every invocation, "
    "push, Scheduler and DynamoDB call stamped with the game clock; heartbeat pings (60-62 s per socket) and, "
    "with voice, each opened pair's offer/answer/ICE frames (bench/voice.py) overlaid; N tables replay the "
    "games back to back at uniformly random phases, frames counted per second over a window"
)

LOBBY_S = 120.0  # the lobby's set-up (create, joins, connects, ready) spread over this, before the start
CLOSE_S = 30.0  # the closing disconnects spread over this
HEARTBEAT_S = 61.0  # web/js/connection.js HEARTBEAT_MS (60 s) + Math.random() * 2 s, on average
VOICE_S = 2.0  # an opened pair's offer, answer and ICE candidates arrive within this after the change
POLL_S = 5.0  # web/js/screens/public-list.js POLL_MS
CACHE_S = 5.0  # the proposed CloudFront cache of the public list (docs/operations.md, "Capacity")
WINDOW_S = 300  # seconds of the replay counted at each N

# Default quotas in the path, with the page each is from (docs/operations.md, "Capacity" cites them).
QUOTAS = {
    "ws_new_connections_per_s": 500,  # API Gateway WebSocket: new connections per second, account+Region
    "apigw_account_rps": 10_000,  # API Gateway: all APIs and WebSocket callbacks, account+Region
    "apigw_account_burst": 5_000,
    "lambda_concurrency": 1_000,  # Lambda: concurrent executions, account+Region
    "lambda_scaling_per_10s": 1_000,  # Lambda: new execution environments per function per 10 s
    "ddb_partition_wru": 1_000,  # DynamoDB: per partition (one room item's key)
    "ddb_partition_rru": 3_000,
    "ddb_table_wru": 40_000,  # DynamoDB on-demand: per table
    "ddb_table_rru": 40_000,
    "scheduler_create_per_s": 5_000,  # EventBridge Scheduler: CreateSchedule, primary Regions
    "scheduler_invocations_per_s": 1_000,  # EventBridge Scheduler: invocations throttle limit
}
# Lambda duration, for concurrency (invocations/s x seconds): backend.py's assumptions, one
# DynamoDB/Scheduler call AWS_CALL_MS and one fan-out batch PUSH_BATCH_MS, plus HANDLER_MS of the handler's own work at 0.58 vCPU.
HANDLER_MS = 25.0

REST_ROUTES = (
    ("POST", re.compile(r"^/rooms$"), "POST /rooms"),
    ("POST", re.compile(r"^/rooms/[^/]+/players$"), "POST /rooms/{code}/players"),
    ("GET", re.compile(r"^/rooms$"), "GET /rooms (public list)"),
    ("GET", re.compile(r"^/rooms/[^/]+$"), "GET /rooms/{code}"),
    ("POST", re.compile(r"^/quickplay$"), "POST /quickplay"),
)
INBOUND = ("ws $connect", "ws $default", "ws $disconnect", "ws report")  # the WebSocket stage's routes
DDB_READS = {"GetItem", "Query", "BatchGetItem", "Scan"}
DDB_WRITES = {"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}


# ------------------------------------------------------------------------------ recording
class Recording(backend.Bench):
    """backend.py's scripted game, with every event stamped: (t, key, n)."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[float, str, float]] = []
        self.phase_changes: list[tuple[float, int]] = []  # (t, pairs the change opens)
        self.ping_cost: Counter = Counter()
        self._seq = None
        self._pairs: set = set()
        self._pinged = False
        for name, module in list(self.h.items()):
            self.h[name] = _Stamped(self, name, module)
        post = self.gw.post

        def stamped_post(connection_id: str, data: bytes) -> bool:
            self.stamp("push PostToConnection")
            return post(connection_id, data)

        self.gw.post = stamped_post
        for client in (self.svc.store.client, self.svc.timers.client):
            client.meta.events.register(
                f"provide-client-params.{client.meta.service_model.service_name}.*", self._aws_call
            )

    def stamp(self, key: str, n: float = 1) -> None:
        if self.rec.on:
            self.events.append((backend.CLOCK.t, key, n))

    def _aws_call(self, params, model, **kwargs):
        service = model.service_model.service_name
        if service == "dynamodb":
            self.stamp(f"dynamodb {model.name}")
            if model.name in DDB_READS:
                self.stamp("dynamodb reads")
            elif model.name in DDB_WRITES:
                self.stamp("dynamodb writes")
        else:
            self.stamp(f"scheduler {model.name}")

    def action(self, kind: str, fn) -> None:
        """The counted action (backend.Bench.action), then: did the phase change, and which pairs
        of seats did the change open for voice?"""
        super().action(kind, fn)
        state = self.room_state().state
        if not state or state["seq"] == self._seq:
            return
        self._seq = state["seq"]
        pairs = voice.joined(state) if state["phase"]["kind"] != "ended" else set()
        self.phase_changes.append((backend.CLOCK.t, len(pairs - self._pairs)))
        self._pairs = pairs

    def play_phase(self, state: dict, rng: random.Random) -> None:
        if not self._pinged:  # one heartbeat, measured: what each socket's ping costs
            self._pinged = True
            mark = len(self.events)
            pid = next(p["id"] for p in state["players"])
            self.send(f"c{pid}", {"action": "ping", "id": 1})
            for _, k, n in self.events[mark:]:
                self.ping_cost[k] += n
            del self.events[mark:]  # overlaid at its real rate instead (overlay)
        super().play_phase(state, rng)


class _Stamped:
    """A handler module whose `handler` stamps its route before it runs."""

    def __init__(self, rec: Recording, name: str, module) -> None:
        self.rec, self.name, self.module = rec, name, module

    def handler(self, event, context):
        """Stamps the route, runs the handler, stamps the DynamoDB units it used (the Recorder's
        running sums: backend.py's unit rules)."""
        self.rec.stamp(self.route(event))
        if self.name == "default":
            self.rec.stamp("ws $default")
        wru, rru = self.rec.rec.wru, self.rec.rec.rru
        out = self.module.handler(event, context)
        self.rec.stamp("dynamodb WRU", self.rec.rec.wru - wru)
        self.rec.stamp("dynamodb RRU", self.rec.rec.rru - rru)
        return out

    def route(self, event) -> str:
        if self.name == "rest":
            method, path = event["httpMethod"], event["path"]
            return "rest " + next((label for m, p, label in REST_ROUTES if m == method and p.match(path)),
                                  f"{method} {path}")  # fmt: skip
        if self.name == "default":
            try:
                action = json.loads(event["body"]).get("action", "?")
            except ValueError:
                action = "?"
            return f"ws $default:{action}"
        if self.name == "timer":
            return "lambda timer (Scheduler)"
        return {"connect": "ws $connect", "disconnect": "ws $disconnect", "report": "ws report"}[self.name]


def record(seed: int, players: int) -> dict:
    """One seeded game: its events on a timeline starting at 0 (the lobby's first request)."""
    from types import SimpleNamespace

    import boto3
    from moto import mock_aws

    from service.features import fairness

    backend.PATCHES = True
    deal = random.Random(seed)  # the room's fair-deal secret and salt, seeded: the same game every run
    fairness.secrets = SimpleNamespace(token_hex=lambda n: deal.randbytes(n).hex())
    with mock_aws():
        ddb = boto3.client("dynamodb")
        template.create_table(ddb, backend.os.environ["TABLE_NAME"])
        boto3.client("scheduler").create_schedule_group(Name=backend.os.environ["SCHEDULE_GROUP"])
        rec = Recording()
        rec.play(players, seed=seed)
    start = next(t for t, k, _ in rec.events if k == "ws $default:start")
    end = max(t for t, _, _ in rec.events)  # the last deadline's instant: the game ends, sockets close
    lobby = [e for e in rec.events if e[0] < start]
    timeline = [(LOBBY_S * i / len(lobby), k, n) for i, (_, k, n) in enumerate(lobby)]  # in order, over LOBBY_S
    timeline += [(LOBBY_S + t - start, k, n) for t, k, n in rec.events if start <= t < end]
    tail = [e for e in rec.events if e[0] >= end]  # the ending and the disconnects, over CLOSE_S
    timeline += [(LOBBY_S + end - start + CLOSE_S * i / len(tail), k, n) for i, (_, k, n) in enumerate(tail)]
    length = LOBBY_S + end - start + CLOSE_S
    changes = [(LOBBY_S + t - start, opened) for t, opened in rec.phase_changes if t >= start]
    return {
        "seed": seed,
        "players": players,
        "length_s": length,
        "game_s": end - start,
        "events": timeline,
        "phase_changes": changes,
        "ping_cost": dict(rec.ping_cost),
        "connections": players,
    }


def overlay(game: dict, with_voice: bool, exchange: dict, rng: random.Random) -> list[tuple[float, str, float]]:
    """The game's events plus its heartbeats and (with voice) its signaling."""
    out = list(game["events"])
    length = game["length_s"]
    for _ in range(game["connections"]):  # each socket pings every HEARTBEAT_S from a random start
        t = rng.uniform(0, HEARTBEAT_S)
        while t < length:
            out.extend((t, k, n) for k, n in game["ping_cost"].items())
            t += HEARTBEAT_S
    if with_voice:
        per_pair = exchange["frames"]  # frames sent up by the pair's two pages (each relayed down once)
        for t, opened in game["phase_changes"]:
            for i in range(opened * per_pair):
                at = t + VOICE_S * i / max(1, opened * per_pair)
                out += [(at, "ws $default", 1), (at, "ws $default:signal", 1), (at, "push PostToConnection", 1)]
    return out


# ------------------------------------------------------------------------------ figures
def per_second(events: list[tuple[float, str, float]], length: float) -> list[dict[str, float]]:
    """The game's events binned per whole second of its length (a table loops the game)."""
    bins: list[dict[str, float]] = [defaultdict(float) for _ in range(int(math.ceil(length)))]
    for t, k, n in events:
        bins[min(len(bins) - 1, int(t))][k] += n
    return [dict(b) for b in bins]


def group(key: str) -> list[str]:
    """The totals a key also counts towards."""
    out = []
    if key in INBOUND:
        out.append("ws inbound (stage throttle)")
    if key in ("ws $connect", "ws $default", "ws $disconnect", "ws report") or key.startswith("rest ") or key == "lambda timer (Scheduler)":
        out.append("lambda invocations")
    if key.startswith("rest "):
        out.append("rest (all routes)")
    return out


def with_groups(counts: dict[str, float]) -> dict[str, float]:
    out = dict(counts)
    for k, n in counts.items():
        for g in group(k):
            out[g] = out.get(g, 0) + n
    return out


def replay(games: list[dict], series: list[list[dict]], tables: int, window: int, rng: random.Random) -> dict:
    """N tables, each looping one recorded game from a random second: per key, the mean and the
    busiest second of the window, frames per second."""
    placed: Counter = Counter()
    for i in range(tables):
        g = i % len(games)
        placed[(g, rng.randrange(len(series[g])))] += 1
    totals = [defaultdict(float) for _ in range(window)]
    for (g, offset), m in placed.items():
        bins = series[g]
        L = len(bins)
        for s in range(window):
            for k, n in bins[(offset + s) % L].items():
                totals[s][k] += n * m
    keys = sorted({k for sec in totals for k in sec})
    out = {}
    for k in keys:
        values = [sec.get(k, 0.0) for sec in totals]
        out[k] = {"mean": round(sum(values) / window, 2), "peak_s": round(max(values), 2)}
    return out


def mean_rates(games: list[dict], events: list[list[tuple[float, str, float]]]) -> dict[str, float]:
    """Frames per second per table (exact): all games' counts over all games' seconds."""
    counts: Counter = Counter()
    for ev in events:
        for _, k, n in ev:
            counts[k] += n
    seconds = sum(g["length_s"] for g in games)
    return {k: round(v / seconds, 4) for k, v in sorted(with_groups(dict(counts)).items())}


def bursts(game_events: list[list[tuple[float, str, float]]], games: list[dict]) -> dict:
    """Frames in the few seconds after each phase change (the change's pushes, its voice)."""
    inbound, pushes = [], []
    for g, ev in zip(games, game_events, strict=True):
        for t, _ in g["phase_changes"]:
            near = [(k, n) for at, k, n in ev if t <= at < t + VOICE_S]
            inbound.append(sum(n for k, n in near if k in INBOUND))
            pushes.append(sum(n for k, n in near if k == "push PostToConnection"))
    return {
        "changes": len(inbound),
        "window_s": VOICE_S,
        "inbound_mean": round(sum(inbound) / len(inbound), 1),
        "inbound_max": max(inbound),
        "pushes_mean": round(sum(pushes) / len(pushes), 1),
        "pushes_max": max(pushes),
    }


def stage_limits() -> dict:
    """The throttles template.yaml sets (a change there changes these figures)."""
    res = template.load()["Resources"]
    ws = res["WebSocketStage"]["Properties"]["DefaultRouteSettings"]
    rest = {(m["ResourcePath"], m["HttpMethod"]): m for m in res["RestApi"]["Properties"]["MethodSettings"]}
    create = template.load()["Parameters"]
    return {
        "ws_stage_rate": ws["ThrottlingRateLimit"],
        "ws_stage_burst": ws["ThrottlingBurstLimit"],
        "rest_stage_rate": rest[("/*", "*")]["ThrottlingRateLimit"],
        "rest_stage_burst": rest[("/*", "*")]["ThrottlingBurstLimit"],
        "rest_create_rate": create["CreateRoomRate"]["Default"],
        "rest_create_burst": create["CreateRoomBurst"]["Default"],
    }


def lambda_seconds(rates: dict[str, float]) -> float:
    """Busy Lambda seconds per second per table: each invocation HANDLER_MS, each AWS call
    AWS_CALL_MS, each push a share of a fan-out batch (backend.py's assumptions)."""
    calls = sum(v for k, v in rates.items() if k.startswith(("dynamodb ", "scheduler ")) and k not in
                ("dynamodb reads", "dynamodb writes", "dynamodb WRU", "dynamodb RRU"))  # fmt: skip
    return (rates.get("lambda invocations", 0) * HANDLER_MS + calls * backend.AWS_CALL_MS
            + rates.get("push PostToConnection", 0) * backend.PUSH_BATCH_MS / 4) / 1000  # fmt: skip


def tables_at(rates: dict[str, float], limits: dict, peak_ratio: float) -> dict:
    """Tables at which each limit is reached, by the mean rate (and the stage burst by the peak)."""

    def at(rate: float, limit: float) -> int | None:
        return int(limit / rate) if rate > 0 else None

    inbound = rates.get("ws inbound (stage throttle)", 0)
    busy = lambda_seconds(rates)
    return {
        "ws_stage_rate": at(inbound, limits["ws_stage_rate"]),
        "ws_stage_rate_at_peak": at(inbound * peak_ratio, limits["ws_stage_rate"]),
        "ws_new_connections": at(rates.get("ws $connect", 0), QUOTAS["ws_new_connections_per_s"]),
        "rest_stage_rate": at(rates.get("rest (all routes)", 0), limits["rest_stage_rate"]),
        "rest_create_rate (POST /rooms)": at(rates.get("rest POST /rooms", 0), limits["rest_create_rate"]),
        "rest_create_rate (every seat by POST /quickplay)": at(
            rates.get("rest POST /rooms", 0) + rates.get("rest POST /rooms/{code}/players", 0), limits["rest_create_rate"]
        ),
        "apigw_account_rps": at(inbound + rates.get("rest (all routes)", 0) + rates.get("push PostToConnection", 0),
                                QUOTAS["apigw_account_rps"]),  # fmt: skip
        "lambda_concurrency": at(busy, QUOTAS["lambda_concurrency"]),
        "ddb_table_wru": at(rates.get("dynamodb WRU", 0), QUOTAS["ddb_table_wru"]),
        "ddb_table_rru": at(rates.get("dynamodb RRU", 0), QUOTAS["ddb_table_rru"]),
        "scheduler_create": at(rates.get("scheduler CreateSchedule", 0), QUOTAS["scheduler_create_per_s"]),
        "scheduler_invocations": at(rates.get("lambda timer (Scheduler)", 0), QUOTAS["scheduler_invocations_per_s"]),
    }


def room_partition(games: list[dict], events: list[list[tuple[float, str, float]]]) -> dict:
    """One room's busiest second: its item's key is one partition."""
    wru = rru = 0.0
    for g, ev in zip(games, events, strict=True):
        sec = per_second(ev, g["length_s"])
        wru = max(wru, max(b.get("dynamodb WRU", 0) for b in sec))
        rru = max(rru, max(b.get("dynamodb RRU", 0) for b in sec))
    return {"peak_wru_per_s": round(wru, 1), "peak_rru_per_s": round(rru, 1),
            "partition_wru": QUOTAS["ddb_partition_wru"], "partition_rru": QUOTAS["ddb_partition_rru"]}  # fmt: skip


def public_list(limits: dict, phones: list[int]) -> dict:
    """Phones on the home screen poll GET /rooms?public=1 every POLL_S; each key (language and
    preset, or none) is one cache entry if CloudFront caches the answer CACHE_S."""
    keys = len(("en", "ko", "ru")) * (1 + len(me.PRESETS))
    per_phone = 1 / POLL_S
    return {
        "poll_s": POLL_S,
        "per_phone_rps": per_phone,
        "phones_at_rest_stage_rate": int(limits["rest_stage_rate"] / per_phone),
        "cache_keys": keys,
        "cached_s": CACHE_S,
        "origin_rps_cached_max": round(keys / CACHE_S, 2),
        "by_phones": {
            str(n): {"uncached_rps": round(n * per_phone, 1), "cached_origin_rps": round(min(n * per_phone, keys / CACHE_S), 2)}
            for n in phones
        },
    }


def run(seeds: list[int], players: int, tables: list[int], window: int) -> dict:
    games = [record(s, players) for s in seeds]
    exchange = voice.pair_exchange()
    limits = stage_limits()
    out_modes = {}
    for mode, with_voice in (("without_voice", False), ("with_voice", True)):
        rng = random.Random(1)
        events = [overlay(g, with_voice, exchange, rng) for g in games]
        rates = mean_rates(games, events)
        series = [[with_groups(b) for b in per_second(ev, g["length_s"])] for g, ev in zip(games, events, strict=True)]
        sims = {str(n): replay(games, series, n, window, random.Random(n)) for n in tables}
        biggest = sims[str(max(tables))]["ws inbound (stage throttle)"]
        peak_ratio = biggest["peak_s"] / biggest["mean"] if biggest["mean"] else 1.0
        out_modes[mode] = {
            "per_table_per_s": rates,
            "per_game": {k: round(v * sum(g["length_s"] for g in games) / len(games), 1) for k, v in rates.items()},
            "phase_change_burst": bursts(events, games),
            "tables": sims,
            "tables_at_limit": tables_at(rates, limits, peak_ratio),
            "lambda_busy_s_per_table": round(lambda_seconds(rates), 4),
            "room_partition": room_partition(games, events),
        }
    most = max(tables)
    return {
        "method": METHOD,
        "recorded": {
            "games": len(games),
            "seeds": seeds,
            "players": players,
            "preset": "classic",
            "game_s_mean": round(sum(g["game_s"] for g in games) / len(games), 1),
            "table_cycle_s_mean": round(sum(g["length_s"] for g in games) / len(games), 1),
            "phase_changes_per_game": round(sum(len(g["phase_changes"]) for g in games) / len(games), 1),
            "voice_pairs_opened_per_game": round(sum(o for g in games for _, o in g["phase_changes"]) / len(games), 1),
            "ping_cost": games[0]["ping_cost"],
        },
        "assumptions": {"lobby_s": LOBBY_S, "close_s": CLOSE_S, "heartbeat_s": HEARTBEAT_S, "voice_s": VOICE_S,
                        "voice_frames_per_opened_pair": exchange["frames"], "window_s": window,
                        "lambda_ms": {"handler": HANDLER_MS, "aws_call": backend.AWS_CALL_MS,
                                      "push_batch_of_4": backend.PUSH_BATCH_MS}},  # fmt: skip
        "limits": {**limits, **QUOTAS},
        **out_modes,
        "public_list": public_list(limits, [100, 1_000, 10 * most, 12 * most]),
    }


def main() -> int:
    quick = "--quick" in sys.argv[1:]
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # Powertools may print EMF metrics; stdout carries only the result
    try:
        if quick:
            out = run(seeds=[7], players=4, tables=[10, 100], window=60)
        else:
            out = run(seeds=[7, 8, 9], players=12, tables=[100, 1_000, 10_000], window=WINDOW_S)
    finally:
        sys.stdout = real_stdout
    out["quick"] = quick
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
