// The online client (app.js starts it): wires the top bar, enters the room the address (or a
// private link, or a seat kept in this browser) names, and starts the tick. The parts:
// store.js (the state), room.js (entering and leaving a room, the socket, ctx), frames.js
// (server frames into the store), cues.js (announcements, sounds, toasts), render.js
// (the screens and the page around them), tick.js (countdown and nudges).
import * as api from "./api.js";
import { $ } from "./dom.js";
import { langReady, setKid, setLang, t } from "./i18n.js";
import { registerServiceWorker, watchNetwork } from "./install.js";
import { announce } from "./cues.js";
import { showRoleCard } from "./game/overlays.js";
import { markRoleSeen } from "./game/phases.js";
import { showRules } from "./game/rules.js";
import { render, renderChrome, rerenderAll } from "./render.js";
import { enterRoom, takeLinkedSeat } from "./room.js";
import { clearSession, loadSession, takeSeatFromFragment } from "./session.js";
import { setSound, soundOn, unlock } from "./sound.js";
import { state } from "./store.js";
import { TICK_MS, tick } from "./tick.js";
import { redrawVoice } from "./voice/index.js";
import { loadGame } from "./device/store.js";
import { testHooksReady } from "./testhooks.js";

function boot() {
  registerServiceWorker();
  watchNetwork((isOnline) => {
    renderChrome();
    if (isOnline) announce(t("net.back"));
  });
  $("#lang-select").addEventListener("change", (e) => {
    setLang(e.target.value).then(() => {
      rerenderAll();
      redrawVoice(); // the voice bar lives outside the screens rerenderAll draws
    });
  });
  $("#kid-toggle").addEventListener("change", (e) => {
    setKid(e.target.checked);
    rerenderAll();
    redrawVoice();
  });
  $("#sound-btn").addEventListener("click", () => {
    setSound(!soundOn());
    renderChrome();
  });
  // Audio may start only after a tap on the page.
  document.addEventListener("pointerdown", () => soundOn() && unlock(), { once: true });
  $("#rules-btn").addEventListener("click", () => {
    if (state.view) showRules(state.view);
  });
  $("#my-role-btn").addEventListener("click", () => {
    if (!state.view) return;
    markRoleSeen();
    showRoleCard(state.view, { revealed: true });
    render();
  });
  enterFirstRoom();
  setInterval(tick, TICK_MS);
  // Wired: from here on nothing of the boot draws over the page (tests wait for this mark
  // before they mount a scripted screen).
  document.documentElement.dataset.ready = "1";
}

// A private link (seat in the fragment) seats this browser; else the seat kept for ?room.
function enterFirstRoom() {
  const params = new URLSearchParams(location.search);
  const room = (params.get("room") || "").toUpperCase();
  const linked = takeSeatFromFragment();
  if (linked) {
    takeLinkedSeat(linked);
    return;
  }
  const saved = loadSession(room || null);
  if (saved && (!room || saved.room === room)) {
    enterRoom(saved);
  } else {
    if (saved) clearSession();
    render();
  }
}

// A game of the single-device mode kept in this browser: that mode (its own chunk) resumes it.
if (loadGame()) import("./device/main.js");
Promise.all([api.loadConfig(), langReady()]).then(testHooksReady).then(boot);
