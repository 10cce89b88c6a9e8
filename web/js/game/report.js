// Report a player or one of their chat lines (docs/rulebooks/000-classic.txt §9). The server keeps
// the report for the operators (7 days) and answers only this player; nobody else is told.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { playerName } from "./format.js";
import { chatLine } from "./bot-lines.js";
import { closeSheet, showSheet } from "./sheet.js";

export const REASONS = ["abuse", "cheating", "spam", "other"];

/** The report dialog for player `pid` (and chat line `line`, a message, when given). */
export function openReport(ctx, view, pid, line) {
  const name = playerName(view, pid);
  let reason = null;
  const err = h("p", { class: "form-error", role: "alert", id: "report-error" });
  const choices = h(
    "fieldset",
    { class: "report-reasons" },
    h("legend", null, t("report.reason")),
    REASONS.map((r) =>
      h(
        "label",
        { class: "radio" },
        h("input", {
          type: "radio",
          name: "report-reason",
          value: r,
          id: `report-reason-${r}`,
          onchange: () => {
            reason = r;
            err.textContent = "";
          },
        }),
        " ",
        t(`report.reason.${r}`),
      ),
    ),
  );
  const form = h(
    "form",
    {
      class: "report-form",
      onsubmit: (e) => {
        e.preventDefault();
        if (!reason) return void (err.textContent = t("report.pickReason"));
        const payload = { target: pid, reason };
        if (line) payload.lines = [line.id];
        if (ctx.send("report", payload)) closeSheet();
      },
    },
    line
      ? h(
          "blockquote",
          { class: "report-line", id: "report-line" },
          h("span", { class: "msg-from" }, name),
          " ",
          h("span", { class: "user-text" }, chatLine(view, line)),
        )
      : null,
    choices,
    h("p", { class: "hint" }, t("report.note", { name })),
    err,
    h(
      "div",
      { class: "row" },
      h("button", { type: "submit", class: "btn btn-primary", id: "report-send" }, t("report.send")),
      h("button", { type: "button", class: "btn", id: "report-cancel", onclick: closeSheet }, t("report.cancel")),
    ),
  );
  showSheet("report-dialog", t(line ? "report.titleLine" : "report.title", { name }), form);
}

/** The small "report" button on a chat line of another player (null for own or system lines). */
export function lineReportButton(ctx, view, m) {
  if (!view.you || !m.from || m.from === view.you.id || m.ev) return null;
  return h(
    "button",
    {
      type: "button",
      class: "msg-report",
      "data-report-line": m.id,
      "data-report-from": m.from,
      "aria-label": t("report.lineLabel", { name: playerName(view, m.from) }),
      title: t("report.lineLabel", { name: playerName(view, m.from) }),
      onclick: () => openReport(ctx, view, m.from, m),
    },
    "⚑",
  );
}

/** The server's confirmation frame `{"type": "reported", ...}`. */
export function reportConfirmed(ctx) {
  ctx.toast(t("report.sent"));
}
