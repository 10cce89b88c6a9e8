// Mute: hide one player's chat lines on this screen only. Kept in this browser per room;
// the server never knows (nothing is sent).
import { device, KEYS } from "../storage.js";

function load(room) {
  const list = device.getJSON(KEYS.mute + room, []);
  return new Set(Array.isArray(list) ? list : []);
}

export function isMuted(room, pid) {
  return Boolean(room) && load(room).has(pid);
}

export function setMuted(room, pid, on) {
  const set = load(room);
  if (on) set.add(pid);
  else set.delete(pid);
  if (set.size) device.setJSON(KEYS.mute + room, [...set]);
  else device.remove(KEYS.mute + room);
}

/** The messages left once muted players' lines are taken out, and how many were hidden. */
export function withoutMuted(room, msgs) {
  const muted = room ? load(room) : new Set();
  if (!muted.size) return { shown: msgs, hidden: 0 };
  const shown = msgs.filter((m) => !(m.from && muted.has(m.from)));
  return { shown, hidden: msgs.length - shown.length };
}
