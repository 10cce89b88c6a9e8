"""Screens from scripted states: the pure engine plays a game with chosen roles to the state a
test needs (`Scripted`), and the real client modules draw one seat's view of it.

Two ways to draw, both after the client's boot (`Player.open` waits for html[data-ready]):

- `draw(page, screen, view)`: mount one screen module (home, lobby, game, end) into #main
  with a stand-in ctx, as review_shots.py does; the mounted screen stays reachable
  (`window.__screen`, `UPDATE`) so a test can hand it the next view. `seated=True` keeps a
  seat in the stand-in ctx (the seat tools and the lobby need its token).
- `show(page, view)`: the view arrives as the app's own frames do (web/js/frames.js
  `onViewFrame`): the store picks the screen, the page around it is drawn (top bar, day or
  night tone, room chip, "my role", rules), the announcements, cues and news cards follow.
  The page as a player sees it, for the checks of a whole page (axe, layout, words);
  `show(page, None)` is the home screen. `fresh=False` is the next view of the same game
  (the drafts, the live region and the cues see a change of phase).

Any preset (classic, city, original), any language (the page's locale, or the picker).
The lobby's view comes from the service's own view builder (`lobby_view`)."""

from __future__ import annotations

import time
from contextlib import contextmanager

from playwright.sync_api import expect

import mafia_engine as me

from .ui import MOBILE, Player

LOCALES = {"ko": "ko-KR", "ru": "ru-RU", "en": "en-US"}
NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Lea", "Max", "Ned"]
ROOM = "MAFIA"


class Scripted:
    """An engine game with chosen roles, played by the test; `view(pid)` is what that seat's
    page receives (names, presence and the room block merged as functions/service/protocol/views.py does).

    `names`: seat names in seat order (NAMES by default); `bots`: the seats that are bots
    (named "Bot N" by the server, in the viewer's language by the client)."""

    def __init__(
        self,
        preset: str,
        roles: list[str],
        *,
        names: list[str] | None = None,
        bots: tuple[str, ...] = (),
        seed: int = 5,
        **options,
    ) -> None:
        self.ids = [f"p{i}" for i in range(1, len(roles) + 1)]
        self.now = 0.0
        self.names = list(names or NAMES)[: len(roles)]
        self.bots = set(bots)
        s = me.new_game(self.ids, {"preset": preset, "kidSafeChat": False, **options}, seed=seed)
        for p, role in zip(s["players"], roles, strict=True):
            p["role"] = role
        self.s = s

    @property
    def kind(self) -> str:
        return self.s["phase"]["kind"]

    def act(self, typ: str, player: str | None = None, **payload) -> None:
        self.now += 1.0
        a = {"type": typ, **payload}
        if player:
            a["player"] = player
        self.s = me.apply(self.s, a, self.now)

    def timeout(self) -> None:
        self.now = max(self.now, self.s["phase"]["endsAt"] or self.now)
        self.s = me.apply(self.s, {"type": "phaseTimeout", "phase": self.s["seq"]}, self.now)

    def until(self, kind: str) -> None:
        for _ in range(30):
            if self.kind == kind:
                return
            self.timeout()
        raise AssertionError(f"never reached {kind}")

    def living(self) -> list[str]:
        return [p["id"] for p in self.s["players"] if p["alive"]]

    def role_of(self, pid: str) -> str:
        return next(p["role"] for p in self.s["players"] if p["id"] == pid)

    def seat_name(self, pid: str) -> str:
        i = int(pid[1:])
        return f"Bot {i}" if pid in self.bots else self.names[i - 1]

    def view(self, viewer: str | None) -> dict:
        v = me.view(self.s, viewer)
        for p in v["players"]:
            p["name"] = self.seat_name(p["id"])
            p["connected"] = True
            p["ready"] = False
            p["host"] = p["id"] == "p1"
            p["bot"] = p["id"] in self.bots
        v["serverNow"] = time.time()
        v["clockRate"] = 1
        v["room"] = {
            "code": ROOM,
            "host": "p1",
            "hostAwaySince": None,
            "status": self.kind,
            "scores": {},
            "wakeAt": None,
            "setupError": None,
            "idleOptions": [],
            "narrator": False,
            "lang": "en",
            "screens": 0,
        }
        if v["phase"]["endsAt"] is not None:
            v["phase"]["endsAt"] = v["serverNow"] + (v["phase"]["endsAt"] - self.now)
        return v


def lobby_view(
    preset: str,
    names: list[str],
    viewer: str | None = "p1",
    *,
    bots: int = 0,
    options: dict | None = None,
    lang: str = "en",
) -> dict:
    """The lobby as the service builds it (functions/service/room/viewframes.py `view_of`: the
    engine's lobby view, the room block with its setup error and idle options, each seat's
    facts): `names` are people (p1 the host), then `bots` bots named as the server names them;
    everyone but the host is ready."""
    from service.room import operations, viewframes  # the functions' code, on the tests' path

    room = {
        "code": ROOM,
        "host": "p1",
        "status": "lobby",
        "preset": preset,
        "options": dict(options or {}),
        "lang": lang,
        "players": [],
    }
    for i, name in enumerate(names, start=1):
        room["players"].append({"id": f"p{i}", "name": name, "ready": i > 1})
    for _ in range(bots):
        seat = len(room["players"]) + 1
        room["players"].append(
            {"id": f"p{seat}", "name": operations.bot_name(room), "ready": True, "bot": True}
        )
    people = {p["id"] for p in room["players"] if not p.get("bot")}
    v = viewframes.view_of(room, None, people, viewer)
    v["serverNow"] = time.time()
    v["clockRate"] = 1
    return v


# ---------------------------------------------------------------- booted pages, reused
# A page's boot costs about 1.2 CPU-s of Chromium (a context, 83 requests, 78 modules; measured
# on this machine before the bundle; bundled, 18 requests and about a third less wall time:
# docs/architecture.md, "Client build"), most of what one screen check costs. Within a test module, a page that a
# test closed (`Player.close`: its checks passed) goes back to a pool and the module's next
# `page_in` of the same language and viewport takes it, reset as a boot leaves a page (RESET).
# The pool is open only inside `pooled_pages()` (tests/browser/conftest.py: per module); the
# screenshot scripts get a fresh page each time.
_POOL: dict[tuple, list[Player]] | None = None

# How a boot leaves the page, with `show(page, None)` after it (which shuts the dialogs and
# sheets, forgets the view, the seat and the game, and draws the home): the home screen mounted
# anew (its first showing: the browser keeps its own focus), nothing stored in this tab or
# device, the language of the browser's locale, the live region silent, the voice bar hidden with
# no status said, the test hooks' records empty (tests/browser/test_page_pool.py).
RESET = """async (lang) => {
  const {state} = await __import('./js/store.js');
  const i18n = await __import('./js/i18n.js');
  for (const d of document.querySelectorAll('dialog[open]')) d.close();
  if (state.screen && state.screen.destroy) state.screen.destroy();
  document.querySelector('#main').replaceChildren();
  Object.assign(state, {view: null, conn: null, status: 'idle', screenName: null, shownScreen: null,
    focusPending: false, screen: null, nudged: {key: null, count: 0, next: 0}, notice: null,
    lateJoin: null});
  state.pending.clear();
  i18n.setKid(false);
  await i18n.setLang(lang);
  localStorage.clear();
  sessionStorage.clear();
  await new Promise((done) => setTimeout(done, 60));  // an announcement on its way (cues.js: 50 ms)
  document.querySelector('#announcer').textContent = '';
  const toast = document.querySelector('#toast');
  if (toast) toast.hidden = true;
  if (window.__i18nMissing) window.__i18nMissing.clear();
  if (window.__cues) window.__cues.length = 0;
  (await __import('./js/voice/index.js')).redrawVoice();  // no view: hidden, its last status forgotten
  if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
}"""


class _Pooled(Player):
    """A page of the pool: `close` checks it as `Player.close` does, then gives it back."""

    key: tuple
    idle_errors: list[str]

    def close(self) -> None:
        if _POOL is None or self.page.is_closed() or self.errors:
            return super().close()
        self.check_no_keys()
        self.errors = self.idle_errors  # what the page says while it waits goes to its next test
        _POOL.setdefault(self.key, []).append(self)


@contextmanager
def pooled_pages():
    """Inside: `page_in` reuses the pages closed before it; after: every pooled page closes."""
    global _POOL
    _POOL = {}
    try:
        yield
    finally:
        pool, _POOL = _POOL, None
        for pl in (pl for pls in pool.values() for pl in pls):
            pl.context.close()


def page_in(
    browser, stack, lang: str, errors: list[str], viewport: dict | None = None, name: str = "Ann"
) -> Player:
    """A page of the client in `lang` (the browser's locale), booted: ready for `draw`/`show`."""
    viewport = viewport or MOBILE
    key = (id(browser), stack.url, lang, viewport["width"], viewport["height"])
    free = _POOL.get(key) if _POOL is not None else None
    if free:
        pl = free.pop()
        errors.extend(pl.idle_errors)
        pl.idle_errors.clear()
        pl.errors, pl.name = errors, name
        pl.page.evaluate(RESET, lang)
        show(pl.page, None)
    else:
        pl = _Pooled(browser, stack.url, name, viewport=viewport, locale=LOCALES[lang], errors=errors)
        pl.key, pl.idle_errors = key, []
        pl.open()
    expect(pl.page.locator("html")).to_have_attribute("lang", lang)
    return pl


def name(pid: str) -> str:
    return NAMES[int(pid[1:]) - 1]


# ---------------------------------------------------------------- one screen module, mounted
DRAW = """async ([screen, view, seated, named]) => {
  if (named) (await __import('./js/game/aliases.js')).applyAliases(view);
  const m = await __import(`./js/screens/${screen}.js`);
  const main = document.querySelector('#main');
  main.replaceChildren();
  document.body.dataset.screen = screen;
  const you = view && view.you ? view.you.id : null;
  const session = seated || screen === 'lobby' ? {room: view.room.code, token: 'tok', playerId: you} : null;
  window.__sent = [];  // what the screen would send (nothing is): [action, payload] each
  const ctx = {state: {view, session}, send(...a) { window.__sent.push(a); }, rerender() {}, toast() {}, goHome() {}, leave() {},
               create() {}, join() {}, watch() {}, resume() {}, shareLink: (code) => `${location.origin}/?room=${code}`};
  window.__screen = m.mount(main, ctx);
  window.__screen.update(view);
}"""
UPDATE = "(view) => window.__screen.update(view)"


def draw(page, screen: str, view: dict | None, *, seated: bool = False, named: bool = False) -> None:
    """Mount `screen` (home, lobby, game, end) with `view` into #main, with a stand-in ctx
    (nothing is sent); `seated`: the ctx keeps the viewer's seat (its tools need the token);
    `named`: the names pass the app gives every view first (aliases, bots' names:
    web/js/game/aliases.js)."""
    page.evaluate(DRAW, [screen, view, seated, named])


# ---------------------------------------------------------------- the view through the app
SHOW = """async ([view, fresh]) => {
  const {state, forgetGame} = await __import('./js/store.js');
  const {onViewFrame} = await __import('./js/frames.js');
  const {render} = await __import('./js/render.js');
  const {markEventsSeen} = await __import('./js/session.js');
  const {closeOverlays} = await __import('./js/game/overlays.js');
  const {closeRules} = await __import('./js/game/rules.js');
  const {closeSheet} = await __import('./js/game/sheet.js');
  if (fresh) {
    closeOverlays();
    closeRules();
    closeSheet();
    state.view = null;
    state.version = -1;
    state.lastError = null;
    forgetGame();
  }
  if (!view) {
    state.session = null;
    render();
    return document.body.dataset.screen;
  }
  if (fresh) {
    const you = view.you ? view.you.id : null;
    state.session = you ? {room: view.room.code, token: 'tok', playerId: you, wsUrl: ''} : {room: view.room.code, spectator: true};
    markEventsSeen(view.room.code, -1);
  }
  onViewFrame({type: 'view', version: state.version + 1, view});
  return document.body.dataset.screen;
}"""


def show(page, view: dict | None, *, fresh: bool = True) -> str:
    """The view arrives as a server frame does (the store, the screen it calls for, the page
    around it, the cues); None: the home screen. `fresh`: a new game on this page (the last
    one's overlays, chat and memory of phases go); else the next view of the same game.
    Returns the screen drawn (home, lobby, game, end)."""
    return page.evaluate(SHOW, [view, fresh])
