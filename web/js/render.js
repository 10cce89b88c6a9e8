// Drawing the online client: which screen the store calls for, the page around it (the top
// bar, the tone, the connection banner) and where the focus goes on a new screen.
import { $, h, replaceChildren } from "./dom.js";
import { getKid, getLang, t } from "./i18n.js";
import { online, setThemeColor } from "./install.js";
import { applyAliases } from "./game/aliases.js";
import { closeOverlays } from "./game/overlays.js";
import { closeRules, rulesOpen, showRules } from "./game/rules.js";
import { soundOn } from "./sound.js";
import { state } from "./store.js";
import * as endScreen from "./screens/end.js";
import * as gameScreen from "./screens/game.js";
import * as homeScreen from "./screens/home.js";
import * as lobbyScreen from "./screens/lobby.js";

const SCREENS = { home: homeScreen, lobby: lobbyScreen, game: gameScreen, end: endScreen };

// What the drawing needs from the room flow (room.js gives it once, at load): the screens'
// ctx, and the banner's "use here" after this socket was replaced.
let app = { ctx: null, useHere: () => {} };
export function bindRoom(ctx, useHere) {
  app = { ctx, useHere };
}

function pickScreen() {
  if (!state.session) return "home";
  const v = state.view;
  if (!v) return "lobby"; // shows "connecting" until the first view
  const kind = v.phase && v.phase.kind;
  if (kind === "lobby") return "lobby";
  if (kind === "ended" || v.result) return "end";
  return "game";
}

/** Draw the store: mount the screen it calls for (or update the one shown), then the page around it. */
export function render() {
  const name = pickScreen();
  const main = $("#main");
  // A new screen (not the same one redrawn after a language switch) starts fresh: at its
  // top, without the last screen's announcement cards, with focus on its heading.
  const fresh = name !== state.shownScreen;
  if (name !== state.screenName) {
    if (state.screen && state.screen.destroy) state.screen.destroy();
    main.replaceChildren();
    state.screenName = name;
    state.screen = SCREENS[name].mount(main, app.ctx);
    document.body.dataset.screen = name;
  }
  if (fresh && state.shownScreen !== null) closeOverlays();
  // Screens that redraw their heading (lobby, end) would drop its focus to the page body.
  const headingFocused = Boolean(document.activeElement && document.activeElement.matches("#main h1"));
  state.screen.update(state.view);
  renderChrome();
  if (headingFocused && !main.contains(document.activeElement)) focusHeading(main);
  if (fresh) {
    const first = state.shownScreen === null;
    state.shownScreen = name;
    window.scrollTo(0, 0);
    state.focusPending = !first; // the first page of a visit keeps the browser's own focus
  }
  // The heading may come with a later view (the lobby says "connecting" first); the player
  // may have moved focus meanwhile, and then keeps it.
  if (state.focusPending) {
    const idle = !document.activeElement || document.activeElement === document.body || !document.contains(document.activeElement);
    if (!idle || focusHeading(main)) state.focusPending = false;
  }
}

/** Focus the new screen's heading (keyboard and screen-reader users start there), without scrolling. */
function focusHeading(main) {
  const heading = main.querySelector("h1");
  if (!heading) return false;
  if (!heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1");
  heading.focus({ preventScroll: true });
  return true;
}

// The page around the screen is drawn with every view: only what differs is written, so the
// same view again writes nothing (as the game screen's panels: tests/browser/test_kept_panels.py).
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function setAttr(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

function setHidden(el, hidden) {
  if (el.hidden !== hidden) el.hidden = hidden;
}

/** The page around the screen: top bar words and buttons, the day/night tone, the banner. */
export function renderChrome() {
  if (document.title !== t("app.title")) document.title = t("app.title");
  setText($("#brand"), t("app.title"));
  setText($("#skip-link"), t("app.skip"));
  setText($("#lang-label"), t("lang.label"));
  setText($("#lang-code"), t("lang.short"));
  setText($("#kid-label"), t("kid.label"));
  $("#lang-select").value = getLang();
  $("#kid-toggle").checked = getKid();
  const chip = $("#room-chip");
  setHidden(chip, !state.session);
  setText(chip, state.session ? state.session.room : "");
  const roleBtn = $("#my-role-btn");
  const you = state.view && state.view.you;
  const kind = state.view && state.view.phase && state.view.phase.kind;
  setHidden(roleBtn, !(you && you.role && kind !== "lobby"));
  setText(roleBtn, t("myRole"));
  const soundBtn = $("#sound-btn");
  setText(soundBtn, soundOn() ? "🔔" : "🔕");
  setAttr(soundBtn, "aria-label", soundOn() ? t("sound.on") : t("sound.off"));
  setAttr(soundBtn, "title", t("sound.hint"));
  const rulesBtn = $("#rules-btn");
  setHidden(rulesBtn, !(state.view && state.view.preset));
  setText(rulesBtn, t("rules.button"));
  const v = state.view;
  const night = v && v.phase && /night/i.test(v.phase.kind || "");
  const tone = state.screenName === "game" ? (night ? "night" : "day") : state.screenName;
  if (document.body.dataset.tone !== tone) document.body.dataset.tone = tone;
  setThemeColor(tone);
  renderBanner();
}

/** The connection banner (#conn-banner): offline, reconnecting, or replaced by another tab. */
export function renderBanner() {
  const el = $("#conn-banner");
  if (!online()) {
    // No network at all (the app opened from the home screen offline, or the phone lost it).
    el.hidden = false;
    el.dataset.state = "offline";
    el.textContent = t("net.offline");
    return;
  }
  delete el.dataset.state;
  const show = Boolean(state.session && ["lost", "connecting", "replaced"].includes(state.status));
  setHidden(el, !show);
  if (show && state.status === "replaced") {
    replaceChildren(
      el,
      h("span", null, t("conn.replaced")),
      " ",
      h(
        "button",
        {
          type: "button",
          class: "btn btn-small",
          id: "conn-use-here",
          "data-key": "conn-use-here",
          onclick: () => app.useHere(),
        },
        t("conn.useHere"),
      ),
    );
    return;
  }
  setText(el, show ? t(state.status === "lost" ? "conn.lost" : "conn.connecting") : "");
}

/** Language or wording changed: rebuild the current screen so every string is redrawn. */
export function rerenderAll() {
  $("#announcer").textContent = "";
  if (state.screen && state.screen.destroy) state.screen.destroy();
  state.screenName = null;
  if (state.view) applyAliases(state.view); // the aliases in the new language
  render();
  closeOverlays({ keepRole: true, view: state.view });
  if (rulesOpen()) {
    closeRules();
    if (state.view) showRules(state.view);
  }
}
