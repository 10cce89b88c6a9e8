// Per-seat volume, kept on this device (localStorage, one entry per room): how loud each other
// seat plays here, 0–100, and whether it is muted here. A listener's own choice: it changes
// nothing anyone else hears or sends (the sender still decides what it sends: mesh.js).
const KEY = "mafia.voiceVolume."; // + room code -> {pid: {volume, muted}}
export const FULL = 100;

function read(room) {
  try {
    const all = JSON.parse(localStorage.getItem(KEY + room) || "null");
    return all && typeof all === "object" ? all : {};
  } catch {
    return {};
  }
}

/** `{volume: 0–100, muted}` of seat `pid` in `room` on this device (full and unmuted at first). */
export function seatVolume(room, pid) {
  const v = (room && read(room)[pid]) || {};
  const volume = Number.isFinite(v.volume) ? Math.min(FULL, Math.max(0, Math.round(v.volume))) : FULL;
  return { volume, muted: v.muted === true };
}

/** Keep seat `pid`'s volume and mute in `room` on this device. */
export function keepSeatVolume(room, pid, { volume, muted }) {
  if (!room) return;
  const all = read(room);
  all[pid] = { volume, muted };
  try {
    localStorage.setItem(KEY + room, JSON.stringify(all));
  } catch {
    // storage full or disabled: the setting holds for this page's life
  }
}
