// Idle seats (docs/rules.md, "Idle seats"; functions/service/room/afk.py): a seat one missed
// required action short of the room's limit finds a warning at the top of its action panel.
// Only its own view carries `you.afk = {misses, limit}`; nobody else learns of it.
import { h } from "../dom.js";
import { t } from "../i18n.js";

/** The warning for a seat about to be handed on, or null. */
export function afkWarning(view) {
  const a = view && view.you && view.you.afk;
  if (!a || !Number.isInteger(a.misses) || !Number.isInteger(a.limit)) return null;
  return h("p", { class: "notice afk-warning", id: "afk-warning", role: "status" }, t("afk.warning", { misses: a.misses }));
}
