// The "Rules" sheet: the roles of this game (how many, each power in one line) and the order
// of the phases, for the room's rulebook, in the player's language.
import { $, h } from "../dom.js";
import { roleName, t } from "../i18n.js";
import { phaseTitle } from "./format.js";
import { endRules, sideGoals } from "./sides.js";

let dialog = null;
let returnFocus = null;

/** The sheet's content. The roles come from `view.roster`, which the server computes from
 * the options and the seat count (in a lobby: for at least the rulebook's smallest game). */
export function rulesBody(view) {
  const preset = view.preset;
  const counts = view.roster || null;
  // the rulebook's display order and each role's power: the server's catalogue (view.rules)
  const declared = (view.rules && view.rules.roles) || [];
  const rank = (id) => declared.findIndex((r) => r.id === id);
  const power = (id) => (declared.find((r) => r.id === id) || {}).power || `roledesc.${id}`;
  const roles = counts ? Object.entries(counts).sort(([a], [b]) => rank(a) - rank(b)) : [];
  const n = counts ? roles.reduce((sum, [, k]) => sum + k, 0) : (view.players || []).length;
  const order = (view.rules && view.rules.order) || [];
  return [
    h("p", { class: "rules-preset" }, t(`preset.${preset}`)),
    h("h3", null, t("rules.roles", { n })),
    roles.length
      ? h(
          "ul",
          { class: "rules-roles", id: "rules-roles" },
          roles.map(([role, k]) =>
            h(
              "li",
              { "data-role": role, "data-count": k },
              h("strong", null, t("rules.count", { n: k, role: roleName(role, preset) })),
              " — ",
              t(power(role)),
            ),
          ),
        )
      : h("p", { class: "hint" }, t("rules.noDeal")),
    h("h3", null, t("rules.order")),
    h(
      "ol",
      { class: "rules-order", id: "rules-order" },
      order.map((step) =>
        h("li", { "data-kind": step.kind }, phaseTitle(step.kind), step.note ? h("span", { class: "hint" }, ` (${t(step.note)})`) : null),
      ),
    ),
    h("p", { class: "hint" }, t("rules.loop")),
    // how each side dealt in this game wins, and how a game ends without a winner
    h("h3", { id: "rules-sides-title" }, t("rules.sides")),
    h(
      "ul",
      { class: "rules-sides", id: "rules-sides", "aria-labelledby": "rules-sides-title" },
      sideGoals(preset, roles.length ? roles.map(([id]) => declared.find((r) => r.id === id) || { id, team: "" }) : declared).map((g) =>
        h("li", { "data-goal": g.key }, t(g.key)),
      ),
      endRules(preset).map((key) => h("li", { "data-goal": key, class: "hint" }, t(key))),
    ),
  ];
}

export function showRules(view) {
  closeRules();
  returnFocus = document.activeElement;
  const close = h("button", { type: "button", class: "btn", id: "rules-close", onclick: closeRules }, t("common.close"));
  dialog = h(
    "div",
    { class: "overlay", onclick: (e) => e.target === dialog && closeRules() },
    h(
      "section",
      { class: "role-card revealed rules-sheet", role: "dialog", "aria-modal": "true", "aria-labelledby": "rules-title" },
      h("h2", { id: "rules-title", class: "role-card-title" }, t("rules.title")),
      h("div", { id: "rules-body" }, rulesBody(view)),
      close,
    ),
  );
  dialog.addEventListener("keydown", (e) => {
    if (e.key === "Escape") closeRules();
  });
  $("#overlay-root").appendChild(dialog);
  close.focus();
}

/** Redraw an open sheet's content from a newer view (focus stays on the close button). */
export function updateRules(view) {
  const body = dialog && dialog.querySelector("#rules-body");
  if (body) body.replaceChildren(...rulesBody(view));
}

export function closeRules() {
  if (!dialog) return;
  dialog.remove();
  dialog = null;
  if (returnFocus && document.contains(returnFocus)) returnFocus.focus();
  returnFocus = null;
}

export function rulesOpen() {
  return Boolean(dialog);
}
