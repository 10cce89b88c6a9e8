// The single-device game kept in this browser (localStorage, not the tab's sessionStorage):
// the room code, every seat's token and where the queue stands, so a refresh or a closed
// browser finds the same game. The server keeps the room 24 h after its last change.
const KEY = "mafia.device";
const VOICE_KEY = "mafia.device.voice";

/** A fresh queue position: nothing seen, no queue started. */
export function freshProgress() {
  return { key: null, pos: 0, open: false, dawnDay: null, seen: -1 };
}

/** {room, preset, wsUrl, seats: [{id, name, token}], progress} or null. */
export function loadGame() {
  try {
    const g = JSON.parse(localStorage.getItem(KEY) || "null");
    if (!g || !g.room || !Array.isArray(g.seats) || !g.seats.length) return null;
    g.progress = { ...freshProgress(), ...(g.progress || {}) };
    return g;
  } catch {
    return null;
  }
}

export function saveGame(game) {
  localStorage.setItem(KEY, JSON.stringify(game));
}

export function clearGame() {
  localStorage.removeItem(KEY);
}

export const voiceOn = () => localStorage.getItem(VOICE_KEY) === "1";
export const setVoice = (on) => localStorage.setItem(VOICE_KEY, on ? "1" : "0");
