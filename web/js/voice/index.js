// The table's voice on this page: the opt-in controls (controls.js), the mesh (mesh.js) and
// the plan each view brings (policy.js). frames.js hands every view (`voiceView`) and every
// `signal` frame (`voiceSignal`) here.
import { state } from "../store.js";
import { testHook } from "../testhooks.js";
import { renderControls } from "./controls.js";
import { askIce, iceReady, iceRefused, iceUnavailable, rtcConfiguration, takeIce } from "./ice.js";
import { VoiceMesh } from "./mesh.js";
import { voicePlan } from "./policy.js";

// The signals sent lately, by frame id: a refusal (an `error` frame with its id) is the mesh's,
// not something to show (the policy or the limiter said no; the mesh starts over by itself).
const sent = new Map();
const SENT_KEEP = 500;

export const mesh = new VoiceMesh({
  send: (payload) => {
    const id = state.conn && state.conn.send("signal", payload);
    if (!id) return;
    sent.set(id, { to: payload.to, kind: payload.kind });
    if (sent.size > SENT_KEEP) sent.delete(sent.keys().next().value);
  },
  rtcConfiguration,
  onChange: () => renderControls(mesh, state.view),
});

testHook("voiceLog", mesh.log);

/** Every new view: the plan follows the phase (and the controls with it). */
export function voiceView(view) {
  const me = view && view.you ? view.you.id : null;
  const plan = voicePlan(view, me);
  mesh.room = view && view.room ? view.room.code || null : null;
  // a strangers' room (relay only) on a site with no TURN server: fail closed, no voice at all
  mesh.unavailable = plan.on && iceUnavailable(mesh.room);
  if (mesh.unavailable && mesh.joined) mesh.leave();
  if (!plan.on && mesh.joined) mesh.leave(); // the game is over for voice (lobby, single device)
  if (mesh.joined && plan.listener !== mesh.listening) mesh.leave(); // a spectator took a seat (or left it)
  // no connection before the room's ICE servers are known (ice.js): the plan without peers
  mesh.update(plan.on && !waitForIce(mesh.room) ? { ...plan, peers: [] } : plan, me);
  renderControls(mesh, view);
}

/** Whether the page may open connections in the room now: its ICE configuration is known, or
 * there is no ask on its way (no socket: relay only with no server, ice.js). Else the newest
 * view is taken again once the answer came. */
function waitForIce(room) {
  const send = (action) => (state.conn && state.conn.send(action, {})) || null;
  const onItsWay = askIce(room, send, () => voiceView(state.view));
  return iceReady(room) || !onItsWay;
}

/** The server's `iceServers` frame: this connection's TURN credential and transport policy. */
export function voiceIce(frame) {
  takeIce(frame, mesh.room);
}

/** Draw the controls again as they are (the language or the kid wording changed). */
export function redrawVoice() {
  renderControls(mesh, state.view, { quiet: true });
}

/** A `signal` frame relayed by the server from another seat. */
export function voiceSignal(frame) {
  mesh.signal(frame);
}

/** An `error` frame: true if it refused one of this page's signals (then it is the mesh's). */
export function voiceRefused(frame) {
  if (iceRefused(frame)) return true;
  const signal = sent.get(frame.id);
  if (!signal) return false;
  sent.delete(frame.id);
  mesh.refused(signal, frame.code);
  return true;
}
