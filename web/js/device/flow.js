// Where the table is: which screen the device shows now, from the newest public view and
// the queue position kept in this browser. Pure: no DOM, no sockets.

// Phases in which every living player answers in secret, one after another.
export const SECRET_PHASES = new Set(["roleReveal", "night", "vote", "allOrNone"]);
// The first phase of a day: the queue runs once more so the commissar can read the check.
const DAY_OPENERS = new Set(["discussion", "speech"]);
// Public events not worth a screen of their own.
const QUIET_EVENTS = new Set(["morning", "paused", "resumed", "end"]);

/** Living players in seat order: the queue. Public data only. */
export function queueOf(view) {
  return (view.players || [])
    .filter((p) => p.alive)
    .sort((a, b) => (a.seat ?? 0) - (b.seat ?? 0))
    .map((p) => p.id);
}

/** Public events not yet shown on the news screen: [index, event] pairs. */
export function unseenNews(view, seen) {
  const events = view.events || [];
  const out = [];
  for (let i = seen + 1; i < events.length; i += 1) if (!QUIET_EVENTS.has(events[i].kind)) out.push(events[i]);
  return out;
}

/**
 * The step to show: {screen, ...}.
 *   lobby | end | news {events} | handover {stage, seat} | turn {stage, seat} | wait {stage}
 *   | discussion | defense | speech | public
 * `stage` is the phase kind, or "dawn" for the morning round.
 * Returns the progress to keep as well (a new queue starts at its first player).
 */
export function step(view, progress) {
  const p = { ...progress };
  if (!view || !view.phase) return { step: { screen: "loading" }, progress: p };
  const kind = view.phase.kind;
  if (kind === "lobby") return { step: { screen: "lobby" }, progress: p };
  if (view.result || kind === "ended") return { step: { screen: "end" }, progress: p };

  let stage = null;
  let key = null;
  if (SECRET_PHASES.has(kind)) {
    stage = kind;
    key = `${kind}:${view.phase.seq}`;
  } else if (DAY_OPENERS.has(kind) && p.dawnDay !== view.day) {
    stage = "dawn";
    key = `dawn:${view.day}`;
  }
  // The night's news waits until everyone has had the device at dawn; the rest (vote
  // results, a tie) is shown before the next round starts.
  if (kind === "discussion" && !key) {
    // The discussion screen tells the night's news itself.
    p.seen = Math.max(p.seen, (view.events || []).length - 1);
  } else if (stage !== "dawn" && (!key || p.key !== key || (p.pos === 0 && !p.open))) {
    const news = unseenNews(view, p.seen);
    if (news.length) return { step: { screen: "news", events: news }, progress: p };
  }
  if (key) {
    if (p.key !== key) Object.assign(p, { key, pos: 0, open: false });
    const queue = queueOf(view);
    if (p.pos >= queue.length) {
      if (stage === "dawn") {
        // The morning round is the device's own: when it ends, the day goes on.
        p.dawnDay = view.day;
        return step(view, p);
      }
      return { step: { screen: "wait", stage }, progress: p };
    }
    const seat = queue[p.pos];
    return { step: { screen: p.open ? "turn" : "handover", stage, seat }, progress: p };
  }
  if (kind === "discussion" || kind === "defense" || kind === "speech" || kind === "lastWord") {
    return { step: { screen: kind }, progress: p };
  }
  return { step: { screen: "public" }, progress: p };
}
