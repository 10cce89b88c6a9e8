// The voice plan of this page from the view's `voice` (docs/rules.md, "Voice"): the people it
// is joined with now (whoever's voice reaches it or whom its voice reaches: a pair first joined
// is connected then and kept across phases, mesh.js), the seats it sends its microphone to and
// the seats it plays. The server decides; this only reads.

/** `{on, peers, sendTo, hearFrom, toSpectators, listener, botsOnly}` for the view `view` seen
 * by seat `me` (null: a spectator, who listens only: it keeps a connection with each seat it
 * hears and sends to none). Only people: a bot has no voice, so no connection is made to one
 * (`botsOnly`: this seat's voice would reach only bots now). `hearFrom`: the seats this page
 * plays now, whatever arrives from the others (a modified page may send where its view says
 * not to). `toSpectators`: this seat's voice reaches the listening spectators now. */
export function voicePlan(view, me) {
  const v = view && view.voice;
  if (!v || !v.on) {
    return { on: false, peers: [], sendTo: new Set(), hearFrom: new Set(), toSpectators: false, listener: !me, botsOnly: false };
  }
  const bots = new Set(((view && view.players) || []).filter((p) => p.bot).map((p) => p.id));
  const person = (pid) => !bots.has(pid);
  const speakAll = Array.isArray(v.speakTo) ? v.speakTo : [];
  const speak = speakAll.filter(person);
  const hear = (Array.isArray(v.hearFrom) ? v.hearFrom : []).filter(person);
  if (!me) {
    return { on: true, peers: [...hear], sendTo: new Set(), hearFrom: new Set(hear), toSpectators: false, listener: true, botsOnly: false };
  }
  return {
    on: true,
    peers: [...new Set([...speak, ...hear])],
    sendTo: new Set(speak),
    hearFrom: new Set(hear),
    toSpectators: v.toSpectators === true,
    listener: false,
    botsOnly: speakAll.length > 0 && speak.length === 0,
  };
}

/** A listening spectator's address (the server's random `L…` id), not a seat. */
export function isListener(id) {
  return /^L/.test(String(id));
}

/** The seat number of a player id ("p12" -> 12). */
function seatNo(pid) {
  return Number(String(pid).replace(/^p/, "")) || 0;
}

/** In a collision of two offers the higher seat gives way ("perfect negotiation"). */
export function polite(me, peer) {
  return seatNo(me) > seatNo(peer);
}
