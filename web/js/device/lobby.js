// The single device's lobby: every seat is this device's, so mark them all ready, then start
// as the host.
import { ctl, host, redraw } from "./state.js";

export function driveLobby(view) {
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
  ctl.startTimer = setTimeout(() => redraw(), 1600);
}
