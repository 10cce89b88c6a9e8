"""The deployed site's two pieces that run in a browser-like engine, run in Chromium:
the CloudFront viewer-request function (template.yaml ViewerRequestFunction: /api stripped
for the REST origin, the SPA fallback), and the client as the site deployer lays it out
(functions/sitedeploy: assets under /v/<release>/, index.html pointing there), served the
way CloudFront serves the bucket."""

from __future__ import annotations

import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from local import template, webbuild
from sitedeploy import handler as site

ROOT = Path(__file__).resolve().parents[2]
FUNCTION = template.load()["Resources"]["ViewerRequestFunction"]["Properties"]["FunctionCode"]


@pytest.fixture
def page(browser):
    ctx = browser.new_context()
    p = ctx.new_page()
    yield p
    ctx.close()


def viewer_request(page, uri: str) -> str:
    return page.evaluate(
        "([code, uri]) => { const handler = new Function(code + '; return handler;')();"
        " return handler({request: {uri, method: 'GET', querystring: {}, headers: {}}}).uri; }",
        [FUNCTION, uri],
    )


@pytest.mark.parametrize(("uri", "origin_uri"), [
    ("/api/rooms", "/rooms"),
    ("/api/rooms/ABCDE", "/rooms/ABCDE"),
    ("/api/rooms/ABCDE/players", "/rooms/ABCDE/players"),
    ("/api", "/"),
    ("/", "/index.html"),
    ("/ABCDE", "/index.html"),
    ("/some/deep/path", "/index.html"),
    ("/config.json", "/config.json"),
    ("/v/0123456789abcdef/js/app.js", "/v/0123456789abcdef/js/app.js"),
    ("/apiary.css", "/apiary.css"),
    ("/apiary", "/index.html"),
])  # fmt: skip
def test_the_viewer_request_function(page, uri, origin_uri):
    assert viewer_request(page, uri) == origin_uri


def test_what_reaches_the_rest_stage_matches_the_rest_functions_routes(page, monkeypatch):
    """The client calls /api + a route's path; the function turns it into the route's own path
    (API Gateway's `path`, which the REST resolver in functions/handlers/rest.py routes), with
    no /api left. The routes are the resolver's own (its OpenAPI paths)."""
    # the handler wires its boto3 clients at import (handlers/wiring.py): they need a region
    monkeypatch.setenv("AWS_DEFAULT_REGION", os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))
    from handlers.rest import app

    paths = list(app.get_openapi_schema().paths)
    assert paths, "the REST resolver declares no route"
    for route in paths:
        path = route.replace("{roomCode}", "ABCDE")
        assert viewer_request(page, "/api" + path) == path, route


class Bucket(BaseHTTPRequestHandler):
    """The bucket behind CloudFront: the objects the site deployer writes, the viewer-request
    rule's SPA fallback, 403 for a missing key (S3 without ListBucket), 404 JSON for /api."""

    objects: dict[str, tuple[bytes, str]] = {}
    served: list[tuple[str, int]] = []

    def do_GET(self):  # noqa: N802 - http.server's name
        path = self.path.split("?", 1)[0]
        if path.startswith("/api/"):
            return self._send(404, b'{"error": {"code": "not_found", "message": "no API here"}}', "application/json")
        last = path.rsplit("/", 1)[-1]
        key = "index.html" if "." not in last else path.lstrip("/")
        if key not in self.objects:
            return self._send(403, b"AccessDenied", "application/xml")
        body, cache = self.objects[key]
        self._send(200, body, site._content_type(key), cache)

    def _send(self, status: int, body: bytes, kind: str, cache: str = "") -> None:
        self.served.append((self.path, status))
        self.send_response(status)
        self.send_header("Content-Type", kind)
        if cache:
            self.send_header("Cache-Control", cache)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def deployed():
    release, objects = site.plan(webbuild.built(), {"apiUrl": "/api", "wsUrl": "wss://ws.invalid/prod"})
    Bucket.objects, Bucket.served = objects, []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Bucket)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", release
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("entry", ["/", "/?room=ABCDE", "/ABCDE"])
def test_the_published_client_loads_every_module_of_its_release(page, deployed, entry):
    url, release = deployed
    failed: list[str] = []
    fetched: list[str] = []  # by the page (the worker's precache is its own)
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.on("request", lambda r: fetched.append(r.url))
    page.goto(url + entry)
    page.wait_for_selector("#main *")  # the client booted and rendered its first screen
    assets = [(p, s) for p, s in Bucket.served if p.startswith("/v/")]
    assert assets and all(p.startswith(f"/v/{release}/") and s == 200 for p, s in assets), Bucket.served
    assert ("/config.json", 200) in Bucket.served
    assert not failed
    files = {u.split("/", 5)[5] for u in fetched if u.startswith(f"{url}/v/")}
    assert files >= {"style.css", "js/app.js", "js/player.js"}, files
    # the bundle (scripts/build_web.mjs): one language of three, not the screen's entry, the
    # single-device mode or the QR drawing
    assert len([f for f in files if f.startswith(("js/en-", "js/ko-", "js/ru-"))]) == 1, files
    assert not [f for f in files if f.startswith(("js/display", "js/device", "js/qrcode-"))], files
    # no test handles on a published page (web/js/testhooks.js: only the offline stack's config),
    # and never the testing chunk
    assert page.evaluate("() => ['__i18nMissing', '__cues', '__device', '__import'].filter((k) => k in window)") == []
    assert not [f for f in files if f.startswith("js/testing-")], files


def test_the_published_site_installs_its_worker_at_the_root(page, deployed):
    """As deployed, the scripts come from /v/<release>/ but the worker and the manifest from the
    root: the worker's scope is the whole site and the app's id does not change with a release."""
    url, release = deployed
    page.goto(url + "/ABCDE")
    page.wait_for_selector("#main *")
    reg = page.evaluate(
        "async () => { const r = await navigator.serviceWorker.ready;"
        " return { scope: r.scope, script: r.active && r.active.scriptURL }; }"
    )
    assert reg == {"scope": url + "/", "script": url + "/sw.js"}, reg
    manifest = page.evaluate("() => document.querySelector('link[rel=manifest]').href")
    assert manifest == url + "/manifest.webmanifest"
    assert ("/sw.js", 200) in Bucket.served


# Every URL the worker's caches hold.
CACHED_JS = """async () => {
  const out = [];
  for (const name of await caches.keys()) {
    for (const req of await (await caches.open(name)).keys()) out.push(req.url);
  }
  return out;
}"""


def test_the_worker_serves_a_release_cache_first_and_stores_each_file_once(page, deployed):
    """A release's files are immutable (web/sw.js): once the worker keeps them, a load takes
    them from its cache without asking the network, even when the network would refuse them;
    each is kept once, under its own URL."""
    url, release = deployed
    page.goto(url + "/")
    page.wait_for_selector("#main *")
    page.evaluate(
        "async () => { await navigator.serviceWorker.ready; if (!navigator.serviceWorker.controller)"
        " await new Promise((ok) => navigator.serviceWorker.addEventListener('controllerchange', ok, { once: true })); }"
    )
    page.reload()
    page.wait_for_selector("#main *")
    cached = page.evaluate(CACHED_JS)
    assert len(cached) == len(set(cached)), cached
    kept = [u for u in cached if "/v/" in u]
    assert kept and all(u.startswith(f"{url}/v/{release}/") for u in kept), cached
    # the bucket now refuses every file of the release, the browser's own cache is emptied:
    # only the worker's copies can answer
    refused = {k: v for k, v in Bucket.objects.items() if not k.startswith("v/")}
    saved, Bucket.objects, Bucket.served = Bucket.objects, refused, []
    try:
        page.context.new_cdp_session(page).send("Network.clearBrowserCache")
        by_worker: dict[str, bool] = {}
        page.on("response", lambda r: by_worker.__setitem__(r.url, r.from_service_worker))
        page.reload()
        page.wait_for_selector("#main #create-btn")
    finally:
        Bucket.objects = saved
    assert not [p for p, _ in Bucket.served if p.startswith("/v/")], Bucket.served
    scripts = [u for u in by_worker if "/v/" in u and u.endswith(".js")]
    assert scripts and all(by_worker[u] for u in scripts), by_worker
    assert page.evaluate(CACHED_JS) == cached  # nothing stored again


@pytest.mark.parametrize(("locale", "kept", "lang"), [("ko-KR", None, "ko"), ("en-US", "ru", "ru"), ("de-DE", None, "en")])
def test_the_page_preloads_the_one_language_the_client_reads(browser, deployed, locale, kept, lang):
    """index.html preloads the language web/js/i18n.js will pick (the kept choice, else the
    browser's first language we have, else English): a wrong guess would fetch two."""
    url, _ = deployed
    ctx = browser.new_context(locale=locale)
    page = ctx.new_page()
    if kept:
        page.add_init_script(f"localStorage.setItem('mafia.lang', '{kept}')")
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url))
    page.goto(url + "/")
    page.wait_for_selector("#main #create-btn")
    assert page.evaluate("() => document.documentElement.lang") == lang
    langs = [u.rsplit("/", 1)[1][:3] for u in fetched if u.rsplit("/", 1)[1][:3] in ("en-", "ko-", "ru-")]
    assert langs == [f"{lang}-"], fetched
    preloaded = page.evaluate("() => [...document.querySelectorAll('link[rel=modulepreload]')].map((l) => l.href)")
    assert any(u.rsplit("/", 1)[1].startswith(f"{lang}-") for u in preloaded), preloaded
    ctx.close()
