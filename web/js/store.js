// The online client's one store: the seat, the socket, the latest view and what this tab
// remembers about the game. Frames write it (frames.js), the room flow (room.js) opens and
// closes it, the screens read it through ctx.state (room.js).
import { resetPhaseMemory } from "./game/phases.js";

export const state = {
  session: null, // {room, token, playerId, wsUrl} or {room, spectator: true}
  conn: null,
  status: "idle",
  view: null,
  version: -1,
  pending: new Map(), // client frame id -> action
  lastError: null, // {id, action, code, message}
  screenName: null,
  shownScreen: null, // the screen last shown (kept across a language switch's rebuild)
  focusPending: false, // a new screen's heading is still to get the focus
  screen: null,
  nudged: { key: null, count: 0, next: 0 },
  notice: null, // message for the home screen (e.g. room gone)
  lateJoin: null, // {room}: "Join" found this room's game running, so this tab watches it
  chatArchive: new Map(), // message id -> message: the view only carries the newest ones
  chatLogFrom: null, // after the end: `before` of the next older chatLog page (0: all loaded)
};

/** What this tab keeps of one game (its chat, what phase it last showed): gone for the next. */
export function forgetGame() {
  state.chatArchive = new Map();
  state.chatLogFrom = null;
  resetPhaseMemory();
}

/** One phase of one day: a new key is a new phase to announce, cue and nudge. */
export function phaseKey(view) {
  const p = view.phase || {};
  return `${p.kind}:${p.seq ?? ""}:${view.day ?? ""}`;
}
