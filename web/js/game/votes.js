// Vote bars from view.votes. The engine's tally shape is read leniently so that the
// nomination vote, the yes/no vote and later presets' votes all draw as bars.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { playerName } from "./format.js";
import { marksFor, noteChip } from "./notes.js";

const YES_NO = ["yes", "no"];

/** Today's results of one vote (`nomination` or `confirm`; default: the latest). */
function section(view, which) {
  const v = view.votes;
  if (!v || typeof v !== "object") return null;
  if (typeof v.day === "number" && typeof view.day === "number" && v.day !== view.day) return null;
  const rounds = Array.isArray(v.rounds) ? v.rounds : [];
  const lastRound = rounds.length ? rounds[rounds.length - 1] : null;
  // city / original keep their rounds; the first "nomination" of the day is the last round.
  if (which === "nomination") return v.nomination || lastRound;
  if (which) return v[which] || null;
  return v.allOrNone || v.confirm || v.nomination || lastRound;
}

/** [{key, label, count, voters: [names]}] sorted for drawing, or null when there is nothing. */
export function voteRows(view, which) {
  const s = section(view, which);
  if (!s) return null;
  const counts = new Map();
  const voters = new Map();
  if (typeof s.yes === "number" || typeof s.no === "number") {
    return YES_NO.map((k) => ({ key: k, count: s[k] || 0, label: t(`votes.${k}`), voters: [] }));
  }
  for (const [k, n] of Object.entries(s.tally || {})) counts.set(k, Number(n) || 0);
  for (const [voter, target] of Object.entries(s.ballots || {})) {
    const key = target === null ? "abstain" : String(target);
    if (!voters.has(key)) voters.set(key, []);
    voters.get(key).push(playerName(view, voter));
    if (!counts.has(key)) counts.set(key, 0);
  }
  if (!counts.size) return null;
  const rows = [...counts.entries()].map(([key, count]) => ({
    key,
    count: key === "abstain" && !count ? (voters.get(key) || []).length : count,
    label: key === "abstain" ? t("votes.abstain") : playerName(view, key),
    voters: voters.get(key) || [],
  }));
  rows.sort((a, b) => (a.key === "abstain") - (b.key === "abstain") || b.count - a.count);
  return rows;
}

/** Is this an earlier round's result while a later round is open (city's revote)? */
function pastRound(view, which) {
  const s = section(view, which);
  const ph = view.phase || {};
  return Boolean(s && typeof s.round === "number" && ph.kind === "vote" && typeof ph.round === "number" && ph.round > s.round);
}

export function voteBars(view, which) {
  const rows = voteRows(view, which);
  if (!rows) return null;
  const max = Math.max(1, ...rows.map((r) => r.count));
  // During the revote the first round's bars stay for reference, labelled as closed, so
  // they never read as the live tally.
  const past = pastRound(view, which);
  const marks = marksFor(view);
  return h(
    "section",
    { class: `votes${past ? " votes-past" : ""}`, "aria-labelledby": "votes-title", "data-round": past ? "past" : "current" },
    h("h3", { id: "votes-title" }, t(past ? "votes.roundOne" : "votes.title")),
    h(
      "ul",
      { class: "vote-bars" },
      rows.map((r) =>
        h(
          "li",
          { class: `vote-row vote-${r.key}`, "data-target": r.key },
          h("span", { class: "vote-label", title: r.label }, r.label, noteChip(view, r.key, marks)),
          h(
            "span",
            { class: "vote-track", "aria-hidden": "true" },
            h("span", { class: "vote-fill", style: `width:${Math.round((r.count / max) * 100)}%` }),
          ),
          h("span", { class: "vote-count" }, String(r.count)),
          r.voters.length ? h("span", { class: "vote-voters" }, t("votes.by", { names: r.voters.join(", ") })) : null,
        ),
      ),
    ),
  );
}

/** Votes per player id, for the small badges on the player tiles. */
export function votesFor(view) {
  if (pastRound(view, "nomination")) return {}; // no badges from a closed round on the tiles
  const rows = voteRows(view, "nomination") || [];
  const out = {};
  for (const r of rows) if (r.key !== "abstain") out[r.key] = r.count;
  return out;
}
