// The voice plan of this page from the view's `voice` (docs/rules.md, "Voice"): the seats it
// keeps a peer connection with (whoever's voice reaches it or whom its voice reaches) and the
// seats it sends its microphone to. The server decides; this only reads.

/** `{on, peers, sendTo}` for the view `view` seen by seat `me` (null: a spectator, no voice). */
export function voicePlan(view, me) {
  const v = view && view.voice;
  if (!v || !v.on || !me) return { on: false, peers: [], sendTo: new Set() };
  const speak = Array.isArray(v.speakTo) ? v.speakTo : [];
  const hear = Array.isArray(v.hearFrom) ? v.hearFrom : [];
  return { on: true, peers: [...new Set([...speak, ...hear])], sendTo: new Set(speak) };
}

/** The seat number of a player id ("p12" -> 12). */
function seatNo(pid) {
  return Number(String(pid).replace(/^p/, "")) || 0;
}

/** In a collision of two offers the higher seat gives way ("perfect negotiation"). */
export function polite(me, peer) {
  return seatNo(me) > seatNo(peer);
}
