"""A room's screen beside a whole game (docs/rules.md, "A screen for the room"): the host's
"Show on a screen" link opened as a display, and a spectator of the same room, both recording
every frame. At each phase the person's page shows, `check` reads the screen against the
spectator's view: the same phase, every seat's name and life, the night as a calm screen with
no name on it, the public tallies, the night's news at dawn (each seat that died in the night
named), and at the end every role and the fair-deal check. `same_views` proves the display's
view is the spectator's, byte for byte, at every version both received."""

from __future__ import annotations

import copy
import json
import re

import jsonpatch
from playwright.sync_api import expect

from .ui import Player

# The spectator's view as its page holds it (store.js).
SPECTATOR_VIEW = """async () => {
  const base = './js/';
  const { state } = await __import(base + 'store.js');
  return state.view ? { ...state.view, __version: state.version } : null;
}"""
# The spectator's view version alone (a look between two pushes: the whole view is not sent).
SPECTATOR_VERSION = """async () => (await __import('./js/store.js')).state.version ?? null"""
# On the screen's page: the public tally rows its own modules find in `view` (null: none).
VOTE_ROWS = """async (view) => {
  const { voteRows } = await __import('./js/game/votes.js');
  const rows = voteRows(view);
  return rows ? rows.length : null;
}"""
# On the screen's page, from its first paint: every distinct screen it drew (a phase may come
# and go between two looks of the test: the night ends as soon as the bots have acted).
RECORD_SCREENS_JS = """
window.__screens = [];
new MutationObserver(() => {
  const main = document.querySelector('#display');
  if (!main || !document.body.dataset.phase) return;
  const copy = main.cloneNode(true);
  copy.querySelector('#d-clock')?.remove();
  const shot = {
    phase: document.body.dataset.phase,
    night: Boolean(main.querySelector('#d-night')),
    seats: main.querySelectorAll('.d-seat').length,
    out: [...main.querySelectorAll('.d-seat.out')].map((e) => e.dataset.pid),
    news: main.querySelector('#d-news')?.innerText || '',
    votes: main.querySelectorAll('#d-votes li').length,
    text: copy.innerText,
  };
  const last = window.__screens[window.__screens.length - 1];
  if (!last || JSON.stringify(last) !== JSON.stringify(shot)) window.__screens.push(shot);
}).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
"""
VOTE_ROWS_ALL = """async (views) => {
  const { voteRows } = await __import('./js/game/votes.js');
  return views.map((v) => { const rows = voteRows(v); return rows ? rows.length : 0; });
}"""
OUT = re.compile(r"(^|\s)out(\s|$)")
TEXT_WITHOUT_CLOCK = """() => { const m = document.querySelector('#display').cloneNode(true);
  m.querySelector('#d-clock')?.remove(); return m.innerText; }"""


def last_version(frames: list[str]) -> int:
    for raw in reversed(frames):
        v = json.loads(raw).get("version")
        if isinstance(v, int):
            return v
    return -1


def record(pl: Player) -> list[str]:
    frames: list[str] = []
    pl.page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    return frames


def views_by_version(frames: list[str]) -> tuple[dict[int, str], dict[int, str]]:
    """Each version's view as the page held it (patches applied to the version before, as
    web/js/patch.js does), in canonical JSON without the clock; and each patch frame's bytes."""
    held = None
    views: dict[int, str] = {}
    patches: dict[int, str] = {}
    for raw in frames:
        f = json.loads(raw)
        if f.get("type") == "view" and isinstance(f.get("version"), int):
            held = (f["version"], f["view"])
        elif f.get("type") == "patch" and held is not None and f.get("version") == held[0] + 1:
            base = copy.deepcopy(held[1])
            base.pop("serverNow", None)
            base.pop("clockRate", None)
            held = (f["version"], jsonpatch.apply_patch(base, f["ops"]))
            patches[f["version"]] = raw
        else:
            continue
        v = {k: val for k, val in held[1].items() if k not in ("serverNow", "clockRate")}
        views[held[0]] = json.dumps(v, sort_keys=True, ensure_ascii=False)
    return views, patches


class ScreenWatch:
    def __init__(
        self, browser, url: str, host: Player, viewport: dict, errors: list[str], locale: str
    ) -> None:
        code = host.page.locator("#room-chip").inner_text().strip()
        host.page.click("#screen-btn")
        link = host.page.locator("#screen-link").input_value()
        self.tv = Player(browser, url, "TV", viewport=viewport, errors=errors)
        self.tv_frames = record(self.tv)
        self.tv.page.add_init_script(RECORD_SCREENS_JS)
        self.names: dict[str, str] = {}  # pid -> the name as the pages show it
        self.tv.page.goto(link)
        expect(self.tv.page.locator("#d-lobby")).to_be_visible()
        self.watcher = Player(browser, url, "", locale=locale, errors=errors)  # the room's language
        self.watcher_frames = record(self.watcher)
        self.watcher.open()
        self.watcher.watch(code)
        expect(self.watcher.page.locator(".lobby-player").first).to_be_visible()
        self.seen: list[str] = []
        self.last = None
        self.looked = None  # the version whose phase was checked (or was the last one checked)
        self.alive_before_night: set[str] | None = None
        self.news_checked = 0
        self.tallies_checked = 0

    def shown_names(self, players: list[dict]) -> list[str]:
        """Each seat's name as the spectator's page shows it on its tile (bots' default names
        in the page's language: game/aliases.js)."""
        tiles = self.watcher.page.locator(".tile[data-pid] .tile-name")
        expect(tiles).to_have_count(len(players))
        by_pid = dict(
            self.watcher.page.locator(".tile[data-pid]").evaluate_all(
                "(els) => els.map((e) => [e.dataset.pid, e.querySelector('.tile-name').textContent.trim()])"
            )
        )
        self.names.update(by_pid)
        return [by_pid[p["id"]] for p in players]

    def settled_view(self) -> dict | None:
        """The spectator's view once its page holds the last version both pages received (a
        push may be on its way to one of them); None if they never settle in 10 s."""
        for _ in range(100):
            v = self.watcher.page.evaluate(SPECTATOR_VIEW)
            last = last_version(self.tv_frames)
            if v and v["__version"] == last == last_version(self.watcher_frames):
                return v
            self.watcher.page.wait_for_timeout(100)
        return None

    def maybe_check(self, kind: str | None) -> None:
        """`check` once per phase the spectator holds (a new kind, or the same kind with another
        speaker or accused), when the person's page shows a phase. A check that a new push
        overtook (the person's last move landing meanwhile) is left for the next look."""
        if not kind:
            return
        if self.looked is not None and (
            self.watcher.page.evaluate(SPECTATOR_VERSION)
            == self.looked
            == last_version(self.tv_frames)
            == last_version(self.watcher_frames)
        ):
            return  # both pages still hold the version already looked at: its phase is done
        v = self.settled_view()
        if v is None or v["phase"]["kind"] in ("lobby",):
            return
        ph = v["phase"]
        key = (ph["kind"], v.get("day"), ph.get("speaker"), ph.get("accused"), ph.get("round"))
        version = v["__version"]
        if key == self.last:
            self.looked = version
            return
        try:
            self.check(ph["kind"], v)
        except AssertionError:
            if last_version(self.tv_frames) != version or last_version(self.watcher_frames) != version:
                return
            raise
        self.last = key
        self.looked = version
        self.seen.append(ph["kind"])

    def check(self, kind: str, view: dict) -> None:
        """The screen against the spectator's `view` of phase `kind`, at the same version."""
        page = self.tv.page
        expect(page.locator("body")).to_have_attribute("data-phase", kind)
        if kind == "ended":  # the spectator's page shows the end screen: no tiles to read names from
            return
        players = sorted(view["players"], key=lambda p: p.get("seat") or 0)
        names = self.shown_names(players)
        alive = {p["id"] for p in players if p.get("alive") is not False}
        if "night" in kind.lower():
            expect(page.locator("#d-night")).to_be_visible()
            expect(page.locator(".d-seat")).to_have_count(0)
            quiet = page.evaluate(TEXT_WITHOUT_CLOCK)
            assert not [n for n in names if n in quiet], quiet  # eyes closed: no name at all
            # who was alive as this night fell (the latest night looked at: a day between two
            # nights looked at may have executed someone, who is not the dawn's news)
            self.alive_before_night = alive
            return
        expect(page.locator(".d-seat .d-name")).to_have_text(names)
        shown = {p["id"]: n for p, n in zip(players, names, strict=True)}
        expect(page.locator(".d-seat.out")).to_have_count(len(players) - len(alive))
        for p in players:
            if p["id"] not in alive:
                expect(page.locator(f'.d-seat[data-pid="{p["id"]}"]')).to_have_class(OUT)
        if self.alive_before_night is not None:  # the first day phase after a night: its news
            for p in players:
                if p["id"] in self.alive_before_night and p["id"] not in alive:
                    expect(page.locator("#d-news")).to_contain_text(shown[p["id"]])
                    self.news_checked += 1
            self.alive_before_night = None
        speaker, accused = view["phase"].get("speaker"), view["phase"].get("accused")
        if kind == "defense" and accused:
            expect(page.locator("#d-stage.accused")).to_contain_text(shown[accused])
        elif speaker:
            expect(page.locator("#d-stage")).to_contain_text(shown[speaker])
        rows = page.evaluate(VOTE_ROWS, view)
        if rows is None:
            expect(page.locator("#d-votes")).to_have_count(0)
        else:
            expect(page.locator("#d-votes li")).to_have_count(rows)
            self.tallies_checked += 1

    def check_end(self, roles: int) -> None:
        page = self.tv.page
        expect(page.locator("body")).to_have_attribute("data-phase", "ended")
        expect(page.locator("#d-end h2")).not_to_be_empty()
        expect(page.locator(".d-seat .d-role")).to_have_count(roles)
        expect(page.locator("#d-fair")).to_have_attribute("data-status", "verified", timeout=15_000)
        view = self.settled_view()
        assert view is not None and view["phase"]["kind"] == "ended"
        expect(page.locator(".d-seat .d-name")).to_have_count(len(view["players"]))

    def check_recorded(self) -> dict:
        """Every screen the display drew over the game: each night screen is calm (no seat, no
        name); each dawn after a night with deaths names them in its news (the deaths read from
        the spectator's views, version by version). Returns counts of what was checked."""
        screens = self.tv.page.evaluate("() => window.__screens")
        names = [n for n in self.names.values() if n]
        nights = [s for s in screens if "night" in s["phase"].lower()]
        assert nights, [s["phase"] for s in screens]
        for s in nights:
            assert s["night"] and s["seats"] == 0, s
            assert not [n for n in names if n in s["text"]], s  # eyes closed: no name at all
        # the night's deaths, from the spectator's views
        views, _ = views_by_version(self.watcher_frames)
        deaths: list[set[str]] = []
        before = None  # the living at the last night view
        for version in sorted(views):
            v = json.loads(views[version])
            kind = v["phase"]["kind"]
            alive = {p["id"] for p in v["players"] if p.get("alive") is not False}
            if "night" in kind.lower():
                before = alive if before is None else before
            elif before is not None and kind not in ("ended",):
                if before - alive:
                    deaths.append(before - alive)
                before = None
        for dead in deaths:
            assert any(all(self.names[pid] in s["news"] for pid in dead) for s in screens), (dead, screens)
        tallies = [s for s in screens if s["votes"]]
        return {
            "screens": len(screens),
            "nights": len(nights),
            "dawnDeaths": len(deaths),
            "tallies": len(tallies),
        }

    def same_views(self) -> int:
        """The display's and the spectator's views are the same at every version both got
        (and every patch both got is the same bytes); how many versions were compared."""
        tv_views, tv_patches = views_by_version(self.tv_frames)
        sp_views, sp_patches = views_by_version(self.watcher_frames)
        common = sorted(set(tv_views) & set(sp_views))
        for version in common:
            assert tv_views[version] == sp_views[version], (
                f"version {version}: the screen's view is not the spectator's"
            )
        for version in sorted(set(tv_patches) & set(sp_patches)):
            assert tv_patches[version] == sp_patches[version], f"version {version}: patches differ"
        return len(common)

    def close(self) -> None:
        assert self.tv.missing_keys() == []
        self.tv.close()
        self.watcher.close()
