// What the app tells the player besides the screen itself: the screen reader's live region
// (#announcer), sound and vibration cues (sound.js), the announcement cards of new public
// events (game/overlays.js) and error toasts (toast.js).
import { $ } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { myResults, phaseTitle, resultText } from "./game/format.js";
import { showEventCards } from "./game/overlays.js";
import { markEventsSeen, seenEvents } from "./session.js";
import { cue } from "./sound.js";
import { phaseKey, state } from "./store.js";
import { toast } from "./toast.js";

export function announce(text) {
  const el = $("#announcer");
  el.textContent = "";
  // A fresh text node makes screen readers read the same words again.
  setTimeout(() => (el.textContent = text), 50);
}

/** The cues of a new view `view` after `prev` (null for the first): spoken, then heard. */
export function viewCues(prev, view) {
  // What a screen reader says: the new phase, then what this player alone just learnt (a
  // police check, ...), which arrives with the new phase.
  const heard = [];
  if (!prev || phaseKey(view) !== phaseKey(prev)) heard.push(phaseTitle((view.phase && view.phase.kind) || ""));
  if (prev) heard.push(...newResults(prev, view).map((r) => t("a11y.newResult", { text: resultText(view, r) })));
  if (heard.length) announce(heard.join(". "));
  phaseCues(prev, view);
}

// Findings in `view` that `prev` did not have (the list only grows within a game).
function newResults(prev, view) {
  const before = myResults(prev);
  const after = myResults(view);
  return after.length > before.length ? after.slice(before.length) : [];
}

// Sound cues: night falls, morning comes, this player is asked to act.
function phaseCues(prev, view) {
  if (!prev || !prev.phase || !view.phase) return;
  const was = prev.phase.kind;
  const now = view.phase.kind;
  if (now !== was && /night/i.test(now)) cue("night");
  else if (now !== was && /night/i.test(was) && now !== "ended") cue("morning");
  const task = (v) => (v.private && v.private.task) || "none";
  const asked = (v) => !["none", "done", "sleep"].includes(task(v)) || (v.phase.speaker && v.you && v.phase.speaker === v.you.id);
  if (asked(view) && (!asked(prev) || phaseKey(prev) !== phaseKey(view))) cue("turn");
}

/** The announcement cards of the public events this browser has not shown yet (kept per room). */
export function eventCards(view) {
  const room = state.session && state.session.room;
  const events = Array.isArray(view.events) ? view.events : [];
  if (!room) return;
  let seen = seenEvents(room);
  if (events.length - 1 < seen) seen = -1; // the list restarted (a new game)
  if (events.length - 1 > seen) {
    showEventCards(events.slice(seen + 1), view);
    markEventsSeen(room, events.length - 1);
  }
}

// The last five seconds of a timed phase sound once per phase.
let lastSecondsKey = null;
export function lastSecondsCue(view, left) {
  const key = phaseKey(view);
  if (left > 0 && left <= 5 && lastSecondsKey !== key) {
    lastSecondsKey = key;
    cue("lastSeconds");
  }
}

/** A refusal of this tab's `action`: a toast, except for chat (its own line under the input). */
export function errorCue(action, frame) {
  if (action !== "chat") toast(errorText(frame.code, frame.message));
}
