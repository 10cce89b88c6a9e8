// When a failed voice connection is tried again (mesh.js `fail`): a refused offer or answer
// (the relay's policy, a budget, a bad frame), an ICE failure (connectionState "failed") or a
// connection that never came up is made again after a backoff that grows with each try, and
// after the last one the page gives up on that person (the bar says so, controls.js) until it
// joins voice again or the other side's own offer connects. A connection that comes up and
// falls again soon (before the mesh calls it stable) keeps its count: it backs off further
// rather than trying again every few seconds. Pure bookkeeping: the mesh reads
// the clock and keeps the timers.

export const BACKOFF_MS = [1000, 4000, 12000, 30000]; // the waits before each try again

export class Retries {
  constructor(backoff = BACKOFF_MS) {
    this.backoff = backoff;
    this.tries = new Map(); // pid -> {n: tries made or waiting, at: when the next one is due, waiting}
    this.gaveUp = new Set();
  }

  /** A try with `pid` failed at `now`: `{at, scheduled}` (the next try's time; `scheduled`
   * false when one is already waiting: failures of one try count once), or null when the
   * tries are used up (given up). */
  failed(pid, now) {
    if (this.gaveUp.has(pid)) return null;
    const r = this.tries.get(pid) || { n: 0, at: -Infinity, waiting: false };
    if (r.waiting) return { at: r.at, scheduled: false };
    if (r.n >= this.backoff.length) {
      this.tries.delete(pid);
      this.gaveUp.add(pid);
      return null;
    }
    const at = now + this.backoff[r.n];
    this.tries.set(pid, { n: r.n + 1, at, waiting: true });
    return { at, scheduled: true };
  }

  /** The waiting try with `pid` is made now: true if one was waiting (it is taken). */
  take(pid) {
    const r = this.tries.get(pid);
    if (!r || !r.waiting) return false;
    r.waiting = false;
    return true;
  }

  /** The connection with `pid` came up: no longer given up on; its tries are kept (one that
   * falls again soon backs off further) until it stayed up (`ok`). */
  up(pid) {
    this.gaveUp.delete(pid);
  }

  /** The connection with `pid` stayed up: its tries start over. */
  ok(pid) {
    this.tries.delete(pid);
    this.gaveUp.delete(pid);
  }

  /** How many of `people` (pids) this page gave up on. */
  givenUp(people) {
    let n = 0;
    for (const pid of people) if (this.gaveUp.has(pid)) n += 1;
    return n;
  }
}
