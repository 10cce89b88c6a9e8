// "Watch now" on the home screen (docs/rules.md, "Public rooms"): the running public games of
// the interface language (and the preset chosen for "Play now"), read again every few seconds
// while the home screen is shown (one GET per poll: `GET /rooms?public=1&watch=1`,
// docs/protocol.md, "REST"). A tap opens the game's spectator view (`onWatch(code)`), where a
// watcher sees what every spectator sees: public information only.
import * as api from "../api.js";
import { h } from "../dom.js";
import { getLang, t } from "../i18n.js";

export const WATCH_POLL_MS = 10000;

/** The "Watch now" card: each game's preset and seats with a Watch button. Polls while
 * mounted: call `stop()` when the screen goes. */
export function watchList(draft, onWatch) {
  const list = h("ul", { class: "public-list watch-list", id: "watch-list", "aria-live": "polite" });
  const card = h(
    "section",
    { class: "card watch-now", "aria-labelledby": "watch-now-title" },
    h("h2", { id: "watch-now-title" }, t("home.watchNow.title")),
    list,
  );
  let timer = null;
  let stopped = false;
  let inflight = false;
  let shown = "";

  function draw(games) {
    const key = JSON.stringify(games);
    if (key === shown) return; // nothing changed: keep focus and the reader's place
    shown = key;
    if (!games.length) {
      list.replaceChildren(h("li", { class: "hint watch-empty" }, t("home.watchNow.empty")));
      return;
    }
    list.replaceChildren(
      ...games.map((g) => {
        const preset = t(`preset.${g.preset}`);
        const players = t("home.watchNow.players", { n: g.seats });
        return h(
          "li",
          { class: "watch-game", "data-room": g.roomCode }, // not .public-room: the open rooms' rows
          h("span", { class: "public-preset" }, preset),
          h("span", { class: "public-seats" }, players),
          h(
            "button",
            {
              type: "button",
              class: "btn",
              "aria-label": t("home.watchNow.watchLabel", { preset, players }),
              onclick: () => onWatch(g.roomCode),
            },
            t("home.watchNow.watch"),
          ),
        );
      }),
    );
  }

  async function poll() {
    if (stopped || inflight) return;
    if (timer) clearTimeout(timer);
    timer = null;
    inflight = true;
    try {
      if (!document.hidden) draw((await api.listWatchGames(getLang(), draft.playPreset || undefined)).rooms || []);
    } catch {
      // offline, a hiccup or a spent budget: keep what is shown, try again at the next poll
    } finally {
      inflight = false;
    }
    if (!stopped) timer = setTimeout(poll, WATCH_POLL_MS);
  }
  poll();
  return {
    el: card,
    refresh: poll,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
