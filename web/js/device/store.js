// The single-device game kept in this browser (localStorage, not the tab's sessionStorage):
// the room code, every seat's token and where the queue stands, so a refresh or a closed
// browser finds the same game. The server keeps the room 24 h after its last change.
import { device, KEYS } from "../storage.js";

/** A fresh queue position: nothing seen, no queue started. */
export function freshProgress() {
  return { key: null, pos: 0, open: false, dawnDay: null, seen: -1 };
}

/** {room, preset, wsUrl, seats: [{id, name, token}], progress} or null. */
export function loadGame() {
  const g = device.getJSON(KEYS.deviceGame);
  if (!g || !g.room || !Array.isArray(g.seats) || !g.seats.length) return null;
  g.progress = { ...freshProgress(), ...(g.progress || {}) };
  return g;
}

export function saveGame(game) {
  device.setJSON(KEYS.deviceGame, game);
}

export function clearGame() {
  device.remove(KEYS.deviceGame);
}

export const voiceOn = () => device.get(KEYS.deviceVoice) === "1";
export const setVoice = (on) => device.set(KEYS.deviceVoice, on ? "1" : "0");
