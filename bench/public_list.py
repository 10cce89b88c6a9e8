"""Public rooms' list: read units per page (`GET /rooms?public=1`) on moto.

Makes listed public lobbies (some filled further, some private rooms and started rooms beside
them, which the sparse index never holds), then reads every page of the list of one language
and of one language + preset through the REST handler, counting the DynamoDB calls the handler
makes (botocore events on the service's client) and the read units of each page two ways: what
moto reports (`ReturnConsumedCapacity`), and the DynamoDB formula applied to the entries read
(each entry's size: its attribute names and values; a Query's units = the sum of the sizes
rounded up to 4 KB, halved for an eventually consistent read, as every GSI read is).

    .venv/bin/python bench/public_list.py            # --quick: fewer rooms (seconds)

`abandoned_ahead_of_5_live` (docs/rules.md, "Public rooms"): 0, 20 and 1,000 (--quick: 100) abandoned lobbies
ahead of 5 live ones; the first page's calls, rooms shown, live rooms shown and read units, and
whether "Play now" seats a stranger in a live lobby.

Prints ONE JSON object. Not part of the pass/fail suite.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engine"), str(ROOT / "functions")]
from harness import env  # noqa: E402 - stdlib only: before boto3 and the handlers

env.apply(
    AWS_ACCESS_KEY_ID="bench",
    AWS_SECRET_ACCESS_KEY="bench",
    TABLE_NAME="mafia-bench",
    WS_URL="wss://bench.example/dev",
    WS_MANAGEMENT_ENDPOINT="https://bench.example/dev",
    SCHEDULE_GROUP="mafia-bench-phases",
    TIMER_FUNCTION_ARN="arn:aws:lambda:us-east-1:123456789012:function:mafia-bench-timer",
    POWERTOOLS_LOG_LEVEL="ERROR",
)

import warnings  # noqa: E402

warnings.filterwarnings("ignore")

import boto3  # noqa: E402
from moto import mock_aws  # noqa: E402

from harness.clock import Clock  # noqa: E402
from harness.gateways import FakeGateway  # noqa: E402
from local import events, template  # noqa: E402
from local.lambda_runtime import LambdaContext  # noqa: E402

CTX = LambdaContext(function_name="bench", memory_limit_in_mb=512)
UNIT = 4096  # bytes per read unit


def attr_size(name: str, value: dict) -> int:
    """DynamoDB's item-size rule for one attribute: the name's UTF-8 length plus the value's
    (a string's UTF-8 length; a number about 1 byte per 2 significant digits + 1)."""
    ((kind, v),) = value.items()
    if kind == "S":
        return len(name.encode()) + len(v.encode())
    if kind == "N":
        digits = len(v.replace("-", "").replace(".", "").lstrip("0")) or 1
        return len(name.encode()) + math.ceil(digits / 2) + 1
    return len(name.encode()) + len(json.dumps(v))


def item_size(item: dict) -> int:
    return sum(attr_size(k, v) for k, v in item.items())


def run(quick: bool) -> dict:
    with mock_aws():
        ddb = boto3.client("dynamodb")
        template.create_table(ddb, "mafia-bench")
        boto3.client("scheduler").create_schedule_group(Name="mafia-bench-phases")  # countdowns arm timers
        from service import config  # noqa: F401 - after the table exists
        from service.infra import clock  # noqa: F401 - after the table exists
        from service.room import rooms  # noqa: F401 - after the table exists

        fake = Clock()
        clock.now = fake  # the service reads `clock.now()` at each call
        svc = config.build_service(gateway=FakeGateway())
        from handlers import rest
        from harness import wiring

        wiring.inject(svc)  # every handler serves this service
        calls: list[str] = []
        svc.store.client.meta.events.register(
            "before-call.dynamodb.*", lambda model, **_: calls.append(model.name)
        )
        n_rooms = 30 if quick else 400
        presets = ("classic", "city", "original")
        listed = 0
        for i in range(n_rooms):
            preset = presets[i % 3]
            out = svc.create_room(f"Host{i}", preset, {"public": True}, "en")
            for j in range(i % 4):
                svc.join_room(out["roomCode"], f"Guest{j}")
            listed += 1
            svc.create_room(f"Priv{i}", preset, {}, "en")  # private: never in the index
            fake.advance(0.1)  # all within the 90 s a lobby nobody joined stays listed

        def pages(query: dict) -> list[dict]:
            out, cursor = [], None
            while True:
                q = {**query, **({"cursor": cursor} if cursor else {})}
                calls.clear()
                # the units of the Query this request makes: read with the same Query by hand
                answer = rest.handler(
                    events.rest_event(method="GET", path="/rooms", query=q, headers={}), CTX
                )
                assert answer["statusCode"] == 200, answer["body"]
                body = json.loads(answer["body"])
                out.append({"rooms": len(body["rooms"]), "calls": list(calls)})
                cursor = body["cursor"]
                if cursor is None:
                    return out

        def units(index: str, partition: str, limit: int) -> list[dict]:
            """Each page's read units: moto's ConsumedCapacity, and the formula on its entries."""
            out, start = [], None
            while True:
                items, last, moto_units = svc.store.public_index_page(index, partition, limit, start, clock.now())
                size = sum(item_size(it) for it in items)
                out.append(
                    {
                        "entries": len(items),
                        "bytes": size,
                        "formula_rcu": math.ceil(max(size, 1) / UNIT) * 0.5,
                        "moto_rcu": moto_units,
                    }
                )
                if not last:
                    return out
                start = last

        by_lang = pages({"public": "1", "lang": "en", "limit": "20"})
        by_preset = pages({"public": "1", "lang": "en", "preset": "classic", "limit": "20"})
        lang_units = units("PublicByLang", "en", 20)
        preset_units = units("PublicByPreset", "en#classic", 20)
        biggest = units("PublicByLang", "en", 50)
        entry = max(p["bytes"] / max(p["entries"], 1) for p in lang_units)
        calls_per_page = sorted({tuple(p["calls"]) for p in by_lang + by_preset})
        return {
            "method": "moto in process: listed public lobbies, every page of GET /rooms?public=1 "
            "through the REST handler (DynamoDB calls counted with botocore events), read units per "
            "page from ReturnConsumedCapacity and from DynamoDB's size formula on the entries read",
            "rooms_listed": listed,
            "rooms_private": n_rooms,
            "pages_by_lang": len(by_lang),
            "pages_by_preset": len(by_preset),
            "rooms_seen_by_lang": sum(p["rooms"] for p in by_lang),
            "rooms_seen_by_preset": sum(p["rooms"] for p in by_preset),
            "calls_per_page": [list(c) for c in calls_per_page],
            "entry_bytes": round(entry, 1),
            "rcu_per_page_20": max(p["formula_rcu"] for p in lang_units + preset_units),
            "rcu_per_page_50": max(p["formula_rcu"] for p in biggest),
            "moto_rcu_per_page_20": max(p["moto_rcu"] for p in lang_units + preset_units),
            "entries_per_4kb_unit": int(UNIT // entry),
        }


def abandoned(n: int) -> dict:
    """docs/rules.md, "Public rooms": `n` abandoned public lobbies (3 seats each, the fullest: they sorted first
    before, and their people left, so their listing lapsed) ahead of 5 live one-seat lobbies of
    the same language and preset. The first page of the list through the REST handler (its
    DynamoDB calls, rooms shown, live rooms among them, read units by moto and by the formula on
    the entries read), then one "Play now": whether it seats the stranger in a live lobby or
    opens yet another room, and its DynamoDB calls."""
    with mock_aws():
        ddb = boto3.client("dynamodb")
        template.create_table(ddb, "mafia-bench")
        boto3.client("scheduler").create_schedule_group(Name="mafia-bench-phases")
        from service import config
        from service.infra import clock
        from service.room import public

        fake = Clock()
        clock.now = fake
        svc = config.build_service(gateway=FakeGateway())
        from handlers import rest
        from harness import wiring

        wiring.inject(svc)
        calls: list[str] = []
        svc.store.client.meta.events.register(
            "before-call.dynamodb.*", lambda model, **_: calls.append(model.name)
        )
        for i in range(n):
            code = svc.create_room(f"Gone{i}", "classic", {"public": True}, "en")["roomCode"]
            svc.join_room(code, f"Left{i}a")
            svc.join_room(code, f"Left{i}b")
        fake.advance(public.EMPTY_GRACE_SECONDS + 5)  # every abandoned lobby's listing lapsed
        live = {svc.create_room(f"Here{i}", "classic", {"public": True}, "en")["roomCode"] for i in range(5)}
        calls.clear()
        answer = rest.handler(
            events.rest_event(
                method="GET", path="/rooms", query={"public": "1", "lang": "en", "limit": "20"}, headers={}
            ),
            CTX,
        )
        list_calls = list(calls)
        shown = [r["roomCode"] for r in json.loads(answer["body"])["rooms"]]
        items, _, moto_units = svc.store.public_index_page("PublicByLang", "en", 20, None, clock.now())
        size = sum(item_size(it) for it in items)
        calls.clear()
        seat = svc.quick_play("Stranger", "en", "classic")
        return {
            "abandoned": n,
            "live": len(live),
            "list_calls_first_page": list_calls,
            "list_rooms_shown": len(shown),
            "list_live_shown": len(set(shown) & live),
            "list_entries_read": len(items),
            "list_formula_rcu": math.ceil(max(size, 1) / UNIT) * 0.5,
            "list_moto_rcu": moto_units,
            "quick_play_seated_live": seat["roomCode"] in live,
            "quick_play_calls": len(calls),
            "quick_play_queries": calls.count("Query"),
        }


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    out = run(quick)
    out["abandoned_ahead_of_5_live"] = [abandoned(n) for n in ((0, 20, 100) if quick else (0, 20, 1000))]
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
