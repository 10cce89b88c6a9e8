"""Installable: the web app manifest with real icons, the service worker that keeps the app
shell (and never config.json or an API answer), a real favicon, and the plain words on the
screen when the network is gone."""

from __future__ import annotations

from playwright.sync_api import expect

from .ui import Player

SW_READY_JS = """async () => {
  const reg = await navigator.serviceWorker.ready;
  if (!navigator.serviceWorker.controller) {
    await new Promise((ok) => navigator.serviceWorker.addEventListener("controllerchange", ok, { once: true }));
  }
  return { scope: reg.scope, script: reg.active && reg.active.scriptURL };
}"""

# Every URL the worker's caches hold.
CACHED_JS = """async () => {
  const out = [];
  for (const name of await caches.keys()) {
    for (const req of await (await caches.open(name)).keys()) out.push(req.url);
  }
  return out;
}"""

# The natural size of an image the page fetches.
IMAGE_SIZE_JS = """async (src) => {
  const res = await fetch(src);
  const img = new Image();
  img.src = src;
  await img.decode();
  return [res.status, res.headers.get("content-type"), img.naturalWidth, img.naturalHeight];
}"""


def test_manifest_icons_and_chromes_installability_checks(browser, stack, console_errors):
    pl = Player(browser, stack.url, "Ann", errors=console_errors)
    page = pl.page
    pl.open()
    expect(page.locator("#create-btn")).to_be_visible()
    page.evaluate(SW_READY_JS)
    cdp = page.context.new_cdp_session(page)
    got = cdp.send("Page.getAppManifest")
    assert got["url"] == stack.url + "manifest.webmanifest", got
    assert not got["errors"], got["errors"]
    manifest = page.evaluate("async (u) => (await fetch(u)).json()", got["url"])
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == "./" and manifest["scope"] == "./"
    assert manifest["name"] and manifest["short_name"]
    assert manifest["theme_color"] and manifest["background_color"]
    # each icon is there at the size the manifest says; both purposes at 192 and 512
    seen = set()
    for icon in manifest["icons"]:
        status, ctype, w, h = page.evaluate(IMAGE_SIZE_JS, icon["src"])
        assert status == 200 and ctype == icon["type"], (icon, status, ctype)
        if icon["sizes"] != "any":
            assert icon["sizes"] == f"{w}x{h}", (icon, w, h)
            seen.add((icon["purpose"], icon["sizes"]))
    assert {(p, s) for p in ("any", "maskable") for s in ("192x192", "512x512")} <= seen, seen
    # Chrome's own verdict (the one its install prompt and Lighthouse's old PWA audit read).
    # "in-incognito": every Playwright context is an off-the-record profile, where Chrome
    # never offers installing; it says nothing about the app.
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [e for e in errors if e["errorId"] != "in-incognito"] == [], errors
    # a real favicon, and the day/night colours of the browser's bar
    for href in page.locator('link[rel="icon"]').evaluate_all("(els) => els.map((e) => e.href)"):
        status, ctype, w, h = page.evaluate(IMAGE_SIZE_JS, href)
        assert status == 200 and ctype.startswith("image/") and w >= 48, (href, ctype, w)
    themes = page.locator('meta[name="theme-color"]').evaluate_all("(els) => els.map((e) => e.media)")
    assert sorted(themes) == ["(prefers-color-scheme: dark)", "(prefers-color-scheme: light)"]
    pl.close()


def test_service_worker_keeps_the_shell_and_never_config_or_api(browser, stack):
    errors: list[str] = []
    pl = Player(browser, stack.url, "Ann", errors=errors)
    page = pl.page
    pl.open()
    reg = page.evaluate(SW_READY_JS)
    assert reg == {"scope": stack.url, "script": stack.url + "sw.js"}, reg
    # A room over REST and its WebSocket: the API's answers pass the worker by.
    served_by_sw: dict[str, bool] = {}
    page.on("response", lambda r: served_by_sw.__setitem__(r.url, r.from_service_worker))
    page.fill("#create-name", pl.name)
    page.click("#create-btn")
    # the first room of a fresh stack starts its handlers cold: more than ui.create's 5 s
    # on a busy 2-core machine
    expect(page.locator(".lobby-player")).to_have_count(1, timeout=20_000)
    page.reload()
    expect(page.locator(".lobby-player")).to_have_count(1, timeout=15_000)
    page.evaluate("() => fetch('config.json').then((r) => r.json())")
    cached = page.evaluate(CACHED_JS)
    assert stack.url in cached and stack.url + "js/app.js" in cached, cached
    assert not [u for u in cached if "config.json" in u or "/api/" in u or "/ws" in u], cached
    assert served_by_sw.get(stack.url + "js/app.js") is True, served_by_sw  # the shell goes through it
    api = [u for u in served_by_sw if "/api/" in u]
    assert api and not any(served_by_sw[u] for u in api), served_by_sw
    assert served_by_sw.get(stack.url + "config.json") is False, served_by_sw

    # Offline: the app still opens (from the worker's copy) and says plainly what is wrong;
    # config.json is not answered from any cache.
    assert errors == [], errors
    pl.context.set_offline(True)
    page.goto(stack.url)
    expect(page.locator("#create-btn")).to_be_visible()
    banner = page.locator("#conn-banner")
    expect(banner).to_have_text(
        "No network connection. The game goes on where it was as soon as the network is back."
    )
    failed = page.evaluate("() => fetch('config.json', { cache: 'no-store' }).then(() => false, () => true)")
    assert failed, "config.json was answered without a network"
    page.select_option("#lang-select", "ko")
    expect(banner).to_have_text("인터넷 연결이 끊겼습니다. 연결이 돌아오면 하던 게임이 그대로 이어집니다.")
    page.select_option("#lang-select", "ru")
    expect(banner).to_contain_text("Нет подключения к сети.")
    pl.context.set_offline(False)
    expect(banner).to_be_hidden()
    expect(page.locator("#announcer")).to_have_text("Сеть снова есть.")
    # offline, the only console errors are the requests the network refused
    assert all("ERR_INTERNET_DISCONNECTED" in e for e in errors), errors
    pl.close()
