// Home: play now with strangers, the open rooms of this language, create a room (name, rules,
// options) or join one by code or shared link.
import { h } from "../dom.js";
import { errorText, t } from "../i18n.js";
import { defaultsFor, optionsEditor } from "../game/options.js";
import SPECS from "../game/option-specs.js";
import { yourGames } from "./mygames.js";
import { KEYS, tab } from "../storage.js";
import { PUBLIC_DEFAULTS, playNowCard, publicList } from "./public-list.js";
import { watchList } from "./watch-list.js";
import { signedIn } from "../api.js";

// What the user typed survives a language switch (which rebuilds the screen).
const draft = {
  name: tab.get(KEYS.name) || "",
  preset: "classic",
  options: defaultsFor("classic"),
  code: "",
  playPreset: "", // "Play now": any preset unless one is chosen
};


// The single-device mode: a chunk of its own, fetched on the first tap of its button.
function openDevice() {
  import("../device/main.js").then((m) => m.openDevice());
}

// Passkey sign-in: the account sheet is a chunk of its own (screens/account.js), fetched on the
// first tap; the entry says whether this browser is signed in (api.js `signedIn`).
function accountEntry() {
  const label = () => t(signedIn() ? "account.open" : "account.entry");
  const btn = h("button", {
    type: "button", class: "btn btn-small account-entry", id: "account-btn",
    onclick: () => import("./account.js").then((m) => m.openAccount(() => {
      btn.textContent = label();
      const ranked = document.getElementById("ranked-card"); // "Play ranked" follows the sign-in
      if (ranked) ranked.hidden = !signedIn();
    })),
  }, label());
  return btn;
}

// Ranked play (docs/rules.md, "Ranked play"): shown when signed in; the rest is screens/ranked.js,
// a chunk of its own fetched on the first tap.
function rankedCard(ctx) {
  const error = h("p", { class: "form-error", role: "alert", id: "ranked-error" });
  const ranked = () => import("./ranked.js");
  return h(
    "section",
    { class: "card ranked-card", id: "ranked-card", "aria-labelledby": "ranked-title", hidden: !signedIn() },
    h("h2", { id: "ranked-title" }, t("ranked.title")),
    h("p", { class: "hint" }, t("ranked.hint")),
    error,
    h("div", { class: "row" },
      h("button", {
        type: "button", class: "btn btn-primary", id: "ranked-btn",
        onclick: () => {
          const name = draft.name.trim();
          if (!name) {
            // the card has no name field of its own: take the player to the one above (Play now)
            error.textContent = t("err.nameRequired");
            document.querySelector("input[name=name]")?.focus();
            return;
          }
          tab.set(KEYS.name, name);
          error.textContent = t("home.busy");
          ranked().then((m) => m.playRanked(ctx, name, error));
        },
      }, t("ranked.play")),
      h("button", { type: "button", class: "btn", id: "ladder-btn", onclick: () => ranked().then((m) => m.openLadder()) }, t("ranked.ladder")),
    ),
  );
}

// Every preset the engine offers (the generated copy of mafia_engine.presets()).
const PRESETS = Object.keys(SPECS);

// Room codes are 5 letters and digits (functions/service/protocol/roomcode.py ROOM_CODE_LENGTH).
const CODE_LENGTH = 5;
const CODE_RE = /^[A-Z0-9]{5}$/;

function restError(err) {
  if (err.code === "network") return t("err.network");
  if (err.status === 404) return t("err.notFound");
  if (err.status === 409) return t("err.closed");
  return errorText(err.code, err.message);
}

export function mount(root, ctx) {
  const invited = new URLSearchParams(location.search).get("room");
  if (invited && !draft.code) draft.code = invited.toUpperCase();
  let busy = false;

  const createError = h("p", { class: "form-error", role: "alert", id: "create-error" });
  const playError = h("p", { class: "form-error", role: "alert", id: "play-error" });
  const joinError = h("p", { class: "form-error", role: "alert", id: "join-error" });

  // One name, three fields (Play now, Create, Join): typing in one fills the others.
  const names = [];
  const nameField = (id) => {
    const input = h("input", {
      id, name: "name", autocomplete: "nickname", maxlength: 20, required: true, value: draft.name,
      oninput: (e) => {
        draft.name = e.target.value;
        for (const other of names) if (other !== input) other.value = draft.name;
      },
    });
    names.push(input);
    return input;
  };
  const namePlay = nameField("play-name");
  const nameCreate = nameField("create-name");
  const nameJoin = nameField("join-name");
  const code = h("input", {
    id: "join-code", name: "code", autocomplete: "off", autocapitalize: "characters", maxlength: 12,
    required: true, value: draft.code, class: "code-input",
    oninput: (e) => (draft.code = e.target.value.trim().toUpperCase()),
  });

  const optionsBox = h("div", { class: "home-options" });
  function drawOptions() {
    optionsBox.replaceChildren(
      h("p", { class: "hint" }, t("home.optionsHint")),
      optionsEditor(draft.options, {
        editable: true,
        idPrefix: "home-opt",
        preset: draft.preset,
        onChange: (k, v) => setOption(k, v),
      }),
    );
  }
  function setOption(k, v) {
    if (k === "public" && v && !draft.options.public) Object.assign(draft.options, PUBLIC_DEFAULTS);
    draft.options[k] = v;
    publicSwitch.checked = Boolean(draft.options.public);
    drawOptions();
  }
  // "Public" in plain sight (the same option as in the editor below)
  const publicSwitch = h("input", {
    type: "checkbox", id: "create-public", checked: Boolean(draft.options.public),
    onchange: (e) => setOption("public", e.target.checked),
  });
  drawOptions();

  const preset = h(
    "select",
    {
      id: "create-preset",
      onchange: (e) => {
        draft.preset = e.target.value;
        draft.options = { ...defaultsFor(draft.preset), ...(draft.options.public ? { public: true, ...PUBLIC_DEFAULTS } : {}) };
        drawOptions();
      },
    },
    PRESETS.map((p) => h("option", { value: p, selected: p === draft.preset }, t(`preset.${p}`))),
  );

  async function guarded(errorEl, fn) {
    if (busy) return;
    busy = true;
    errorEl.textContent = t("home.busy");
    try {
      await fn();
    } catch (err) {
      errorEl.textContent = restError(err);
    } finally {
      busy = false;
    }
  }

  function changedOptions() {
    const defaults = defaultsFor(draft.preset);
    const out = {};
    for (const [k, v] of Object.entries(draft.options)) {
      if (JSON.stringify(v) !== JSON.stringify(defaults[k])) out[k] = v;
    }
    return out;
  }

  const createForm = h(
    "form",
    {
      class: "card",
      "aria-labelledby": "create-title",
      onsubmit: (e) => {
        e.preventDefault();
        const name = draft.name.trim();
        if (!name) return void (createError.textContent = t("err.nameRequired"));
        tab.set(KEYS.name, name);
        guarded(createError, () => ctx.create(name, draft.preset, changedOptions()));
      },
    },
    h("h2", { id: "create-title" }, t("home.create.title")),
    h("div", { class: "field" }, h("label", { for: "create-name" }, t("home.name")), nameCreate),
    h("div", { class: "field" }, h("label", { for: "create-preset" }, t("home.preset")), preset),
    h("label", { class: "check public-switch" }, publicSwitch, h("span", null, t("home.public.switch"))),
    h("details", { class: "home-details" }, h("summary", null, t("home.options")), optionsBox),
    createError,
    h("button", { type: "submit", class: "btn btn-primary", id: "create-btn" }, t("home.create")),
  );

  const joinForm = h(
    "form",
    {
      class: "card",
      "aria-labelledby": "join-title",
      onsubmit: (e) => {
        e.preventDefault();
        const name = draft.name.trim();
        const room = draft.code.trim().toUpperCase();
        if (!room) return void (joinError.textContent = t("err.codeRequired"));
        if (!CODE_RE.test(room)) return void (joinError.textContent = t("err.codeLength", { n: CODE_LENGTH }));
        if (!name) return void (joinError.textContent = t("err.nameRequired"));
        tab.set(KEYS.name, name);
        guarded(joinError, () => ctx.join(room, name));
      },
    },
    h("h2", { id: "join-title" }, t("home.join.title")),
    invited ? h("p", { class: "hint" }, t("home.invited", { code: invited.toUpperCase() })) : null,
    h("div", { class: "field" }, h("label", { for: "join-code" }, t("home.code")), code),
    h("div", { class: "field" }, h("label", { for: "join-name" }, t("home.name")), nameJoin),
    joinError,
    h(
      "div",
      { class: "row" },
      h("button", { type: "submit", class: "btn btn-primary", id: "join-btn" }, t("home.join")),
      h(
        "button",
        {
          type: "button",
          class: "btn",
          id: "watch-btn",
          onclick: () => {
            const room = draft.code.trim().toUpperCase();
            if (!room) return void (joinError.textContent = t("err.codeRequired"));
            if (!CODE_RE.test(room)) return void (joinError.textContent = t("err.codeLength", { n: CODE_LENGTH }));
            ctx.watch(room);
          },
        },
        t("home.watch"),
      ),
    ),
  );

  // Play now, then the open rooms of this language (docs/rules.md, "Public rooms")
  const rooms = publicList(draft, (code) => {
    const name = draft.name.trim();
    if (!name) {
      playError.textContent = t("err.nameRequired");
      return void namePlay.focus();
    }
    tab.set(KEYS.name, name);
    guarded(playError, () => ctx.join(code, name));
  });
  const playForm = playNowCard(draft, PRESETS, namePlay, playError, guarded, ctx, () => rooms.refresh());
  // Watch now: the running public games, under Play now (a tap opens the spectator view)
  const games = watchList(draft, (code) => ctx.watch(code));

  const n = ctx.state.notice; // {key, params}: why this browser came home (removed, room gone)
  const notice = n ? h("p", { class: "notice", role: "alert", "data-notice": n.key }, t(n.key, n.params)) : null;
  ctx.state.notice = null;

  root.append(
    h(
      "div",
      { class: "home" },
      h("section", { class: "hero" }, h("h1", null, t("app.title")), h("p", null, t("app.tagline")), accountEntry()),
      notice,
      yourGames(ctx), // seats kept in this browser (docs/rules.md, "Seats, leaving, reports and mute")
      // Play now first, then the open rooms, then Create and Join; an invitation puts joining first.
      invited ? [joinForm, playForm, rooms.el, games.el, createForm] : [playForm, rankedCard(ctx), rooms.el, games.el, createForm, joinForm],
      // Single-device mode lives in web/js/device/ and takes over the page when opened.
      h(
        "section",
        { class: "card device-entry" },
        h("p", { class: "hint" }, t("device.openHint")),
        h("button", { type: "button", class: "btn", id: "device-btn", onclick: openDevice }, t("device.open")),
      ),
    ),
  );
  if (invited) (draft.name ? code : nameJoin).focus();
  return {
    update() {},
    destroy: () => {
      rooms.stop();
      games.stop();
    },
  };
}
