"""Does this deployment work? `python -m ops.smoke --stack NAME` (or `--base URL`, any running
stack, the offline one included) checks what a player and an operator rely on, and prints a
short table; the exit code is 0 only when no check failed (docs/operations.md, "First deploy").

- the site over HTTPS (http:// redirected) with CloudFront's security headers, index.html
  no-cache; `/sw.js` and the manifest served from the root, the app's id/start_url/scope the
  site's root, every icon there; config.json naming the APIs;
- quick play through `/api` (a seat in a public lobby, or a new public room) and the public list
  (one page after another) showing that room; the seat is left at once; the list's answer
  cacheable for a few seconds (`Cache-Control`), and, deployed, a second read served by
  CloudFront's cache;
- a room made through the site's `/api`; sockets that connect with the site's Origin (a player
  and a spectator); a display (the host's `display` key, a socket `?display=KEY`) that gets the
  spectator's view while the host's view counts it (`room.screens`);
- a short game filled with the server's bots, played to its end by two scripted seats that never
  nudge: every phase ends by the stack's phase timers (EventBridge Scheduler on AWS); in it, a
  voice signal from one seat to the other the first time the voice policy joins them;
- voice's TURN relay: the seat's `iceServers` frame holds a credential, and each `turn:` server
  (UDP) allocates a relay with it (ops/turn_check.py);
- the `report` route: a report on a bot, answered, then read back from the table (ops/reports);
- with `--stack`: a confirmed subscription on the alarm topic (else nobody hears an alarm), and
  the phase timers' dead-letter queue read as `python -m ops.timers list` reads it: empty, or
  the timeouts Scheduler could not deliver (replay them: `python -m ops.timers replay`);
- every check is its own row: one that fails or raises is named, and the next still run;
- cleanup: the sockets closed, the report deleted (the room and its game expire with the
  table's TTL, 24 h).

Only an `http://127.0.0.1` (or localhost) base skips HTTPS and the security headers (the offline
stack has no TLS and no CloudFront); the table says so.

    python -m ops.smoke --stack mafia-prod [--region us-east-1]   # reads the stack's outputs
    python -m ops.smoke --base http://127.0.0.1:8000/             # make dev's stack

Needs, with --stack: cloudformation:DescribeStacks, sns:ListSubscriptionsByTopic,
sqs:ReceiveMessage and sqs:ChangeMessageVisibility on the dead-letter queue, and
dynamodb:GetItem/DeleteItem on the table (the report's read-back and cleanup, one
TransactWriteItems).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

REPO = Path(__file__).resolve().parent.parent
for _sub in ("functions", "layers/engine", "."):
    if str(REPO / _sub) not in sys.path:
        sys.path.insert(0, str(REPO / _sub))

# the shortest classic game the options allow (layers/engine/mafia_engine/presets/classic/setup.py)
SHORT_GAME = {
    "roleRevealSeconds": 5, "firstPhase": "night", "discussionPerAlive": 10, "discussionMin": 30,
    "discussionMax": 30, "voteSeconds": 10, "defenseSeconds": 10, "confirmSeconds": 5, "nightSeconds": 15,
}  # fmt: skip
SEATS = 5  # the host, a second scripted seat and three of the server's bots
PUBLIC_PAGES = 10  # the public list's pages the smoke reads looking for its quick-play room
LIST_MAX_AGE = 10  # the longest CloudFront keeps a page of the list (PublicListCachePolicy's MaxTTL)
# a voice offer's body: the relay checks its shape and size, never its meaning
# the smallest offer the relay takes: an audio-only session of known lines (service/protocol/sdp.py)
SDP = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
HEADERS = {
    "strict-transport-security": lambda v: "max-age=" in v and int(re.search(r"max-age=(\d+)", v)[1]) >= 31536000,
    "x-content-type-options": lambda v: v.lower() == "nosniff",
    "x-frame-options": lambda v: v.upper() == "DENY",
    "referrer-policy": lambda v: bool(v),
}


@dataclass
class Smoke:
    base: str
    outputs: dict[str, str] = field(default_factory=dict)
    region: str | None = None
    game_timeout: float = 1200.0
    rows: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def origin(self) -> str:
        parts = urlsplit(self.base)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def offline(self) -> bool:
        return urlsplit(self.base).scheme == "http" and urlsplit(self.base).hostname in ("127.0.0.1", "localhost")

    def row(self, check: str, ok: bool | None, detail: str = "") -> bool:
        self.rows.append((check, "ok" if ok else "skip" if ok is None else "FAIL", detail))
        return bool(ok)

    def step(self, check: str) -> _Step:
        """`async with s.step("check"):` a check that raises is a FAIL row under its own name."""
        return _Step(self, check)

    @property
    def failed(self) -> bool:
        return any(status == "FAIL" for _, status, _ in self.rows)


class _Step:
    def __init__(self, smoke: Smoke, check: str) -> None:
        self.smoke, self.check = smoke, check

    async def __aenter__(self) -> _Step:
        return self

    async def __aexit__(self, kind: Any, exc: BaseException | None, _tb: Any) -> bool:
        if exc is None or not isinstance(exc, Exception):
            return False
        self.smoke.row(self.check, False, f"{type(exc).__name__}: {exc}"[:300])
        return True  # the table names it; the next check runs


async def _get(http: Any, url: str, **kw: Any) -> tuple[int, dict[str, str], bytes]:
    async with http.get(url, **kw) as r:
        return r.status, {k.lower(): v for k, v in r.headers.items()}, await r.read()


async def check_site(s: Smoke, http: Any) -> dict:
    """HTTPS, headers, the entry points; returns config.json."""
    offline_why = "skipped: an http://127.0.0.1 base (the offline stack: no TLS, no CloudFront)"
    if s.offline:
        s.row("https", None, offline_why)
    else:
        plain = "http://" + urlsplit(s.base).netloc + "/"
        status, headers, _ = await _get(http, plain, allow_redirects=False)
        s.row("https", urlsplit(s.base).scheme == "https" and status in (301, 302, 307, 308)
              and headers.get("location", "").startswith("https://"),
              f"{plain} -> {status} {headers.get('location', '')}")  # fmt: skip
    status, headers, body = await _get(http, s.base)
    s.row("site", status == 200 and b"<html" in body.lower(), f"GET / -> {status}")
    if s.offline:
        s.row("security headers", None, offline_why)
    else:
        bad = [h for h, ok in HEADERS.items() if not ok(headers.get(h, ""))]
        s.row("security headers", not bad, "missing or weak: " + ", ".join(bad) if bad else ", ".join(HEADERS))
        s.row("index.html no-cache", headers.get("cache-control") == "no-cache", headers.get("cache-control", ""))

    root = s.origin + "/"
    status, headers, _ = await _get(http, root + "sw.js")
    kind = headers.get("content-type", "")
    cache = "" if s.offline else f", Cache-Control {headers.get('cache-control')}"
    s.row("/sw.js", status == 200 and "javascript" in kind and (s.offline or headers.get("cache-control") == "no-cache"),
          f"{status} {kind}{cache}")  # fmt: skip
    link = re.search(rb'<link rel="manifest" href="([^"]+)"', body)
    where = urljoin(s.base, link[1].decode()) if link else ""
    ok, detail = where == root + "manifest.webmanifest", where or "no <link rel=manifest>"
    if ok:
        status, _, raw = await _get(http, where)
        manifest = json.loads(raw) if status == 200 else {}
        ids = {k: urljoin(where, manifest.get(k, "")) for k in ("id", "start_url", "scope")}
        icons = [urljoin(where, i["src"]) for i in manifest.get("icons", [])]
        missing = [u for u in icons if (await _get(http, u))[0] != 200]
        ok = set(ids.values()) == {root} and icons and not missing
        detail = f"id/start_url/scope {sorted(set(ids.values()))}, {len(icons)} icons" + (
            f", missing {missing}" if missing else "")  # fmt: skip
    s.row("manifest at the root", ok, detail)
    status, _, raw = await _get(http, root + "config.json")
    config = json.loads(raw) if status == 200 else {}
    # a deployed stack's names its WebSocket stage; the offline stack's sockets are its own /ws
    s.row("config.json", bool(config.get("apiUrl") and (config.get("wsUrl") or s.offline)), json.dumps(config))
    return config


async def play(s: Smoke, http: Any, config: dict) -> None:
    from local.client import Api

    api = Api(http, s.origin + "/", api_path=config.get("apiUrl", "/api"))
    async with s.step("quick play and the public list"):
        await quick_play(s, http, api)
    try:
        host = await api.create_room("Smoke", "classic", SHORT_GAME)
    except Exception as exc:  # noqa: BLE001 - the table says what failed
        s.row("room via /api", False, f"{type(exc).__name__}: {exc}")
        return
    s.row("room via /api", True, f"room {host.room}")
    sockets: list[Any] = []
    try:
        await game(s, http, api, host, sockets)
    finally:
        for sock in sockets:
            await sock.close()


async def quick_play(s: Smoke, http: Any, api: Any) -> None:
    """POST /quickplay, then the public list until it shows that room; the seat is left."""
    from local.client import Player

    status, seat = await api.call("POST", "/quickplay", {"name": "Smoke", "lang": "en"})
    if not s.row("quick play", status == 201 and bool(seat.get("roomCode")),
                 f"{status} room {seat.get('roomCode')}" if status == 201 else json.dumps(seat)[:200]):  # fmt: skip
        return
    code = seat["roomCode"]
    player = await Player.connect(http, ws_url=api._ws_url(seat), room=code, token=seat["token"], origin=s.origin)
    try:
        # CloudFront may answer a page cached before the room was listed (max-age, "public list
        # cached"): one more pass after that age
        for attempt in range(2):
            cursor, pages, seen = None, 0, False
            while pages < PUBLIC_PAGES and not seen:
                query = "/rooms?public=1&lang=en" + (f"&cursor={quote(cursor)}" if cursor else "")
                status, page = await api.call("GET", query)
                if status != 200:
                    s.row("public list", False, f"GET {query} -> {status} {json.dumps(page)[:200]}")
                    return
                pages += 1
                seen = any(r.get("code", r.get("roomCode")) == code for r in page.get("rooms", []))
                cursor = page.get("cursor")
                if not cursor:
                    break
            if seen or attempt or s.offline:
                break
            await asyncio.sleep(LIST_MAX_AGE + 1)
        s.row("public list", seen, f"room {code} on page {pages}" if seen else f"room {code} not in {pages} page(s)")
        await list_cached(s, http, api)
    finally:
        await player.send("leave")  # a lobby seat: free at once, no leaver's wait
        await player.close()


async def list_cached(s: Smoke, http: Any, api: Any) -> None:
    """The public list's answer says `Cache-Control: public, max-age=N` (N at most 10:
    template.yaml's PublicListCachePolicy caps it there); on a deployed stack a second read
    at once is CloudFront's (`X-Cache: Hit from cloudfront`: one origin call per key per N s,
    docs/operations.md, "Capacity")."""
    url = api.base + "/rooms?public=1&lang=en&preset=classic"
    status, headers, _ = await _get(http, url)
    found = re.fullmatch(r"public, max-age=(\d+)", headers.get("cache-control", ""))
    ok = status == 200 and bool(found) and 0 < int(found[1]) <= 10
    detail = f"{status} Cache-Control: {headers.get('cache-control')}"
    if ok and not s.offline:
        status, headers, _ = await _get(http, url)
        ok = "hit" in headers.get("x-cache", "").lower()
        detail += f"; again at once: X-Cache: {headers.get('x-cache')}"
    elif ok:
        detail += " (no CloudFront at this base)"
    s.row("public list cached", ok, detail)


class _Display:
    """A display's socket: `?room=CODE&display=KEY` (docs/protocol.md, "A screen for the room")."""

    @staticmethod
    async def connect(http: Any, ws_url: str, room: str, key: str, origin: str) -> Any:
        from local.client import Player

        class Screen(Player):
            def url(self) -> str:
                return f"{self.ws_url}?room={self.room}&display={key}"

        screen = Screen(http, ws_url, room, origin=origin, name="display")
        await screen.open()
        await screen.send("sync")
        await screen.wait_for(lambda p: p.view is not None, timeout=10)
        return screen


async def game(s: Smoke, http: Any, api: Any, host: Any, sockets: list[Any]) -> None:
    from local.client import Bot, Player

    async with s.step("sockets with the site's Origin"):
        guest = await api.join(host.room, "Smoke2")
        player = await Player.connect(http, host, origin=s.origin)
        sockets.append(player)
        second = await Player.connect(http, guest, origin=s.origin)
        sockets.append(second)
        spectator = await Player.connect(http, room=host.room, ws_url=host.ws_url, origin=s.origin)
        sockets.append(spectator)
        s.row("sockets with the site's Origin", True, f"two players and a spectator on {host.ws_url.split('?')[0]}")
    if not sockets or len(sockets) < 3:
        return
    async with s.step("display"):
        fid = await player.send("display")
        answer = await player.wait_for(lambda p: next((f.data for f in p.frames if (f.data or {}).get("id") == fid), None))
        key = answer.get("key")
        if answer.get("type") != "display" or not key:
            raise RuntimeError(f"the host's display frame: {json.dumps(answer)[:200]}")
        screen = await _Display.connect(http, host.ws_url, host.room, key, s.origin)
        sockets.append(screen)
        counted = await player.wait_view(lambda v: (v.get("room") or {}).get("screens") == 1)
        s.row("display", screen.seat_id() is None and bool(counted),
              f"a display connected with the host's key; the host's view counts {counted['room']['screens']} screen")  # fmt: skip
    async with s.step("a bot-filled game to its end"):
        for _ in range(SEATS - 2):
            await player.request("addBot")
        await second.send("ready", ready=True)
        await player.wait_view(lambda v: any(q.get("id") == second.seat_id() and q.get("ready") for q in v["players"]))
        reply = await player.request("start")
        if reply.get("type") == "error":
            raise RuntimeError(f"start refused: {reply}")
        started = time.monotonic()
        seqs: set[int] = set()
        player.watch(lambda p, got: seqs.add(((p.view or {}).get("phase") or {}).get("seq")))
        # two seats play by the bots' policy and never nudge: phases end by the phase timers
        final, _, voiced = await asyncio.gather(
            Bot(player, nudge=False).play(timeout=s.game_timeout),
            Bot(second, nudge=False).play(timeout=s.game_timeout),
            voice(player, second),
            return_exceptions=False,
        )
        s.row("voice signal between two seats", voiced[0], voiced[1])
        result = final.get("result") or {}
        s.row("a bot-filled game to its end", bool(result.get("winner")),
              f"{result.get('winner')} won after {len(seqs)} phases in {time.monotonic() - started:.0f} s, "
              "every phase ended by the phase timers (no nudges)")  # fmt: skip
    async with s.step("voice relay (TURN)"):
        await turn_relay(s, player)
    async with s.step("report route"):
        await report(s, player, host)


async def voice(a: Any, b: Any) -> tuple[bool, str]:
    """The first time the voice policy joins the two seats, one sends the other an offer; the
    other must get it as a `signal` frame from the sender. (False, why) if they never could."""

    def joined(p: Any, other: Any) -> bool:
        v = p.view or {}
        return other.seat_id() in ((v.get("voice") or {}).get("speakTo") or [])

    while not ((a.view or {}).get("result")):
        sender, to = (a, b) if joined(a, b) else (b, a) if joined(b, a) else (None, None)
        if sender is not None:
            fid = await sender.send("signal", to=to.seat_id(), kind="offer", sdp=SDP)
            def arrived(p: Any, sender: Any = sender, fid: str = fid) -> Any:
                frames = (f.data for f in p.frames if isinstance(f.data, dict))
                got = next((d for d in frames if d.get("type") == "signal" and d.get("from") == sender.seat_id()), None)
                return got or sender.error_for(fid)

            got = await to.wait_for(arrived, timeout=10)
            if got.get("type") == "signal":
                return True, f"{sender.seat_id()} -> {to.seat_id()} in phase {(a.view or {}).get('phase', {}).get('kind')}"
            if got.get("code") != "voice_not_permitted":  # the phase moved on meanwhile: try the next
                return False, f"refused: {json.dumps(got)[:200]}"
        version = a.version
        try:
            await a.wait_for(lambda p, v=version: p.version != v or p.closed, timeout=5)
        except TimeoutError:
            pass
        if a.closed:
            break
    return False, "the voice policy never joined the two seats in the whole game"


async def turn_relay(s: Smoke, player: Any) -> None:
    """The seat's `iceServers` frame holds a TURN credential, and each `turn:` server over UDP
    allocates a relay with it (ops/turn_check.py); no server at all fails the row (the stack's
    TurnUrls is empty: public rooms' voice, relay only, would stay silent)."""
    from ops.turn_check import allocate, parse_url

    answer = await player.request("iceServers")
    if answer.get("type") != "iceServers":
        raise RuntimeError(f"the seat's iceServers frame: {json.dumps(answer)[:200]}")
    servers = answer.get("iceServers") or []
    if not servers:
        s.row("voice relay (TURN)", False, "no TURN server: set TurnUrls (docs/operations.md, \"Voice (TURN)\")")
        return
    done = []
    for server in servers:
        for url in server["urls"]:
            where = parse_url(url)
            if where is None:
                done.append(f"{url}: not checked (TLS or TCP)")
                continue
            ok, detail = await asyncio.to_thread(allocate, *where, server["username"], server["credential"])
            if not ok:
                s.row("voice relay (TURN)", False, f"{url}: {detail}")
                return
            done.append(f"{url}: relay {detail}")
    s.row("voice relay (TURN)", True, "; ".join(done))


def _table(region: str | None) -> Any:
    import boto3

    from service.infra.storage import Store

    return Store(boto3.client("dynamodb", region_name=region or os.environ.get("AWS_DEFAULT_REGION")),
                 os.environ["TABLE_NAME"])  # fmt: skip


async def report(s: Smoke, player: Any, host: Any) -> None:
    """The `report` route: a report on a bot, answered; read back from the table; deleted."""
    from ops import reports as ops_reports

    await player.wait_view(lambda v: bool(v.get("players")))
    target = next(p["id"] for p in player.view["players"] if p.get("bot"))
    fid = await player.send("report", target=target, reason="other")
    answer = await player.wait_for(lambda p: next((f.data for f in p.frames if (f.data or {}).get("id") == fid), None))
    receipt = answer.get("report") or {}
    if not s.row("report route", answer.get("type") == "reported", json.dumps(answer)[:200]):
        return
    saved = dict(os.environ)
    try:
        if s.offline:
            ops_reports.use_local_stack(s.base)  # its moto endpoint and table
        elif s.outputs.get("TableName"):
            os.environ["TABLE_NAME"] = s.outputs["TableName"]
        else:
            s.row("report read back", None, "skipped: --base of a deployed stack (the table needs --stack)")
            return
        read_back(s, _table(None if s.offline else s.region), receipt["id"], host.room, target)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def read_back(s: Smoke, store: Any, report_id: str, room: str, target: str) -> None:
    from service.features.reports import Reports, record

    found = Reports(store).get(report_id)
    s.row("report read back", bool(found and found.room == room and found.reported == target),
          f"{report_id} in {store.table}")  # fmt: skip
    if found:
        # the report and its "reported once per game" mark, together (as they were written)
        store.delete_report(record(found))
        s.row("cleanup", Reports(store).get(found.id) is None, "sockets closed, the report deleted; the room expires (TTL)")


def check_dead_letters(s: Smoke) -> None:
    """The phase timers' dead-letter queue, read as `python -m ops.timers list` reads it (the
    messages given back at once): empty, or the rooms whose timeouts Scheduler gave up on."""
    if not s.outputs.get("TimerDeadLetterQueueUrl"):
        s.row("dead-letter queue", None, "skipped: needs --stack (the offline stack has no queue)")
        return
    import boto3

    from ops import timers

    sqs = boto3.client("sqs", region_name=s.region)
    url = s.outputs["TimerDeadLetterQueueUrl"]
    dead = timers.receive(sqs, url)
    timers.release(sqs, url, dead)
    rooms = sorted({(t.timeout or {}).get("room") for t in dead} - {None})
    s.row("dead-letter queue", not dead,
          "empty: every phase timeout was delivered" if not dead else
          f"{len(dead)} undelivered phase timeout(s) (rooms {', '.join(rooms) or '?'}): python -m ops.timers replay")  # fmt: skip


def check_alarms(s: Smoke) -> None:
    if not s.outputs:
        s.row("alarm topic subscribed", None, "skipped: needs --stack")
        return
    import boto3

    sns = boto3.client("sns", region_name=s.region)
    subs = sns.list_subscriptions_by_topic(TopicArn=s.outputs["AlarmTopicArn"]).get("Subscriptions", [])
    confirmed = [x["Protocol"] + ":" + x["Endpoint"] for x in subs if x["SubscriptionArn"].startswith("arn:")]
    s.row("alarm topic subscribed", bool(confirmed),
          ", ".join(confirmed) if confirmed else f"{len(subs)} subscription(s), none confirmed: nobody hears an alarm")  # fmt: skip


def stack_outputs(stack: str, region: str | None) -> dict[str, str]:
    import boto3

    out = boto3.client("cloudformation", region_name=region).describe_stacks(StackName=stack)["Stacks"][0]
    return {o["OutputKey"]: o["OutputValue"] for o in out.get("Outputs", [])}


async def run(s: Smoke) -> Smoke:
    import aiohttp

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        try:
            config = await check_site(s, http)
            await play(s, http, config)
        except Exception as exc:  # noqa: BLE001 - a check that could not run is a failure, shown
            s.row("smoke", False, f"{type(exc).__name__}: {exc}")
    check_alarms(s)
    check_dead_letters(s)
    return s


def table(s: Smoke) -> str:
    width = max(len(c) for c, _, _ in s.rows)
    lines = [f"{c:<{width}}  {status:<4}  {detail}" for c, status, detail in s.rows]
    return "\n".join(lines + [f"{'result':<{width}}  {'FAIL' if s.failed else 'ok':<4}  {s.base}"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ops.smoke", description="Check that a deployment works.")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--stack", help="a deployed stack's name (reads its outputs)")
    where.add_argument("--base", help="the site's URL (any running stack; http://127.0.0.1:8000/ for make dev)")
    p.add_argument("--region", default=os.environ.get("AWS_DEFAULT_REGION"))
    p.add_argument("--game-timeout", type=float, default=1200.0, help="seconds the game may take (default 1200)")
    args = p.parse_args(argv)
    outputs = stack_outputs(args.stack, args.region) if args.stack else {}
    base = outputs["WebUrl"] if args.stack else args.base
    s = asyncio.run(run(Smoke(base, outputs, args.region, args.game_timeout)))
    print(table(s))
    return 1 if s.failed else 0


if __name__ == "__main__":
    sys.exit(main())
