// The options editor, built from whatever options the view carries. Keys the engine's specs
// describe get proper controls (choices, ranges); unknown keys still get a control from
// their value's type.
import { h } from "../dom.js";
import { has, t } from "../i18n.js";
import SPECS from "./option-specs.js";

/** The engine's option specs of a preset (generated copy, see option-specs.js). */
export function presetSpecs(preset) {
  return SPECS[preset] || { options: [] };
}

function specFor(preset, key) {
  return presetSpecs(preset).options.find((o) => o.key === key) || null;
}

/** The preset's defaults: what the home screen offers before a room exists. */
export function defaultsFor(preset) {
  return Object.fromEntries(presetSpecs(preset).options.filter((o) => !HIDDEN.has(o.key)).map((o) => [o.key, o.default]));
}

const isSeconds = (key) => /Seconds$|^discussion(Min|Max|PerAlive)$/.test(key);

// Not shown: the preset is chosen on the home screen; noVoteDayOne is the
// docs/rulebooks/000-classic.txt §7 name of firstPhase, and sending both (stale) would contradict.
// The last out-of-range entry per control id, kept across redraws until a good value.
const rangeErrors = new Map();

export const HIDDEN = new Set(["preset", "noVoteDayOne"]);

/** The options to send with setOptions: everything shown, without aliases. */
export function sendable(options) {
  return Object.fromEntries(Object.entries(options || {}).filter(([k]) => !HIDDEN.has(k)));
}

const same = (a, b) => a === b || JSON.stringify(a) === JSON.stringify(b);

/**
 * The host's option changes sent but not answered yet. `setOptions` replaces the whole set
 * (docs/protocol.md), so each change carries every option: one sent before the view answering
 * the last one came would carry that option's old value and undo it. The values still on their
 * way are laid over the view's options (`over`) when the editor is drawn and when the next
 * change is sent. `settle(options, lastError, socket)`, with every view, drops a value once the
 * view shows it; when its request was refused (`lastError`: the error frame with its id, each
 * one looked at once); when the view shows a value it was not waiting through (another of the
 * host's devices changed it); or when it went out on a socket that is gone (the new socket's
 * full view says what the room has).
 */
export function pendingOptions() {
  const edits = new Map(); // key -> {value, id, socket, meanwhile: the values a view may show before it}
  let seenError = null;
  return {
    sent(change, id, shown, socket) {
      for (const [key, value] of Object.entries(change)) {
        const prev = edits.get(key);
        const meanwhile = prev ? [...prev.meanwhile, prev.value] : [shown[key]];
        edits.set(key, { value, id, socket, meanwhile });
      }
    },
    settle(options, lastError, socket) {
      const refused = lastError && lastError !== seenError ? lastError.id : null;
      seenError = lastError || null;
      for (const [key, e] of edits) {
        const now = options[key];
        const done = same(now, e.value) || !e.meanwhile.some((v) => same(v, now));
        if (done || e.id === refused || e.socket !== socket) edits.delete(key);
      }
    },
    over(options) {
      const out = { ...options };
      for (const [key, e] of edits) out[key] = e.value;
      return out;
    },
    clear() {
      edits.clear();
    },
  };
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
  if (typeof value === "number" && isSeconds(key)) {
    return t("common.seconds", { n: value });
  }
  return String(value);
}

/**
 * Render the editor. `onChange(key, value)` is called with the new value of one key;
 * when `editable` is false the options are shown as a read-only list.
 */
export function optionsEditor(options, { editable, onChange, idPrefix = "opt", preset = "classic" }) {
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
    keys.map((k) => control(k, options[k], onChange, `${idPrefix}-${k}`, specFor(preset, k) || {})),
  );
}

function control(key, value, onChange, id, spec) {
  const label = optionLabel(key);
  if (spec.type === "multi" || Array.isArray(value)) {
    const all = spec.choices || value;
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
  if (spec.type === "bool" || typeof value === "boolean" || value === "on" || value === "off") {
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
  if (spec.type === "choice" && spec.choices) {
    const choices = spec.choices.includes(value) || value === undefined ? spec.choices : [value, ...spec.choices];
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
      h("label", { for: id }, isSeconds(key) ? `${label} (${t("common.seconds", { n: "" }).trim()})` : label),
      h("input", {
        type: "number",
        id,
        "data-key": id,
        inputmode: "numeric",
        value: String(value),
        min: spec.min,
        max: spec.max,
        step: isSeconds(key) ? 5 : 1,
        "aria-describedby": rangeErrors.has(id) ? `${id}-error` : null,
        onchange: (e) => {
          const n = Number(e.target.value);
          const low = spec.min ?? -Infinity;
          const high = spec.max ?? Infinity;
          // Say which option and its range here, instead of a refusal from the server.
          if (e.target.value === "" || !Number.isInteger(n) || n < low || n > high) {
            rangeErrors.set(id, t("err.optionRange", { option: label, min: spec.min ?? "—", max: spec.max ?? "—" }));
            e.target.value = String(value);
            const el = e.target.parentElement.querySelector(".opt-error");
            if (el) el.textContent = rangeErrors.get(id);
            e.target.setAttribute("aria-describedby", `${id}-error`);
            return;
          }
          rangeErrors.delete(id);
          onChange(key, n);
        },
      }),
      h("p", { class: "opt-error form-error", id: `${id}-error`, role: "alert" }, rangeErrors.get(id) || ""),
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
