// A WebRTC mesh for the table's voice: one RTCPeerConnection per person the plan has joined
// this page with (policy.js), signaling over the game's own socket (the `signal` frame;
// docs/protocol.md, "Voice signaling"). Signal once, switch locally: a pair is negotiated once,
// when the plan first joins it (an offer and an answer, each with its ICE candidates inside:
// no trickle), and kept across phases; a phase change only switches what each end sends
// (`replaceTrack`: a peer this page may not speak to now gets no audio at all) and plays (a
// seat outside the view's `hearFrom` is not played, whatever arrives): both ends enforce, and
// the relay lets an offer through only while the policy joins the pair. No connection to bots
// (policy.js); an offer to a seat not in voice is not repeated: that page offers when it joins.
//
// Listening spectators: a spectator's page joins without a microphone and asks each seat it
// hears (`listen`); the seat, while its plan says the spectators hear it (`toSpectators`),
// offers a send-only connection to the listener's random `L…` id, and the listener only
// answers. The seat stays the sender that enforces: it closes its listeners' connections when
// the spectators no longer hear it.
//
// A failed try is made again (retry.js): an offer or answer the relay refused, an ICE failure
// (connectionState "failed", or "disconnected" and not back within GRACE_MS), a negotiated
// connection not up RETRY_MS after it was made start the pair over after a growing backoff
// (kept growing until a connection stays up STABLE_MS), and after a few tries the page gives up
// on that person, visibly (the bar); an offer left unanswered (lost, or the other page not in
// voice yet) is sent again a bounded number of times. A connection the other page closed (it
// left voice, reloaded, or started over: its DTLS transport says "closed" at once, where ICE
// says "disconnected" only 5-8 s later) counts as down from then: the other page's next offer
// is taken at once (`closedByOther`).
import { isListener, polite } from "./policy.js";
import { Retries } from "./retry.js";
import { FULL, keepSeatVolume, seatVolume } from "./volumes.js";

const LEVEL_SPEAKING = 0.02; // RMS of the last 1/20 s above this: speaking
const RETRY_MS = 8000; // a negotiated connection not up by then (or down for that long) is made again
const WATCH_MS = 2000; // how often the watchdog looks (`retryStuck`): a stuck pair is retried RETRY_MS to RETRY_MS + WATCH_MS after
const GRACE_MS = 1500; // a connection "disconnected" this long (not back) is a failed try
const STABLE_MS = 10000; // a connection up this long starts its tries over (a flapping one keeps backing off)
const GATHER_MS = 5000; // an offer or answer waits this long at most for its ICE candidates
const TAKE_MAX_MS = 30000; // a signal's take holds the next ones from its seat at most this long (`signal`)
const ASK_MS = 2000; // a listener asks a seat it hears but has no connection with again after this
const ASK_MAX_MS = 30000; // and after twice as long each time it was not answered, up to this
const UNANSWERED_TRIES = 2; // an unanswered offer is sent again this often (after 2 × RETRY_MS, then twice that)
const LOG_KEEP = 400; // the trace keeps this many last events (read by the browser tests)

/** The session id of a description (its `o=` line, one per RTCPeerConnection, kept by the
 * relay): which of the other page's connections an offer or answer comes from. */
export function sessionOf(sdp) {
  const m = /^o=\S+ (\d+) /m.exec(sdp || "");
  return m ? m[1] : null;
}

/** Resolves once `pc` has gathered its ICE candidates (they are then in its local
 * description), or after GATHER_MS with those it has. */
function gathered(pc) {
  if (pc.iceGatheringState === "complete") return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      pc.removeEventListener("icegatheringstatechange", check);
      clearTimeout(timer);
      resolve();
    };
    const check = () => pc.iceGatheringState === "complete" && done();
    const timer = setTimeout(done, GATHER_MS);
    pc.addEventListener("icegatheringstatechange", check);
  });
}

export class VoiceMesh {
  /**
   * @param {{send: Function, rtcConfiguration: Function, onChange: Function}} io
   *   send({to, kind, sdp?, candidate?}) a signal; rtcConfiguration() for new connections
   *   (or iceServers(), the servers alone);
   *   onChange() after anything the controls show changed.
   */
  constructor(io) {
    this.io = io;
    this.peers = new Map(); // pid -> {pc, sender, pending, makingOffer, audio, analyser}
    this.stream = null;
    this.joined = false;
    this.muted = false;
    this.ptt = false; // push-to-talk: the microphone is open only while `talking`
    this.talking = false;
    this.me = null;
    this.plan = { on: false, peers: [], sendTo: new Set(), hearFrom: new Set(), toSpectators: false, listener: false };
    this.listening = false; // joined as a listening spectator (no microphone)
    this.asked = new Map(); // listener: seat -> [when it last asked it (`listen`), how often unanswered]
    this.ctx = null;
    this.localAnalyser = null;
    this.room = null; // the room code: per-seat volumes are kept per room (volumes.js)
    this.want = new Set(); // the people the last plan joined (a pair entering it is offered again)
    this.chains = new Map(); // seat -> the promise of its signals taken so far (`signal`)
    // The browser cut the microphone (the track ended or went mute: the page hidden on a phone,
    // another app took it): the bar says so, and the page asks for it again when it returns.
    this.micCut = false;
    this.onReturn = () => {
      if (document.visibilityState !== "visible") return;
      if (this.ctx && this.ctx.state !== "running") this.ctx.resume().catch(() => {});
      this.resumeMic();
    };
    // The last LOG_KEEP events `[ms, peer, what, detail]` (connections made and dropped, their
    // state changes, signals in, out and refused): what a failing browser test prints.
    this.log = [];
    this.retries = new Retries(); // failed tries per person (retry.js)
    this.answerMs = 2 * RETRY_MS; // an offer unanswered this long is sent again (`awaitAnswer`)
    this.graceMs = GRACE_MS; // (a test's knobs, as `answerMs` and `retries.backoff`)
    this.stableMs = STABLE_MS;
    this.epoch = 0; // a join or leave makes every waiting timer of the last one moot
    this.unavailable = false; // a strangers' room with no relay server: no voice (index.js)
  }

  note(pid, what, detail = "") {
    this.log.push([Math.round(performance.now()), pid, what, detail]);
    if (this.log.length > LOG_KEEP) this.log.splice(0, this.log.length - LOG_KEEP);
  }

  /** The server refused signal `sent` (`{to, kind}`) with `code` (docs/protocol.md, "Voice
   * signaling"). */
  refused(sent, code) {
    this.note(sent.to, "refused", `${sent.kind} ${code}`);
    if (sent.kind === "offer" || sent.kind === "answer") this.fail(sent.to, `${sent.kind} refused: ${code}`);
  }

  /** A try with seat `pid` failed (`why`: a refusal, ICE failed, never up): the pair starts
   * over after the backoff (retry.js), or, the tries used up, this page gives up on it (its
   * connection closed; the bar says so) until it joins voice again or the other side's offer
   * connects. A listener's connections are not: a listening spectator asks again by itself. */
  fail(pid, why) {
    if (!this.joined || this.listening || isListener(pid) || this.retries.gaveUp.has(pid)) return;
    const now = performance.now();
    const next = this.retries.failed(pid, now);
    if (next === null) {
      this.note(pid, "gave up", why);
      this.drop(pid);
      this.enforce();
      return;
    }
    if (!next.scheduled) return; // this try's failure was counted already
    this.note(pid, "retry in", `${Math.round(next.at - now)} ms (${why})`);
    const epoch = this.epoch;
    setTimeout(() => epoch === this.epoch && this.retryNow(pid), Math.max(0, next.at - now));
  }

  /** The waiting try with `pid`: a new connection (our own offer) while the plan joins the
   * pair; else none until the plan joins it again (`apply`). */
  retryNow(pid) {
    if (!this.joined || !this.retries.take(pid)) return;
    const peer = this.peers.get(pid);
    if (peer && this.isUp(peer)) {
      // it came back during the wait ("disconnected" for longer than the grace, then up):
      // kept, the try counted (`Retries.up`: a connection that keeps falling backs off)
      this.note(pid, "up again", "no retry");
      return;
    }
    this.drop(pid);
    if (this.want.has(pid)) {
      this.note(pid, "retry");
      this.open(pid);
    }
    this.enforce();
  }

  /** How many people the plan joins this page with that it gave up on (the bar says so). */
  givenUp() {
    return this.joined && !this.listening ? this.retries.givenUp(this.want) : 0;
  }

  /** Seat `pid`'s volume on this page: `{volume: 0–100, muted}` (kept on the device). */
  volumeOf(pid) {
    return seatVolume(this.room, pid);
  }

  /** Set how loud seat `pid` plays here (a listener's own choice; nothing is sent). */
  setSeatVolume(pid, change) {
    const next = { ...this.volumeOf(pid), ...change };
    keepSeatVolume(this.room, pid, next);
    const peer = this.peers.get(pid);
    if (peer) this.playAt(peer, pid);
  }

  /** Play seat `pid` at its volume here, and only while this page's view hears it (`hearFrom`,
   * re-checked at every view): the receiving end enforces too, whatever a modified page sends.
   * A seat's audio reaches the speakers only through its gain (`peer.gain`, 0 while not heard:
   * every sample times 0) and the `peer.played` tap after it, right before the output: what
   * the page plays from that seat, and all the speaking mark reads. Without an AudioContext the
   * media element plays it, muted while not heard. */
  playAt(peer, pid) {
    if (!peer.audio) return;
    const { volume, muted } = this.volumeOf(pid);
    const heard = Boolean(this.plan.on && this.plan.hearFrom && this.plan.hearFrom.has(pid));
    const level = muted || !heard ? 0 : volume / FULL;
    if (peer.gain) {
      // the element only keeps Chromium pulling the remote stream: never audible itself
      peer.audio.muted = true;
      peer.gain.gain.value = level;
      return;
    }
    peer.audio.volume = volume / FULL;
    peer.audio.muted = level === 0;
  }

  async join() {
    this.listening = this.plan.listener; // a spectator only listens: no microphone is asked for
    this.stream = this.listening ? null : await navigator.mediaDevices.getUserMedia({ audio: true, video: false });
    this.joined = true;
    this.epoch += 1;
    this.retries = new Retries(this.retries.backoff); // a join tries everyone afresh
    this.micCut = false;
    this.asked.clear();
    this.want = new Set();
    if (this.stream) this.watchMic(this.stream);
    document.addEventListener("visibilitychange", this.onReturn);
    window.addEventListener("focus", this.onReturn);
    this.watchdog = setInterval(() => this.retryStuck(), this.listening ? ASK_MS : WATCH_MS);
    try {
      this.ctx = new AudioContext();
      this.ctx.resume().catch(() => {}); // a join is a tap: the context may play
      this.localAnalyser = this.analyse(this.stream);
    } catch {
      this.ctx = null; // no indicator, still voice
    }
    this.apply();
  }

  leave() {
    for (const pid of [...this.peers.keys()]) this.drop(pid);
    if (this.stream) for (const track of this.stream.getTracks()) track.stop();
    this.stream = null;
    this.joined = false;
    this.epoch += 1;
    this.listening = false;
    this.micCut = false;
    document.removeEventListener("visibilitychange", this.onReturn);
    window.removeEventListener("focus", this.onReturn);
    clearInterval(this.watchdog);
    if (this.ctx) this.ctx.close();
    this.ctx = null;
    this.io.onChange();
  }

  /** A new plan (every view): open and close peers, then who gets this microphone. */
  update(plan, me) {
    this.plan = plan;
    this.me = me;
    if (this.joined) this.apply();
  }

  /** Watch the microphone's track: the browser ending it or muting it cuts the voice. */
  watchMic(stream) {
    const track = stream.getAudioTracks()[0];
    if (!track) return;
    const cut = (why) => () => {
      if (this.stream !== stream) return; // an old microphone's end
      this.note(this.me, "microphone", why);
      this.micCut = true;
      this.enforce();
    };
    track.addEventListener("ended", cut("ended"));
    track.addEventListener("mute", cut("muted"));
    track.addEventListener("unmute", () => {
      if (this.stream !== stream || track.readyState !== "live") return;
      this.note(this.me, "microphone", "unmuted");
      this.micCut = false;
      this.enforce();
    });
  }

  /** The page is back (shown again, focused): a cut microphone is asked for again and sent on
   * the same connections (`replaceTrack`: no signaling). */
  async resumeMic() {
    if (!this.joined || this.listening || !this.micCut || this.resuming) return;
    this.resuming = true;
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true, video: false });
      if (!this.joined) {
        for (const track of stream.getTracks()) track.stop();
        return;
      }
      const old = this.stream;
      this.stream = stream;
      this.micCut = false;
      this.watchMic(stream);
      if (old) for (const track of old.getTracks()) track.stop();
      if (this.ctx) this.localAnalyser = this.analyse(stream);
      this.note(this.me, "microphone", "back");
      this.enforce();
    } catch {
      // still no microphone: the bar keeps saying so; the next return tries again
    } finally {
      this.resuming = false;
    }
  }

  /** The plan joins new pairs: each is connected once and kept across phases (a pair the plan
   * no longer joins only stops sending and playing: `enforce`). */
  apply() {
    const want = new Set(this.plan.on ? this.plan.peers : []);
    for (const pid of [...this.peers.keys()]) {
      // a listener's connection (either end) lasts while the spectators hear that seat: the
      // seat closes its own, and asks again, offers afresh, by the next day
      const gone = isListener(pid) ? !(this.plan.on && this.plan.toSpectators) : this.listening && !want.has(pid);
      if (gone) this.drop(pid);
    }
    if (this.listening) this.ask(want);
    else {
      for (const pid of want) {
        const peer = this.peers.get(pid);
        if (!peer) {
          if (!this.retries.gaveUp.has(pid)) this.open(pid);
        } else if (!this.want.has(pid)) this.offerAgain(pid, peer);
      }
    }
    this.want = want;
    this.enforce();
  }

  /** A pair the plan joins again whose own offer was never answered (the other page was not
   * in voice, or the relay refused it then): the same offer once more, now the relay lets it. */
  offerAgain(pid, peer) {
    const pc = peer.pc;
    if (!peer.own || peer.makingOffer || pc.currentRemoteDescription || pc.signalingState !== "have-local-offer") return;
    this.note(pid, "sent", "offer again (joined again)");
    this.io.send({ to: pid, kind: "offer", sdp: pc.localDescription.sdp });
    peer.offeredAt = performance.now();
  }

  /** Our offer to `pid` still unanswered after `answerMs` (lost on its way, or the other page
   * not in voice yet: that page offers itself when it joins) is sent again, at most
   * UNANSWERED_TRIES times, each wait twice the last; not a failure (no give-up: a seat simply
   * not in voice is no fault). */
  awaitAnswer(pid, peer) {
    const epoch = this.epoch;
    const n = peer.resends || 0;
    setTimeout(() => {
      if (epoch !== this.epoch || this.peers.get(pid) !== peer || (peer.resends || 0) !== n) return;
      const pc = peer.pc;
      if (pc.currentRemoteDescription || pc.signalingState !== "have-local-offer" || !this.want.has(pid)) return;
      if (n >= UNANSWERED_TRIES) {
        this.note(pid, "unanswered", "offer (the other page offers when it joins)");
        return;
      }
      peer.resends = n + 1;
      this.note(pid, "sent", "offer again (unanswered)");
      this.io.send({ to: pid, kind: "offer", sdp: pc.localDescription.sdp });
      peer.offeredAt = performance.now();
      this.awaitAnswer(pid, peer);
    }, this.answerMs * 2 ** n);
  }

  /** A listener asks every seat it hears and has no live connection with (not more often
   * than ASK_MS each): a seat that is in voice answers with an offer. */
  ask(want) {
    const now = performance.now();
    for (const pid of want) {
      const peer = this.peers.get(pid);
      if (peer && peer.pc.connectionState === "connected") this.asked.delete(pid); // answered: asks start over
      if (peer && (peer.pc.connectionState === "connected" || now - peer.since < RETRY_MS)) continue;
      // a seat not in voice never answers: each ask waits twice as long as the last, up to
      // ASK_MAX_MS (a seat that joins voice later is heard within that)
      const [at, n] = this.asked.get(pid) || [-Infinity, 0];
      if (now - at < Math.min(ASK_MS * 2 ** Math.max(0, n - 1), ASK_MAX_MS)) continue;
      this.asked.set(pid, [now, n + 1]);
      this.io.send({ to: pid, kind: "listen" });
    }
  }

  /** Does this page send its microphone to `pid` now? */
  sending(pid) {
    const permitted = isListener(pid) ? this.plan.toSpectators : this.plan.sendTo.has(pid);
    return this.joined && !this.listening && !this.micCut && permitted && !this.muted && (!this.ptt || this.talking);
  }

  enforce() {
    const track = this.stream ? this.stream.getAudioTracks()[0] || null : null;
    for (const [pid, peer] of this.peers) {
      if (!peer.sender) continue; // a listener's connection: nothing to send
      const want = this.sending(pid) ? track : null;
      if (peer.sender.track !== want) peer.sender.replaceTrack(want).catch(() => {});
    }
    for (const [pid, peer] of this.peers) this.playAt(peer, pid);
    this.io.onChange();
  }

  setMuted(muted) {
    this.muted = muted;
    this.enforce();
  }

  setPtt(on) {
    this.ptt = on;
    this.talking = false;
    this.enforce();
  }

  setTalking(on) {
    this.talking = on;
    this.enforce();
  }

  /** The RTCConfiguration of a new connection: the io's (ice.js: TURN, relay only for
   * strangers), or one made of the io's ICE servers alone (a test's io). */
  rtcConfiguration() {
    return this.io.rtcConfiguration ? this.io.rtcConfiguration() : { iceServers: this.io.iceServers() };
  }

  /** A new connection with seat `pid`: ours, with our own audio line (its negotiation sends
   * our offer), or, `answering` the other side's offer, with none (the offer makes the line,
   * `adopt`). */
  open(pid, answering = false) {
    const pc = new RTCPeerConnection(this.rtcConfiguration());
    // to a listener: send only; as a listener: no line of our own (the seat's offer makes it)
    const direction = isListener(pid) ? "sendonly" : "sendrecv";
    const own = !this.listening && !answering;
    const sender = own ? pc.addTransceiver("audio", { direction }).sender : null;
    const peer = { pc, sender, own, pending: [], makingOffer: false, offeredAt: 0, resentFor: null, negotiatedAt: -Infinity, held: null, since: performance.now(), closed: false, watched: false, audio: null, analyser: null };
    this.peers.set(pid, peer);
    this.note(pid, "open");
    pc.onsignalingstatechange = () => this.note(pid, "signaling", pc.signalingState);
    // Candidates travel inside the offer and the answer (`gathered`): the relay lets ICE through
    // only once the offer is noted, so candidates trickled right behind an offer could be
    // refused. A listening spectator (it answers only, after the seat's offer) still trickles.
    const trickle = this.listening;
    pc.onicecandidate = (e) => {
      if (trickle && e.candidate && this.peers.get(pid) === peer) this.io.send({ to: pid, kind: "ice", candidate: e.candidate.toJSON() });
    };
    pc.onnegotiationneeded = async () => {
      if (this.listening) return; // a listener never offers
      this.note(pid, "negotiation needed", JSON.stringify(pc.getTransceivers().map((t) => [t.mid, t.direction, t.currentDirection, t.stopped])));
      try {
        peer.makingOffer = true;
        await pc.setLocalDescription();
        if (!trickle) await gathered(pc);
        const d = pc.localDescription;
        if (this.peers.get(pid) !== peer || pc.signalingState !== "have-local-offer" || d.type !== "offer") return;
        this.io.send({ to: pid, kind: d.type, sdp: d.sdp });
        this.note(pid, "sent", d.type);
        peer.offeredAt = performance.now();
        this.awaitAnswer(pid, peer);
      } catch {
        // a closed or replaced connection: nothing to offer
      } finally {
        peer.makingOffer = false;
      }
    };
    pc.onconnectionstatechange = () => {
      const state = pc.connectionState;
      this.note(pid, "connection", state);
      // the retry clock runs while the connection is not up: from its making, or from its fall
      if (state === "connected" && !peer.closed) peer.since = Infinity;
      else if (peer.since === Infinity) peer.since = performance.now();
      if (this.peers.get(pid) !== peer) return;
      if (state === "connected") this.connected(pid, peer);
      else if (state === "disconnected" || state === "failed") {
        // an offer held while this connection was up is the other side's new one: taken now
        if (this.takeHeld(pid, peer)) return;
        if (state === "failed") this.fell(pid, peer, "ICE failed");
        else this.graceFor(pid, peer);
      }
    };
    pc.ontrack = (e) => {
      const stream = e.streams[0] || new MediaStream([e.track]);
      const audio = new Audio();
      audio.autoplay = true;
      audio.srcObject = stream;
      peer.audio = audio;
      if (this.ctx) {
        audio.muted = true;
        peer.source = this.ctx.createMediaStreamSource(stream);
        peer.gain = this.ctx.createGain();
        peer.played = this.ctx.createAnalyser();
        peer.played.fftSize = 1024;
        peer.source.connect(peer.gain);
        peer.gain.connect(peer.played);
        peer.played.connect(this.ctx.destination);
      }
      this.playAt(peer, pid);
      audio.play().catch(() => {});
      peer.analyser = peer.played || null;
    };
  }

  /** Is the connection `peer` up: connected, and not closed by the other page? */
  isUp(peer) {
    return peer.pc.connectionState === "connected" && !peer.closed;
  }

  /** The connection `peer` with `pid` is up: the person is no longer given up on; its tries
   * start over once it stayed up STABLE_MS (one that keeps falling keeps backing off). Its DTLS
   * transport is watched from now on (`closedByOther`). */
  connected(pid, peer) {
    const had = this.retries.tries.has(pid) || this.retries.gaveUp.has(pid);
    this.retries.up(pid);
    if (had) this.io.onChange();
    const epoch = this.epoch;
    setTimeout(() => {
      if (epoch === this.epoch && this.peers.get(pid) === peer && this.isUp(peer)) this.retries.ok(pid);
    }, this.stableMs);
    if (peer.watched) return;
    const line = peer.pc.getTransceivers().find((tr) => (tr.receiver && tr.receiver.transport) || (tr.sender && tr.sender.transport));
    const transport = line && ((line.receiver && line.receiver.transport) || line.sender.transport);
    if (!transport) return;
    peer.watched = true;
    const check = () => {
      if (transport.state === "closed" && !peer.closed && this.peers.get(pid) === peer) this.closedByOther(pid, peer);
    };
    transport.addEventListener("statechange", check);
    check();
  }

  /** The other page closed the connection `peer` (its DTLS close: it left voice, reloaded, or
   * made a new connection: a try again, an offer taken on a new one); Chromium still calls it
   * "connected" until ICE times out 5-8 s later. It is down from now: an offer from the other
   * page's new connection, held or still to come, is taken at once (`takeHeld`, `take`), the
   * other page offering when it joins again; if none comes, the watchdog tries again
   * (`retryStuck`). A listener's connection is dropped (the listener asks again). */
  closedByOther(pid, peer) {
    peer.closed = true;
    if (peer.since === Infinity) peer.since = performance.now();
    this.note(pid, "closed by the other side");
    if (isListener(pid) || this.listening) this.fell(pid, peer, "closed by the other side");
    else this.takeHeld(pid, peer);
  }

  /** The connection `peer` "disconnected": not back (connected) within `graceMs`, it failed. */
  graceFor(pid, peer) {
    const epoch = this.epoch;
    setTimeout(() => {
      if (epoch !== this.epoch || this.peers.get(pid) !== peer) return;
      if (this.isUp(peer)) this.note(pid, "back", "within the grace");
      else this.fell(pid, peer, `${peer.pc.connectionState} for ${this.graceMs} ms`);
    }, this.graceMs);
  }

  /** The connection `peer` with `pid` failed: a try again after the backoff (`fail`); a
   * listener's connection is dropped and made again when the listener asks again (`ask`). */
  fell(pid, peer, why) {
    if (!isListener(pid) && !this.listening) {
      this.fail(pid, why);
      return;
    }
    this.note(pid, "retry", `${why}: ${peer.pc.signalingState} ${peer.pc.connectionState}`);
    this.drop(pid);
    if (this.listening) this.ask(new Set(this.plan.on ? this.plan.peers : []));
    this.enforce();
  }

  /** A negotiated connection that is still not up RETRY_MS after it was made or fell (a
   * handshake lost on a loaded machine, a network change) is a failed try (`fail`: it starts
   * over after a backoff while the plan joins the pair, the relay taking an offer only then);
   * the other side takes the new offer on a new connection (`signal`). An offer never answered
   * is sent again a few times only (`awaitAnswer`): the other page may not be in voice, and
   * offers itself when it joins. */
  retryStuck() {
    const now = performance.now();
    let changed = this.listening;
    for (const [pid, peer] of this.peers) {
      const listener = isListener(pid) || this.listening;
      const negotiated = Boolean(peer.pc.currentRemoteDescription);
      if (!listener && (!negotiated || !this.want.has(pid))) continue;
      if (!this.isUp(peer) && now - peer.since > RETRY_MS) {
        changed = true;
        if (!listener && this.takeHeld(pid, peer)) continue;
        if (listener) {
          // a listener's connection is made again when it asks again (`listen`)
          this.note(pid, "retry", `${peer.pc.signalingState} ${peer.pc.connectionState}`);
          this.drop(pid);
        } else this.fail(pid, `not up: ${peer.pc.signalingState} ${peer.pc.connectionState}`);
      }
    }
    if (this.listening) this.ask(new Set(this.plan.on ? this.plan.peers : []));
    if (changed) this.enforce();
  }

  /** Was the connection `peer` negotiated less than RETRY_MS ago, and is it up or coming up? */
  justNegotiated(peer) {
    const state = peer.pc.connectionState;
    return !peer.closed && ["new", "connecting", "connected"].includes(state) && performance.now() - peer.negotiatedAt < RETRY_MS;
  }

  /** The connection `peer` with `pid` fell or never came up: an offer held meanwhile (`take`)
   * from the other side's newer connection, not older than RETRY_MS, is taken now on a new
   * connection (true), rather than waiting for a try again. */
  takeHeld(pid, peer) {
    const held = peer.held;
    peer.held = null;
    if (!held || this.peers.get(pid) !== peer || performance.now() - held.at > RETRY_MS) return false;
    this.note(pid, "taking held", `offer (ours ${peer.closed ? "closed by the other side" : peer.pc.connectionState})`);
    this.signal({ ...held.frame, held: true });
    return true;
  }

  drop(pid) {
    const peer = this.peers.get(pid);
    if (!peer) return;
    this.peers.delete(pid);
    this.note(pid, "drop");
    peer.pc.close();
    if (peer.audio) peer.audio.srcObject = null;
    if (peer.played) peer.played.disconnect();
    if (peer.source) peer.source.disconnect();
  }

  /** A `signal` frame from seat `frame.from` (the server relays an offer only while the policy
   * joins the two seats, so it may come just before the view that says so). Each seat's signals
   * are taken one after another: an answer waits for its candidates (`gathered`), and an offer
   * sent again meanwhile must not be taken on the same connection at the same time. */
  signal(frame) {
    const prev = this.chains.get(frame.from) || Promise.resolve();
    // A take never holds the seat's later signals for longer than TAKE_MAX_MS: an operation on
    // a connection closed meanwhile (a retry's or a renewal's `drop`) never settles (the
    // WebRTC spec abandons a closed connection's operations chain), and every later offer from
    // that seat would wait behind it, unseen (a pair stuck for good at 6 throttled pages).
    const next = prev
      .then(() => Promise.race([this.take(frame), new Promise((ok) => setTimeout(ok, TAKE_MAX_MS))]))
      .catch(() => {});
    this.chains.set(frame.from, next);
    next.then(() => {
      if (this.chains.get(frame.from) === next) this.chains.delete(frame.from);
    });
    return next;
  }

  async take(frame) {
    if (frame.kind !== "ice") this.note(frame.from, this.joined ? "got" : "got before joining", frame.kind);
    if (!this.joined) return;
    if (this.listening) return this.heard(frame);
    if (isListener(frame.from)) {
      if (frame.kind === "listen") {
        if (!this.plan.on || !this.plan.toSpectators) return; // the spectators do not hear us now
        this.drop(frame.from);
        this.open(frame.from); // its negotiation sends the offer
        this.enforce();
        return;
      }
      if (frame.kind === "offer" || !this.peers.has(frame.from)) return; // a listener never offers
    }
    if (!this.peers.has(frame.from)) this.open(frame.from, frame.kind === "offer");
    let peer = this.peers.get(frame.from);
    let pc = peer.pc;
    // Take an offer on a connection made for it: our own line, never negotiated, is not matched
    // to the offer's (addTransceiver's lines never are), and Chromium, once such a line is
    // stopped, finds negotiation needed after every negotiation: an endless offer/answer round
    // with that seat, which used up the relay's signal allowance (docs/rules.md, "Voice").
    const renew = () => {
      this.drop(frame.from);
      this.open(frame.from, true);
      const next = this.peers.get(frame.from);
      next.pending = peer.pending; // the other side's candidates that came before its offer
      return next;
    };
    try {
      // the same offer again (sent again while its answer was on its way): taken once only
      if (frame.kind === "offer" && (peer.offerTaken === frame.sdp || (pc.remoteDescription && pc.remoteDescription.sdp === frame.sdp))) {
        this.note(frame.from, "ignored", "the same offer again");
        return;
      }
      if (frame.kind === "offer" || frame.kind === "answer") {
        // "Perfect negotiation" (W3C webrtc-pc, MDN): in a collision of two offers the impolite
        // side (the lower seat) ignores the other's and the polite one gives way, always; no
        // clock decides (an "our offer is old, so it was dropped" rule made both sides give way
        // when the relay was slow, each answering a connection the other had just closed).
        const collision = frame.kind === "offer" && (peer.makingOffer || pc.signalingState !== "stable");
        if (collision && !polite(this.me, frame.from)) {
          // the other side gives way, but only to an offer it has: ours may have reached its page
          // before it joined voice (dropped there). Ours again, once for each of its connections
          // (a page that had it takes it as a no-op); an offer still being made goes out anyway.
          const ours = peer.makingOffer ? "being made" : `${Math.round(performance.now() - peer.offeredAt)} ms old`;
          this.note(frame.from, "ignored", `offer (${pc.signalingState}, ours ${ours})`);
          const theirs = sessionOf(frame.sdp);
          if (peer.resentFor !== theirs && !peer.makingOffer && pc.signalingState === "have-local-offer" && pc.localDescription) {
            peer.resentFor = theirs;
            this.note(frame.from, "sent", "offer again");
            this.io.send({ to: frame.from, kind: "offer", sdp: pc.localDescription.sdp });
          }
          return;
        }
        if (frame.kind === "offer" && pc.currentRemoteDescription && sessionOf(frame.sdp) !== sessionOf(pc.currentRemoteDescription.sdp)) {
          // An offer from another of the other side's connections than the one this one is
          // negotiated with. The relay keeps no order between one socket's frames (each is its
          // own invocation; an offer writes the pair's offer mark, an answer does not), so one
          // that comes just after the negotiation is most often the offer the polite side gave
          // up in a collision, overtaken by that side's answer: taken, it would renegotiate this
          // connection towards a closed one (silent until RETRY_MS). It is held while this
          // connection is up or coming up; if this one falls instead (the other side started
          // over: a try again, a join again: its DTLS close comes at once, `closedByOther`), the
          // held offer is taken then (`takeHeld`). Later
          // (or on a connection down) the other side started over: a new connection for it.
          if (!frame.held && this.justNegotiated(peer)) {
            peer.held = { frame, at: performance.now() };
            this.note(frame.from, "held", `offer (another connection's; ours ${pc.connectionState}, just negotiated)`);
            return;
          }
          this.note(frame.from, "new connection for", `offer (another connection's; ours ${peer.closed ? "closed by the other side" : pc.connectionState})`);
          peer = renew();
          pc = peer.pc;
        } else if (frame.kind === "offer" && peer.own && !pc.currentRemoteDescription) {
          // our own offer not answered yet (a collision we give way in, or an offer the other
          // page dropped): the other side's offer on a new connection
          this.note(frame.from, "new connection for", `offer (${pc.signalingState})`);
          peer = renew();
          pc = peer.pc;
        }
        if (frame.kind === "offer") peer.offerTaken = frame.sdp;
        try {
          await pc.setRemoteDescription({ type: frame.kind, sdp: frame.sdp });
        } catch (err) {
          // an offer from the other side's new connection (it started over): a new one here too
          if (frame.kind !== "offer" || this.peers.get(frame.from) !== peer) throw err;
          this.note(frame.from, "new connection for", `offer (${err.message})`);
          peer = renew();
          pc = peer.pc;
          peer.offerTaken = frame.sdp;
          await pc.setRemoteDescription({ type: frame.kind, sdp: frame.sdp });
        }
        peer.negotiatedAt = performance.now();
        for (const c of peer.pending.splice(0)) await pc.addIceCandidate(c).catch(() => {});
        if (frame.kind === "offer") {
          this.adopt(peer);
          await pc.setLocalDescription();
          await gathered(pc);
          if (this.peers.get(frame.from) !== peer) return;
          this.io.send({ to: frame.from, kind: "answer", sdp: pc.localDescription.sdp });
          this.note(frame.from, "sent", "answer");
        }
      } else if (frame.kind === "ice" && frame.candidate) {
        if (pc.remoteDescription) await pc.addIceCandidate(frame.candidate).catch(() => {});
        else peer.pending.push(frame.candidate);
      }
    } catch (err) {
      // a stale description after a phase change: the next negotiation starts over
      this.note(frame.from, "failed", `${frame.kind}: ${err && err.message}`);
    }
    this.enforce();
  }

  /** As a listener: a seat's offer (a fresh connection each time: the seat made a new one for
   * our ask) is answered; its ICE candidates are added. */
  async heard(frame) {
    const wanted = this.plan.on && this.plan.peers.includes(frame.from);
    try {
      if (frame.kind === "offer") {
        if (!wanted) return;
        this.drop(frame.from);
        this.open(frame.from);
        const peer = this.peers.get(frame.from);
        await peer.pc.setRemoteDescription({ type: "offer", sdp: frame.sdp });
        for (const c of peer.pending.splice(0)) await peer.pc.addIceCandidate(c).catch(() => {});
        await peer.pc.setLocalDescription();
        if (this.peers.get(frame.from) === peer) this.io.send({ to: frame.from, kind: "answer", sdp: peer.pc.localDescription.sdp });
      } else if (frame.kind === "ice" && frame.candidate) {
        const peer = this.peers.get(frame.from);
        if (!peer) return;
        if (peer.pc.remoteDescription) await peer.pc.addIceCandidate(frame.candidate).catch(() => {});
        else peer.pending.push(frame.candidate);
      }
    } catch {
      // a stale offer after a phase change: the next ask starts over
    }
    this.io.onChange();
  }

  /** After the other side's offer on a connection made to answer it: the offer's audio line is
   * the one both use, so send on that one (what is sent on it: `enforce`). */
  adopt(peer) {
    const line = peer.pc.getTransceivers().find((tr) => tr.mid !== null && !tr.stopped);
    if (!line || line.sender === peer.sender) return;
    line.direction = "sendrecv";
    peer.sender = line.sender;
  }

  analyse(stream) {
    if (!this.ctx) return null;
    const analyser = this.ctx.createAnalyser();
    analyser.fftSize = 1024;
    this.ctx.createMediaStreamSource(stream).connect(analyser);
    return analyser;
  }

  /** The seats heard speaking now (this page's own seat while its microphone is sent). */
  speaking() {
    const out = new Set();
    const loud = (a) => {
      if (!a) return false;
      const buf = new Float32Array(a.fftSize);
      a.getFloatTimeDomainData(buf);
      let sum = 0;
      for (const x of buf) sum += x * x;
      return Math.sqrt(sum / buf.length) > LEVEL_SPEAKING;
    };
    for (const [pid, peer] of this.peers) if (loud(peer.analyser)) out.add(pid);
    if (this.me && [...this.peers.keys()].some((pid) => this.sending(pid)) && loud(this.localAnalyser)) out.add(this.me);
    return out;
  }
}
