"""Ranked ladders: Query calls and read units per page (`GET /ladder`) on moto.

Stores a season's ratings (their items as the ratings feature's write stores them) for 0, 100 and 1,000 people (--quick: 0, 100 and 300) in one language
(plus as many in another language and in the season before, which the ladder's partition never
holds), as the ratings feature writes them (side items of kind `rating`, keyed on the
PublicByLang index under `ladder#<lang>#<season>`: service/infra/storage.py), then reads every
page of the ladder through the REST handler, counting the DynamoDB calls the handler makes
(botocore events on the service's client: one Query per page, never a Scan) and the read units
of each page two ways: moto's `ReturnConsumedCapacity`, and DynamoDB's size formula on the
entries read (rounded up to 4 KB, halved: every GSI read is eventually consistent).

    .venv/bin/python bench/ladder.py            # --quick: fewer people (seconds)

Prints ONE JSON object. Not part of the pass/fail suite.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engine"), str(ROOT / "functions"), str(ROOT / "bench")]
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
from public_list import item_size  # noqa: E402 - the same size formula

from harness.clock import Clock  # noqa: E402
from harness.gateways import FakeGateway  # noqa: E402
from local import events, template  # noqa: E402
from local.lambda_runtime import LambdaContext  # noqa: E402

CTX = LambdaContext(function_name="bench", memory_limit_in_mb=512)
UNIT = 4096
PAGE = 25  # GET /ladder's default page (service/ranked/ladder.py)


def run(quick: bool) -> dict:
    with mock_aws():
        ddb = boto3.client("dynamodb")
        template.create_table(ddb, "mafia-bench")
        from service import config
        from service.infra import clock
        from service.infra.storage import side_item_attrs
        from service.ranked import ratings as rt
        from service.ranked import records

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
        season = rt.season_of(fake())
        before = rt.season_of(fake() - 40 * 86400)
        sizes = (0, 100, 300) if quick else (0, 100, 1000)
        out_sizes = []
        written = 0
        pending: list = []
        for n in sizes:
            lang = {0: "en", 1: "ko", 2: "ru"}[len(out_sizes)]
            # n people on this ladder, n more on another language's and on last season's
            for i in range(n):
                r = rt.Rating(
                    mu=20 + (i * 7919 % 100) / 10, sigma=3 + (i % 5) / 2, games=1 + i % 40, wins=i % 20
                )
                items = []
                for s, lg in ((season, lang), (season, "xx"), (before, lang)):
                    who = records.handle(f"bench-person-{lang}-{i}")
                    items += records.rating_items(s, lg, "classic", {who: r}, fake())
                pending += items
            # the attributes the feature's write stores (storage.side_item_attrs), 25 at a time
            for k in range(0, len(pending), 25):
                batch = [{"PutRequest": {"Item": side_item_attrs(it)}} for it in pending[k : k + 25]]
                ddb.batch_write_item(RequestItems={"mafia-bench": batch})
            written += len(pending)
            pending.clear()

            pages, cursor = [], None
            while True:
                q = {
                    "lang": lang,
                    "season": season,
                    "limit": str(PAGE),
                    **({"cursor": cursor} if cursor else {}),
                }
                calls.clear()
                answer = rest.handler(
                    events.rest_event(method="GET", path="/ladder", query=q, headers={}), CTX
                )
                assert answer["statusCode"] == 200, answer["body"]
                body = json.loads(answer["body"])
                pages.append({"rows": len(body["rows"]), "calls": list(calls)})
                cursor = body["cursor"]
                if cursor is None:
                    break
            # each page's read units: moto's and the formula's on the entries the Query read
            units, start = [], None
            while True:
                kwargs = {
                    "TableName": "mafia-bench",
                    "IndexName": "PublicByLang",
                    "KeyConditionExpression": "pubLang = :p",
                    "ExpressionAttributeValues": {":p": {"S": f"ladder#{lang}#{season}"}},
                    "ScanIndexForward": False,
                    "Limit": PAGE,
                    "ReturnConsumedCapacity": "TOTAL",
                }
                if start:
                    kwargs["ExclusiveStartKey"] = start
                page = ddb.query(**kwargs)
                size = sum(item_size(it) for it in page.get("Items", []))
                units.append(
                    {
                        "entries": len(page.get("Items", [])),
                        "formula_rcu": math.ceil(max(size, 1) / UNIT) * 0.5,
                        "moto_rcu": float(page.get("ConsumedCapacity", {}).get("CapacityUnits", 0.0)),
                        "bytes": size,
                    }
                )
                start = page.get("LastEvaluatedKey")
                if not start:
                    break
            shown = sum(p["rows"] for p in pages)
            out_sizes.append(
                {
                    "entries": n,
                    "lang": lang,
                    "pages": len(pages),
                    "rows_shown": shown,
                    "queries_per_page": max(sum(c == "Query" for c in p["calls"]) for p in pages),
                    "scans": sum(c == "Scan" for p in pages for c in p["calls"]),
                    "calls_per_page": sorted({tuple(p["calls"]) for p in pages}),
                    "max_formula_rcu_per_page": max(u["formula_rcu"] for u in units),
                    "max_moto_rcu_per_page": max(u["moto_rcu"] for u in units),
                    "bytes_per_entry": round(max(u["bytes"] / max(u["entries"], 1) for u in units), 1),
                }
            )
        return {
            "method": "moto in process: season ratings written as the ratings feature writes them (and as many "
            "on another language's and last season's ladders), every page of GET /ladder through the REST "
            "handler (DynamoDB calls counted with botocore events), read units per page from "
            "ReturnConsumedCapacity and from DynamoDB's size formula on the entries read",
            "page_size": PAGE,
            "items_written": written,
            "ladders": out_sizes,
        }


if __name__ == "__main__":
    print(json.dumps(run("--quick" in sys.argv[1:]), separators=(",", ":")))
