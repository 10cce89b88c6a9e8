// The game screen: phase banner with countdown, player grid, chat, action panel.
// Desktop puts the three panels side by side; a phone stacks them. The pieces: the banner
// (below), the tile grid (game/tiles.js), the action panel (below, with game/host-tools.js),
// the chat (game/chat.js).
import { secondsLeft } from "../clock.js";
import { h, patchChildren } from "../dom.js";
import { t } from "../i18n.js";
import { afkWarning } from "../game/afk.js";
import { awayDigest } from "../game/away.js";
import { chatPanel } from "../game/chat.js";
import { isNight, phaseTitle } from "../game/format.js";
import { hostTools } from "../game/host-tools.js";
import { inRoomBar } from "../game/inroom.js";
import { phaseRenderer } from "../game/phases.js";
import { resultsBox } from "../game/results.js";
import { seatTools } from "../game/seat-tools.js";
import { openSeatsBox, seatRequestsBox } from "../game/substitute.js";
import { tileGrid } from "../game/tiles.js";
import { takeHostButton } from "./lobby.js";

export function mount(root, ctx) {
  const banner = phaseBanner();
  const grid = tileGrid(ctx);
  const actions = actionPanel(ctx);
  const chat = chatPanel(ctx);

  root.append(
    h(
      "div",
      { class: "game" },
      banner.el,
      h(
        "div",
        { class: "game-cols" },
        h(
          "section",
          { class: "panel players-panel", "aria-labelledby": "players-title" },
          h("h2", { class: "panel-title", id: "players-title" }, t("players.title")),
          grid.el,
        ),
        // DOM order = phone order (players, what to do, chat) so focus follows the screen;
        // the desktop grid puts the chat in the middle column.
        h(
          "section",
          { class: "panel actions-panel", "aria-labelledby": "actions-title" },
          h("h2", { class: "sr-only", id: "actions-title" }, t("actions.title")),
          actions.el,
        ),
        chat.el,
      ),
    ),
  );

  const cols = root.querySelector(".game-cols");
  const playersEl = cols.querySelector(".players-panel");
  const actionsEl = cols.querySelector(".actions-panel");
  // with a screen in the room, a phone may fold the table away (game/inroom.js)
  const inRoom = inRoomBar(root.querySelector(".game"), playersEl, chat.el);
  cols.before(inRoom.el);
  let shownPhase = null;
  function update(view) {
    // At the role reveal "Tap to see your role" comes first in the tab order, before the tiles'
    // note buttons: the panel goes first in the DOM then (the grid areas keep where it shows)
    const revealFirst = view.phase.kind === "roleReveal";
    if (revealFirst !== (actionsEl.nextElementSibling === playersEl)) {
      cols.insertBefore(revealFirst ? actionsEl : playersEl, revealFirst ? playersEl : actionsEl);
    }
    const renderer = phaseRenderer(view.phase.kind);
    banner.update(view, renderer);
    grid.update(view, renderer);
    actions.update(view, renderer);
    chat.update(view);
    inRoom.update(view);
    const phaseKey = `${view.phase.kind}:${view.phase.seq}`;
    if (phaseKey !== shownPhase) {
      shownPhase = phaseKey;
      bringChoiceIntoView(banner.el, grid.el, actions.el);
    }
  }

  return { update, tick: banner.tick, destroy() {} };
}

// The sticky banner: the day, the phase and what it asks, the countdown, and the slot the
// announcement cards go into (game/overlays.js).
function phaseBanner() {
  const dayLabel = h("p", { class: "day-label", id: "day-label" });
  const title = h("h1", { class: "phase-title", id: "phase-title" });
  const sub = h("p", { class: "phase-sub", id: "phase-sub" });
  const countdown = h("p", { class: "countdown", id: "countdown", role: "timer", "aria-label": t("banner.timeLeft") });
  const el = h(
    "section",
    { class: "phase-banner", id: "phase-banner", "aria-labelledby": "phase-title" },
    h("div", { class: "phase-words" }, dayLabel, title, sub),
    countdown,
    // Announcements go here, under the title and the clock, inside the sticky banner: a
    // player scrolled down to the chat still sees them, and nothing of the game is covered.
    h("div", { class: "event-slot", id: "event-slot" }),
  );
  let view = null;

  // The countdown, redrawn on every tick (tick.js) as well as with each view.
  function tick() {
    if (!view) return;
    const left = secondsLeft(view.phase.endsAt);
    if (left === null) {
      setText(countdown, "");
      if (!countdown.hidden) countdown.hidden = true;
      return;
    }
    if (countdown.hidden) countdown.hidden = false;
    const s = Math.ceil(left);
    setText(countdown, `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`);
    countdown.classList.toggle("urgent", s <= 5);
  }

  // Only what differs is written, as in the panels below: the same view again writes nothing.
  function update(next, renderer) {
    view = next;
    const kind = view.phase.kind;
    const night = isNight(kind);
    setData(el, "tone", night ? "night" : "day");
    setData(el, "kind", kind);
    setText(dayLabel, view.day ? t(night ? "banner.night" : "banner.day", { n: view.day }) : "");
    setText(title, phaseTitle(kind));
    setText(sub, view.paused ? t("banner.paused") : (renderer.sub && renderer.sub(view)) || "");
    if (sub.hidden !== !sub.textContent) sub.hidden = !sub.textContent;
    el.classList.toggle("paused", Boolean(view.paused));
    tick();
  }

  return { el, update, tick };
}

function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function setData(el, key, value) {
  if (el.dataset[key] !== value) el.dataset[key] = value;
}

// What this player can do now (after what it missed while away, game/away.js): the phase's own
// panel (game/phases.js), their findings, the host's tools, "take over as host", and the seat's
// own tools. Drawn again with every view into the same nodes (dom.js patchChildren): the
// focused button, an open menu and the scroll stay put, and only what changed is written.
function actionPanel(ctx) {
  const el = h("div", { class: "actions-body", id: "actions" });
  const host = hostTools(ctx);
  function update(view, renderer) {
    patchChildren(el, afkWarning(view), awayDigest(view), seatRequestsBox(view, ctx), openSeatsBox(view, ctx), ...renderer.panel(view, ctx).filter(Boolean), resultsBox(view), host(view), takeHostButton(ctx, view), seatTools(view, ctx));
  }
  return { el, update };
}

// A phase that asks this player for a choice brings it into view: on a small phone the
// player may be scrolled down at the chat when the vote starts, and the sticky banner
// would cover the hint. The tiles to tap, else the yes/no buttons, under the banner.
function bringChoiceIntoView(banner, grid, actions) {
  const target = grid.querySelector(".tile.selectable") ? grid : actions.querySelector("#yes-btn, #end-turn-btn, #no-nomination-btn");
  if (!target) return;
  const top = banner.getBoundingClientRect().bottom;
  const box = target.getBoundingClientRect();
  if (box.top >= top && box.bottom <= window.innerHeight) return; // already in view
  const panel = target === grid ? grid.closest(".players-panel") : target;
  window.scrollBy({ top: panel.getBoundingClientRect().top - top - 8, behavior: "instant" });
}
