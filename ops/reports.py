"""List and read player reports: `python -m ops.reports list | show ID`.

Against AWS: `TABLE_NAME=<stack output TableName> python -m ops.reports list` with the usual
AWS credentials. Against the offline stack: `python -m ops.reports --local http://127.0.0.1:8000 list`
(reads the stack's moto endpoint, table and game clock from `GET /_local/env`).
Reads only: one Query per day (`REPORTS#<day>`) for `list`, one GetItem for `show`; no Scan.
Expired reports (7 days) are never shown, even before DynamoDB's TTL has deleted them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import unicodedata
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
for _sub in ("functions", "layers/engine", "."):
    if str(REPO / _sub) not in sys.path:
        sys.path.insert(0, str(REPO / _sub))

LOCAL_ENV_KEYS = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_DEFAULT_REGION",
    "AWS_ENDPOINT_URL_DYNAMODB",
    "TABLE_NAME",
    "MAFIA_CLOCK_RATE",
    "MAFIA_CLOCK_ORIGIN",
    "MAFIA_CLOCK_FILE",
)


def use_local_stack(url: str) -> None:
    """Point this process at an offline stack (its moto DynamoDB, its table, its clock)."""
    with urllib.request.urlopen(url.rstrip("/") + "/_local/env", timeout=10) as res:  # noqa: S310
        env = json.load(res)
    os.environ.update({k: str(env[k]) for k in LOCAL_ENV_KEYS if k in env})


def _safe(text: str) -> str:
    """Player text as the terminal may print it: control characters (C0, DEL, C1), format
    and bidi characters (Cf), line/paragraph separators and lone surrogates are written as
    escapes (`\\x1b`, `\\u202e`), and a backslash as two, so nothing a player typed can move
    the cursor, recolour, reorder or fake lines of the operator's screen."""
    out = []
    for ch in str(text):
        if ch == "\\":
            out.append("\\\\")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            n = ord(ch)
            out.append(f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}")
        else:
            out.append(ch)
    return "".join(out)


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(at))


def _store():
    import boto3

    from service.infra.storage import Store

    return Store(boto3.client("dynamodb"), os.environ.get("TABLE_NAME", "mafia"))


def cmd_list(args: argparse.Namespace, out) -> int:
    from service.features.reports import Reports

    found = Reports(_store()).recent(days=args.days)
    if args.json:
        out.write(json.dumps([r.to_dict(exclude=("transcript",)) for r in found], ensure_ascii=False) + "\n")
        return 0
    if not found:
        out.write("no reports\n")
        return 0
    for r in found:
        lines = sum(1 for ln in r.transcript if ln.reported)
        out.write(
            f"{r.id}  {_when(r.at)}  room {r.room}  {r.reason:<8}  "
            f"{_safe(r.reporterName)} ({r.reporter}) -> {_safe(r.reportedName)} ({r.reported})  "
            + (f"person {r.reportedPerson}  " if r.reportedPerson else "")
            + f"{lines} reported line(s)\n"
        )
    return 0


def cmd_show(args: argparse.Namespace, out) -> int:
    from service.features.reports import Reports

    r = Reports(_store()).get(args.id)
    if r is None:
        out.write(f"no report {args.id} (unknown or expired)\n")
        return 1
    if args.json:
        out.write(r.to_json() + "\n")
        return 0
    out.write(
        f"report {r.id}\n  filed    {_when(r.at)} UTC ({r.preset}, day {r.day}, {r.phase})\n"
        f"  room     {r.room} (game {r.game})\n"
        f"  reporter {_safe(r.reporterName)} ({r.reporter})\n  reported {_safe(r.reportedName)} ({r.reported})\n"
        + (f"  person   {r.reportedPerson} (ranked room: python -m ops.persons ban {r.reportedPerson})\n"
           if r.reportedPerson else "")
        + f"  reason   {r.reason}\n  expires  {_when(r.expiresAt)} UTC\n"
        f"  chat as the reporter could read it (> = reported):\n"
    )
    for ln in r.transcript:
        who = _safe(ln.name) if ln.name else "moderator"
        said = _safe(ln.text) if ln.phrase is None else f"(phrase) {_safe(_phrase(ln))}"
        out.write(f"  {'>' if ln.reported else ' '} #{ln.id} [{ln.channel}] {who}: {said}\n")
    return 0


def _phrase(ln) -> str:
    """A phrase line (no text: docs/protocol.md, "Chat messages") in English, naming by id."""
    from mafia_engine.bots import phrases

    return phrases.render({"phrase": ln.phrase, "args": ln.args or {}, "variant": ln.variant or 0}, "en", {})


def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    p = argparse.ArgumentParser(prog="python -m ops.reports", description="List and read player reports.")
    p.add_argument("--local", metavar="URL", help="an offline stack (python -m local) instead of AWS")
    p.add_argument("--json", action="store_true", help="print JSON")
    sub = p.add_subparsers(dest="command", required=True)
    ls = sub.add_parser("list", help="reports of the last days, oldest first")
    ls.add_argument("--days", type=int, default=8, help="how many UTC days back (default 8: all)")
    show = sub.add_parser("show", help="one report with its chat lines")
    show.add_argument("id")
    args = p.parse_args(argv)
    if args.local:
        use_local_stack(args.local)
    return cmd_list(args, out) if args.command == "list" else cmd_show(args, out)


if __name__ == "__main__":
    sys.exit(main())
