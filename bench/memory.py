"""Memory of the offline stack over an evening of games (`make dev` may stay up for hours).

Starts ``python -m local`` as a subprocess and plays short classic games, a few rooms at a
time: a host creates the room over REST, adds bots (they play on the server), starts, and
nudges at ``wakeAt``/``endsAt`` as the web client does, until the game ends. Reads the stack's
main process RSS (moto, the gateway, the Scheduler and TTL emulation live there; handlers run
in worker processes, reported apart) after the first ``--first`` games and after ``--games``.

Prints ONE JSON object:
  games, seconds                      what ran
  rss_mb_after_first, rss_mb_after_all  main process RSS after --first and after --games games
  growth_mb                           the difference (goal <= 50 between 10 and 150 games)
  workers_rss_mb                      RSS of the handler worker processes at the end (sum)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "layers" / "engine")]  # local.client plays by the engine's policy

import aiohttp  # noqa: E402

from local.client import Api, ApiError, Player  # noqa: E402
from local.process import start_stack  # noqa: E402

FAILED: list[str] = []  # games that did not finish (retried, counted, reported)
SHORT = {  # the shortest classic game the options allow
    "firstPhase": "night",
    "discussionPerAlive": 10,
    "discussionMin": 30,
    "discussionMax": 30,
    "voteSeconds": 10,
    "defenseSeconds": 10,
    "confirmSeconds": 5,
    "nightSeconds": 15,
}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


async def one_game(http: aiohttp.ClientSession, api: Api, bots: int, timeout: float) -> None:
    seat = await api.create_room("Host", "classic", SHORT)
    for attempt in range(3):  # on a loaded machine $connect can time out (API Gateway: 500)
        try:
            host = await Player.connect(http, seat)
            break
        except (aiohttp.WSServerHandshakeError, TimeoutError):
            if attempt == 2:
                raise
            await asyncio.sleep(1.0)
    try:
        for _ in range(bots):
            await host.request("addBot")
        reply = await host.request("start")
        if reply.get("type") == "error":
            raise RuntimeError(f"start refused: {reply}")
        deadline = time.monotonic() + timeout
        while host.phase_kind() != "ended":
            if time.monotonic() > deadline:
                raise TimeoutError(f"room {seat.room}: game did not end in {timeout}s")
            view = host.view or {}
            rate = float(view.get("clockRate") or 1.0)
            due = [t for t in ((view.get("room") or {}).get("wakeAt"), view["phase"].get("endsAt")) if t]
            wait = max(0.0, (min(due) - host.server_now()) / rate) + 0.05 if due else 1.0
            version = host.version
            try:
                await host.wait_for(lambda p, v=version: p.version != v, timeout=wait)
            except TimeoutError:
                await host.send("nudge", phase=view["phase"]["seq"])  # what the client does when due
    finally:
        await host.close()


async def play(
    url: str, games: int, parallel: int, bots: int, timeout: float, after: int, on_after, progress=None
) -> None:
    done = 0
    failed = FAILED
    async with aiohttp.ClientSession() as http:
        api = Api(http, url)

        async def worker() -> None:
            nonlocal done
            while done < games and len(failed) <= games:
                try:
                    await one_game(http, api, bots, timeout)
                except (TimeoutError, aiohttp.ClientError, ApiError, RuntimeError) as exc:
                    failed.append(repr(exc)[:200])  # a loaded machine: count it, let it breathe
                    await asyncio.sleep(2.0)
                    continue
                done += 1
                if done == after:
                    on_after()
                if progress and done % 10 == 0:
                    progress(done)

        await asyncio.gather(*(worker() for _ in range(parallel)))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=150)
    p.add_argument("--first", type=int, default=10, help="the first RSS reading after this many games")
    p.add_argument("--parallel", type=int, default=5, help="rooms playing at once")
    p.add_argument("--bots", type=int, default=5, help="bots beside the host")
    p.add_argument("--time-scale", type=float, default=30.0)
    p.add_argument("--game-timeout", type=float, default=120.0, help="real seconds per game at most")
    p.add_argument("--containers", type=int, default=4, help="handler worker processes of the stack")
    p.add_argument("--quick", action="store_true",
                   help="2 games of 4 seats at time scale 60 on one container, the first reading after 1: "
                   "does it run")
    a = p.parse_args()
    if a.quick:  # each container boots in ~0.8 CPU-s; two rooms of bots need one
        a.games, a.first, a.parallel, a.bots, a.time_scale, a.containers = 2, 1, 2, 3, 60.0, 1
    stack = start_stack("--time-scale", str(a.time_scale), "--containers", str(a.containers))
    readings: dict[str, float] = {}
    t0 = time.monotonic()
    try:

        def first() -> None:
            readings["first"] = rss_mb(stack.proc.pid)

        def progress(done: int) -> None:
            print(
                f"{done} games ({len(FAILED)} failed), {time.monotonic() - t0:.0f} s: "
                f"main RSS {rss_mb(stack.proc.pid):.1f} MB",
                file=sys.stderr,
                flush=True,
            )

        asyncio.run(play(stack.url, a.games, a.parallel, a.bots, a.game_timeout, a.first, first, progress))
        time.sleep(1.0)
        readings["all"] = rss_mb(stack.proc.pid)
        workers = sum(rss_mb(c) for c in children(stack.proc.pid))
    finally:
        rc = stack.stop()
    out = {
        "method": "bot games on `python -m local` (server bots, the host nudging at wakeAt/endsAt); RSS of the "
        "stack's main process from /proc after --first games and after all, handler workers summed apart",
        "games": a.games,
        "first": a.first,
        "parallel": a.parallel,
        "players": a.bots + 1,
        "containers": a.containers,
        "time_scale": a.time_scale,
        "seconds": round(time.monotonic() - t0, 1),
        "rss_mb_after_first": round(readings["first"], 1),
        "rss_mb_after_all": round(readings["all"], 1),
        "growth_mb": round(readings["all"] - readings["first"], 1),
        "workers_rss_mb": round(workers, 1),
        "failed_games": len(FAILED),
        "stack_exit": rc,
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
