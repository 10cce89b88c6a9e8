// Entry point: holds the session, the connection and the latest view, and picks the screen.
import * as api from "./api.js";
import { serverNow, syncClock } from "./clock.js";
import { Connection } from "./connection.js";
import { $, h, replaceChildren } from "./dom.js";
import { errorText, getKid, getLang, has, setKid, setLang, t } from "./i18n.js";
import { lineNo, myResults, resultText } from "./game/format.js";
import { online, registerServiceWorker, setThemeColor, watchNetwork } from "./install.js";
import { showEventCards, showRoleCard, closeOverlays } from "./game/overlays.js";
import { markRoleSeen, resetPhaseMemory } from "./game/phases.js";
import { closeRules, rulesOpen, showRules, updateRules } from "./game/rules.js";
import { cue, setSound, soundOn, unlock } from "./sound.js";
import { toast } from "./toast.js";
import {
  clearSession,
  loadSession,
  markEventsSeen,
  saveSession,
  seatFate,
  seenEvents,
  takeSeatFromFragment,
} from "./session.js";
import { applyAliases, seatMoved } from "./game/aliases.js";
import { reportConfirmed } from "./game/report.js";
import { closeSheet, showSheet } from "./game/sheet.js";
import * as endScreen from "./screens/end.js";
import * as gameScreen from "./screens/game.js";
import * as homeScreen from "./screens/home.js";
import * as lobbyScreen from "./screens/lobby.js";

const SCREENS = { home: homeScreen, lobby: lobbyScreen, game: gameScreen, end: endScreen };

const state = {
  session: null, // {room, token, playerId, wsUrl} or {room, spectator: true}
  conn: null,
  status: "idle",
  view: null,
  version: -1,
  pending: new Map(), // client frame id -> action
  lastError: null, // {id, action, text}
  screenName: null,
  shownScreen: null, // the screen last shown (kept across a language switch's rebuild)
  focusPending: false, // a new screen's heading is still to get the focus
  screen: null,
  lastSeq: null,
  nudged: { key: null, count: 0, next: 0 },
  notice: null, // message for the home screen (e.g. room gone)
  chatArchive: new Map(), // message id -> message: the view only carries the newest ones
  chatLogFrom: null, // after the end: `before` of the next older chatLog page (0: all loaded)
};

/** What screens may use. */
const ctx = {
  state,
  send(action, payload) {
    if (!state.conn) return null;
    const id = state.conn.send(action, payload);
    if (id) state.pending.set(id, action);
    else toast(t("conn.lost"));
    return id;
  },
  async create(name, preset, options) {
    const res = await api.createRoom(name, preset, options, getLang());
    enterRoom({ room: res.roomCode, token: res.token, playerId: res.playerId, wsUrl: res.wsUrl });
  },
  async join(code, name) {
    const res = await api.joinRoom(code, name);
    enterRoom({ room: code, token: res.token, playerId: res.playerId, wsUrl: res.wsUrl });
  },
  watch(code) {
    enterRoom({ room: code, spectator: true });
  },
  resume(seat) {
    enterRoom(seat); // a seat kept in this browser ("your games")
  },
  leave() {
    // Home when the server answers "left" (onErrorFrame): closing the socket right after
    // the frame could let $disconnect overtake it, and the seat would stay in the game.
    const session = state.session;
    if (state.conn && state.view && state.view.you && ctx.send("leave")) {
      setTimeout(() => state.session === session && goHome(), 4000);
      return;
    }
    goHome();
  },
  goHome,
  rerender: () => render(),
  toast,
  shareLink(code) {
    const u = new URL(location.href);
    u.search = "";
    u.hash = "";
    u.searchParams.set("room", code);
    return u.toString();
  },
};

function enterRoom(session) {
  session.room = session.room.toUpperCase();
  state.session = session;
  saveSession(session);
  const u = new URL(location.href);
  u.searchParams.set("room", session.room);
  history.replaceState(null, "", u);
  connect();
  render();
}

function connect() {
  if (state.conn) state.conn.close();
  state.chatArchive = new Map();
  state.chatLogFrom = null;
  resetPhaseMemory();
  state.view = null;
  state.version = -1;
  state.conn = new Connection(state.session, {
    onView: onViewFrame,
    onError: onErrorFrame,
    onStatus(status) {
      state.status = status;
      renderBanner();
    },
    onGone: checkRoomGone,
    onFrame(frame) {
      if (frame.type === "reported") reportConfirmed(ctx);
      else if (frame.type === "chatLog") takeChatLog(frame);
    },
  });
}

// The socket keeps being refused at connect (a refused handshake carries no body): ask the
// public summary whether the room and this seat still exist. A seat the host removed, or
// given up (left on another device), goes home with a note naming the room; a room that is
// gone, too. Anything else (a network error, the seat still open) keeps retrying.
async function checkRoomGone() {
  const session = state.session;
  if (!session) return;
  let summary;
  try {
    summary = await api.getRoom(session.room);
  } catch (err) {
    if (err.status === 404 && state.session === session) {
      state.notice = { key: "conn.roomGone" };
      goHome();
    }
    return;
  }
  const fate = session.token ? seatFate(summary, session) : null;
  if (fate && state.session === session) {
    state.notice = { key: `seat.${fate}`, params: { code: session.room } };
    goHome();
  }
}

function goHome() {
  if (state.conn) state.conn.close();
  state.conn = null;
  state.session = null;
  state.view = null;
  state.status = "idle";
  clearSession();
  closeOverlays();
  closeRules();
  const u = new URL(location.href);
  u.searchParams.delete("room");
  history.replaceState(null, "", u);
  render();
}

function onViewFrame(frame) {
  // Views carry the room version; an older one arriving late must not undo a newer one.
  if (typeof frame.version === "number" && frame.version < state.version) return;
  state.version = typeof frame.version === "number" ? frame.version : state.version;
  const view = applyAliases(frame.view); // anonymous games: aliases in the viewer's language
  if (seatMoved(state.session, view)) saveSession(state.session);
  syncClock(view);
  if (view.phase && view.phase.kind === "lobby" && state.view && state.view.phase.kind !== "lobby") {
    // A new game in the same room: a fresh chat, fresh events, a closed role card.
    state.chatArchive = new Map();
    state.chatLogFrom = null;
    if (state.session) markEventsSeen(state.session.room, -1);
    resetPhaseMemory();
  }
  view.chat = archiveChat(view);
  const prev = state.view;
  const prevSeq = prev ? phaseKey(prev) : null;
  state.view = view;
  // What a screen reader says (the #announcer live region): the new phase, then what this
  // player alone just learnt (a police check, ...), which arrives with the new phase.
  const heard = [];
  if (phaseKey(view) !== prevSeq) {
    state.lastError = null;
    heard.push(phaseTitle(view));
  }
  if (prev) heard.push(...newResults(prev, view).map((r) => t("a11y.newResult", { text: resultText(view, r) })));
  if (heard.length) announce(heard.join(". "));
  phaseCues(prev, view);
  render();
  if (rulesOpen()) updateRules(view); // the host changed the options: the roles follow
  popNewEvents(view);
}

// The server keeps a window of the newest messages per channel; keep what this tab has
// seen so the log does not lose its beginning, still showing only readable channels.
// Ids ("day:12") are unique and count per channel: oldest first by time, then by number.
function archiveChat(view) {
  const incoming = Array.isArray(view.chat) ? view.chat : [];
  for (const m of incoming) state.chatArchive.set(m.id, m);
  const readable = new Set((view.channels && view.channels.read) || []);
  return [...state.chatArchive.values()]
    .filter((m) => readable.has(m.channel))
    .sort((a, b) => (a.at || 0) - (b.at || 0) || lineNo(a.id) - lineNo(b.id));
}

// A page of the ended game's whole chat (docs/protocol.md, "chatLog"): older lines join the
// lines this tab keeps; the end screen shows them all.
function takeChatLog(frame) {
  if (!state.view || !state.view.review) return; // a late answer after a new game started
  for (const m of Array.isArray(frame.lines) ? frame.lines : []) state.chatArchive.set(m.id, m);
  if (typeof frame.from === "number") state.chatLogFrom = frame.from;
  render();
}

// Sound cues: night falls, morning comes, this player is asked to act.
function phaseCues(prev, view) {
  if (!prev || !prev.phase || !view.phase) return;
  const was = prev.phase.kind;
  const now = view.phase.kind;
  if (now !== was && /night/i.test(now)) cue("night");
  else if (now !== was && /night/i.test(was) && now !== "ended") cue("morning");
  const task = (v) => (v.private && v.private.task) || "none";
  const asked = (v) => !["none", "done", "sleep"].includes(task(v)) || (v.phase.speaker && v.you && v.phase.speaker === v.you.id);
  if (asked(view) && (!asked(prev) || phaseKey(prev) !== phaseKey(view))) cue("turn");
}

function phaseKey(view) {
  const p = view.phase || {};
  return `${p.kind}:${p.seq ?? ""}:${view.day ?? ""}`;
}

function onErrorFrame(frame) {
  const action = state.pending.get(frame.id) || null;
  state.pending.delete(frame.id);
  // This seat opened more sockets than the server keeps and this one was the oldest
  // (docs/protocol.md, "replaced"): reconnecting by itself would push out another tab or
  // device of the seat in turn, so this one waits for a tap on the banner.
  if (frame.code === "replaced" && state.session) {
    if (state.conn) state.conn.close();
    state.conn = null;
    state.status = "replaced";
    renderBanner();
    return;
  }
  // First: "left"/"kicked" reach every device of the seat with the id of the frame that
  // caused them, which may equal one of this tab's own ids (e.g. of a nudge).
  if ((frame.code === "kicked" || frame.code === "left") && state.session) {
    state.notice = { key: `err.${frame.code}` };
    goHome();
    return;
  }
  // A nudge before the server's deadline is expected and harmless.
  if (action === "nudge" || action === "sync") return;
  // Kept as code + message so a language switch redraws it in the new language.
  state.lastError = { id: frame.id, action, code: frame.code, message: frame.message };
  if (action !== "chat") toast(errorText(frame.code, frame.message));
  render();
}

function popNewEvents(view) {
  const room = state.session && state.session.room;
  const events = Array.isArray(view.events) ? view.events : [];
  if (!room) return;
  let seen = seenEvents(room);
  if (events.length - 1 < seen) seen = -1; // the list restarted (a new game)
  if (events.length - 1 > seen) {
    showEventCards(events.slice(seen + 1), view);
    markEventsSeen(room, events.length - 1);
  }
}

function phaseTitle(view) {
  const kind = (view.phase && view.phase.kind) || "";
  return has(`phase.${kind}`) ? t(`phase.${kind}`) : t("phase.unknown");
}

// Findings in `view` that `prev` did not have (the list only grows within a game).
function newResults(prev, view) {
  const before = myResults(prev);
  const after = myResults(view);
  return after.length > before.length ? after.slice(before.length) : [];
}

export function announce(text) {
  const el = $("#announcer");
  el.textContent = "";
  // A fresh text node makes screen readers read the same words again.
  setTimeout(() => (el.textContent = text), 50);
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

function render() {
  const name = pickScreen();
  const main = $("#main");
  // A new screen (not the same one redrawn after a language switch) starts fresh: at its
  // top, without the last screen's announcement cards, with focus on its heading.
  const fresh = name !== state.shownScreen;
  if (name !== state.screenName) {
    if (state.screen && state.screen.destroy) state.screen.destroy();
    main.replaceChildren();
    state.screenName = name;
    state.screen = SCREENS[name].mount(main, ctx);
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

function renderChrome() {
  document.title = t("app.title");
  $("#brand").textContent = t("app.title");
  $("#skip-link").textContent = t("app.skip");
  $("#lang-label").textContent = t("lang.label");
  $("#lang-code").textContent = t("lang.short");
  $("#kid-label").textContent = t("kid.label");
  $("#lang-select").value = getLang();
  $("#kid-toggle").checked = getKid();
  const chip = $("#room-chip");
  chip.hidden = !state.session;
  chip.textContent = state.session ? state.session.room : "";
  const roleBtn = $("#my-role-btn");
  const you = state.view && state.view.you;
  const kind = state.view && state.view.phase && state.view.phase.kind;
  roleBtn.hidden = !(you && you.role && kind !== "lobby");
  roleBtn.textContent = t("myRole");
  const soundBtn = $("#sound-btn");
  soundBtn.textContent = soundOn() ? "🔔" : "🔕";
  soundBtn.setAttribute("aria-label", soundOn() ? t("sound.on") : t("sound.off"));
  soundBtn.title = t("sound.hint");
  const rulesBtn = $("#rules-btn");
  rulesBtn.hidden = !(state.view && state.view.preset);
  rulesBtn.textContent = t("rules.button");
  const v = state.view;
  const night = v && v.phase && /night/i.test(v.phase.kind || "");
  document.body.dataset.tone = state.screenName === "game" ? (night ? "night" : "day") : state.screenName;
  setThemeColor(document.body.dataset.tone);
  renderBanner();
}

function renderBanner() {
  const el = $("#conn-banner");
  if (!online()) {
    // No network at all (the app opened from the home screen offline, or the phone lost it).
    el.hidden = false;
    el.dataset.state = "offline";
    el.textContent = t("net.offline");
    return;
  }
  delete el.dataset.state;
  const show = state.session && ["lost", "connecting", "replaced"].includes(state.status);
  el.hidden = !show;
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
          onclick: () => {
            state.status = "connecting";
            connect();
            render();
          },
        },
        t("conn.useHere"),
      ),
    );
    return;
  }
  el.textContent = show ? t(state.status === "lost" ? "conn.lost" : "conn.connecting") : "";
}

// Countdown tick: screens redraw their clock. When the phase's deadline (or the bots' next
// tick, room.wakeAt) has passed, nudge the server with the
// phase's seq: a little jitter so not every client nudges at once, and a few retries in
// case the first one arrived a moment early.
let lastSecondsKey = null;
function tick() {
  if (state.screen && state.screen.tick) state.screen.tick();
  const v = state.view;
  if (v && v.phase && typeof v.phase.endsAt === "number" && !v.paused && state.screenName === "game") {
    const left = v.phase.endsAt - serverNow();
    const key = phaseKey(v);
    if (left > 0 && left <= 5 && lastSecondsKey !== key) {
      lastSecondsKey = key;
      cue("lastSeconds");
    }
  }
  if (!v || !state.conn || !v.phase || v.phase.kind === "lobby" || v.phase.kind === "ended") return;
  const due = [v.phase.endsAt, v.room && v.room.wakeAt].filter((x) => typeof x === "number");
  if (!due.length) return;
  const at = Math.min(...due);
  if (serverNow() < at) return;
  const key = `${phaseKey(v)}@${at}`;
  const now = performance.now();
  if (state.nudged.key !== key) state.nudged = { key, count: 0, next: now + Math.random() * 500 };
  if (state.nudged.count < 6 && now >= state.nudged.next) {
    state.nudged.count += 1;
    state.nudged.next = now + 1500 * state.nudged.count + Math.random() * 500;
    ctx.send("nudge", { phase: v.phase.seq });
  }
}

function boot() {
  registerServiceWorker();
  watchNetwork((isOnline) => {
    renderChrome();
    if (isOnline) announce(t("net.back"));
  });
  $("#lang-select").addEventListener("change", (e) => {
    setLang(e.target.value);
    rerenderAll();
  });
  $("#kid-toggle").addEventListener("change", (e) => {
    setKid(e.target.checked);
    rerenderAll();
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
  const params = new URLSearchParams(location.search);
  const room = (params.get("room") || "").toUpperCase();
  // A private link (seat in the fragment) seats this browser; else the seat kept for ?room.
  const linked = takeSeatFromFragment();
  if (linked) {
    takeLinkedSeat(linked);
    setInterval(tick, 250);
    return;
  }
  const saved = loadSession(room || null);
  if (saved && (!room || saved.room === room)) {
    enterRoom(saved);
  } else {
    if (saved) clearSession();
    render();
  }
  setInterval(tick, 250);
}

// A private link ("continue on another device") for a room where this browser already holds
// another seat that is still open: a browser keeps one seat per room, so taking the link's
// seat would drop that seat's token for good. Ask first; the answer that loses nothing
// (keep the seat this browser has) comes first: a link sent by another player is theirs.
async function takeLinkedSeat(linked) {
  const held = loadSession(linked.room);
  if (!held || (held.playerId === linked.playerId && held.token === linked.token)) {
    enterRoom({ ...linked, wsUrl: linked.wsUrl || (held && held.wsUrl) || "" });
    return;
  }
  let players = null;
  try {
    players = (await api.getRoom(linked.room)).players || [];
  } catch (err) {
    if (err.status === 404) players = []; // the room is gone: no seat to keep
  }
  const mine = players && players.find((p) => p.id === held.playerId);
  if (players && (!mine || mine.left)) {
    enterRoom(linked); // the seat this browser held is closed (left, removed, room gone)
    return;
  }
  const name = (pid) => ((players || []).find((p) => p.id === pid) || {}).name || pid;
  render(); // home, under the question
  showSheet(
    "seat-choice",
    t("seatChoice.title"),
    h(
      "div",
      null,
      h("p", { id: "seat-choice-what" }, t("seatChoice.what", { room: linked.room, held: name(held.playerId), linked: name(linked.playerId) })),
      h("p", { class: "hint" }, t("seatChoice.hint")),
      h(
        "div",
        { class: "row" },
        h("button", { type: "button", class: "btn btn-primary", id: "seat-choice-keep", onclick: () => { closeSheet(); enterRoom(held); } }, t("seatChoice.keep", { name: name(held.playerId) })),
        h("button", { type: "button", class: "btn", id: "seat-choice-switch", onclick: () => { closeSheet(); enterRoom(linked); } }, t("seatChoice.switch", { name: name(linked.playerId) })),
      ),
    ),
  );
}

function rerenderAll() {
  // Language or wording changed: rebuild the current screen so every string is redrawn.
  $("#announcer").textContent = "";
  if (state.screen && state.screen.destroy) state.screen.destroy();
  state.screenName = null;
  if (state.view) applyAliases(state.view);
  render();
  closeOverlays({ keepRole: true, view: state.view });
  if (rulesOpen()) {
    closeRules();
    if (state.view) showRules(state.view);
  }
}

api.loadConfig().then(boot);
