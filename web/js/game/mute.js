// Mute: hide one player's chat lines on this screen only. Kept in this browser per room;
// the server never knows (nothing is sent).
const KEY = "mafia.mute.";

function load(room) {
  try {
    const list = JSON.parse(localStorage.getItem(KEY + room) || "[]");
    return new Set(Array.isArray(list) ? list : []);
  } catch {
    return new Set();
  }
}

export function isMuted(room, pid) {
  return Boolean(room) && load(room).has(pid);
}

export function setMuted(room, pid, on) {
  const set = load(room);
  if (on) set.add(pid);
  else set.delete(pid);
  if (set.size) localStorage.setItem(KEY + room, JSON.stringify([...set]));
  else localStorage.removeItem(KEY + room);
}

/** The messages left once muted players' lines are taken out, and how many were hidden. */
export function withoutMuted(room, msgs) {
  const muted = room ? load(room) : new Set();
  if (!muted.size) return { shown: msgs, hidden: 0 };
  const shown = msgs.filter((m) => !(m.from && muted.has(m.from)));
  return { shown, hidden: msgs.length - shown.length };
}
