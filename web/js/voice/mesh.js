// A WebRTC mesh for the table's voice: one RTCPeerConnection per seat the plan joins this page
// with (policy.js), signaling over the game's own socket (the `signal` frame; docs/protocol.md,
// "Voice signaling"). The sender enforces the policy: a peer this page may not speak to gets
// no audio at all (the sender's track is replaced by none), every such peer alike; a peer the
// plan no longer joins is closed.
//
// Listening spectators: a spectator's page joins without a microphone and asks each seat it
// hears (`listen`); the seat, while its plan says the spectators hear it (`toSpectators`),
// offers a send-only connection to the listener's random `L…` id, and the listener only
// answers. The seat stays the sender that enforces: it closes its listeners' connections when
// the spectators no longer hear it.
import { isListener, polite } from "./policy.js";
import { FULL, keepSeatVolume, seatVolume } from "./volumes.js";

const LEVEL_SPEAKING = 0.02; // RMS of the last 1/20 s above this: speaking
// An offer of ours still unanswered after this long went to a page that was not in voice yet
// (it dropped it): in a collision we then take the other side's offer even as the impolite one.
const STALE_OFFER_MS = 3000;
const RETRY_MS = 8000; // a peer connection not up by then (or down for that long) is made again
const ASK_MS = 2000; // a listener asks a seat it hears but has no connection with again this often
const LOG_KEEP = 400; // the trace keeps this many last events (read by the browser tests)

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
    this.asked = new Map(); // listener: seat -> when it last asked it (`listen`)
    this.ctx = null;
    this.localAnalyser = null;
    this.room = null; // the room code: per-seat volumes are kept per room (volumes.js)
    // The last LOG_KEEP events `[ms, peer, what, detail]` (connections made and dropped, their
    // state changes, signals in, out and refused): what a failing browser test prints.
    this.log = [];
  }

  note(pid, what, detail = "") {
    this.log.push([Math.round(performance.now()), pid, what, detail]);
    if (this.log.length > LOG_KEEP) this.log.splice(0, this.log.length - LOG_KEEP);
  }

  /** The server refused signal `sent` (`{to, kind}`) with `code` (docs/protocol.md, "Voice
   * signaling"). */
  refused(sent, code) {
    this.note(sent.to, "refused", `${sent.kind} ${code}`);
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
   * re-checked at every view): the receiving end enforces too. */
  playAt(peer, pid) {
    if (!peer.audio) return;
    const { volume, muted } = this.volumeOf(pid);
    const heard = Boolean(this.plan.on && this.plan.hearFrom && this.plan.hearFrom.has(pid));
    peer.audio.volume = volume / FULL;
    peer.audio.muted = muted || !heard;
  }

  async join() {
    this.listening = this.plan.listener; // a spectator only listens: no microphone is asked for
    this.stream = this.listening ? null : await navigator.mediaDevices.getUserMedia({ audio: true, video: false });
    this.joined = true;
    this.asked.clear();
    this.watchdog = setInterval(() => this.retryStuck(), this.listening ? ASK_MS : RETRY_MS);
    try {
      this.ctx = new AudioContext();
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
    this.listening = false;
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

  apply() {
    const want = new Set(this.plan.on ? this.plan.peers : []);
    for (const pid of [...this.peers.keys()]) {
      // a listener's connection lasts while the spectators hear this seat (it asked for it)
      const keep = isListener(pid) ? this.plan.on && this.plan.toSpectators : want.has(pid);
      if (!keep) this.drop(pid);
    }
    if (this.listening) this.ask(want);
    else for (const pid of want) if (!this.peers.has(pid)) this.open(pid);
    this.enforce();
  }

  /** A listener asks every seat it hears and has no live connection with (not more often
   * than ASK_MS each): a seat that is in voice answers with an offer. */
  ask(want) {
    const now = performance.now();
    for (const pid of want) {
      const peer = this.peers.get(pid);
      if (peer && (peer.pc.connectionState === "connected" || now - peer.since < RETRY_MS)) continue;
      if (now - (this.asked.get(pid) || -Infinity) < ASK_MS) continue;
      this.asked.set(pid, now);
      this.io.send({ to: pid, kind: "listen" });
    }
  }

  /** Does this page send its microphone to `pid` now? */
  sending(pid) {
    const permitted = isListener(pid) ? this.plan.toSpectators : this.plan.sendTo.has(pid);
    return this.joined && !this.listening && permitted && !this.muted && (!this.ptt || this.talking);
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
    const peer = { pc, sender, own, pending: [], makingOffer: false, offeredAt: 0, resent: false, since: performance.now(), audio: null, analyser: null };
    this.peers.set(pid, peer);
    this.note(pid, "open");
    pc.onsignalingstatechange = () => this.note(pid, "signaling", pc.signalingState);
    pc.onicecandidate = (e) => {
      if (e.candidate && this.peers.get(pid) === peer) this.io.send({ to: pid, kind: "ice", candidate: e.candidate.toJSON() });
    };
    pc.onnegotiationneeded = async () => {
      if (this.listening) return; // a listener never offers
      this.note(pid, "negotiation needed", JSON.stringify(pc.getTransceivers().map((t) => [t.mid, t.direction, t.currentDirection, t.stopped])));
      try {
        peer.makingOffer = true;
        await pc.setLocalDescription();
        const d = pc.localDescription;
        if (this.peers.get(pid) === peer) this.io.send({ to: pid, kind: d.type, sdp: d.sdp });
        this.note(pid, "sent", d.type);
        peer.offeredAt = performance.now();
        peer.resent = false;
      } catch {
        // a closed or replaced connection: nothing to offer
      } finally {
        peer.makingOffer = false;
      }
    };
    pc.onconnectionstatechange = () => {
      this.note(pid, "connection", pc.connectionState);
      // the retry clock runs while the connection is not up: from its making, or from its fall
      if (pc.connectionState === "connected") peer.since = Infinity;
      else if (peer.since === Infinity) peer.since = performance.now();
    };
    pc.ontrack = (e) => {
      const stream = e.streams[0] || new MediaStream([e.track]);
      const audio = new Audio();
      audio.autoplay = true;
      audio.srcObject = stream;
      peer.audio = audio;
      this.playAt(peer, pid);
      audio.play().catch(() => {});
      peer.analyser = this.analyse(stream);
    };
  }

  /** A connection that is still not up RETRY_MS after it was made or fell (a lost offer, two
   * offers each dropped by a page not in voice yet, a handshake lost on a loaded machine)
   * starts over; the other side takes the new offer on a new connection (`signal`). */
  retryStuck() {
    const now = performance.now();
    for (const [pid, peer] of this.peers) {
      if (peer.pc.connectionState !== "connected" && now - peer.since > RETRY_MS) {
        this.note(pid, "retry", `${peer.pc.signalingState} ${peer.pc.connectionState}`);
        this.drop(pid);
        // a listener's connection is made again when it asks again (`listen`)
        if (!isListener(pid) && !this.listening) this.open(pid);
      }
    }
    if (this.listening) this.ask(new Set(this.plan.on ? this.plan.peers : []));
    this.enforce();
  }

  drop(pid) {
    const peer = this.peers.get(pid);
    if (!peer) return;
    this.peers.delete(pid);
    this.note(pid, "drop");
    peer.pc.close();
    if (peer.audio) peer.audio.srcObject = null;
  }

  /** A `signal` frame from seat `frame.from` (the server relays it only while the policy joins
   * the two seats, so it may come just before the view that says so). */
  async signal(frame) {
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
      if (frame.kind === "offer" || frame.kind === "answer") {
        const collision = frame.kind === "offer" && (peer.makingOffer || pc.signalingState !== "stable");
        const fresh = peer.makingOffer || performance.now() - peer.offeredAt < STALE_OFFER_MS;
        if (collision && !polite(this.me, frame.from) && fresh) {
          // the other side gives way, but only to an offer it has: ours may have reached its page
          // before it joined voice (dropped there), and both would sit with an unanswered offer
          // until RETRY_MS. Ours again, once (a page that had it takes it as a no-op).
          this.note(frame.from, "ignored", `offer (${pc.signalingState}, ours ${Math.round(performance.now() - peer.offeredAt)} ms old)`);
          if (!peer.resent && pc.signalingState === "have-local-offer" && pc.localDescription) {
            peer.resent = true;
            this.note(frame.from, "sent", "offer again");
            this.io.send({ to: frame.from, kind: "offer", sdp: pc.localDescription.sdp });
          }
          return;
        }
        if (frame.kind === "offer" && peer.own && !pc.currentRemoteDescription) {
          // our own offer not answered yet (a collision we give way in, or an offer the other
          // page dropped): the other side's offer on a new connection
          this.note(frame.from, "new connection for", `offer (${pc.signalingState})`);
          peer = renew();
          pc = peer.pc;
        }
        try {
          await pc.setRemoteDescription({ type: frame.kind, sdp: frame.sdp });
        } catch (err) {
          // an offer from the other side's new connection (it started over): a new one here too
          if (frame.kind !== "offer" || this.peers.get(frame.from) !== peer) throw err;
          this.note(frame.from, "new connection for", `offer (${err.message})`);
          peer = renew();
          pc = peer.pc;
          await pc.setRemoteDescription({ type: frame.kind, sdp: frame.sdp });
        }
        for (const c of peer.pending.splice(0)) await pc.addIceCandidate(c).catch(() => {});
        if (frame.kind === "offer") {
          this.adopt(peer);
          await pc.setLocalDescription();
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
