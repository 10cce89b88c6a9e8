// "While you were away" (docs/rules.md, "While you were away"): a seat back after missing at
// least one phase finds a short digest at the top of its action panel: the public events and
// its own results it missed, as its own view marks them (`you.away`, functions/service/features/away.py:
// the counts of view.events and private.results when its last socket went and when it came
// back). Dismissed once per seat and absence, in this browser (localStorage), so a reload
// does not bring it back.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { device, KEYS } from "../storage.js";
import { state } from "../store.js";
import { eventText, eventWhen, myResults, resultText, storyEvents } from "./format.js";

function span(pair) {
  return Array.isArray(pair) && pair.length === 2 && pair.every(Number.isInteger) ? pair : null;
}

function key(view) {
  const a = view.you.away;
  const room = (state.session && state.session.room) || "";
  return `${KEYS.away}${room}.${view.you.id}.${a.since}-${a.back}`;
}

/** What the seat missed: {events, results}, or null when its view marks no absence. */
export function missed(view) {
  const a = view && view.you && view.you.away;
  if (!a) return null;
  const ev = span(a.events);
  const rs = span(a.results);
  if (!ev || !rs) return null;
  return {
    events: storyEvents((view.events || []).slice(ev[0], ev[1])).map((e) => e.ev),
    results: myResults(view).slice(rs[0], rs[1]),
  };
}

/** The digest for this view, or null (no absence, dismissed here, or the game is over). */
export function awayDigest(view) {
  const m = missed(view);
  // nothing public happened and nothing found: no box (it took the top of the panel for nothing)
  if (!m || view.result || (!m.events.length && !m.results.length)) return null;
  const k = key(view);
  if (device.get(k)) return null;
  const el = h(
    "section",
    { class: "away-digest", id: "away-digest", "aria-labelledby": "away-title" },
    h("h3", { id: "away-title" }, t("away.title")),
    m.events.length
      ? h(
          "ol",
          { class: "away-events" },
          m.events.map((ev) => {
            const { text, detail } = eventText(view, ev);
            const when = eventWhen(ev);
            return h("li", { "data-kind": ev.kind }, [when ? `${when}: ` : "", text, detail ? ` (${detail})` : ""].join(""));
          }),
        )
      : null,
    m.results.length
      ? h(
          "div",
          { class: "away-results" },
          h("h4", null, t("away.yourResults")),
          h("ul", null, m.results.map((r) => h("li", { class: "away-result" }, resultText(view, r)))),
        )
      : null,
    h(
      "button",
      {
        type: "button",
        class: "btn btn-small",
        id: "away-dismiss",
        onclick: (e) => {
          device.set(k, "1");
          // the digest on the page (the panel keeps its nodes between views: maybe not `el`)
          e.currentTarget.closest(".away-digest").remove();
        },
      },
      t("away.dismiss"),
    ),
  );
  return el;
}
