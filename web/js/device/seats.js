// One WebSocket per seat, each with its own token: the server sees every player as
// connected and gives each seat exactly the view that seat may see.
import { Connection } from "../connection.js";

export class Seats {
  /**
   * @param {{room: string, wsUrl: string, seats: {id: string, name: string, token: string}[]}} game
   * @param {{onChange: Function, onError: Function, onGone: Function}} handlers
   */
  constructor(game, handlers) {
    this.handlers = handlers;
    this.views = new Map(); // seat id -> {version, view}
    this.pending = new Map(); // "seat:client frame id" -> {action, payload}
    this.resend = new Map(); // seat id -> frames to send again once that seat is back
    this.conns = new Map();
    for (const seat of game.seats) {
      const conn = new Connection(
        { room: game.room, token: seat.token, wsUrl: game.wsUrl },
        {
          onView: (frame) => this.onView(seat.id, frame),
          onError: (frame) => {
            const sent = this.pending.get(`${seat.id}:${frame.id}`) || null;
            if (frame.code === "not_connected") return this.reconnect(seat.id, sent);
            this.handlers.onError(seat.id, sent && sent.action, frame);
          },
          onStatus: () => this.handlers.onChange(),
          onGone: () => this.handlers.onGone(),
        },
      );
      this.conns.set(seat.id, conn);
    }
  }

  // The server forgot this socket (it dropped it as gone while it was still connecting):
  // open a new one and send the refused frame again once that seat has its view back.
  reconnect(id, sent) {
    if (sent && sent.action !== "sync") {
      const list = this.resend.get(id) || [];
      list.push(sent);
      this.resend.set(id, list);
    }
    const conn = this.conns.get(id);
    if (conn && conn.ws) conn.ws.close();
  }

  onView(id, frame) {
    const again = this.resend.get(id);
    if (again) {
      this.resend.delete(id);
      for (const f of again) this.send(id, f.action, f.payload);
    }
    const old = this.views.get(id);
    if (old && typeof frame.version === "number" && frame.version < old.version) return;
    this.views.set(id, { version: frame.version ?? -1, view: frame.view });
    this.handlers.onChange();
  }

  /** That seat's own view (with its role and task), or null before its first view. */
  view(id) {
    const v = this.views.get(id);
    return v ? v.view : null;
  }

  /** The newest view of any seat; only its public parts may be shown to the table.
   * Versions are per viewer (they count that seat's own view changes), so seats are compared
   * by the server time their frame was built. */
  latest() {
    let best = null;
    const at = (v) => (typeof v.view.serverNow === "number" ? v.view.serverNow : 0);
    for (const v of this.views.values()) if (!best || at(v) > at(best)) best = v;
    return best ? best.view : null;
  }

  allOpen() {
    return [...this.conns.values()].every((c) => c.status === "open");
  }

  send(id, action, payload) {
    const conn = this.conns.get(id);
    const frameId = conn ? conn.send(action, payload) : null;
    if (frameId) this.pending.set(`${id}:${frameId}`, { action, payload });
    else if (conn) this.reconnect(id, { action, payload }); // sent when the seat is back
    return frameId;
  }

  /** A game action of seat `id`, bound to the phase of that seat's own view: a tap repeated or
   * resent after a reconnect is refused `stale_phase` once the game moved on, never applied
   * to the next turn (docs/protocol.md). */
  act(id, action, payload = {}) {
    const v = this.view(id);
    const seq = v && v.phase && typeof v.phase.seq === "number" ? v.phase.seq : undefined;
    return this.send(id, action, seq === undefined ? payload : { ...payload, phase: seq });
  }

  close() {
    for (const c of this.conns.values()) c.close();
    this.conns.clear();
  }
}
