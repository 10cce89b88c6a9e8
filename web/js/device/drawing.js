// The single device's screen: the bar (voice, exit), the setup form, and the step the queue
// stands at (screens.js draws each), redrawn only when what it is drawn from changes.
import { $, h } from "../dom.js";
import { errorText, getKid, getLang, t } from "../i18n.js";
import { queueOf } from "./flow.js";
import { lastWord } from "./lastword.js";
import { driveLobby } from "./lobby.js";
import { narrate } from "./narration.js";
import { hush } from "./narrator.js";
import { advance, currentStep, ownPart, recheckQueue } from "./queue.js";
import * as screens from "./screens.js";
import { setupScreen } from "./setup.js";
import { ctl, host, saveProgress } from "./state.js";
import { freshProgress, setVoice, voiceOn } from "./store.js";

// What the game's life gives the drawing (main.js, once): leave the mode, create a game, and
// the rule sets the setup form offers.
let life = { leave: () => {}, create: async () => {}, presets: {} };
export function bindDrawing(handlers) {
  life = handlers;
}

export function root() {
  if (!ctl.root) {
    // The main landmark while the device mode is on (#main is hidden then, style.css).
    ctl.root = h("div", { id: "device-root", class: "device", role: "main" });
    $("#main").after(ctl.root);
  }
  return ctl.root;
}

export function show(on) {
  if (on) document.body.dataset.device = "on";
  else delete document.body.dataset.device;
  root().hidden = !on;
}

function bar() {
  const on = voiceOn();
  return h(
    "div",
    { class: "device-bar" },
    h(
      "button",
      {
        type: "button", class: "btn btn-small btn-quiet", id: "device-voice", "aria-pressed": String(on),
        onclick: () => {
          setVoice(!voiceOn());
          if (!voiceOn()) hush();
          render();
        },
      },
      t(on ? "device.voice.on" : "device.voice.off"),
    ),
    h(
      "button",
      {
        type: "button", class: "btn btn-small btn-quiet", id: "device-exit",
        onclick: () => {
          if (ctl.mode === "play" && !window.confirm(t("device.exitConfirm"))) return;
          const v = ctl.mode === "play" && ctl.seats && ctl.seats.latest();
          if (v && v.phase && !["lobby", "ended"].includes(v.phase.kind) && !v.result && ctl.seats.send(host(), "endGame")) {
            // The host ends the game for everyone (every role shown, nobody wins); leave
            // once the server has answered, so the frame is not cut off with the sockets.
            const t0 = performance.now();
            const check = () => {
              const now = ctl.seats && ctl.seats.latest();
              if (!now || now.result || performance.now() - t0 > 3000) life.leave();
              else setTimeout(check, 100);
            };
            return check();
          }
          life.leave();
        },
      },
      t(ctl.mode === "play" ? "device.exit" : "device.back"),
    ),
  );
}

function playScreen({ view, s }) {
  if (!view) return screens.waiting();
  if (s.screen === "lobby") {
    const bad = view.room && view.room.setupError;
    if (bad) {
      return h("section", { class: "device-screen", id: "device-starting" }, h("p", { class: "form-error", role: "alert" }, errorText(bad.code, bad.message)));
    }
    return h("section", { class: "device-screen", id: "device-starting" }, h("p", { class: "device-pass" }, t("device.starting")));
  }
  narrate(view, s);
  switch (s.screen) {
    case "handover":
      return screens.handover(view, s.stage, s.seat, {
        onOpen: () => {
          saveProgress({ ...ctl.game.progress, open: true });
          render();
        },
      });
    case "turn": {
      const own = ctl.seats.view(s.seat);
      // That seat's socket may be a moment behind the newest view.
      if (!own || !own.phase || own.phase.seq !== view.phase.seq) return screens.waiting();
      const at = `${ctl.game.progress.key}:${ctl.game.progress.pos}`;
      return screens.turn(own, s.stage, {
        chosen: ctl.choice.at === at ? ctl.choice.index : null,
        onChoose: (index) => (ctl.choice = { at, index }),
        onDone: (act) => {
          if (!act) return advance();
          // Close the screen, and wait for the server's answer: original rules may give the
          // same player a second duty tonight, which opens their screen again.
          ctl.awaiting = { seat: s.seat, seq: own.phase.seq, before: ownPart(s.seat), at: performance.now() };
          ctl.choice = { at: null, index: null };
          ctl.seats.act(s.seat, act.action, act.payload);
          setTimeout(() => render(), 5000);
          render();
        },
      });
    }
    case "news":
      return screens.news(view, s.events, {
        onContinue: () => {
          saveProgress({ ...ctl.game.progress, seen: (view.events || []).length - 1 });
          render();
        },
      });
    case "discussion":
      return screens.discussion(view, {
        onVote: () => {
          // Every living seat that has not said so yet ("already_ready" is harmless).
          for (const id of queueOf(view)) {
            const sv = ctl.seats.view(id);
            if (!sv || !sv.private || sv.private.task === "ready") ctl.seats.act(id, "readyEarly");
          }
        },
      });
    case "defense": {
      const speaking = ctl.game.seats
        .map((seat) => seat.id)
        .filter((id) => {
          const sv = ctl.seats.view(id);
          return sv && sv.private && sv.private.task === "endTurn";
        });
      return screens.defense(view, speaking, { onFinished: (id) => ctl.seats.act(id, "endTurn") });
    }
    case "speech":
      return screens.speech(view, ctl.seats.view(view.phase.speaker), {
        onNominate: (id, action, payload) => ctl.seats.act(id, action, payload),
      });
    case "lastWord":
      return lastWord(view, { onDone: (id) => ctl.seats.act(id, "endTurn") });
    case "end":
      return screens.end(view, {
        onAgain: () => {
          saveProgress(freshProgress());
          ctl.lastStart = 0;
          ctl.readySent.clear();
          ctl.seats.send(host(), "newGame");
        },
        onFinish: () => life.leave(),
      });
    case "wait":
      if (!ctl.awaiting) recheckQueue();
      return screens.waiting();
    case "loading":
      return screens.waiting();
    default:
      return screens.publicPhase(view);
  }
}

export function render(force = false) {
  if (ctl.mode === "off") return;
  if (ctl.mode === "setup") {
    ctl.lastSig = null;
    root().replaceChildren(bar(), setupScreen(ctl, { presets: life.presets, create: life.create, notice: ctl.notice }));
    return;
  }
  const cur = currentStep();
  if (cur.s.screen === "lobby") driveLobby(cur.view);
  const sig = `${cur.sig}|${getLang()}|${getKid()}|${voiceOn()}`;
  if (!force && sig === ctl.lastSig) return;
  ctl.lastSig = sig;
  root().replaceChildren(bar(), playScreen(cur));
}

