// The voice's ICE configuration (RTCConfiguration): the server's `iceServers` frame (a TURN
// credential of this connection's own, short-lived, and the room's transport policy: "relay"
// in public and anonymous rooms, so no stranger learns this device's address;
// functions/service/features/turn.py) and config.json's STUN servers (api.js) where direct
// connections are allowed. The page asks (`iceServers`) before it opens its first connection in
// a room, and again when the credential is close to expiring.
import { iceServers as configIceServers } from "../api.js";

const REFRESH_BEFORE_S = 30 * 60; // ask again when the credential has less left than this
const ASK_AGAIN_MS = 30_000; // an unanswered or refused ask is made again after this long

let known = null; // {room, servers, policy, expires}
let asked = { room: null, at: -Infinity, id: null };
let waiting = [];

/** Whether the server said `room`'s voice goes through a relay only and gave no relay server
 * (a public or anonymous room on a stack whose TurnUrls is empty): no connection could ever
 * come up, so the room has no voice (docs/operations.md, "Voice (TURN)"). A refused ask is not
 * such an answer. */
export function iceUnavailable(room) {
  return Boolean(known && known.room === room && known.answered && known.policy === "relay" && known.servers.length === 0);
}

/** Whether this page knows the ICE configuration of `room` (the answer to its ask came). */
export function iceReady(room) {
  return Boolean(known && known.room === room);
}

/** Ask the server for `room`'s ICE servers (`send(action) -> frame id`, null without a socket)
 * if this page has none or its credential expires soon. True while an ask is on its way (then
 * `then` runs once the answer came); false when there is nothing to wait for (known, or no
 * socket to ask over: a page drawn from a scripted state). */
export function askIce(room, send, then = null) {
  if (!room) return false;
  const ready = iceReady(room);
  if (ready && (!known.expires || known.expires - Date.now() / 1000 > REFRESH_BEFORE_S)) return false;
  const now = performance.now();
  if (!(asked.room === room && now - asked.at < ASK_AGAIN_MS)) {
    const id = send("iceServers");
    if (id) asked = { room, at: now, id };
  }
  const onItsWay = asked.room === room && asked.id !== null && now - asked.at < ASK_AGAIN_MS;
  if (then && !ready && onItsWay) waiting.push(then);
  return onItsWay;
}

/** The server's `iceServers` frame (to this connection only). */
export function takeIce(frame, room) {
  known = {
    room,
    servers: Array.isArray(frame.iceServers) ? frame.iceServers : [],
    policy: frame.iceTransportPolicy === "all" ? "all" : "relay",
    expires: typeof frame.expires === "number" ? frame.expires : null,
    answered: true,
  };
  asked.id = null;
  const run = waiting;
  waiting = [];
  for (const then of run) then();
}

/** An error frame: true if it refused this page's ask (then nothing is shown). Refused: relay
 * only with no server (no connection can leak an address), asked again later. */
export function iceRefused(frame) {
  if (!asked.id || frame.id !== asked.id) return false;
  asked.id = null;
  if (!known || known.room !== asked.room) known = { room: asked.room, servers: [], policy: "relay", expires: null };
  const run = waiting;
  waiting = [];
  for (const then of run) then();
  return true;
}

/** The RTCConfiguration a new peer connection uses. Before the answer: relay only (fail closed). */
export function rtcConfiguration() {
  const policy = known ? known.policy : "relay";
  const turn = known ? known.servers : [];
  return {
    iceServers: policy === "relay" ? turn : [...configIceServers(), ...turn],
    iceTransportPolicy: policy,
  };
}
