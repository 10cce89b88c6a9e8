// The voice controls: a small bar of its own under the page (outside #main, so a redraw of
// the screen keeps it): "Join voice" (the browser asks for the microphone), mute,
// push-to-talk with a hold-to-talk button, a status line (the people this voice reaches, that
// the browser cut the microphone, the people it gave up connecting with, or that the room has no
// voice: a strangers' room on a site with no relay server), a speaking mark on the tiles, and
// (once joined) a fold with each other seat's volume and mute on this device (volumes.js).
// Every change of the voice state is announced to screen readers (cues.js `announce`).
import { announce } from "../cues.js";
import { h, patchChildren, replaceChildren } from "../dom.js";
import { t, tn } from "../i18n.js";

let bar = null;
let row = null; // the buttons and the status, drawn again on every change into the same nodes
let fold = null; // the per-seat volumes: kept (a slider being dragged is never redrawn)
let foldKey = ""; // the seats, names and language the fold's rows were drawn for
let last = ""; // the status last announced
let ticking = null;

function status(mesh, spectator) {
  // a strangers' room with no relay server: no voice at all (ice.js `iceUnavailable`)
  if (mesh.unavailable) return t("voice.status.unavailable");
  // people counted, never bots (policy.js); the plural as the language says it (i18n.js `tn`)
  if (spectator) {
    if (!mesh.joined) return t("voice.status.spectatorOff");
    const hear = mesh.plan.peers.length;
    return hear ? tn("voice.status.listenPeople", hear) : t("voice.status.silent");
  }
  if (!mesh.joined) return t("voice.status.off");
  if (mesh.micCut) return t("voice.status.micCut");
  if (mesh.muted) return t("voice.status.muted");
  const lost = mesh.givenUp ? mesh.givenUp() : 0; // tried a few times and given up (mesh.js `fail`)
  if (lost) return tn("voice.status.gaveUp", lost);
  const speak = mesh.plan.sendTo.size;
  const hear = mesh.plan.hearFrom.size;
  if (!speak && mesh.plan.botsOnly) return t("voice.status.noPeople");
  if (!speak && !hear) return t("voice.status.silent");
  if (!speak) return t("voice.status.listen");
  if (mesh.ptt && !mesh.talking) return t("voice.status.hold");
  return tn("voice.status.speakPeople", speak);
}

/** Draw (or hide) the bar for `view`; announce the status when it changed (`quiet`: not when
 * only the words changed, as after a language switch: the page announces nothing then). */
export function renderControls(mesh, view, { quiet = false } = {}) {
  // a spectator listens only: one button, no microphone (docs/rules.md, "Voice")
  const spectator = Boolean(view && !view.you);
  const on = Boolean(view && view.voice && view.voice.on);
  if (!bar) {
    bar = h("section", { class: "voice-bar", id: "voice-bar", "aria-label": t("voice.title") });
    row = h("div", { class: "voice-row" });
    fold = h("details", { class: "voice-volumes", id: "voice-volumes" });
    bar.append(row, fold);
    document.body.append(bar);
  }
  // in the page's language now; only what differs is written (the same view again writes nothing)
  if (bar.getAttribute("aria-label") !== t("voice.title")) bar.setAttribute("aria-label", t("voice.title"));
  if (bar.hidden !== !on) bar.hidden = !on;
  if (!on) {
    last = ""; // the bar shown again (the next game) starts as on a fresh page: said by no one
    return;
  }
  const text = status(mesh, spectator);
  const join = h(
    "button",
    {
      type: "button",
      class: "btn btn-small",
      id: "voice-join",
      onclick: async () => {
        if (mesh.joined) {
          mesh.leave();
          announce(t("voice.left"));
          return;
        }
        try {
          await mesh.join();
          announce(t(mesh.listening ? "voice.listening" : "voice.joined"));
        } catch {
          announce(t("voice.denied"));
          replaceChildren(bar.querySelector(".voice-status"), t("voice.denied"));
        }
      },
    },
    spectator ? t(mesh.joined ? "voice.listenLeave" : "voice.listenJoin") : t(mesh.joined ? "voice.leave" : "voice.join"),
  );
  // no relay in a strangers' room: nothing to join, the status says why
  const parts = mesh.unavailable && !mesh.joined ? [] : [join];
  if (mesh.joined && !spectator) {
    parts.push(
      h(
        "button",
        {
          type: "button",
          class: "btn btn-small",
          id: "voice-mute",
          "aria-pressed": String(mesh.muted),
          onclick: () => mesh.setMuted(!mesh.muted),
        },
        t("voice.mute"),
      ),
      h(
        "label",
        { class: "voice-ptt" },
        h("input", { type: "checkbox", id: "voice-ptt", checked: mesh.ptt, onchange: (e) => mesh.setPtt(e.target.checked) }),
        t("voice.ptt"),
      ),
    );
    if (mesh.ptt) {
      const hold = (on) => () => mesh.setTalking(on);
      parts.push(
        h(
          "button",
          {
            type: "button",
            class: "btn btn-small",
            id: "voice-talk",
            "aria-pressed": String(mesh.talking),
            onpointerdown: hold(true),
            onpointerup: hold(false),
            onpointerleave: hold(false),
            onkeydown: (e) => (e.key === " " || e.key === "Enter") && !e.repeat && mesh.setTalking(true),
            onkeyup: (e) => (e.key === " " || e.key === "Enter") && mesh.setTalking(false),
          },
          t("voice.hold"),
        ),
      );
    }
  }
  parts.push(h("p", { class: "voice-status", role: "status" }, text));
  const focused = document.activeElement && document.activeElement.id;
  patchChildren(row, ...parts);
  if (focused && focused.startsWith("voice-")) {
    const again = row.querySelector(`#${focused}`);
    if (again) again.focus();
  }
  drawVolumes(mesh, view);
  if (text !== last) {
    if (last && !quiet) announce(text);
    last = text;
  }
  if (mesh.joined && !ticking) ticking = setInterval(() => markSpeaking(mesh), 200);
  if (!mesh.joined && ticking) {
    clearInterval(ticking);
    ticking = null;
    markSpeaking(mesh);
  }
}

/** The fold of per-seat volumes (joined only): one row per other person at the table (bots
 * have no voice), a slider 0–100 and a mute button, both named after the seat. Rows are drawn
 * again only when the seats, their names or the language change. */
function drawVolumes(mesh, view) {
  if (fold.hidden !== !mesh.joined) fold.hidden = !mesh.joined;
  if (!mesh.joined) return;
  const me = view.you ? view.you.id : null;
  const seats = (view.players || [])
    .filter((p) => p.id !== me && !p.bot)
    .sort((a, b) => (a.seat || 0) - (b.seat || 0));
  const key = JSON.stringify([t("voice.volumes"), mesh.room, seats.map((p) => [p.id, p.name])]);
  if (key === foldKey) return;
  foldKey = key;
  const rows = seats.map((p) => {
    const name = p.name || p.id;
    const now = mesh.volumeOf(p.id);
    const slider = h("input", {
      type: "range",
      min: "0",
      max: "100",
      step: "5",
      value: String(now.volume),
      id: `voice-vol-${p.id}`,
      "aria-label": t("voice.volumeOf", { name }),
      "aria-valuetext": `${now.volume}%`,
      oninput: (e) => {
        const volume = Number(e.target.value);
        e.target.setAttribute("aria-valuetext", `${volume}%`);
        mesh.setSeatVolume(p.id, { volume });
      },
    });
    const mute = h(
      "button",
      {
        type: "button",
        class: "btn btn-small",
        id: `voice-mute-${p.id}`,
        "aria-pressed": String(now.muted),
        "aria-label": t("voice.muteSeat", { name }),
        onclick: (e) => {
          const muted = e.currentTarget.getAttribute("aria-pressed") !== "true";
          e.currentTarget.setAttribute("aria-pressed", String(muted));
          mesh.setSeatVolume(p.id, { muted });
          announce(t(muted ? "voice.seatMuted" : "voice.seatUnmuted", { name }));
        },
      },
      t("voice.seatMute"),
    );
    return h(
      "li",
      { class: "voice-seat", "data-pid": p.id },
      h("span", { class: "voice-seat-name user-text", "aria-hidden": "true" }, name),
      slider,
      mute,
    );
  });
  const open = fold.open;
  replaceChildren(fold, h("summary", null, t("voice.volumes")), h("ul", { class: "voice-seats" }, rows));
  fold.open = open;
}

/** The speaking mark on each tile (the screen's redraw drops it; this puts it back). */
function markSpeaking(mesh) {
  const now = mesh.joined ? mesh.speaking() : new Set();
  for (const tile of document.querySelectorAll(".tile[data-pid]")) {
    tile.classList.toggle("speaking", now.has(tile.dataset.pid));
  }
}
