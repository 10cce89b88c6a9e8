// Setting the table: the players' names in seat order and the rules (only untimed ones).
import { h } from "../dom.js";
import { errorText, t } from "../i18n.js";

function restError(err) {
  if (err.code === "network") return t("err.network");
  return errorText(err.code, err.message);
}

/** The form; `ctl.draft` keeps what was typed across redraws. */
export function setupScreen(ctl, { presets, create, notice }) {
  const names = Object.keys(presets);
  if (!ctl.draft) ctl.draft = { preset: names[0], names: ["", "", "", "", ""], busy: false };
  const d = ctl.draft;
  const range = () => presets[d.preset];
  const error = h("p", { class: "form-error", role: "alert", id: "device-error" }, notice ? t(notice) : "");
  ctl.notice = null;
  const redraw = () => ctl.root.replaceChildren(ctl.root.firstChild, setupScreen(ctl, { presets, create }));

  const list = h(
    "ol",
    { class: "device-names" },
    d.names.map((name, i) =>
      h(
        "li",
        { class: "row" },
        h("input", {
          id: `device-name-${i}`, class: "device-name", maxlength: 20, autocomplete: "off", value: name,
          "aria-label": t("device.playerName", { n: i + 1 }), placeholder: t("device.playerName", { n: i + 1 }),
          oninput: (e) => (d.names[i] = e.target.value),
        }),
        h(
          "button",
          {
            type: "button", class: "btn btn-small btn-quiet", "aria-label": t("device.remove", { n: i + 1 }),
            disabled: d.names.length <= range().min,
            onclick: () => {
              d.names.splice(i, 1);
              redraw();
            },
          },
          "✕",
        ),
      ),
    ),
  );

  return h(
    "form",
    {
      class: "device-screen card", id: "device-setup",
      onsubmit: async (e) => {
        e.preventDefault();
        if (d.busy) return;
        const clean = d.names.map((n) => n.trim());
        const { min, max } = range();
        if (clean.length < min || clean.length > max) return void (error.textContent = t("device.err.count", { min, max }));
        const lower = new Set(clean.map((n) => n.toLowerCase()));
        if (clean.some((n) => !n) || lower.size !== clean.length) return void (error.textContent = t("device.err.names"));
        d.busy = true;
        error.textContent = t("device.starting");
        try {
          await create(clean, d.preset);
          ctl.draft = null;
        } catch (err) {
          error.textContent = restError(err);
        } finally {
          d.busy = false;
        }
      },
    },
    h("h1", null, t("device.title")),
    h("p", null, t("device.intro")),
    h("div", { class: "field" },
      h("label", { for: "device-preset" }, t("device.preset")),
      h(
        "select",
        {
          id: "device-preset",
          onchange: (e) => {
            d.preset = e.target.value;
            while (d.names.length < range().min) d.names.push("");
            redraw();
          },
        },
        names.map((p) => h("option", { value: p, selected: p === d.preset }, t(`preset.${p}`))),
      ),
    ),
    h("p", { class: "hint", id: "device-presets-hint" }, t("device.presetsOnly", { presets: names.map((p) => t(`preset.${p}`)).join(", ") })),
    h("h2", null, t("device.players", { n: d.names.length })),
    list,
    h(
      "button",
      {
        type: "button", class: "btn", id: "device-add", disabled: d.names.length >= range().max,
        onclick: () => {
          d.names.push("");
          redraw();
          const inputs = ctl.root.querySelectorAll(".device-name");
          inputs[inputs.length - 1].focus();
        },
      },
      t("device.add"),
    ),
    error,
    h("button", { type: "submit", class: "btn btn-primary device-big", id: "device-start" }, t("device.start")),
  );
}
