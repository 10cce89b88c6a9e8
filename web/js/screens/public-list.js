// Public rooms on the home screen (docs/rules.md, "Public rooms"): the "Play now" card and the
// list of open rooms in the interface language, read again every few seconds while the home
// screen is shown (one GET per poll: docs/protocol.md, "REST").
import * as api from "../api.js";
import { h } from "../dom.js";
import { getLang, t } from "../i18n.js";
import { secondsLeft } from "../clock.js";
import { KEYS, tab } from "../storage.js";
import { LOBBY_PHASE, PUBLIC_DEFAULTS } from "../game/shared-constants.js";

export const POLL_MS = 5000;
const LANGS = ["en", "ko", "ru"]; // the languages public rooms play in (functions/service/room/public.py)
// A room made public turns PUBLIC_DEFAULTS on unless the host changes them (docs/rules.md,
// "Public rooms"): the editors show what the server will do. LOBBY_PHASE: a nudge for a public
// lobby's countdown (functions/service/room/public.py). Both are the server's own values
// (shared-constants.js, generated).
export { LOBBY_PHASE, PUBLIC_DEFAULTS };

/** A public lobby's note and countdown (`room.autoStartAt`): `el`, and `tick()` that redraws
 * the seconds (into `seconds`, the span the lobby keeps across its redraws) and nudges the
 * server once the countdown is over (the game starts by itself). */
export function lobbyCountdown(view, send, seconds) {
  const at = view.room && view.room.autoStartAt;
  const el = view.options && view.options.public
    ? h("div", { class: "public-note" }, h("p", { class: "hint", id: "public-note" }, t("lobby.public")), typeof at === "number" ? seconds : null)
    : null;
  let nudges = 0;
  let nextNudge = 0;
  function tick() {
    if (typeof at !== "number") return;
    const left = Math.ceil(secondsLeft(at));
    seconds.textContent = t("lobby.autoStart", { s: left });
    const now = performance.now();
    if (left <= 0 && nudges < 6 && now >= nextNudge) {
      nudges += 1;
      nextNudge = now + 1500 * nudges + Math.random() * 500;
      send("nudge", { phase: LOBBY_PHASE });
    }
  }
  tick();
  return { el, tick };
}

/** The "Play now" card: the name (shared with the other forms through `draft`), an optional
 * preset, and the button. `run(fn)` shows progress and errors in `errorEl` (home.js). */
export function playNowCard(draft, presets, nameInput, errorEl, run, ctx, onPreset) {
  const preset = h(
    "select",
    {
      id: "play-preset",
      onchange: (e) => {
        draft.playPreset = e.target.value;
        onPreset();
      },
    },
    h("option", { value: "", selected: !draft.playPreset }, t("home.play.any")),
    presets.map((p) => h("option", { value: p, selected: p === draft.playPreset }, t(`preset.${p}`))),
  );
  return h(
    "form",
    {
      class: "card play-now",
      "aria-labelledby": "play-title",
      onsubmit: (e) => {
        e.preventDefault();
        const name = draft.name.trim();
        if (!name) return void (errorEl.textContent = t("err.nameRequired"));
        tab.set(KEYS.name, name);
        run(errorEl, () => ctx.quickPlay(name, draft.playPreset || undefined));
      },
    },
    h("h2", { id: "play-title" }, t("home.play.title")),
    h("p", { class: "hint" }, t("home.play.hint")),
    h("div", { class: "field" }, h("label", { for: "play-name" }, t("home.name")), nameInput),
    h("div", { class: "field" }, h("label", { for: "play-preset" }, t("home.play.preset")), preset),
    errorEl,
    h("button", { type: "submit", class: "btn btn-primary", id: "play-now-btn" }, t("home.play")),
  );
}

/** The open rooms of the interface language (and the preset chosen for "Play now"), fullest
 * first, each with its preset, seats and a Join button (`onJoin(code)`). Polls while mounted:
 * call `stop()` when the screen goes. */
export function publicList(draft, onJoin) {
  const list = h("ul", { class: "public-list", id: "public-list", "aria-live": "polite" });
  const card = h(
    "section",
    { class: "card public-rooms", "aria-labelledby": "public-title" },
    h("h2", { id: "public-title" }, t("home.public.title")),
    list,
  );
  let timer = null;
  let stopped = false;
  let inflight = false;
  let shown = "";

  // `other`: when this language has no open room, the fullest open room of another language,
  // offered beside the empty list (never joined unless pressed), saying which language it plays.
  function draw(rooms, other) {
    const key = JSON.stringify([rooms, other]);
    if (key === shown) return; // nothing changed: keep focus and the reader's place
    shown = key;
    if (!rooms.length) {
      const empty = h("li", { class: "hint public-empty" }, t("home.public.empty"));
      list.replaceChildren(...(other ? [empty, offer(other)] : [empty])); // (a null child would read "null")
      return;
    }
    list.replaceChildren(
      ...rooms.map((r) => {
        const preset = t(`preset.${r.preset}`);
        const seats = t("home.public.seats", { n: r.seats, max: r.maxPlayers });
        return h(
          "li",
          { class: "public-room", "data-room": r.roomCode },
          h("span", { class: "public-preset" }, preset),
          h("span", { class: "public-seats" }, seats),
          h(
            "button",
            {
              type: "button",
              class: "btn",
              "aria-label": t("home.public.joinLabel", { preset, seats }),
              onclick: () => onJoin(r.roomCode),
            },
            t("home.public.join"),
          ),
        );
      }),
    );
  }

  function offer(r) {
    const language = t(`home.public.langName.${r.lang}`);
    const seats = t("home.public.seats", { n: r.seats, max: r.maxPlayers });
    return h(
      "li",
      { class: "public-room public-elsewhere", id: "public-elsewhere", "data-room": r.roomCode, "data-lang": r.lang },
      h("span", { class: "public-preset" }, t("home.public.elsewhere", { lang: language, preset: t(`preset.${r.preset}`) })),
      h("span", { class: "public-seats" }, seats),
      h("button", { type: "button", class: "btn", id: "join-elsewhere-btn", onclick: () => onJoin(r.roomCode) }, t("home.public.joinElsewhere", { lang: language })),
    );
  }

  /** The fullest open room of the other languages (one GET each, only while this one has none). */
  async function elsewhere(preset) {
    const others = LANGS.filter((l) => l !== getLang());
    const pages = await Promise.all(others.map((l) => api.listPublicRooms(l, preset).catch(() => ({ rooms: [] }))));
    const rooms = pages.flatMap((p) => p.rooms || []);
    rooms.sort((a, b) => b.seats - a.seats);
    return rooms[0] || null;
  }

  async function poll() {
    if (stopped || inflight) return;
    if (timer) clearTimeout(timer);
    timer = null;
    inflight = true;
    try {
      if (!document.hidden) {
        const preset = draft.playPreset || undefined;
        const rooms = (await api.listPublicRooms(getLang(), preset)).rooms || [];
        draw(rooms, rooms.length ? null : await elsewhere(preset));
      }
    } catch {
      // offline or a hiccup: keep what is shown, try again at the next poll
    } finally {
      inflight = false;
    }
    if (!stopped) timer = setTimeout(poll, POLL_MS);
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
