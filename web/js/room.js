// The room flow: entering a room (create, join, watch, a kept seat, a private link), its one
// socket, leaving it; and `ctx`, what the screens may use.
import * as api from "./api.js";
import { Connection } from "./connection.js";
import { h } from "./dom.js";
import { getLang, t } from "./i18n.js";
import { onErrorFrame, onOtherFrame, onViewFrame } from "./frames.js";
import { closeOverlays } from "./game/overlays.js";
import { rememberFormer } from "./game/substitute.js";
import { closeRules } from "./game/rules.js";
import { closeSheet, showSheet } from "./game/sheet.js";
import { bindRoom, render, renderBanner } from "./render.js";
import { clearSession, loadSession, saveSession, seatFate } from "./session.js";
import { forgetGame, state } from "./store.js";
import { toast } from "./toast.js";

/** Send one frame on the room's socket; its client id, or null (and a toast) when not connected. */
export function send(action, payload) {
  if (!state.conn) return null;
  const id = state.conn.send(action, payload);
  if (id) state.pending.set(id, action);
  else toast(t("conn.lost"));
  return id;
}

// A leave's frame: sent again after LEAVE_WAIT_MS without an answer (LEAVE_TRIES times), or
// every LEAVE_RETRY_MS while the socket is down (LEAVE_OFFLINE_TRIES times); then the
// player is told the leave did not reach the server (the seat is still in the game).
const LEAVE_WAIT_MS = 4000;
const LEAVE_RETRY_MS = 1000;
const LEAVE_TRIES = 2;
const LEAVE_OFFLINE_TRIES = 30;

/** What screens may use. */
export const ctx = {
  state,
  send,
  async create(name, preset, options) {
    const res = await api.createRoom(name, preset, options, getLang());
    enterRoom({ room: res.roomCode, token: res.token, playerId: res.playerId, wsUrl: res.wsUrl });
  },
  async quickPlay(name, preset, { lang, party } = {}) {
    // "Play now": a seat in the fullest open room of this language, or a new public room;
    // `party`: an ended public game's table playing again together (screens/end.js)
    const res = await api.quickPlay(name, lang || getLang(), preset, party);
    enterRoom({ room: res.roomCode, token: res.token, playerId: res.playerId, wsUrl: res.wsUrl });
  },
  async quickPlayRanked(name) {
    // "Play ranked" (screens/ranked.js): a signed-in person's seat in a ranked lobby
    const res = await api.quickPlayRanked(name, getLang());
    enterRoom({ room: res.roomCode, token: res.token, playerId: res.playerId, wsUrl: res.wsUrl });
  },
  async join(code, name) {
    // A running game takes no new seat (the server answers 409), but it may take a substitute:
    // watch it, where an open seat is offered with the name filled in (game/substitute.js),
    // and say why. Asked first, so the usual late Join sends no request bound to fail.
    const running = async () => ((await api.getRoom(code).catch(() => null)) || {}).status === "running";
    const watchLate = () => {
      state.lateJoin = { room: code.toUpperCase() };
      ctx.watch(code);
    };
    if (await running()) return watchLate();
    let res;
    try {
      res = await api.joinRoom(code, name);
    } catch (err) {
      if (err.status === 409 && (await running())) return watchLate(); // it started meanwhile
      throw err;
    }
    enterRoom({ room: code, token: res.token, playerId: res.playerId, wsUrl: res.wsUrl });
  },
  watch(code) {
    enterRoom({ room: code, spectator: true });
  },
  resume(seat) {
    enterRoom(seat); // a seat kept in this browser ("your games")
  },
  leave() {
    // Home when the server answers "left" (frames.js, onErrorFrame): closing the socket right
    // after the frame could let $disconnect overtake it, and the seat would stay in the game.
    // A leave either takes effect or says why (#48): the frame goes again once the socket is
    // back (a tap while it reconnects was lost before: home at once, the seat never left); a
    // refusal stays on screen (the error frame, state.lastError); no answer at all says so
    // rather than going home with the seat still in the game.
    const session = state.session;
    if (!(state.view && state.view.you)) return goHome(); // a spectator has no seat to give up
    let sent = null;
    const attempt = (n) => {
      if (state.session !== session) return; // "left" came: home already
      const refused = sent && state.lastError && state.lastError.id === sent;
      if (refused) return; // the server said why (its error is shown); the player may tap again
      if ((sent && n > LEAVE_TRIES) || n > LEAVE_OFFLINE_TRIES) {
        toast(t("leave.noAnswer"));
        return;
      }
      const id = state.conn ? state.conn.send("leave") : null;
      if (id) {
        state.pending.set(id, "leave");
        sent = id;
      }
      setTimeout(() => attempt(n + 1), id ? LEAVE_WAIT_MS : LEAVE_RETRY_MS);
    };
    attempt(1);
  },
  goHome,
  rerender: () => render(),
  toast,
  shareLink(code) {
    const u = new URL(location.href);
    u.search = "";
    u.hash = "";
    u.searchParams.set("room", code);
    return u.toString();
  },
};

bindRoom(ctx, () => {
  // "Use here" on the banner after another socket of this seat replaced this one.
  state.status = "connecting";
  connect();
  render();
});

/** Sit (or watch) in `session`'s room: keep the seat in this browser, put it in the address, connect. */
export function enterRoom(session) {
  session.room = session.room.toUpperCase();
  state.session = session;
  saveSession(session);
  const u = new URL(location.href);
  u.searchParams.set("room", session.room);
  history.replaceState(null, "", u);
  connect();
  render();
}

function connect() {
  if (state.conn) state.conn.close();
  forgetGame();
  state.view = null;
  state.version = -1;
  state.conn = new Connection(state.session, {
    onView: onViewFrame,
    onError: (frame) => onErrorFrame(frame, ctx),
    onStatus(status) {
      state.status = status;
      renderBanner();
    },
    onGone: checkRoomGone,
    onFrame: (frame) => onOtherFrame(frame, ctx),
  });
}

// The socket keeps being refused at connect (a refused handshake carries no body): ask the
// server what became of this seat (POST /rooms/{code}/fate, the token in a header). A seat
// handed on while this page was offline (an idle seat, its `afk_replaced` frame lost), removed
// by the host, or given up (left on another device) goes home with the note a page online at
// the time shows; a room that is gone, too. A token the server does not know (a lobby seat
// removed or given up: the seat is gone with its token) reads the public summary's `removed`.
// Anything else (a network error, the seat still held) keeps retrying.
const FATE_NOTICES = { handedOn: "err.handed_on", removed: "seat.removed", left: "seat.left" };

async function checkRoomGone() {
  const session = state.session;
  if (!session) return;
  const goneWith = (notice, former = false) => {
    if (state.session !== session) return; // the page moved on meanwhile
    if (former) rememberFormer(session); // such a seat cannot come back as a substitute (frames.js)
    state.notice = notice;
    goHome();
  };
  if (session.token) {
    let fate;
    try {
      fate = (await api.seatFate(session.room, session.token)).fate;
    } catch {
      return; // offline, a server error, a budget spent: the next refusal asks again
    }
    if (fate === "gone") return goneWith({ key: "conn.roomGone" });
    if (FATE_NOTICES[fate]) return goneWith({ key: FATE_NOTICES[fate], params: { code: session.room } }, true);
    if (fate !== "unknown") return; // held: refused for another reason, keep retrying
  }
  let summary;
  try {
    summary = await api.getRoom(session.room);
  } catch (err) {
    if (err.status === 404) goneWith({ key: "conn.roomGone" });
    return;
  }
  const fate = session.token ? seatFate(summary, session) || "gone" : null;
  if (fate) goneWith({ key: `seat.${fate}`, params: { code: session.room } });
}

/** Close the room: the socket, the kept seat, the overlays; back to the home screen. */
export function goHome() {
  if (state.conn) state.conn.close();
  state.conn = null;
  state.session = null;
  state.view = null;
  state.lateJoin = null;
  state.status = "idle";
  clearSession();
  closeOverlays();
  closeRules();
  const u = new URL(location.href);
  u.searchParams.delete("room");
  history.replaceState(null, "", u);
  render();
}

// A private link ("continue on another device") for a room where this browser already holds
// another seat that is still open: a browser keeps one seat per room, so taking the link's
// seat would drop that seat's token for good. Ask first; the answer that loses nothing
// (keep the seat this browser has) comes first: a link sent by another player is theirs.
export async function takeLinkedSeat(linked) {
  const held = loadSession(linked.room);
  if (!held || (held.playerId === linked.playerId && held.token === linked.token)) {
    enterRoom({ ...linked, wsUrl: linked.wsUrl || (held && held.wsUrl) || "" });
    return;
  }
  let players = null;
  try {
    players = (await api.getRoom(linked.room)).players || [];
  } catch (err) {
    if (err.status === 404) players = []; // the room is gone: no seat to keep
  }
  const mine = players && players.find((p) => p.id === held.playerId);
  if (players && (!mine || mine.left)) {
    enterRoom(linked); // the seat this browser held is closed (left, removed, room gone)
    return;
  }
  const name = (pid) => ((players || []).find((p) => p.id === pid) || {}).name || pid;
  render(); // home, under the question
  showSheet(
    "seat-choice",
    t("seatChoice.title"),
    h(
      "div",
      null,
      h("p", { id: "seat-choice-what" }, t("seatChoice.what", { room: linked.room, held: name(held.playerId), linked: name(linked.playerId) })),
      h("p", { class: "hint" }, t("seatChoice.hint")),
      h(
        "div",
        { class: "row" },
        h("button", { type: "button", class: "btn btn-primary", id: "seat-choice-keep", onclick: () => { closeSheet(); enterRoom(held); } }, t("seatChoice.keep", { name: name(held.playerId) })),
        h("button", { type: "button", class: "btn", id: "seat-choice-switch", onclick: () => { closeSheet(); enterRoom(linked); } }, t("seatChoice.switch", { name: name(linked.playerId) })),
      ),
    ),
  );
}
