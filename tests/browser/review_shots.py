"""Screenshots of the original rules' last word and of the post-game review on a phone.

The views are real engine views of a scripted `original` game (the engine plays it; names
merged as the room layer does), drawn by the real client modules (`screens/game.js`,
`screens/end.js`) in Chromium at 390x844, served from `web/` by a static file server.

    .venv/bin/python -m tests.browser.review_shots [--out docs/screenshots] [--lang ko]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import sys
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from .stack import CHROMIUM, CHROMIUM_ARGS, MISSING_CHROMIUM, REPO

sys.path.insert(0, str(REPO / "layers" / "engine"))

import mafia_engine as me  # noqa: E402

from .scripted import Scripted  # noqa: E402

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]
ROLES = ["mafia", "godfather", "police", "citizen", "doctor", "citizen", "citizen", "citizen"]
MOBILE = {"width": 390, "height": 844}


class Game(Scripted):
    """Original with the expansion, eight seats dealt as ROLES (tests/browser/scripted.py)."""

    def __init__(self) -> None:
        super().__init__("original", ROLES, seed=3, expansion=True)

    def night(self, **acts) -> None:
        while self.kind != "night":
            self.timeout()
        for pid, todo in acts.items():
            for typ, target in todo:
                self.act(typ, pid, target=target)
        for p in self.s["players"]:
            if self.kind == "night" and p["alive"] and p["id"] not in self.s["phase"]["done"]:
                self.act("sleep", p["id"])

    def speeches(self, **noms) -> None:
        while self.kind == "speech":
            sp = self.s["phase"]["speaker"]
            self.act("nominate", sp, target=noms.get(sp))

    def view(self, viewer: str | None) -> dict:
        v = me.view(self.s, viewer)
        for p in v["players"]:
            p["name"] = NAMES[int(p["id"][1:]) - 1]
            p["connected"] = True
        v["serverNow"] = time.time()
        v["clockRate"] = 1
        v["room"] = {
            "code": "MAFIA",
            "host": "p1",
            "status": v["phase"]["kind"],
            "scores": {},
            "wakeAt": None,
        }
        if v["phase"]["endsAt"] is not None:
            v["phase"]["endsAt"] = v["serverNow"] + (v["phase"]["endsAt"] - self.now)
        return v


def scripted() -> tuple[dict, dict, dict]:
    """(Hal's last word seen by Eve, and by Hal; the ended view with the review)."""
    g = Game()
    g.timeout()
    g.act("chat", "p1", channel="mafia", text="Dan first, then Eve")
    g.act("chat", "p2", channel="mafia", text="ok. I check who the investigator is")
    g.night(p3=[("investigate", "p8")], p2=[("godfatherCheck", "p3")], p5=[("heal", "p5")])
    g.speeches()
    g.night(
        p1=[("mafiaTarget", "p4")],
        p2=[("mafiaTarget", "p4"), ("godfatherCheck", "p6")],
        p3=[("investigate", "p1")],
        p5=[("heal", "p3")],
    )
    g.speeches(p2="p8", p3="p1")
    while g.kind == "defense":
        g.act("endTurn", g.s["phase"]["accused"])
    for voter, target in (("p2", "p8"), ("p3", "p1"), ("p5", "p8"), ("p6", "p8"), ("p7", "p1"), ("p8", "p1")):
        g.act("vote", voter, target=target)
    g.act("vote", "p1", target="p8")
    assert g.kind == "lastWord", g.kind
    g.act("chat", "p8", channel="day", text="I was a plain citizen. Bob pushed for me: look at Bob.")
    last_word = g.view("p5")
    last_word_own = g.view("p8")
    g.act("chat", "p8", channel="day", text="Good luck, everyone.")
    g.act("endTurn", "p8")
    g.act("chat", "p8", channel="dead", text="it was Bob and Ann, I am sure")
    g.night(
        p1=[("mafiaTarget", "p3")], p2=[("mafiaTarget", "p3"), ("godfatherCheck", "p5")], p5=[("heal", "p3")]
    )
    g.speeches(p3="p1", p5="p2")
    while g.kind == "defense":
        g.act("endTurn", g.s["phase"]["accused"])
    for voter in ("p2", "p3", "p5", "p6", "p7"):
        g.act("vote", voter, target="p1")
    g.act("vote", "p1", target="p2")
    if g.kind == "lastWord":
        g.act("chat", "p1", channel="day", text="well played")
        g.act("endTurn", "p1")
    g.night(p2=[("mafiaTarget", "p6")])
    g.speeches(p3="p2")
    while g.kind == "defense":
        g.act("endTurn", g.s["phase"]["accused"])
    assert g.kind == "ended", g.kind
    return last_word, last_word_own, g.view("p5")


def serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:  # noqa: D102
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


DRAW = """async ([screen, view, open]) => {
  const m = await __import(`./js/screens/${screen}.js`);
  const main = document.querySelector('#main');
  main.replaceChildren();
  document.body.dataset.screen = screen;
  const ctx = {state: {view}, send() {}, rerender() {}, toast() {}, goHome() {}, shareLink: () => ''};
  const s = m.mount(main, ctx);
  s.update(view);
  for (const i of open) {
    const d = document.querySelector(`#review-step-${i}`);
    if (d) d.open = true;
  }
}"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    ap.add_argument("--lang", default="ko", choices=["ko", "ru", "en"])
    args = ap.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(MISSING_CHROMIUM, file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    last_word, last_word_own, ended = scripted()
    httpd, url = serve(REPO / "web")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport=MOBILE)
            page.add_init_script(f"localStorage.setItem('mafia.lang', {json.dumps(args.lang)})")
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url)
            page.wait_for_selector("#main")
            page.evaluate(DRAW, ["game", last_word, []])
            page.wait_for_selector("#last-word-done, .phase-hint")
            page.screenshot(path=str(args.out / f"last-word-{args.lang}-mobile.png"))
            page.evaluate(DRAW, ["game", last_word_own, []])
            page.wait_for_selector("#last-word-done")
            page.screenshot(path=str(args.out / f"last-word-own-{args.lang}-mobile.png"))
            steps = ended["review"]["steps"]
            page.evaluate(DRAW, ["end", ended, [i for i, st in enumerate(steps) if st["day"] >= 2][:2]])
            page.locator("#review").scroll_into_view_if_needed()
            page.wait_for_timeout(200)
            page.locator("#review").screenshot(path=str(args.out / f"review-{args.lang}-mobile.png"))
            browser.close()
            if errors:
                print("page errors:", errors, file=sys.stderr)
                return 1
    finally:
        httpd.shutdown()
    print(f"screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
