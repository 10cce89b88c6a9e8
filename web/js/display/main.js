// The room's screen (web/display.html?room=CODE&display=KEY): a display connection, a
// spectator by rights (docs/protocol.md, "A screen for the room"). It follows the room's
// language, draws every view it gets (screen.js) and, when the host switches the narrator
// on, reads the public phases aloud (narrate.js). `&overlay=1`: the stream view, a
// transparent page with a compact strip for OBS's browser source (display.css).
import * as api from "../api.js";
import { syncClock } from "../clock.js";
import { Connection } from "../connection.js";
import { applyAliases } from "../game/aliases.js";
import { errorText, getLang, setLang, t } from "../i18n.js";
import { narrate } from "./narrate.js";
import { drawScreen, tickClock } from "./screen.js";

const params = new URLSearchParams(location.search);
const room = (params.get("room") || "").toUpperCase();
const key = params.get("display") || "";
const fixedLang = params.get("lang"); // a stream in another language than the room's
let view = null;
let conn = null;

const main = document.getElementById("display");
const status = document.getElementById("d-status");

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
  if (lang && lang !== getLang()) setLang(lang);
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
  if (fixedLang) setLang(fixedLang);
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

api.loadConfig().then(boot);
