// The server clock as this tab sees it: view.serverNow at receipt plus local elapsed time
// times view.clockRate (the offline stack's --time-scale runs game time faster; its
// --manual-clock sends rate 0: game time stands still between the views a step pushes, so
// a countdown holds and no nudge is sent early).
let base = { server: Date.now() / 1000, local: performance.now() / 1000, rate: 1 };

export function syncClock(view) {
  if (typeof view.serverNow !== "number") return;
  base = {
    server: view.serverNow,
    local: performance.now() / 1000,
    rate: typeof view.clockRate === "number" && view.clockRate >= 0 ? view.clockRate : 1,
  };
}

export function serverNow() {
  return base.server + (performance.now() / 1000 - base.local) * base.rate;
}

/** Game seconds left until `endsAt` (server epoch seconds), or null when untimed. */
export function secondsLeft(endsAt) {
  if (typeof endsAt !== "number") return null;
  return Math.max(0, endsAt - serverNow());
}

/** Real milliseconds until `endsAt`, for scheduling (Infinity while the clock stands still). */
export function realMsUntil(endsAt) {
  const left = endsAt - serverNow();
  if (left <= 0) return 0;
  return base.rate > 0 ? (left / base.rate) * 1000 : Infinity;
}
