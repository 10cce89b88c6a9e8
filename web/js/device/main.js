// Single-device mode: one phone passed around the table (docs/rulebooks/001-city.txt «Игра на одном
// устройстве»). The same engine and server as online play: the device creates an `untimed` room
// over REST, holds every seat (one token and one WebSocket each), starts the game, and shows only
// the current queue player's view. See docs/architecture.md, "Single-device mode".
import * as api from "../api.js";
import SPECS from "../game/option-specs.js";
import { $, h } from "../dom.js";
import { errorText, getKid, getLang, t } from "../i18n.js";
import { playerName } from "../game/format.js";
import { queueOf, step } from "./flow.js";
import { hush, say } from "./narrator.js";
import { Seats } from "./seats.js";
import { testHook } from "../testhooks.js";
import { lastWord } from "./lastword.js";
import { toast } from "../toast.js";
import * as screens from "./screens.js";
import { setupScreen } from "./setup.js";
import { clearGame, freshProgress, loadGame, saveGame, setVoice, voiceOn } from "./store.js";

// Rule sets whose option schema has `untimed`, with their player ranges (from the generated
// copy of mafia_engine.presets(); a browser test checks this against the engine).
export const UNTIMED_PRESETS = Object.fromEntries(
  Object.entries(SPECS)
    .filter(([, spec]) => spec.options.some((o) => o.key === "untimed"))
    .map(([name, spec]) => [name, { min: spec.minPlayers, max: spec.maxPlayers }]),
);

// Engine refusals that only mean "this was already done" (e.g. sent again after a refresh).
const HARMLESS = new Set(["already_confirmed", "already_voted", "already_ready", "not_your_turn", "wrong_phase"]);

const ctl = {
  root: null,
  game: null, // what store.js keeps
  seats: null,
  mode: "off", // off | setup | play
  draft: null, // the setup form, kept across a language switch
  spoken: new Set(), // narrator lines already said for this step
  awaiting: null, // {seat, seq, before, at}: a confirmation on its way
  choice: { at: null, index: null }, // the option picked on the open player's screen
  readySent: new Set(), // seats whose ready mark was sent in this lobby
  lastSig: null, // what the screen was drawn from: redraw only when it changes
  lastStart: 0,
  notice: null,
};
testHook("device", ctl);

function root() {
  if (!ctl.root) {
    // The main landmark while the device mode is on (#main is hidden then, style.css).
    ctl.root = h("div", { id: "device-root", class: "device", role: "main" });
    $("#main").after(ctl.root);
  }
  return ctl.root;
}

function show(on) {
  if (on) document.body.dataset.device = "on";
  else delete document.body.dataset.device;
  root().hidden = !on;
}

/** The Home screen's "Play on one device" button. */
export function openDevice() {
  ctl.mode = "setup";
  show(true);
  render();
}

function leaveDevice() {
  hush();
  if (ctl.seats) ctl.seats.close();
  ctl.seats = null;
  ctl.game = null;
  ctl.mode = "off";
  clearGame();
  show(false);
  root().replaceChildren();
}

async function createGame(names, preset) {
  const first = await api.createRoom(names[0], preset, { untimed: true }, getLang());
  const game = {
    room: first.roomCode, preset, wsUrl: first.wsUrl,
    seats: [{ id: first.playerId, name: names[0], token: first.token }],
    progress: freshProgress(),
  };
  try {
    for (const name of names.slice(1)) {
      const res = await api.joinRoom(game.room, name, { device: false }); // one phone, every seat
      game.seats.push({ id: res.playerId, name, token: res.token });
    }
  } catch (err) {
    clearGame(); // a half-seated room is of no use; the server lets it expire
    throw err;
  }
  saveGame(game);
  play(game);
}

function play(game) {
  ctl.game = game;
  ctl.mode = "play";
  ctl.spoken = new Set();
  show(true);
  if (ctl.seats) ctl.seats.close();
  ctl.seats = new Seats(game, { onChange: render, onError, onGone: checkGone });
  render();
}

async function checkGone() {
  if (!ctl.game) return;
  try {
    await api.getRoom(ctl.game.room);
  } catch (err) {
    if (err.status === 404) {
      leaveDevice();
      openDevice();
      ctl.notice = "device.gone";
      render();
    }
  }
}

function onError(seat, action, frame) {
  if (action === "sync" || action === "nudge" || HARMLESS.has(frame.code)) return;
  if (action === "start" && frame.code === "not_ready") return; // the ready marks are on their way
  toast(errorText(frame.code, frame.message));
}

function host() {
  const v = ctl.seats && ctl.seats.latest();
  return (v && v.room && v.room.host) || ctl.game.seats[0].id;
}

// Lobby: every seat is this device's, so mark them all ready, then start as the host.
function driveLobby(view) {
  if (view.room && view.room.setupError) return; // shown on the screen; starting would be refused
  const hostId = host();
  let allReady = true;
  for (const p of view.players || []) {
    if (p.id === hostId || p.ready) continue;
    allReady = false;
    if (ctl.seats.view(p.id) && !ctl.readySent.has(p.id)) {
      ctl.readySent.add(p.id);
      ctl.seats.send(p.id, "ready", { ready: true });
    }
  }
  if (!allReady || !ctl.seats.view(hostId)) return;
  const now = performance.now();
  if (now - ctl.lastStart > 1500) {
    ctl.lastStart = now;
    ctl.seats.send(hostId, "start");
  }
  // A start refused as "not ready" (the marks were still on their way) is tried again.
  clearTimeout(ctl.startTimer);
  ctl.startTimer = setTimeout(() => render(), 1600);
}

function saveProgress(progress) {
  ctl.game.progress = progress;
  saveGame(ctl.game);
}

function speakOnce(key, text) {
  if (ctl.spoken.has(key)) return;
  ctl.spoken.add(key);
  say(text);
}

function narrate(view, s) {
  if (s.screen === "handover") {
    const phaseKey = `phase:${ctl.game.progress.key}`;
    speakOnce(phaseKey, t(`device.say.${s.stage}`));
    speakOnce(`pass:${ctl.game.progress.key}:${ctl.game.progress.pos}`, t("device.say.pass", { name: playerName(view, s.seat) }));
  } else if (["discussion", "defense", "speech", "lastWord"].includes(s.screen)) {
    speakOnce(`phase:${s.screen}:${view.phase.seq}`, t(`device.say.${s.screen}`));
  } else if (s.screen === "end") {
    speakOnce(`end:${ctl.game.room}:${(view.events || []).length}`, t("device.say.end"));
  }
}

// The queue has ended but the phase has not: a confirmation did not arrive. After a
// moment, give the device back to the first player whose own view still has a task.
let recheckTimer = null;
function recheckQueue() {
  clearTimeout(recheckTimer);
  const key = ctl.game.progress.key;
  recheckTimer = setTimeout(() => {
    const view = ctl.seats && ctl.seats.latest();
    if (!view || ctl.game.progress.key !== key) return;
    const { step: s } = step(view, ctl.game.progress);
    if (s.screen !== "wait") return;
    const queue = queueOf(view);
    const pos = queue.findIndex((id) => {
      const own = ctl.seats.view(id);
      const task = own && own.private && own.private.task;
      return own && own.phase.seq === view.phase.seq && task && !["done", "none"].includes(task);
    });
    if (pos >= 0) {
      saveProgress({ ...ctl.game.progress, pos, open: false });
      render();
    }
  }, 4000);
}

function advance() {
  const p = { ...ctl.game.progress, pos: ctl.game.progress.pos + 1, open: false };
  saveProgress(p);
  render();
}

function bar() {
  const on = voiceOn();
  return h(
    "div",
    { class: "device-bar" },
    h(
      "button",
      {
        type: "button", class: "btn btn-small btn-quiet", id: "device-voice", "aria-pressed": String(on),
        onclick: () => {
          setVoice(!voiceOn());
          if (!voiceOn()) hush();
          render();
        },
      },
      t(on ? "device.voice.on" : "device.voice.off"),
    ),
    h(
      "button",
      {
        type: "button", class: "btn btn-small btn-quiet", id: "device-exit",
        onclick: () => {
          if (ctl.mode === "play" && !window.confirm(t("device.exitConfirm"))) return;
          const v = ctl.mode === "play" && ctl.seats && ctl.seats.latest();
          if (v && v.phase && !["lobby", "ended"].includes(v.phase.kind) && !v.result && ctl.seats.send(host(), "endGame")) {
            // The host ends the game for everyone (every role shown, nobody wins); leave
            // once the server has answered, so the frame is not cut off with the sockets.
            const t0 = performance.now();
            const check = () => {
              const now = ctl.seats && ctl.seats.latest();
              if (!now || now.result || performance.now() - t0 > 3000) leaveDevice();
              else setTimeout(check, 100);
            };
            return check();
          }
          leaveDevice();
        },
      },
      t(ctl.mode === "play" ? "device.exit" : "device.back"),
    ),
  );
}

// What a player's screen is drawn from: their phase, card and task (not who is connected).
function ownPart(id) {
  const own = ctl.seats.view(id);
  return own ? JSON.stringify([own.phase, own.you, own.private]) : null;
}

// After a confirmation: the seat's next view says whether that player is done (next
// player), has another duty (their screen again), or the phase moved on (a new queue).
function settleAwaiting() {
  const a = ctl.awaiting;
  if (!a) return false;
  const own = ctl.seats.view(a.seat);
  const changed = ownPart(a.seat) !== a.before;
  if (!changed && performance.now() - a.at < 5000) return true; // still waiting
  ctl.awaiting = null;
  const view = ctl.seats.latest();
  if (!own || !view || own.phase.seq !== a.seq || view.phase.seq !== a.seq) return false;
  const task = own.private && own.private.task;
  if (changed && task && !["done", "none"].includes(task)) return false; // their screen again
  saveProgress({ ...ctl.game.progress, pos: ctl.game.progress.pos + 1, open: false });
  return false;
}

// The step to show and what it is drawn from: the screen is rebuilt only when that changes,
// so a view pushed to another seat does not reset a choice being made.
function currentStep() {
  const view = ctl.seats.latest();
  if (!view) return { view, s: { screen: "loading" }, sig: "loading" };
  if (view.phase && view.phase.kind === "lobby") return { view, s: { screen: "lobby" }, sig: `lobby:${JSON.stringify(view.room && view.room.setupError)}` };
  if (settleAwaiting()) return { view, s: { screen: "wait" }, sig: "awaiting" };
  const { step: s, progress } = step(view, ctl.game.progress);
  if (JSON.stringify(progress) !== JSON.stringify(ctl.game.progress)) saveProgress(progress);
  // Shared screens also offer seats' public duties (the accused's "finished", the speaker).
  const tasks = ctl.game.seats.map((x) => {
    const own = ctl.seats.view(x.id);
    return own && own.private ? [own.phase.seq, own.private.task] : null;
  });
  const from = s.screen === "handover" ? null : s.screen === "turn" ? ownPart(s.seat) : JSON.stringify([view, tasks]);
  return { view, s, sig: JSON.stringify([s, progress, from]) };
}

function playScreen({ view, s }) {
  if (!view) return screens.waiting();
  if (s.screen === "lobby") {
    const bad = view.room && view.room.setupError;
    if (bad) {
      return h("section", { class: "device-screen", id: "device-starting" }, h("p", { class: "form-error", role: "alert" }, errorText(bad.code, bad.message)));
    }
    return h("section", { class: "device-screen", id: "device-starting" }, h("p", { class: "device-pass" }, t("device.starting")));
  }
  narrate(view, s);
  switch (s.screen) {
    case "handover":
      return screens.handover(view, s.stage, s.seat, {
        onOpen: () => {
          saveProgress({ ...ctl.game.progress, open: true });
          render();
        },
      });
    case "turn": {
      const own = ctl.seats.view(s.seat);
      // That seat's socket may be a moment behind the newest view.
      if (!own || !own.phase || own.phase.seq !== view.phase.seq) return screens.waiting();
      const at = `${ctl.game.progress.key}:${ctl.game.progress.pos}`;
      return screens.turn(own, s.stage, {
        chosen: ctl.choice.at === at ? ctl.choice.index : null,
        onChoose: (index) => (ctl.choice = { at, index }),
        onDone: (act) => {
          if (!act) return advance();
          // Close the screen, and wait for the server's answer: original rules may give the
          // same player a second duty tonight, which opens their screen again.
          ctl.awaiting = { seat: s.seat, seq: own.phase.seq, before: ownPart(s.seat), at: performance.now() };
          ctl.choice = { at: null, index: null };
          ctl.seats.send(s.seat, act.action, act.payload);
          setTimeout(() => render(), 5000);
          render();
        },
      });
    }
    case "news":
      return screens.news(view, s.events, {
        onContinue: () => {
          saveProgress({ ...ctl.game.progress, seen: (view.events || []).length - 1 });
          render();
        },
      });
    case "discussion":
      return screens.discussion(view, {
        onVote: () => {
          // Every living seat that has not said so yet ("already_ready" is harmless).
          for (const id of queueOf(view)) {
            const sv = ctl.seats.view(id);
            if (!sv || !sv.private || sv.private.task === "ready") ctl.seats.send(id, "readyEarly");
          }
        },
      });
    case "defense": {
      const speaking = ctl.game.seats
        .map((seat) => seat.id)
        .filter((id) => {
          const sv = ctl.seats.view(id);
          return sv && sv.private && sv.private.task === "endTurn";
        });
      return screens.defense(view, speaking, { onFinished: (id) => ctl.seats.send(id, "endTurn") });
    }
    case "speech":
      return screens.speech(view, ctl.seats.view(view.phase.speaker), {
        onNominate: (id, action, payload) => ctl.seats.send(id, action, payload),
      });
    case "lastWord":
      return lastWord(view, { onDone: (id) => ctl.seats.send(id, "endTurn") });
    case "end":
      return screens.end(view, {
        onAgain: () => {
          saveProgress(freshProgress());
          ctl.lastStart = 0;
          ctl.readySent.clear();
          ctl.seats.send(host(), "newGame");
        },
        onFinish: leaveDevice,
      });
    case "wait":
      if (!ctl.awaiting) recheckQueue();
      return screens.waiting();
    case "loading":
      return screens.waiting();
    default:
      return screens.publicPhase(view);
  }
}

function render(force = false) {
  if (ctl.mode === "off") return;
  if (ctl.mode === "setup") {
    ctl.lastSig = null;
    root().replaceChildren(bar(), setupScreen(ctl, { presets: UNTIMED_PRESETS, create: createGame, notice: ctl.notice }));
    return;
  }
  const cur = currentStep();
  if (cur.s.screen === "lobby") driveLobby(cur.view);
  const sig = `${cur.sig}|${getLang()}|${getKid()}|${voiceOn()}`;
  if (!force && sig === ctl.lastSig) return;
  ctl.lastSig = sig;
  root().replaceChildren(bar(), playScreen(cur));
}

// A language or wording switch redraws in the new words (app.js switches first).
function onChrome() {
  setTimeout(() => render(true), 0);
}

function boot() {
  $("#lang-select").addEventListener("change", onChrome);
  $("#kid-toggle").addEventListener("change", onChrome);
  const saved = loadGame();
  if (saved) api.loadConfig().then(() => play(saved));
}

boot();
