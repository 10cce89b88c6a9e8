// Per-seat volume, kept on this device (localStorage, one entry per room): how loud each other
// seat plays here, 0–100, and whether it is muted here. A listener's own choice: it changes
// nothing anyone else hears or sends (the sender still decides what it sends: mesh.js).
import { KEYS, device } from "../storage.js";

export const FULL = 100;

function read(room) {
  const all = device.getJSON(KEYS.voiceVolume + room);
  return all && typeof all === "object" ? all : {};
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
  device.setJSON(KEYS.voiceVolume + room, all); // storage full or off: it holds for this page's life
}
