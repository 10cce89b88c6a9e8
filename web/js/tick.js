// The quarter-second tick of the online client: screens redraw their clock, the last five
// seconds sound, and a passed deadline nudges the server.
import { serverNow } from "./clock.js";
import { lastSecondsCue } from "./cues.js";
import { send } from "./room.js";
import { phaseKey, state } from "./store.js";

export const TICK_MS = 250;

export function tick() {
  if (state.screen && state.screen.tick) state.screen.tick();
  const v = state.view;
  if (v && v.phase && typeof v.phase.endsAt === "number" && !v.paused && state.screenName === "game") {
    lastSecondsCue(v, v.phase.endsAt - serverNow());
  }
  nudgeWhenDue(v);
}

// When the phase's deadline has passed, nudge the server with the phase's seq (the bots'
// moments are the server's own: no view announces them): a little jitter so not every client nudges at once, and a few
// retries in case the first one arrived a moment early.
function nudgeWhenDue(v) {
  if (!v || !state.conn || !v.phase || v.phase.kind === "lobby" || v.phase.kind === "ended") return;
  const at = v.phase.endsAt;
  if (typeof at !== "number") return;
  if (serverNow() < at) return;
  const key = `${phaseKey(v)}@${at}`;
  const now = performance.now();
  if (state.nudged.key !== key) state.nudged = { key, count: 0, next: now + Math.random() * 500 };
  if (state.nudged.count < 6 && now >= state.nudged.next) {
    state.nudged.count += 1;
    state.nudged.next = now + 1500 * state.nudged.count + Math.random() * 500;
    send("nudge", { phase: v.phase.seq });
  }
}
