// What this player alone found out at night (police / commissar checks, the medium's
// reading, the lawyer's peek, ...): a box in the action panel, private lines in the
// moderator's log and a mark on the checked player's tile. All of it comes from the
// player's own view (private.results), so nobody else ever sees it.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { myResults, resultIsBad, resultText, storyEvents } from "./format.js";

/** The findings box: newest first, the newest one stressed while it is news. */
export function resultsBox(view) {
  const rs = myResults(view);
  if (!rs.length) return null;
  const newest = rs[rs.length - 1];
  const fresh = typeof newest.day === "number" && typeof view.day === "number" && newest.day >= view.day - 1;
  return h(
    "section",
    { class: "my-results", id: "my-results", "aria-labelledby": "my-results-title" },
    h("h3", { id: "my-results-title" }, t("role.results")),
    h(
      "ul",
      null,
      [...rs].reverse().map((r, i) =>
        h(
          "li",
          { class: `my-result${i === 0 && fresh ? " fresh" : ""}${resultIsBad(r, view) ? " bad" : ""}`, "data-target": r.target ?? "" },
          resultText(view, r),
        ),
      ),
    ),
  );
}

/**
 * The moderator's log with this player's findings woven in: each finding goes right after
 * the morning that followed its night (or at the end while that morning is not logged).
 * Ids stay stable and growing so the log can append.
 */
export function logWithResults(view, events) {
  const rs = myResults(view);
  const out = [];
  const placed = new Set();
  storyEvents(events).forEach(({ ev, index: i }) => {
    out.push({ id: i * 100, ev });
    if (ev && ev.kind === "morning") {
      rs.forEach((r, j) => {
        if (!placed.has(j) && typeof r.day === "number" && ev.day === r.day + 1) {
          placed.add(j);
          out.push({ id: i * 100 + 1 + j, result: r });
        }
      });
    }
  });
  rs.forEach((r, j) => {
    if (!placed.has(j)) out.push({ id: events.length * 100 + j, result: r });
  });
  return out;
}
