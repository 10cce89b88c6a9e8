// A modal sheet over the screen (report, leave, another device): focus moves in, Escape
// and a tap outside close it, focus returns to what opened it.
import { $, h } from "../dom.js";

let open = null;

export function closeSheet() {
  if (!open) return;
  const { el, back, onKey } = open;
  open = null;
  document.removeEventListener("keydown", onKey);
  el.remove();
  if (back && back.isConnected) back.focus();
}

/** Show a sheet titled `title` with `body` (nodes); returns the sheet's section element. */
export function showSheet(id, title, body) {
  closeSheet();
  const titleId = `${id}-title`;
  const section = h(
    "section",
    { class: "sheet", id, role: "dialog", "aria-modal": "true", "aria-labelledby": titleId },
    h("h2", { id: titleId }, title),
    body,
  );
  const el = h("div", { class: "overlay sheet-overlay", onclick: (e) => e.target === el && closeSheet() }, section);
  const onKey = (e) => {
    if (e.key === "Escape") closeSheet();
  };
  document.addEventListener("keydown", onKey);
  open = { el, back: document.activeElement, onKey };
  ($("#overlay-root") || document.body).append(el);
  const first = section.querySelector("input, button, textarea, select, [tabindex]");
  if (first) first.focus();
  return section;
}
