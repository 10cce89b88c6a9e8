// The room's screen (index.html?room=CODE&display=KEY; app.js loads this entry instead of the player's): a display connection, a
// spectator by rights (docs/protocol.md, "A screen for the room"). It follows the room's
// language, draws every view it gets (screen.js) and, when the host switches the narrator
// on, reads the public phases aloud (narrate.js). `&overlay=1`: the stream view, a
// transparent page with a compact strip for OBS's browser source (display.css).
import * as api from "../api.js";
import { syncClock } from "../clock.js";
import { Connection } from "../connection.js";
import { applyAliases } from "../game/aliases.js";
import { h } from "../dom.js";
import { errorText, getLang, langReady, setLang, t } from "../i18n.js";
import { narrate } from "./narrate.js";
import { testHooksReady } from "../testhooks.js";
import { drawScreen, tickClock } from "./screen.js";

const params = new URLSearchParams(location.search);
const room = (params.get("room") || "").toUpperCase();
const key = params.get("display") || "";
const fixedLang = params.get("lang"); // a stream in another language than the room's
let view = null;
let conn = null;

// The page becomes the screen: its own markup and stylesheet (display.css, beside style.css
// in every release: the page's own stylesheet link finds it), none of the app's.
const DISPLAY_CSS = new URL("display.css", document.querySelector('link[rel="stylesheet"]').href).href;
const status = h("p", { class: "d-status", id: "d-status", role: "status", "aria-live": "polite", hidden: true });
const main = h("main", { id: "display" });
document.body.className = "display";
delete document.body.dataset.tone;
document.body.replaceChildren(status, main);
for (const link of document.querySelectorAll('link[rel="stylesheet"]')) link.remove();
const css = h("link", { rel: "stylesheet", href: DISPLAY_CSS });
css.addEventListener("load", () => (document.body.dataset.ready = "1"));
document.head.append(css);

function say(text) {
  status.textContent = text;
  status.hidden = !text;
}

function redraw() {
  if (view) drawScreen(main, view, redraw);
}

let version = -1;

/** A `view` frame (a patch is applied already: connection.js). */
function onView(frame) {
  if (typeof frame.version === "number" && frame.version < version) return; // a late, older view
  if (typeof frame.version === "number") version = frame.version;
  const prev = view;
  view = applyAliases(frame.view);
  syncClock(view);
  const lang = fixedLang || (view.room && view.room.lang);
  if (lang && lang !== getLang()) {
    setLang(lang).then(() => {
      document.title = t("display.pageTitle");
      redraw();
    });
  }
  document.title = t("display.pageTitle");
  say("");
  redraw();
  narrate(prev, view);
}

function onError(frame) {
  if (frame.code === "display_revoked") {
    conn.close();
    view = null;
    main.replaceChildren();
  }
  say(errorText(frame.code, frame.message));
}

function boot() {
  document.body.classList.toggle("overlay", params.get("overlay") === "1");
  document.title = t("display.pageTitle");
  if (!room || !key) {
    say(t("display.badLink"));
    return;
  }
  say(t("display.connecting", { code: room }));
  conn = new Connection(
    { room, display: key },
    {
      onView,
      onError,
      onStatus: (s) => s === "lost" && say(t("display.lost")),
      onGone: () => say(t("display.badLink")),
    },
  );
  setInterval(() => tickClock(view), 250);
}

// a stream's own language first (no drawing in another before it)
Promise.all([api.loadConfig(), fixedLang ? setLang(fixedLang) : langReady()]).then(testHooksReady).then(boot);
