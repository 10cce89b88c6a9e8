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
import { voteRows } from "../game/votes.js";

// Events of the night that the dawn tells (besides deaths by a night cause).
const NIGHT_NEWS = new Set(["saved", "soldierSurvived", "quietNight", "politicianImmune"]);

/** The players whose turn it is now: the speaker of a speech, the accused of a defense. */
export function onStage(view) {
  const ph = view.phase || {};
  return { speaker: ph.speaker || null, accused: ph.kind === "defense" ? ph.accused || null : null };
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
  return h(
    "ol",
    { class: "d-seats", id: "d-seats", "aria-label": t("display.players"), "data-count": players.length },
    players.map((p) => {
      const out = p.alive === false;
      const now = p.id === stage.speaker || p.id === stage.accused;
      const role = ended && p.role ? roleName(p.role, view.preset) : revealedBadge(view, p.revealed);
      return h(
        "li",
        {
          class: ["d-seat", out ? "out" : "", now ? "now" : "", p.id === stage.accused ? "accused" : ""].join(" ").trim(),
          "data-pid": p.id,
          "aria-current": now ? "true" : null,
        },
        h("span", { class: "d-num", "aria-hidden": "true" }, String(p.seat || "")),
        h("span", { class: "d-name" }, p.name || p.id),
        h("span", { class: "d-state" }, out ? t("display.out") : t("display.alive")),
        role ? h("span", { class: "d-role" }, role) : null,
      );
    }),
  );
}

function stagePanel(view, stage) {
  if (stage.accused) {
    return h("section", { class: "d-stage accused", id: "d-stage" }, h("h2", null, t("display.onTrial")), h("p", { class: "d-big" }, playerName(view, stage.accused)));
  }
  if (stage.speaker) {
    return h("section", { class: "d-stage", id: "d-stage" }, h("h2", null, t("display.speaking")), h("p", { class: "d-big" }, playerName(view, stage.speaker)));
  }
  return null;
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
  return h(
    "section",
    { class: "d-end", id: "d-end", "aria-labelledby": "d-end-title" },
    h("h2", { id: "d-end-title", class: "d-big" }, winner),
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
    h("p", { class: "d-sub" }, t("display.lobbyWait")),
  );
}

function phaseLabel(view) {
  const kind = view.phase.kind;
  if (kind === "lobby" || kind === "ended" || !view.day) return phaseTitle(kind);
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
    const side = [stagePanel(view, stage), newsPanel(view), votesPanel(view)].filter(Boolean);
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
