"""Voice on phones as they are: N seats in voice, each a headless Chromium page slowed down as a
phone is (CDP `Emulation.setCPUThrottlingRate`, rate 4), all in a day's discussion where
everyone hears everyone (docs/rules.md, "Voice"): does audio keep flowing on every pair, and
how much of it?

Starts the offline stack (`python -m local`, manual clock: the discussion never ends), writes a
friends' room at its first day's discussion with N people (`POST /_local/rooms`), opens each
seat's private link in its own browser context of one Chromium (fake microphone and camera:
`--use-fake-device-for-media-stream --use-fake-ui-for-media-stream`), throttles every page,
taps "Join voice" on each, waits until every page's mesh holds a connected peer connection to
each other seat, then samples each page's `getStats()` twice, `--window` seconds apart:
per directed pair (the listener's inbound-rtp from one speaker) the audio bytes received per
second, packets lost and jitter.

    .venv/bin/python bench/voice_load.py                # 12 seats, 20 s window
    .venv/bin/python bench/voice_load.py --seats 8      # fewer, if 12 do not fit
    .venv/bin/python bench/voice_load.py --quick        # 3 seats, 4 s, one container (tests/bench)

Prints ONE JSON object: `seats`, `pagesOpened`, `joined`, `throttle`, `pairs` (directed:
n(n-1)), `pairsConnected`, `pairsFlowing` (bytes received in the window > 0), `allFlowing`,
`bytesPerPairPerS` (min, p50, max), `packetsLost` (total and worst pair in the window),
`jitterMs` (p50, max over pairs), `connectS` (from the first tap to every pair connected),
`load` (the machine's CPUs and load average before and at the end of the run) and `failed`
(what went wrong, if anything: a page that would not open or join, pairs never connected).
Figures only: nothing here passes or fails on a timing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "engine"), str(ROOT / "functions")]

from local.process import start_stack  # noqa: E402
from service.protocol.names import BOT_WORD  # noqa: E402
from tests.browser.stack import CHROMIUM_ARGS, MEDIA_CHROMIUM  # noqa: E402  (the browser tier's own)

ARGS = [
    *CHROMIUM_ARGS,
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--autoplay-policy=no-user-gesture-required",
]
THROTTLE = 4  # Chromium's CPU throttling: a mid-range phone against this machine's cores

# In a page: per peer seat, its connection's state and the inbound audio's counters.
STATS = """async () => {
  const { mesh } = await __import('./js/voice/index.js');
  const out = {};
  for (const [pid, peer] of mesh.peers) {
    const row = { state: peer.pc.connectionState, bytes: 0, packets: 0, lost: 0, jitter: 0, at: 0 };
    (await peer.pc.getStats()).forEach((r) => {
      if (r.type === 'inbound-rtp' && r.kind === 'audio') {
        row.bytes += r.bytesReceived || 0;
        row.packets += r.packetsReceived || 0;
        row.lost += r.packetsLost || 0;
        row.jitter = Math.max(row.jitter, r.jitter || 0);
        row.at = r.timestamp;
      }
    });
    out[pid] = row;
  }
  return { joined: mesh.joined, peers: out };
}"""


def say(*what) -> None:
    """Progress on stderr (stdout holds the one JSON object)."""
    print(f"[{time.strftime('%H:%M:%S')}]", *what, file=sys.stderr, flush=True)


def load() -> dict:
    one, five, _ = os.getloadavg()
    return {"cpus": os.cpu_count(), "load1": round(one, 2), "load5": round(five, 2)}


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 1)


def run(seats: int, window: float, connect_timeout: float, containers: int = 4) -> dict:
    from playwright.sync_api import sync_playwright

    out: dict = {"method": "", "seats": seats, "throttle": THROTTLE, "window": window, "failed": [],
                 "containers": containers}  # fmt: skip
    out["load"] = {"before": load()}
    stack = start_stack("--containers", str(containers), manual_clock=True, timeout=180)
    try:
        names = [f"Seat {i + 1}" for i in range(seats)]
        room = stack.room(
            {
                "preset": "classic",
                "options": {"firstPhase": "day", "discussionMin": 150},
                # classic seats at least 4: a bot fills a smaller table (bots have no voice)
                "seats": [{"name": n} for n in names]
                + [{"name": f"{BOT_WORD['en']} {seats + 1 + i}", "bot": True} for i in range(max(0, 4 - seats))],
                "until": {"phase": "discussion"},
            }
        )
        code = room["roomCode"]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=MEDIA_CHROMIUM, args=ARGS)
            pages = {}
            for s in room["seats"]:
                if s["name"] not in names:
                    continue
                try:
                    ctx = browser.new_context(locale="en-US")
                    page = ctx.new_page()
                    cdp = ctx.new_cdp_session(page)
                    cdp.send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})
                    link = f"{stack.url}?room={code}#seat={code}.{s['playerId']}.{s['token']}&ws={room['wsUrl']}"
                    page.goto(link, timeout=120_000)
                    page.locator("#voice-join").wait_for(state="visible", timeout=120_000)
                    pages[s["playerId"]] = page
                except Exception as err:  # noqa: BLE001 - the figure says what did not fit
                    out["failed"].append(f"{s['name']}: page did not open ({type(err).__name__}: {str(err)[:160]})")
                say("page", s["name"], "open" if s["playerId"] in pages else "failed", "load", load()["load1"])
            out["pagesOpened"] = len(pages)
            tapped = time.monotonic()
            for pid, page in pages.items():  # every tap first: the pages join side by side
                try:
                    page.click("#voice-join", timeout=120_000, no_wait_after=True)
                except Exception as err:  # noqa: BLE001
                    out["failed"].append(f"{pid}: could not tap join ({type(err).__name__}: {str(err)[:160]})")
            for pid, page in pages.items():
                try:
                    page.locator("#voice-mute").wait_for(state="visible", timeout=240_000)
                    say("joined", pid)
                except Exception as err:  # noqa: BLE001
                    out["failed"].append(f"{pid}: did not join ({type(err).__name__}: {str(err)[:160]})")
            peers_of = {pid: [p for p in pages if p != pid] for pid in pages}

            def sample() -> dict:
                return {pid: page.evaluate(STATS) for pid, page in pages.items()}

            deadline = tapped + connect_timeout
            while True:
                seen = sample()
                up = sum(
                    1
                    for pid in pages
                    for other in peers_of[pid]
                    if seen[pid]["peers"].get(other, {}).get("state") == "connected"
                )
                say("connected pairs", up)
                if up == sum(len(v) for v in peers_of.values()) or time.monotonic() > deadline:
                    break
                next(iter(pages.values())).wait_for_timeout(500)
            out["connectS"] = round(time.monotonic() - tapped, 1)
            out["joined"] = sum(1 for v in seen.values() if v["joined"])
            first = sample()
            next(iter(pages.values())).wait_for_timeout(window * 1000)
            last = sample()
            out["load"]["during"] = load()
            rates, lost, jitter, connected, flowing, worst_lost = [], 0, [], 0, 0, 0
            for pid in pages:
                for other in peers_of[pid]:
                    a, b = first[pid]["peers"].get(other), last[pid]["peers"].get(other)
                    if not a or not b:
                        continue
                    connected += b["state"] == "connected"
                    span = (b["at"] - a["at"]) / 1000
                    got = b["bytes"] - a["bytes"]
                    flowing += got > 0
                    rates.append(got / span if span > 0 else 0.0)
                    lost += max(0, b["lost"] - a["lost"])
                    worst_lost = max(worst_lost, b["lost"] - a["lost"])
                    jitter.append(b["jitter"] * 1000)
            pairs = sum(len(v) for v in peers_of.values())
            if connected < pairs:
                out["failed"].append(f"{pairs - connected} of {pairs} directed pairs not connected at the end")
                # each such pair's last voice trace events on the listening page (mesh.js `note`)
                out["stuck"] = {}
                for pid, page in pages.items():
                    for other in peers_of[pid]:
                        if last[pid]["peers"].get(other, {}).get("state") != "connected":
                            trace = page.evaluate(
                                "(o) => (window.__voiceLog || []).filter((e) => e[1] === o).slice(-8)", other
                            )
                            out["stuck"][f"{other}>{pid}"] = [" ".join(map(str, e)) for e in trace]
            out.update(
                pairs=pairs,
                pairsConnected=connected,
                pairsFlowing=flowing,
                allFlowing=pairs > 0 and flowing == pairs,
                bytesPerPairPerS={"min": pct(rates, 0.0), "p50": pct(rates, 0.5), "max": pct(rates, 1.0)},
                packetsLost={"total": lost, "worstPair": worst_lost},
                jitterMs={"p50": pct(jitter, 0.5), "max": pct(jitter, 1.0)},
            )
            browser.close()
    finally:
        stack.stop()
    out["method"] = (
        f"{seats} headless Chromium pages (one browser, a context each, fake microphone, CPU throttled x{THROTTLE} "
        f"by CDP) joined voice in a day's discussion on the offline stack ({os.cpu_count()} CPUs shared with the "
        f"stack); per directed pair the listener's inbound-rtp audio bytes over a {window:g} s window after every "
        "pair connected (or the connect timeout)"
    )
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="3 seats, a 4 s window, one container (tests/bench)")
    p.add_argument("--seats", type=int, default=12)
    p.add_argument("--window", type=float, default=20.0, help="seconds between the two samples")
    p.add_argument("--connect-timeout", type=float, default=240.0)
    p.add_argument("--containers", type=int, default=4, help="handler worker processes of the stack")
    a = p.parse_args()
    # quick: three pages' signals need one container (each boots in ~0.8 CPU-s)
    seats, window, containers = (3, 4.0, 1) if a.quick else (a.seats, a.window, a.containers)
    print(json.dumps(run(seats, window, 120.0 if a.quick else a.connect_timeout, containers)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
