// One WebSocket to the room (docs/protocol.md, "WebSocket"): reconnects with backoff, resyncs on
// open, and hands views and error frames to the app.
import { wsBase } from "./api.js";
import { PATCH_QUERY, ViewFeed } from "./patch.js";
import { deviceKey } from "./session.js";

const BACKOFF_MS = [300, 1000, 2000, 4000, 8000, 10000];
// Heartbeat: a `ping` (answered with `pong`, no write) keeps the socket active and lets the
// room notice sockets that vanished without a `$disconnect` (docs/protocol.md, "Heartbeat").
export const HEARTBEAT_MS = 60000;

export class Connection {
  /**
   * @param {{room: string, token?: string, display?: string, wsUrl?: string}} session
   * @param {{onView: Function, onError: Function, onStatus: Function, onGone: Function}} handlers
   */
  constructor(session, handlers) {
    this.session = session;
    this.handlers = handlers;
    this.ws = null;
    this.attempt = 0;
    this.failuresBeforeOpen = 0;
    this.everOpen = false;
    this.closed = false;
    this.nextId = 1;
    this.timer = null;
    this.heartbeat = null;
    this.status = "connecting";
    this.open();
    this.onOnline = () => this.retryNow();
    window.addEventListener("online", this.onOnline);
    this.onVisible = () => {
      if (document.visibilityState === "visible") {
        if (this.ws && this.ws.readyState === WebSocket.OPEN) this.send("sync");
        else this.retryNow();
      }
    };
    document.addEventListener("visibilitychange", this.onVisible);
  }

  url() {
    const u = new URL(wsBase(this.session.wsUrl));
    u.searchParams.set("room", this.session.room);
    if (this.session.token) u.searchParams.set("token", this.session.token);
    if (this.session.display) u.searchParams.set("display", this.session.display); // a room's screen (display/main.js)
    u.searchParams.set("device", deviceKey()); // one person, one seat (session.js)
    u.searchParams.set(PATCH_QUERY, "1"); // views as patches after the first (patch.js)
    return u.toString();
  }

  setStatus(status) {
    this.status = status;
    this.handlers.onStatus(status);
  }

  open() {
    clearTimeout(this.timer);
    if (this.closed) return;
    // Offline: wait for the browser's "online" event instead of failing attempts.
    if (navigator.onLine === false) return;
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    const feed = new ViewFeed(() => this.send("sync")); // a new socket starts from a full view
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this.everOpen = true;
      this.attempt = 0;
      this.failuresBeforeOpen = 0;
      this.setStatus("open");
      this.send("sync");
      clearInterval(this.heartbeat);
      this.heartbeat = setInterval(() => {
        if (this.ws === ws) this.send("ping");
      }, HEARTBEAT_MS + Math.random() * 2000);
    };
    ws.onmessage = (ev) => {
      let frame;
      try {
        frame = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (frame.type === "view" || frame.type === "patch") {
        const view = feed.take(frame);
        if (view) this.handlers.onView(view);
      } else if (frame.type === "error") this.handlers.onError(frame);
      else if (frame.type === "pong") {
        // nothing to do: the heartbeat only has to reach the server
      } else if (this.handlers.onFrame) this.handlers.onFrame(frame); // e.g. "reported"
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      clearInterval(this.heartbeat);
      this.ws = null;
      if (this.closed) return;
      if (!opened) this.failuresBeforeOpen += 1;
      this.setStatus(this.everOpen ? "lost" : "connecting");
      // A refused connect (seat removed, room gone) never opens: ask the app to check, again
      // every third refusal in case a check could not tell (offline, a server error).
      if (!opened && this.failuresBeforeOpen % 3 === 0) this.handlers.onGone();
      this.scheduleRetry();
    };
    ws.onerror = () => {
      // onclose follows and schedules the retry.
    };
  }

  scheduleRetry() {
    clearTimeout(this.timer);
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    this.timer = setTimeout(() => this.open(), delay);
  }

  retryNow() {
    if (this.closed || (this.ws && this.ws.readyState <= WebSocket.OPEN)) return;
    this.attempt = 0;
    this.open();
  }

  /** Send one frame; returns its client id, or null when not connected. */
  send(action, payload = {}) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return null;
    const id = `c${this.nextId++}`;
    this.ws.send(JSON.stringify({ action, id, ...payload }));
    return id;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    window.removeEventListener("online", this.onOnline);
    document.removeEventListener("visibilitychange", this.onVisible);
    if (this.ws) this.ws.close();
    this.ws = null;
  }
}
