"""A phone's cold and repeat load of the home screen, in Chromium (Debian's /usr/bin/chromium,
as tests/browser launches it) at CPU ×4 (CDP Emulation.setCPUThrottlingRate) on a slow network
(CDP Network.emulateNetworkConditions: 1.6 Mbit/s down, 750 kbit/s up, 150 ms RTT), HTTP/1.1.

The client is served as the site deployer lays it out (functions/sitedeploy `plan`: the files
under /v/<release>/ with `immutable`, index.html / sw.js / manifest / config.json at the root,
no-cache), gzipped as CloudFront does, from a local server whose /api answers 404 at once (the
home screen draws without it). `after`: the built client (build/web, `make web`); `before`
(--before-rev REV): web/ of a commit, as it was published unbundled.

    .venv/bin/python bench/coldload.py --before-rev b208b0a   # 3 runs each
    .venv/bin/python bench/coldload.py --quick                 # 1 run, the build only (tests/bench)

Prints ONE JSON object, per client: `bytes` of JavaScript the home screen fetched (brotli at
quality 11 when Python's `brotli` is installed, else gzip -9: `bytes_method` says which), all
bytes likewise, `requests` (all, and scripts), `levels` (the longest chain of scripts, each
found only once the one before it arrived: 1 = every script named by the page), and the time
to the home screen (navigation start to the drawn home: `#create-btn` shown, the boot's ready
mark) cold (a fresh profile) and repeat (the same profile again: HTTP cache and worker), the
median of the runs.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "functions")]

from local import webbuild  # noqa: E402
from sitedeploy import handler as site  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]  # fmt: skip
NETWORK = {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8, "uploadThroughput": 750_000 / 8}
CPU_RATE = 4
HOME = "() => document.documentElement.dataset.ready === '1' && !!document.querySelector('#create-btn')"

try:
    import brotli

    def packed(data: bytes) -> int:
        return len(brotli.compress(data, quality=11))

    METHOD = "brotli q11"
except ImportError:  # the figure then says gzip

    def packed(data: bytes) -> int:
        return len(gzip.compress(data, compresslevel=9, mtime=0))

    METHOD = "gzip -9 (no brotli module)"


def site_objects(web: Path) -> dict[str, tuple[bytes, str]]:
    _, objects = site.plan(web, {"apiUrl": "/api"})
    return objects


def serve(objects: dict[str, tuple[bytes, str]]) -> ThreadingHTTPServer:
    class Site(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):  # noqa: N802 - http.server's name
            path = self.path.split("?", 1)[0]
            if path.startswith("/api"):
                return self._send(404, b'{"error": {"code": "not_found", "message": "no API"}}', "application/json", "no-cache")
            last = path.rsplit("/", 1)[-1]
            key = "index.html" if "." not in last else path.lstrip("/")
            if key not in objects:
                return self._send(404, b"not found", "text/plain", "no-cache")
            body, cache = objects[key]
            self._send(200, body, site._content_type(key), cache)

        def _send(self, status, body, kind, cache):
            zipped = "gzip" in self.headers.get("Accept-Encoding", "") and len(body) >= 1000 and not kind.startswith("image/png")
            if zipped:
                body = gzip.compress(body, compresslevel=6, mtime=0)
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Cache-Control", cache)
            if zipped:
                self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def load(page, cdp, url: str) -> tuple[float, list[dict]]:
    """Navigate, wait for the home screen; (ms to it, the requests with their initiators)."""
    sent: list[dict] = []

    def on_request(event: dict) -> None:
        sent.append(event)

    cdp.on("Network.requestWillBeSent", on_request)
    page.goto(url, wait_until="commit")
    page.wait_for_function(HOME, timeout=120_000, polling=50)
    ms = page.evaluate("() => performance.now()")
    page.wait_for_timeout(300)  # late requests of the boot are counted too
    cdp.remove_listener("Network.requestWillBeSent", on_request)
    return ms, sent


def key_of(request_url: str, url: str) -> str | None:
    """The object a request fetched (None: the API)."""
    path = request_url[len(url):].split("?", 1)[0].split("#", 1)[0]
    if path.startswith("api"):
        return None
    return path if "." in path.rsplit("/", 1)[-1] else "index.html"


def levels(requests: list[dict]) -> int:
    """The longest chain of scripts: 1 for a script the page names, n+1 for one a level-n script asked for."""
    level: dict[str, int] = {}
    for e in requests:
        req, init = e["request"], e.get("initiator") or {}
        if e.get("type") != "Script" and not req["url"].endswith((".js", ".mjs")):
            continue
        by = init.get("url") or ""
        stack = init.get("stack")
        while not by and stack:
            frames = stack.get("callFrames") or []
            by = frames[0]["url"] if frames else ""
            stack = stack.get("parent")
        level.setdefault(req["url"], level.get(by, 0) + 1)
    return max(level.values(), default=0)


def measure(web: Path, runs: int) -> dict:
    from playwright.sync_api import sync_playwright

    objects = site_objects(web)
    server = serve(objects)
    url = f"http://127.0.0.1:{server.server_port}/"
    cold, repeat, shapes = [], [], []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for _ in range(runs):
                ctx = browser.new_context(viewport={"width": 412, "height": 915}, locale="en-US")
                page = ctx.new_page()
                cdp = ctx.new_cdp_session(page)
                cdp.send("Network.enable")
                cdp.send("Network.emulateNetworkConditions", NETWORK)
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_RATE})
                ms, sent = load(page, cdp, url)
                cold.append(ms)
                shapes.append(sent)
                # the worker installed (it precaches in the background): then the same profile again
                page.evaluate("async () => { if (navigator.serviceWorker) await navigator.serviceWorker.ready; }")
                page.wait_for_timeout(500)
                ms, _ = load(page, cdp, url)
                repeat.append(ms)
                ctx.close()
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    sent = shapes[0]
    keys = {key_of(e["request"]["url"], url) for e in sent if e["request"]["url"].startswith(url)}
    keys.discard(None)
    scripts = {k for k in keys if k.endswith((".js", ".mjs")) and k != "sw.js"}
    return {
        "js_bytes": sum(packed(objects[k][0]) for k in scripts),
        "all_bytes": sum(packed(objects[k][0]) for k in keys),
        "requests": len(sent),
        "script_requests": len(scripts),
        "levels": levels(sent),
        "cold_ms": round(statistics.median(cold)),
        "repeat_ms": round(statistics.median(repeat)),
        "cold_runs_ms": [round(x) for x in cold],
        "repeat_runs_ms": [round(x) for x in repeat],
        "release_files": sum(1 for k in objects if k.startswith("v/")),
    }


def source_of(rev: str, workdir: Path) -> Path:
    """web/ of a commit, as a folder (git archive)."""
    data = subprocess.run(["git", "archive", rev, "web"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(workdir, filter="data")
    return workdir / "web"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="1 run, the build only")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--before-rev", help="also measure web/ of this commit, unbundled (e.g. b208b0a)")
    args = ap.parse_args()
    runs = 1 if args.quick else args.runs
    out = {
        "method": f"Chromium {CHROMIUM}, CPU x{CPU_RATE}, {NETWORK['downloadThroughput'] * 8 / 1e6:g} Mbit/s down, "
                  f"{NETWORK['latency']} ms RTT, HTTP/1.1, the site deployer's layout; bytes: {METHOD}; "
                  f"median of {runs} run(s); time: navigation start to the drawn home screen",
        "bytes_method": METHOD,
        "runs": runs,
        "after": measure(webbuild.built(), runs),
    }  # fmt: skip
    if args.before_rev and not args.quick:
        with tempfile.TemporaryDirectory() as tmp:
            out["before"] = measure(source_of(args.before_rev, Path(tmp)), runs)
            out["before"]["rev"] = args.before_rev
    print(json.dumps(out))


if __name__ == "__main__":
    main()
