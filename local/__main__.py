"""``python -m local --host H --port P [--time-scale X | --manual-clock]``: the offline stack."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys

from .stack import LocalStack, StackOptions


def parse_args(argv: list[str] | None = None) -> tuple[StackOptions, bool]:
    p = argparse.ArgumentParser(prog="python -m local", description=__doc__)
    p.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    p.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    p.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        help="run every game clock (timers, Scheduler, TTL) this many times faster",
    )
    p.add_argument(
        "--manual-clock",
        action="store_true",
        help="game time stands still until POST /_local/clock steps it "
        '({"advance": N} seconds or {"to": "next"} deadline); for tests',
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed the Scheduler's delivery jitter and duplicates and the $disconnect loss",
    )
    p.add_argument(
        "--duplicate-probability",
        type=float,
        default=0.1,
        help="chance that a schedule is delivered twice (at-least-once)",
    )
    p.add_argument(
        "--ttl-lag",
        type=float,
        default=300.0,
        help="virtual seconds between an item's expiry and its deletion",
    )
    p.add_argument("--ttl-interval", type=float, default=60.0, help="virtual seconds between TTL sweeps")
    p.add_argument(
        "--handler",
        action="append",
        default=[],
        metavar="ROUTE=MODULE:FUNC",
        help="replace a handler (routes: rest, $connect, $disconnect, $default, timer, ...)",
    )
    p.add_argument(
        "--echo-route", action="store_true", help='serve a WebSocket route "echo" (benchmark baseline)'
    )
    p.add_argument(
        "--disconnect-loss",
        type=float,
        default=0.0,
        help="chance that $disconnect is never delivered (it is best effort on AWS)",
    )
    p.add_argument(
        "--containers",
        type=int,
        default=4,
        help="handler worker processes, one invocation at a time each like Lambda "
        "execution environments (0: run handlers on threads in this process)",
    )
    p.add_argument(
        "--idle-timeout",
        type=float,
        default=600.0,
        help="real seconds after which a silent WebSocket is closed (API Gateway: 10 min)",
    )
    p.add_argument(
        "--max-spectators",
        type=int,
        default=None,
        help="spectator connections per room (template.yaml's MaxSpectators; default: its default, 20)",
    )
    p.add_argument(
        "--trace-posts",
        action="store_true",
        help="record which invocation (and client frame id) caused each post; GET /_local/trace "
        "(the e2e benchmark; needs --containers >= 1)",
    )
    p.add_argument(
        "--no-turn",
        action="store_true",
        help="run no TURN server (coturn, local/turn.py) for voice; public rooms' voice is relay only",
    )
    p.add_argument("--workers", type=int, default=32, help="thread pool size")
    p.add_argument("--verbose", "-v", action="store_true")
    a = p.parse_args(argv)
    if a.time_scale <= 0:
        p.error("--time-scale must be > 0")
    if a.max_spectators is not None and a.max_spectators < 0:
        p.error("--max-spectators must be >= 0")
    handlers = {}
    for item in a.handler:
        route, sep, spec = item.partition("=")
        if not sep:
            p.error(f"--handler wants ROUTE=MODULE:FUNC, got {item!r}")
        handlers[route] = spec
    return StackOptions(
        host=a.host,
        port=a.port,
        time_scale=a.time_scale,
        handlers=handlers,
        duplicate_probability=a.duplicate_probability,
        ttl_lag_s=a.ttl_lag,
        ttl_interval_s=a.ttl_interval,
        echo_route=a.echo_route,
        workers=a.workers,
        containers=a.containers,
        disconnect_loss=a.disconnect_loss,
        idle_timeout_s=a.idle_timeout,
        max_spectators=a.max_spectators,
        manual_clock=a.manual_clock,
        seed=a.seed,
        trace_posts=a.trace_posts,
        turn=not a.no_turn,
    ), a.verbose


async def serve(options: StackOptions) -> None:
    stack = LocalStack(options)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        url = await stack.start()
        print(f"ready {url}", flush=True)
        if "//127.0.0.1:" in url:  # a passkey's RP id must be a domain name, never an address
            print(f"open {url.replace('//127.0.0.1:', '//localhost:')} (passkey sign-in needs a name, not 127.0.0.1)", flush=True)
        await stop.wait()
    finally:
        await stack.stop()


def main(argv: list[str] | None = None) -> int:
    options, verbose = parse_args(argv)
    from .moto_fixes import MotoVersionError, check_moto_version

    try:
        check_moto_version()
    except MotoVersionError as exc:
        print(f"local stack: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # moto's werkzeug server logs every request at INFO; botocore chats about credentials.
    for noisy in ("werkzeug", "botocore", "urllib3"):
        logging.getLogger(noisy).setLevel(logging.INFO if verbose else logging.WARNING)
    if verbose:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
    try:
        asyncio.run(serve(options))
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"local stack: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
