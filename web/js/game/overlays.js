// Things drawn over the screen: the role card dialog and the announcement cards.
import { $, h } from "../dom.js";
import { roleName, t, teamName } from "../i18n.js";
import { eventText, eventWhen, isCardEvent, isDeathEvent, playerName, resultText } from "./format.js";
import { goalKey } from "./sides.js";

let roleDialog = null;
let returnFocus = null;

/** The body of a role card; built only when the player chose to look. */
export function roleCardBody(view) {
  const you = view.you;
  if (!you) return [h("p", { class: "role-name" }, t("role.spectator"))];
  const allies = (you.allies || []).filter((a) => a.id !== you.id);
  const results = (view.private && view.private.results) || [];
  const goal = goalKey(you.role, you.team, view.preset); // the side's goal, in the rulebook's words
  return [
    h("p", { class: "role-name", "data-role": you.role }, roleName(you.role, view.preset)),
    you.team ? h("p", { class: "role-team" }, teamName(you.team)) : null,
    h("p", { class: "role-desc" }, t(`roledesc.${you.role}`)),
    goal ? h("p", { class: "role-goal", id: "role-goal" }, h("strong", null, t("goal.title")), " ", t(goal)) : null,
    you.alive === false ? h("p", { class: "role-dead" }, t("role.dead")) : null,
    allies.length
      ? h(
          "div",
          { class: "role-allies" },
          h("h3", null, t("role.allies")),
          h(
            "ul",
            null,
            allies.map((a) =>
              h("li", null, `${playerName(view, a.id)} — ${roleName(a.role, view.preset)}`),
            ),
          ),
        )
      : null,
    results.length
      ? h(
          "div",
          { class: "role-results" },
          h("h3", null, t("role.results")),
          h("ul", null, results.map((r) => h("li", null, resultText(view, r)))),
        )
      : null,
  ];
}

/** The "my role" dialog; `intro` a line above the role (a substitute's "You now play seat N"). */
export function showRoleCard(view, intro = null) {
  closeRoleCard();
  returnFocus = document.activeElement;
  const titleId = "role-dialog-title";
  const close = h("button", { type: "button", class: "btn", onclick: closeRoleCard }, t("role.card.hide"));
  roleDialog = h(
    "div",
    { class: "overlay", onclick: (e) => e.target === roleDialog && closeRoleCard() },
    h(
      "section",
      { class: "role-card revealed", role: "dialog", "aria-modal": "true", "aria-labelledby": titleId },
      h("h2", { id: titleId, class: "role-card-title" }, t("role.card.title")),
      intro ? h("p", { class: "role-intro", id: "role-intro" }, intro) : null,
      roleCardBody(view),
      close,
    ),
  );
  roleDialog.addEventListener("keydown", (e) => {
    if (e.key === "Escape") closeRoleCard();
    if (e.key === "Tab") e.preventDefault(); // one button: keep focus inside the dialog
  });
  $("#overlay-root").appendChild(roleDialog);
  close.focus();
}

export function closeRoleCard() {
  if (!roleDialog) return;
  roleDialog.remove();
  roleDialog = null;
  if (returnFocus && document.contains(returnFocus)) returnFocus.focus();
  returnFocus = null;
}

// Announcement cards: one at a time, each for a few seconds, never blocking the game.
const queue = [];
let cardEl = null;
let cardTimer = null;
let lastView = null;
let current = null;

export function showEventCards(events, view) {
  lastView = view;
  // The end screen tells the whole story itself.
  if (view.result) return;
  for (const ev of events) if (isCardEvent(ev)) queue.push(ev);
  if (!cardEl) nextCard();
}

function nextCard() {
  clearTimeout(cardTimer);
  if (cardEl) cardEl.remove();
  cardEl = null;
  current = queue.shift() || null;
  if (!current) return;
  drawCard();
  cardTimer = setTimeout(nextCard, 3500);
}

function drawCard() {
  const ev = current;
  if (cardEl) cardEl.remove();
  const { text, detail } = eventText(lastView, ev);
  const death = isDeathEvent(ev);
  cardEl = h(
    "div", // not <aside>: an aside may not take role=status (ARIA in HTML)
    { class: `event-card${death ? " death" : ""}${$("#event-slot") ? " inline" : ""}`, role: "status", "aria-live": "assertive", "data-kind": ev.kind },
    h("p", { class: "event-card-title" }, eventWhen(ev) || t("event.title")),
    h("p", { class: "event-card-text" }, text),
    detail ? h("p", { class: "event-card-detail" }, detail) : null,
    h("button", { type: "button", class: "btn btn-small", onclick: nextCard }, t("common.close")),
  );
  // Inline under the phase banner when the game screen is up: it pushes nothing off the
  // screen's top and covers neither the countdown nor the chat tabs.
  ($("#event-slot") || $("#overlay-root")).appendChild(cardEl);
}

/** Drop overlays (leaving a room); after a language switch, redraw the open role card. */
export function closeOverlays(opts = {}) {
  const hadRole = Boolean(roleDialog);
  closeRoleCard();
  if (!opts.keepRole) {
    queue.length = 0;
    clearTimeout(cardTimer);
    if (cardEl) cardEl.remove();
    cardEl = null;
  } else {
    if (hadRole && opts.view) showRoleCard(opts.view);
    if (cardEl && current) drawCard();
  }
}
