// A modal sheet over the screen (report, leave, another device): focus moves in, Escape
// and a tap outside close it, focus returns to what opened it.
import { $, h } from "../dom.js";

let open = null;

export function closeSheet() {
  if (!open) return;
  const { el, back, backKey, onKey } = open;
  open = null;
  document.removeEventListener("keydown", onKey);
  el.remove();
  // A view that came while the sheet was open may have redrawn the opener: its new copy
  // has the same data-key (dom.js, replaceChildren).
  const again = back && !back.isConnected && backKey ? document.querySelector(`[data-key="${CSS.escape(backKey)}"]`) : back;
  if (again && again.isConnected) again.focus();
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
  const back = document.activeElement;
  open = { el, back, backKey: back && back.dataset ? back.dataset.key : null, onKey };
  ($("#overlay-root") || document.body).append(el);
  const first = section.querySelector("input, button, textarea, select, [tabindex]");
  if (first) first.focus();
  return section;
}
