// Short sound cues (WebAudio, no files): night falls, morning, your turn, the last 5 seconds;
// a buzz on phones that vibrate. One switch mutes both, remembered in this browser. Browsers
// driven by tests (navigator.webdriver) start muted. Every cue is noted (the test hook `__cues`).
import { device, KEYS } from "./storage.js";
import { testHook } from "./testhooks.js";

const CUES = {
  night: { notes: [523, 392, 262], step: 0.22, type: "sine", buzz: [80] },
  morning: { notes: [392, 523, 659], step: 0.18, type: "triangle", buzz: [] },
  turn: { notes: [784, 988], step: 0.12, type: "square", buzz: [60, 60, 60] },
  lastSeconds: { notes: [880], step: 0.08, type: "square", buzz: [40] },
};

let ctx = null;
const cues = [];
testHook("cues", cues);

export function soundOn() {
  const saved = device.get(KEYS.sound);
  if (saved === "on" || saved === "off") return saved === "on";
  return !navigator.webdriver;
}

export function setSound(on) {
  device.set(KEYS.sound, on ? "on" : "off");
  if (on) unlock();
}

/** Browsers start audio only after a tap: call from a click. */
export function unlock() {
  try {
    ctx = ctx || new (window.AudioContext || window.webkitAudioContext)();
    if (ctx.state === "suspended") ctx.resume();
  } catch {
    ctx = null;
  }
}

export function cue(name) {
  const c = CUES[name];
  if (!c) return;
  const on = soundOn();
  cues.push({ cue: name, played: on });
  if (!on) return;
  if (c.buzz.length && navigator.vibrate) {
    try {
      navigator.vibrate(c.buzz);
    } catch {
      // no vibration here
    }
  }
  if (!ctx || ctx.state !== "running") return;
  const t0 = ctx.currentTime;
  c.notes.forEach((freq, i) => {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = c.type;
    osc.frequency.value = freq;
    const at = t0 + i * c.step;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.15, at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + c.step * 0.95);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + c.step);
  });
}
