// The options editor, built from whatever options the view carries. Known keys (seed 000
// §2, §7) get proper controls; unknown keys still get a control from their value's type.
import { h } from "../dom.js";
import { has, t } from "../i18n.js";

const secs = (min, max, step = 5) => ({ min, max, step, unit: "s" });

export const OPTION_META = {
  mafiaCount: { choices: ["auto", 1, 2, 3, 4] },
  extraRoles: { multi: ["soldier", "politician", "medium", "lovers"] },
  firstPhase: { choices: ["day", "night"] },
  discussionPerAlive: { choices: [10, 15, 20], unit: "s" },
  discussionMin: secs(30, 300),
  discussionMax: secs(30, 300),
  voteSeconds: secs(10, 60),
  defenseSeconds: secs(10, 60),
  confirmSeconds: secs(5, 30),
  nightSeconds: secs(15, 90),
  deathReveal: { choices: ["none", "team", "role"] },
  mafiaMustKill: { choices: ["noKill", "random"] },
};

/** Seed 000 §2 defaults: what the home screen offers before a room exists. */
export const CLASSIC_DEFAULTS = {
  mafiaCount: "auto",
  extraRoles: [],
  firstPhase: "day",
  discussionPerAlive: 15,
  discussionMin: 60,
  discussionMax: 180,
  timeAdjust: true,
  voteSeconds: 20,
  defenseSeconds: 20,
  confirmSeconds: 10,
  nightSeconds: 30,
  deathReveal: "team",
  openVote: true,
  doctorSelfHeal: true,
  doctorRepeat: true,
  mafiaMustKill: "noKill",
  deadSeeAll: false,
  kidSafeChat: true,
  policeRevealRole: false,
};

// Not shown: the preset is chosen on the home screen; noVoteDayOne is the §7 name of
// firstPhase, and sending both (stale) would contradict.
export const HIDDEN = new Set(["preset", "noVoteDayOne"]);

/** The options to send with setOptions: everything shown, without aliases. */
export function sendable(options) {
  return Object.fromEntries(Object.entries(options || {}).filter(([k]) => !HIDDEN.has(k)));
}

export function optionLabel(key) {
  return has(`opt.${key}`) ? t(`opt.${key}`) : key;
}

function valueLabel(key, value) {
  if (typeof value === "boolean") return t(value ? "common.on" : "common.off");
  if (value === "on" || value === "off") return t(`common.${value}`);
  if (Array.isArray(value)) return value.length ? value.map((v) => valueLabel(key, v)).join(", ") : "—";
  if (value === null || value === undefined) return "—";
  if (typeof value === "object") return JSON.stringify(value);
  if (has(`opt.value.${value}`)) return t(`opt.value.${value}`);
  if (typeof value === "number" && OPTION_META[key] && OPTION_META[key].unit === "s") {
    return t("common.seconds", { n: value });
  }
  return String(value);
}

/**
 * Render the editor. `onChange(key, value)` is called with the new value of one key;
 * when `editable` is false the options are shown as a read-only list.
 */
export function optionsEditor(options, { editable, onChange, idPrefix = "opt" }) {
  const keys = Object.keys(options || {}).filter((k) => !HIDDEN.has(k));
  if (!editable) {
    return h(
      "dl",
      { class: "options-list" },
      keys.map((k) => [h("dt", null, optionLabel(k)), h("dd", null, valueLabel(k, options[k]))]),
    );
  }
  return h(
    "div",
    { class: "options-grid" },
    keys.map((k) => control(k, options[k], onChange, `${idPrefix}-${k}`)),
  );
}

function control(key, value, onChange, id) {
  const meta = OPTION_META[key] || {};
  const label = optionLabel(key);
  if (meta.multi || Array.isArray(value)) {
    const all = meta.multi || value;
    const chosen = new Set(value || []);
    return h(
      "fieldset",
      { class: "opt opt-multi" },
      h("legend", null, label),
      all.map((v) =>
        h(
          "label",
          { class: "check" },
          h("input", {
            type: "checkbox",
            "data-key": `${id}-${v}`,
            checked: chosen.has(v),
            onchange: (e) => {
              const next = all.filter((x) => (x === v ? e.target.checked : chosen.has(x)));
              onChange(key, next);
            },
          }),
          h("span", null, valueLabel(key, v)),
        ),
      ),
    );
  }
  if (typeof value === "boolean" || value === "on" || value === "off") {
    const asString = typeof value === "string";
    const on = value === true || value === "on";
    return h(
      "label",
      { class: "opt check" },
      h("input", {
        type: "checkbox",
        id,
        "data-key": id,
        checked: on,
        onchange: (e) => onChange(key, asString ? (e.target.checked ? "on" : "off") : e.target.checked),
      }),
      h("span", null, label),
    );
  }
  if (meta.choices) {
    const choices = meta.choices.includes(value) || value === undefined ? meta.choices : [value, ...meta.choices];
    return h(
      "div",
      { class: "opt" },
      h("label", { for: id }, label),
      h(
        "select",
        {
          id,
          "data-key": id,
          onchange: (e) => {
            const picked = choices[e.target.selectedIndex];
            onChange(key, picked);
          },
        },
        choices.map((c) => h("option", { value: String(c), selected: c === value }, valueLabel(key, c))),
      ),
    );
  }
  if (typeof value === "number") {
    return h(
      "div",
      { class: "opt" },
      h("label", { for: id }, meta.unit === "s" ? `${label} (${t("common.seconds", { n: "" }).trim()})` : label),
      h("input", {
        type: "number",
        id,
        "data-key": id,
        inputmode: "numeric",
        value: String(value),
        min: meta.min,
        max: meta.max,
        step: meta.step,
        onchange: (e) => {
          const n = Number(e.target.value);
          if (Number.isFinite(n)) onChange(key, n);
        },
      }),
    );
  }
  if (typeof value === "string") {
    return h(
      "div",
      { class: "opt" },
      h("label", { for: id }, label),
      h("input", { type: "text", id, "data-key": id, value, onchange: (e) => onChange(key, e.target.value) }),
    );
  }
  return h("div", { class: "opt" }, h("span", null, label), " ", h("span", null, valueLabel(key, value)));
}
