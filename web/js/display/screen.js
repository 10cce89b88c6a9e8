// The room's screen, drawn from one view: the display's view, which is the spectator's
// (service/room/displays.py). Seats in a grid with large names, alive or out, who is speaking now
// (the original's turns, the accused in a defense), a large phase clock, the night as a calm
// "eyes closed" screen that shows nothing but the clock, public vote tallies, the night's
// news at dawn, the end with every role and the fair-deal check. Nothing here reads anything
// but `view`: what a spectator may read is all the screen can show.
import { h, replaceChildren } from "../dom.js";
import { secondsLeft } from "../clock.js";
import { roleName, t } from "../i18n.js";
import { check as checkDeal } from "../game/fairness.js";
import { eventText, isNight, isNightDeath, phaseTitle, playerName, revealedBadge } from "../game/format.js";
import { causeText } from "../game/sides.js";
import { voteRows } from "../game/votes.js";

// Events of the night that the dawn tells (besides deaths by a night cause).
const NIGHT_NEWS = new Set(["saved", "soldierSurvived", "quietNight", "politicianImmune"]);

/** The players whose turn it is now: the speaker of a speech, the accused of a defense (and
 * of classic's confirm vote, who stands on trial while the table answers). */
export function onStage(view) {
  const ph = view.phase || {};
  const trial = ph.kind === "defense" || ph.kind === "confirm";
  return { speaker: ph.speaker || null, accused: trial ? ph.accused || null : null };
}

/** Who is accused now and by whom, from the phase's public facts (#48): `nominations` of an
 * original speech turn ({by, target}: who nominated whom), the `suspects` of a defense (original's
 * day, each with its nominator, which the defense carries on; city's tie), the `candidates` of a vote's later round, the all-or-none question's
 * suspects. `kind`: "nominations" | "suspects" | "candidates" | "tie"; `rows`: [{id, by}]. */
export function accusation(view) {
  const ph = view.phase || {};
  const ids = (xs) => (Array.isArray(xs) ? xs.filter((x) => typeof x === "string") : []);
  // who nominated each suspect (original: the speech turns', carried into the defenses)
  const byOf = new Map(
    (Array.isArray(ph.nominations) ? ph.nominations : [])
      .filter((n) => n && typeof n.target === "string")
      .map((n) => [n.target, typeof n.by === "string" ? n.by : null]),
  );
  if (ph.kind === "defense" && ids(ph.suspects).length) {
    // city's defense comes only from a tied vote: the screen says so (docs/rules.md, city)
    return { kind: view.preset === "city" ? "tie" : "suspects", rows: ids(ph.suspects).map((id) => ({ id, by: byOf.get(id) || null })) };
  }
  if (Array.isArray(ph.nominations) && ph.nominations.length) {
    const rows = ph.nominations
      .map((n) => (typeof n === "string" ? { id: n, by: null } : { id: n && n.target, by: (n && n.by) || null }))
      .filter((r) => typeof r.id === "string");
    if (rows.length) return { kind: "nominations", rows };
  }
  if ((ph.kind === "allOrNone" || ph.kind === "lastWord") && ids(ph.suspects).length > 1) {
    return { kind: "suspects", rows: ids(ph.suspects).map((id) => ({ id, by: null })) };
  }
  if (ph.kind === "vote" && ids(ph.candidates).length) {
    return { kind: "candidates", rows: ids(ph.candidates).map((id) => ({ id, by: null })) };
  }
  return null;
}

/** The night's public news, told at dawn: the night's events between the day before's
 * "morning" and this day's. (Night events carry the night's number, which is the day's in
 * original and city but the day before's in classic: the mornings mark the night instead.) */
export function dawnNews(view) {
  if (isNight(view.phase && view.phase.kind) || view.phase.kind === "ended") return [];
  const events = view.events || [];
  const morning = (ev) => ev && ev.kind === "morning";
  const now = events.findLastIndex((ev) => morning(ev) && ev.day === view.day);
  if (now < 0) return [];
  const before = events.slice(0, now).findLastIndex(morning);
  return events
    .slice(before + 1, now)
    .filter((ev) => ev && (NIGHT_NEWS.has(ev.kind) || (ev.kind === "death" && isNightDeath(ev.by))));
}

/** "mm:ss" of the phase clock, or null when the phase has no clock. */
export function clockText(view) {
  const left = secondsLeft(view.phase && view.phase.endsAt);
  if (left === null) return null;
  const s = Math.ceil(left);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function seatList(view, stage) {
  const players = [...(view.players || [])].sort((a, b) => (a.seat || 0) - (b.seat || 0));
  const ended = view.phase.kind === "ended";
  const acc = ended ? null : accusation(view);
  const accused = new Set(acc ? acc.rows.map((r) => r.id) : []); // the day's suspects, marked on their tiles
  return h(
    "ol",
    { class: "d-seats", id: "d-seats", "aria-label": t("display.players"), "data-count": players.length },
    players.map((p) => {
      const out = p.alive === false;
      const now = p.id === stage.speaker || p.id === stage.accused;
      const role = ended && p.role ? roleName(p.role, view.preset) : revealedBadge(view, p.revealed);
      // at the end the living have survived the game, not stayed "in" it (#48)
      const state = out ? t("display.out") : t(ended ? "display.survived" : "display.alive");
      return h(
        "li",
        {
          class: ["d-seat", out ? "out" : "", now ? "now" : "", p.id === stage.accused ? "accused" : "", accused.has(p.id) ? "suspect" : ""].join(" ").trim(),
          "data-pid": p.id,
          "aria-current": now ? "true" : null,
        },
        h("span", { class: "d-num", "aria-hidden": "true" }, String(p.seat || "")),
        h("span", { class: "d-name" }, p.name || p.id),
        h("span", { class: "d-state" }, state),
        role ? h("span", { class: "d-role" }, role) : null,
      );
    }),
  );
}

function stagePanel(view, stage) {
  if (stage.accused && view.phase.kind === "confirm") {
    // classic's confirm vote: who is on trial and the question the phones answer (#48)
    return h(
      "section",
      { class: "d-stage accused", id: "d-stage" },
      h("h2", null, t("display.onTrial")),
      h("p", { class: "d-big" }, playerName(view, stage.accused)),
      h("p", { class: "d-question", id: "d-question" }, t("display.confirmQuestion", { name: playerName(view, stage.accused) })),
    );
  }
  if (stage.accused) {
    return h("section", { class: "d-stage accused", id: "d-stage" }, h("h2", null, t("display.onTrial")), h("p", { class: "d-big" }, playerName(view, stage.accused)));
  }
  if (stage.speaker) {
    return h("section", { class: "d-stage", id: "d-stage" }, h("h2", null, t("display.speaking")), h("p", { class: "d-big" }, playerName(view, stage.speaker)));
  }
  return null;
}

function accusedPanel(view, stage) {
  const acc = accusation(view);
  if (!acc) return null;
  return h(
    "section",
    { class: `d-accused d-${acc.kind}`, id: "d-accused", "data-kind": acc.kind, "aria-labelledby": "d-accused-title" },
    h("h2", { id: "d-accused-title" }, t(`display.accused.${acc.kind}`)),
    h(
      "ul",
      null,
      acc.rows.map((r) =>
        h(
          "li",
          { "data-pid": r.id, class: r.id === stage.accused ? "now" : null },
          h("span", { class: "d-accused-name" }, playerName(view, r.id)),
          r.by ? h("span", { class: "d-by" }, ` ${t("display.nominatedBy", { name: playerName(view, r.by) })}`) : null,
        ),
      ),
    ),
  );
}

function votesPanel(view) {
  const rows = voteRows(view);
  if (!rows) return null;
  const max = Math.max(1, ...rows.map((r) => r.count));
  return h(
    "section",
    { class: "d-votes", id: "d-votes", "aria-labelledby": "d-votes-title" },
    h("h2", { id: "d-votes-title" }, t("display.votes")),
    h(
      "ul",
      null,
      rows.map((r) =>
        h(
          "li",
          { class: "d-vote", "data-key": r.key },
          h("span", { class: "d-vote-label" }, r.label),
          h("span", { class: "d-bar", style: `--share:${r.count / max}`, "aria-hidden": "true" }),
          h("span", { class: "d-vote-count" }, String(r.count)),
        ),
      ),
    ),
  );
}

function newsPanel(view) {
  const news = dawnNews(view);
  if (!news.length) return null;
  return h(
    "section",
    { class: "d-news", id: "d-news", "aria-labelledby": "d-news-title" },
    h("h2", { id: "d-news-title" }, t("display.news")),
    h(
      "ul",
      null,
      news.map((ev) => {
        const { text, detail } = eventText(view, ev);
        return h("li", { "data-kind": ev.kind }, text, detail ? h("span", { class: "d-detail" }, ` ${detail}`) : null);
      }),
    ),
  );
}

const DEAL_STATUS = new Map(); // fairness commitment -> status ("checking" until the hash is done)

function dealLine(view, redraw) {
  const f = view.fairness;
  if (!f || !f.commitment) return null;
  if (!DEAL_STATUS.has(f.commitment)) {
    DEAL_STATUS.set(f.commitment, "checking");
    checkDeal(view, view.room && view.room.code).then((status) => {
      DEAL_STATUS.set(f.commitment, status || "unavailable");
      redraw();
    });
  }
  const status = DEAL_STATUS.get(f.commitment);
  return h("p", { class: "d-fair", id: "d-fair", "data-status": status, role: "status" }, `${t("end.fair.title")}: ${t(`end.fair.${status}`)}`);
}

function endPanel(view, redraw) {
  const end = [...(view.events || [])].reverse().find((ev) => ev && ev.kind === "end");
  const winner = end ? eventText(view, end).text : view.result && view.result.winner ? t(`end.winner.${view.result.winner}`) : "";
  const cause = causeText(view.result, view.preset);
  return h(
    "section",
    { class: "d-end", id: "d-end", "aria-labelledby": "d-end-title" },
    h("h2", { id: "d-end-title", class: "d-big" }, winner),
    // why it ended, as every phone's end screen says it (game/sides.js; #48)
    cause ? h("p", { class: "d-cause", id: "d-cause" }, cause) : null,
    h("p", { class: "d-sub" }, t("display.roles")),
    dealLine(view, redraw),
  );
}

function nightScreen(view) {
  return h(
    "section",
    { class: "d-night", id: "d-night", "aria-labelledby": "d-night-title" },
    h("h2", { id: "d-night-title", class: "d-big" }, t("display.eyesClosed")),
    h("p", { class: "d-sub" }, t("display.eyesClosedHint")),
  );
}

function lobbyPanel(view) {
  const code = view.room && view.room.code;
  return h(
    "section",
    { class: "d-lobby", id: "d-lobby" },
    h("p", { class: "d-big" }, t("display.lobby", { code })),
    // a public room starts by itself once enough people are in; a private one when the host says (#48)
    h("p", { class: "d-sub", id: "d-lobby-start" }, t(view.options && view.options.public ? "display.lobbyPublic" : "display.lobbyWait")),
  );
}

function phaseLabel(view) {
  const kind = view.phase.kind;
  if (kind === "roleReveal") return t("display.roleReveal"); // the phones' "Your role" is not the room's
  if (kind === "lobby" || kind === "ended" || !view.day) return phaseTitle(kind);
  // "Night 1", not "Night 1 · Night": the phase's title adds nothing to the night's (#48)
  if (isNight(kind) && kind === "night") return t("banner.night", { n: view.day });
  return `${t(isNight(kind) ? "banner.night" : "banner.day", { n: view.day })} · ${phaseTitle(kind)}`;
}

/** Draw the whole screen for `view` into `root` (the page's <main>). */
export function drawScreen(root, view, redraw = () => {}) {
  const kind = view.phase.kind;
  const night = isNight(kind);
  const stage = onStage(view);
  const clock = clockText(view);
  document.body.dataset.phase = kind;
  document.body.dataset.night = night ? "1" : "0";
  const header = h(
    "header",
    { class: "d-head" },
    h("p", { class: "d-room" }, t("display.room", { code: view.room && view.room.code })),
    h("h1", { class: "d-phase", id: "d-phase" }, phaseLabel(view)),
    kind === "lobby" || kind === "ended"
      ? null
      : h(
          "p",
          { class: "d-clock-box" },
          h("span", { class: "sr-only" }, clock ? t("display.timeLeft") : ""),
          h(
            "span",
            { class: `d-clock${clock && !view.paused ? "" : " d-clock-words"}`, id: "d-clock", role: "timer", "aria-live": "off" },
            view.paused ? t("display.paused") : clock || t("display.untimed"),
          ),
        ),
  );
  let body;
  if (night) body = [nightScreen(view)];
  else if (kind === "lobby") body = [lobbyPanel(view), seatList(view, stage)];
  else if (kind === "ended") body = [endPanel(view, redraw), seatList(view, stage)];
  else {
    const side = [stagePanel(view, stage), accusedPanel(view, stage), newsPanel(view), votesPanel(view)].filter(Boolean);
    body = [seatList(view, stage), side.length ? h("div", { class: "d-side" }, side) : null];
  }
  replaceChildren(root, header, h("div", { class: "d-body" }, body));
}

/** Only the clock's digits again (every quarter second). */
export function tickClock(view) {
  const el = document.getElementById("d-clock");
  if (!el || !view || view.paused) return;
  const clock = clockText(view);
  if (clock) el.textContent = clock;
}
