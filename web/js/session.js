// Seats kept in this browser (localStorage, one entry per room), so any tab on this device
// (a refresh, a new tab, the browser reopened) goes back into the game with the same seat.
// A seat is removed when the player leaves the room's end screen, leaves or is removed,
// or the server says the room is gone. Spectators are not seated: they stay per tab.
// Docs: docs/rules.md ("in this browser", under "Seats, leaving, reports and mute").
import { device, KEYS, tab } from "./storage.js";

const SEAT = KEYS.seat;
const SEEN = KEYS.seen;
const WATCH = KEYS.watch; // a spectator's room, this tab only

let current = null; // the room of the session in use in this tab

/**
 * This browser's device key: one random id kept in localStorage, sent with every connect and
 * with takeSeat, so a browser that held a seat of a game takes no other seat of it
 * (docs/rules.md, "Substitutes"). Another browser profile has another key; the host's tap
 * is what stops that. Storage disabled: a key for this page's life.
 */
let deviceKeyHere = null;
export function deviceKey() {
  if (deviceKeyHere) return deviceKeyHere;
  deviceKeyHere = device.get(KEYS.deviceId); // one random key per browser (one person, one seat)
  if (!deviceKeyHere || !/^[A-Za-z0-9_-]{16,64}$/.test(deviceKeyHere)) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    deviceKeyHere = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    device.set(KEYS.deviceId, deviceKeyHere); // storage full or off: this page keeps the key it made
  }
  return deviceKeyHere;
}

/** The seat kept for `room`, or (no room given) this tab's spectator session; null if none. */
export function loadSession(room) {
  if (!room) {
    const s = tab.getJSON(WATCH);
    return s && s.room && s.spectator ? s : null;
  }
  const s = device.getJSON(SEAT + room.toUpperCase());
  return s && s.room && s.token ? s : null;
}

export function saveSession(session) {
  current = session.room;
  if (session.spectator || !session.token) {
    tab.setJSON(WATCH, session);
    return;
  }
  const keep = {
    room: session.room,
    token: session.token,
    playerId: session.playerId,
    wsUrl: session.wsUrl || "",
    savedAt: Date.now(),
  };
  device.setJSON(SEAT + session.room, keep);
}

/** Forget the seat of `room` (default: the room in use in this tab) and its seen events. */
export function clearSession(room) {
  const r = (room || current || "").toUpperCase();
  tab.remove(WATCH);
  if (!r) return;
  device.remove(SEAT + r);
  device.remove(SEEN + r);
  if (r === current) current = null;
}

/** Every seat kept in this browser, newest first. */
export function allSeats() {
  const out = [];
  for (const key of device.keys(SEAT)) {
    const s = device.getJSON(key);
    if (s && s.room && s.token) out.push(s);
  }
  return out.sort((a, b) => (b.savedAt || 0) - (a.savedAt || 0));
}

/**
 * What the public room summary (GET /rooms/{code}) says of a seat kept here: null while it is
 * open, "removed" (the host removed it), "left" (the player left the game, e.g. on another
 * device), or "gone" (no such seat any more). Nothing else about the room is read.
 */
export function seatFate(summary, seat) {
  if ((summary.removed || []).includes(seat.playerId)) return "removed";
  const me = (summary.players || []).find((p) => p.id === seat.playerId);
  // an anonymous game gave the seats fresh ids at the start: a seat kept from the lobby is
  // not listed under its old id, and its socket's answer tells (web/js/game/aliases.js)
  if (!me) return summary.options && summary.options.anonymous && summary.status !== "lobby" ? null : "gone";
  return me.left ? "left" : null;
}

/** Events already shown as a card, per room, so a refresh or another tab does not replay them. */
export function seenEvents(room) {
  return Number(device.get(SEEN + room) || "-1");
}

export function markEventsSeen(room, count) {
  device.set(SEEN + room, String(count));
}

// ---- the private link: the seat in the URL fragment --------------------------------------
// `#seat=ROOM.PLAYER.TOKEN`. A fragment never reaches a server (not in requests, not in
// logs); the token leaves this browser only as the WebSocket `token`.

/** The private link that seats another device as this player. */
export function privateLink(session) {
  const u = new URL(location.href);
  u.search = "";
  u.searchParams.set("room", session.room);
  const frag = new URLSearchParams({ seat: `${session.room}.${session.playerId}.${session.token}` });
  // The WebSocket URL comes from the REST answer; another device has no such answer.
  if (session.wsUrl) frag.set("ws", session.wsUrl);
  u.hash = frag.toString();
  return u.toString();
}

/** A seat carried by this page's URL fragment (and the fragment removed), or null. */
export function takeSeatFromFragment() {
  if (!(location.hash || "").startsWith("#seat=")) return null;
  const frag = new URLSearchParams(location.hash.slice(1));
  const m = /^([A-Za-z0-9]{4,8})\.(p\d{1,3})\.([A-Za-z0-9_-]{16,128})$/.exec(frag.get("seat") || "");
  const ws = frag.get("ws") || "";
  const u = new URL(location.href);
  u.hash = "";
  if (m) u.searchParams.set("room", m[1].toUpperCase());
  history.replaceState(null, "", u); // out of the address bar and the history at once
  if (!m) return null;
  return { room: m[1].toUpperCase(), playerId: m[2], token: m[3], wsUrl: trustedWs(ws) };
}

// A link must not send this browser to somebody else's server: only this page's host or
// an API Gateway endpoint.
function trustedWs(ws) {
  try {
    const u = new URL(ws);
    if (!/^wss?:$/.test(u.protocol)) return "";
    return u.host === location.host || /\.execute-api\.[a-z0-9-]+\.amazonaws\.com$/.test(u.hostname) ? ws : "";
  } catch {
    return "";
  }
}
