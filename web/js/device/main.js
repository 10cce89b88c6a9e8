// Single-device mode: one phone passed around the table (docs/rulebooks/001-city.txt «Игра на одном
// устройстве»). The same engine and server as online play: the device creates an `untimed` room
// over REST, holds every seat (one token and one WebSocket each), starts the game, and shows only
// the current queue player's view. See docs/architecture.md, "Single-device mode".
//
// This module is the game's life (open, create, play, leave, the room gone); the other jobs
// have their own: lobby.js (ready marks and the start), queue.js (whose turn it is),
// narration.js (what is said aloud), drawing.js (the screen), state.js (what they share).
import * as api from "../api.js";
import SPECS from "../game/option-specs.js";
import { $ } from "../dom.js";
import { errorText, getLang, langReady } from "../i18n.js";
import { bindDrawing, render, root, show } from "./drawing.js";
import { hush } from "./narrator.js";
import { Seats } from "./seats.js";
import { ctl, setDrawer } from "./state.js";
import { clearGame, freshProgress, loadGame, saveGame } from "./store.js";
import { toast } from "../toast.js";

// Rule sets whose option schema has `untimed`, with their player ranges (from the generated
// copy of mafia_engine.presets(); a browser test checks this against the engine).
export const UNTIMED_PRESETS = Object.fromEntries(
  Object.entries(SPECS)
    .filter(([, spec]) => spec.options.some((o) => o.key === "untimed"))
    .map(([name, spec]) => [name, { min: spec.minPlayers, max: spec.maxPlayers }]),
);

// Engine refusals that only mean "this was already done" (e.g. sent again after a refresh).
const HARMLESS = new Set(["already_confirmed", "already_voted", "already_ready", "not_your_turn", "wrong_phase", "stale_phase"]);

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

// A language or wording switch redraws in the new words (player.js switches first; the new
// language's dictionary may still be on its way).
function onChrome() {
  langReady().then(() => setTimeout(() => render(true), 0));
}

function boot() {
  setDrawer(render);
  bindDrawing({ leave: leaveDevice, create: createGame, presets: UNTIMED_PRESETS });
  $("#lang-select").addEventListener("change", onChrome);
  $("#kid-toggle").addEventListener("change", onChrome);
  const saved = loadGame();
  if (saved) api.loadConfig().then(() => play(saved));
}

boot();
