// Whose turn it is on the single device: the step the queue (flow.js) stands at, what its
// screen is drawn from, a confirmation on its way, and the queue moved on.
import { queueOf, step } from "./flow.js";
import { ctl, redraw, saveProgress } from "./state.js";

// The queue has ended but the phase has not: a confirmation did not arrive. After a
// moment, give the device back to the first player whose own view still has a task.
let recheckTimer = null;
export function recheckQueue() {
  clearTimeout(recheckTimer);
  const key = ctl.game.progress.key;
  recheckTimer = setTimeout(() => {
    const view = ctl.seats && ctl.seats.latest();
    if (!view || ctl.game.progress.key !== key) return;
    const { step: s } = step(view, ctl.game.progress);
    if (s.screen !== "wait") return;
    const queue = queueOf(view);
    const pos = queue.findIndex((id) => {
      const own = ctl.seats.view(id);
      const task = own && own.private && own.private.task;
      return own && own.phase.seq === view.phase.seq && task && !["done", "none"].includes(task);
    });
    if (pos >= 0) {
      saveProgress({ ...ctl.game.progress, pos, open: false });
      redraw();
    }
  }, 4000);
}

export function advance() {
  const p = { ...ctl.game.progress, pos: ctl.game.progress.pos + 1, open: false };
  saveProgress(p);
  redraw();
}

// What a player's screen is drawn from: their phase, card and task (not who is connected).
export function ownPart(id) {
  const own = ctl.seats.view(id);
  return own ? JSON.stringify([own.phase, own.you, own.private]) : null;
}

// After a confirmation: the seat's next view says whether that player is done (next
// player), has another duty (their screen again), or the phase moved on (a new queue).
function settleAwaiting() {
  const a = ctl.awaiting;
  if (!a) return false;
  const own = ctl.seats.view(a.seat);
  const changed = ownPart(a.seat) !== a.before;
  if (!changed && performance.now() - a.at < 5000) return true; // still waiting
  ctl.awaiting = null;
  const view = ctl.seats.latest();
  if (!own || !view || own.phase.seq !== a.seq || view.phase.seq !== a.seq) return false;
  const task = own.private && own.private.task;
  if (changed && task && !["done", "none"].includes(task)) return false; // their screen again
  saveProgress({ ...ctl.game.progress, pos: ctl.game.progress.pos + 1, open: false });
  return false;
}

// The step to show and what it is drawn from: the screen is rebuilt only when that changes,
// so a view pushed to another seat does not reset a choice being made.
export function currentStep() {
  const view = ctl.seats.latest();
  if (!view) return { view, s: { screen: "loading" }, sig: "loading" };
  if (view.phase && view.phase.kind === "lobby") return { view, s: { screen: "lobby" }, sig: `lobby:${JSON.stringify(view.room && view.room.setupError)}` };
  if (settleAwaiting()) return { view, s: { screen: "wait" }, sig: "awaiting" };
  const { step: s, progress } = step(view, ctl.game.progress);
  if (JSON.stringify(progress) !== JSON.stringify(ctl.game.progress)) saveProgress(progress);
  // Shared screens also offer seats' public duties (the accused's "finished", the speaker).
  const tasks = ctl.game.seats.map((x) => {
    const own = ctl.seats.view(x.id);
    return own && own.private ? [own.phase.seq, own.private.task] : null;
  });
  const from = s.screen === "handover" ? null : s.screen === "turn" ? ownPart(s.seat) : JSON.stringify([view, tasks]);
  return { view, s, sig: JSON.stringify([s, progress, from]) };
}
