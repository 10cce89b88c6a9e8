// Frame reconciliation (docs/protocol.md, "WebSocket"): what each server frame the Connection
// hands over does to the store, and the redraw and cues that follow. `onViewFrame` is where
// every view arrives; `pong` never gets here (connection.js drops it).
import { syncClock } from "./clock.js";
import { eventCards, errorCue, viewCues } from "./cues.js";
import { applyAliases, seatMoved } from "./game/aliases.js";
import { refused as dealSeedRefused, onView as dealSeedView } from "./game/dealseed.js";
import { remember as rememberDeal } from "./game/fairness.js";
import { lineNo } from "./game/format.js";
import { reportConfirmed } from "./game/report.js";
import { rulesOpen, updateRules } from "./game/rules.js";
import { render, renderBanner } from "./render.js";
import { markEventsSeen, saveSession } from "./session.js";
import { forgetGame, phaseKey, state } from "./store.js";
import { onSeatFrame, onSeatPending, rememberFormer, seatRefused, substituteCues } from "./game/substitute.js";
import { toast } from "./toast.js";
import { onDisplayFrame } from "./display/share.js";
import { voiceIce, voiceRefused, voiceSignal, voiceView } from "./voice/index.js";

/** A `view` frame. Views carry the room version; an older one arriving late must not undo a newer one. */
export function onViewFrame(frame) {
  if (typeof frame.version === "number" && frame.version < state.version) return;
  state.version = typeof frame.version === "number" ? frame.version : state.version;
  const view = applyAliases(frame.view); // anonymous games: aliases in the viewer's language
  if (seatMoved(state.session, view)) saveSession(state.session);
  takeView(view);
}

/** A frame the page sends by itself (no tap): a refusal of it is not the player's to read. */
function sendQuietly(action, payload) {
  const id = state.conn ? state.conn.send(action, payload) : null;
  if (id) state.pending.set(id, action);
  return id;
}

/** The newest view into the store, then the redraw and the cues it brings. */
function takeView(view) {
  syncClock(view);
  const prev = state.view;
  if (view.phase && view.phase.kind === "lobby" && prev && prev.phase.kind !== "lobby") {
    // A new game in the same room: a fresh chat, fresh events, a closed role card.
    forgetGame();
    if (state.session) markEventsSeen(state.session.room, -1);
  }
  view.chat = archiveChat(view);
  // The deal's commitment as this browser saw it while the game ran: the end screen checks
  // the revealed deal against it (game/fairness.js; docs/rules.md, "A provably fair deal").
  rememberDeal(state.session && state.session.room, view);
  // the lobby: this phone's value for the deal, committed, then revealed at the start (game/dealseed.js)
  dealSeedView(view, state.session, sendQuietly).catch(() => {});
  state.view = view;
  if (!prev || phaseKey(view) !== phaseKey(prev)) state.lastError = null; // a new phase
  viewCues(prev, view);
  substituteCues(view, toast); // "Seat N has a new player" (game/substitute.js)
  render();
  if (rulesOpen()) updateRules(view); // the host changed the options: the roles follow
  eventCards(view); // after the redraw: the cards go into the game screen's #event-slot
  voiceView(view); // the voice follows the phase (voice/index.js)
}

// The server keeps a window of the newest messages per channel; keep what this tab has
// seen so the log does not lose its beginning, still showing only readable channels.
// Ids ("day:12") are unique and count per channel: oldest first by time, then by number.
function archiveChat(view) {
  const incoming = Array.isArray(view.chat) ? view.chat : [];
  for (const m of incoming) state.chatArchive.set(m.id, m);
  const readable = new Set((view.channels && view.channels.read) || []);
  return [...state.chatArchive.values()]
    .filter((m) => readable.has(m.channel))
    .sort((a, b) => (a.at || 0) - (b.at || 0) || lineNo(a.id) - lineNo(b.id));
}

/** An `error` frame: a refusal of one of this tab's frames, or the seat's end on this socket. */
export function onErrorFrame(frame, ctx) {
  if (voiceRefused(frame)) return; // a refused voice signal: the mesh's, not the person's
  const action = state.pending.get(frame.id) || null;
  state.pending.delete(frame.id);
  // This seat opened more sockets than the server keeps and this one was the oldest
  // (docs/protocol.md, "replaced"): reconnecting by itself would push out another tab or
  // device of the seat in turn, so this one waits for a tap on the banner.
  if (frame.code === "replaced" && state.session) {
    if (state.conn) state.conn.close();
    state.conn = null;
    state.status = "replaced";
    renderBanner();
    return;
  }
  // First: "left"/"kicked" reach every device of the seat with the id of the frame that
  // caused them, which may equal one of this tab's own ids (e.g. of a nudge).
  // "afk_replaced": the seat missed too many turns and was handed on (docs/rules.md, "Idle seats");
  // "handed_on": a substitute took this absent seat (docs/rules.md, "Substitutes").
  if (["kicked", "left", "afk_replaced", "handed_on"].includes(frame.code) && state.session) {
    rememberFormer(state.session); // such a seat cannot come back as a substitute
    state.notice = { key: `err.${frame.code}` };
    ctx.goHome();
    return;
  }
  if (frame.code === "seat_refused") seatRefused(); // the seats are offered again
  // A nudge before the server's deadline is expected and harmless; so is a tap made in a
  // phase that is over (`stale_phase`: the new view is on its way).
  if (action === "nudge" || action === "sync" || frame.code === "stale_phase") return;
  // This phone's value for the deal (game/dealseed.js): sent by itself, tried again by the next view.
  if (action === "dealCommit" || action === "dealReveal") return dealSeedRefused(action);
  // Kept as code + message so a language switch redraws it in the new language.
  state.lastError = { id: frame.id, action, code: frame.code, message: frame.message };
  errorCue(action, frame);
  render();
}

/** Any other frame: `reported` (a report was kept), `chatLog` (a page of the ended game's chat). */
export function onOtherFrame(frame, ctx) {
  if (frame.type === "reported") reportConfirmed(ctx);
  else if (frame.type === "chatLog") takeChatLog(frame);
  else if (frame.type === "seat") onSeatFrame(frame, ctx); // a substitute's new token
  else if (frame.type === "seatPending") onSeatPending(frame, ctx); // waiting for the host's tap
  else if (frame.type === "display") onDisplayFrame(frame, ctx); // the room's screen link (display/share.js)
  else if (frame.type === "signal") voiceSignal(frame); // voice: WebRTC signaling from a seat
  else if (frame.type === "iceServers") voiceIce(frame); // voice: this connection's TURN credential
}

// A page of the ended game's whole chat (docs/protocol.md, "chatLog"): older lines join the
// lines this tab keeps; the end screen shows them all.
function takeChatLog(frame) {
  if (!state.view || !state.view.review) return; // a late answer after a new game started
  for (const m of Array.isArray(frame.lines) ? frame.lines : []) state.chatArchive.set(m.id, m);
  if (typeof frame.from === "number") state.chatLogFrom = frame.from;
  render();
}
