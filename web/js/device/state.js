// The single-device controller's state, shared by its parts (main.js: the game's life;
// lobby.js: the lobby; queue.js: whose turn it is; narration.js: what is said aloud;
// drawing.js: the screen): the game kept in this browser, the seats' sockets, where the
// queue stands. Nothing here draws or sends.
import { saveGame } from "./store.js";
import { testHook } from "../testhooks.js";

export const ctl = {
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

// The screen's redraw (drawing.js `render`), handed in by main.js: the parts that change the
// queue ask for it without importing the drawing.
let drawer = () => {};
export function setDrawer(fn) {
  drawer = fn;
}
export function redraw(force = false) {
  drawer(force);
}

export function host() {
  const v = ctl.seats && ctl.seats.latest();
  return (v && v.room && v.room.host) || ctl.game.seats[0].id;
}

export function saveProgress(progress) {
  ctl.game.progress = progress;
  saveGame(ctl.game);
}
