// End: the winner, everyone's role, the MVP, and the timeline of public events.
import { h, replaceChildren } from "../dom.js";
import { errorText, has, roleName, t, teamName } from "../i18n.js";
import { KEYS, tab } from "../storage.js";
import { eventText, eventWhen, isNightDeath, playerName, storyEvents } from "../game/format.js";
import { chatLogSection, reviewSection } from "./review.js";
import { SCHEME_V3, check as checkDeal, remember as rememberDeal, verifyCommand } from "../game/fairness.js";
import { forgetNotes } from "../game/notes.js";
import { causeText } from "../game/sides.js";

const DEAL_MARK = { checking: "…", verified: "✓", mismatch: "✗", changed: "✗", unavailable: "?" };

function dealStatusLine(status) {
  return [h("span", { class: "fair-mark", "aria-hidden": "true" }, DEAL_MARK[status]), " ", t(`end.fair.${status}`)];
}

// The deal's commitment, seed and salt, and what this browser's own hash check says
// (web/js/game/fairness.js; docs/rules.md, "A provably fair deal").
function dealSection(view, deal) {
  const f = view.fairness;
  const status = deal.status;
  const value = (key, text, id) =>
    h("div", { class: "fair-value" }, h("dt", null, t(key)), h("dd", null, h("code", { id }, String(text))));
  return h(
    "section",
    { class: "card fair-deal", id: "fair-deal", "aria-labelledby": "fair-title" },
    h("h2", { id: "fair-title" }, t("end.fair.title")),
    h(
      "p",
      { class: "fair-status", id: "fair-status", "data-status": status, role: "status" },
      dealStatusLine(status),
    ),
    h("p", { class: "fair-explain" }, t("end.fair.explain")),
    h(
      "dl",
      { class: "fair-values" },
      value("end.fair.commitment", f.commitment, "fair-commitment"),
      value("end.fair.seed", JSON.stringify(f.seed), "fair-seed"),
      value("end.fair.salt", f.salt, "fair-salt"),
    ),
    mixedLine(f),
    h(
      "details",
      { class: "fair-howto", open: deal.open, ontoggle: (e) => (deal.open = e.currentTarget.open) },
      h("summary", null, t("end.fair.howto")),
      h("p", null, t("end.fair.howtoText")),
      h("pre", null, h("code", { id: "fair-command" }, verifyCommand(view))),
    ),
  );
}

/** "Play again with this table": a person seated at the end of a public game reads its party
 * code (`room.party`); whoever presses it lands in one new public lobby of the same language and
 * rules (docs/rules.md, "Public rooms": "Play again together"). */
function againButton(view, ctx, me) {
  const party = view.room && view.room.party;
  if (!party) return null;
  const seat = (view.players || []).find((p) => p.id === me);
  const name = (tab.get(KEYS.name) || (seat && seat.name) || "").trim();
  const status = h("span", { class: "hint", id: "again-status", role: "status" });
  let busy = false;
  const press = async () => {
    if (busy || !name) return;
    busy = true;
    status.textContent = t("home.busy");
    try {
      await ctx.quickPlay(name, view.preset, { lang: view.room.lang, party });
    } catch (err) {
      status.textContent = errorText(err.code, err.message);
      busy = false;
    }
  };
  return h(
    "div",
    { class: "end-again" },
    h("button", { type: "button", class: "btn btn-primary", id: "play-again-btn", onclick: press }, t("end.again")),
    h("p", { class: "hint", id: "again-hint" }, t("end.againHint")),
    status,
  );
}

/** A v3 deal's record: how many phones' values were mixed in, how many never came (dropped),
 * and each phone's commitment and value (game/dealseed.js; docs/rules.md, "Randomness"). */
function mixedLine(f) {
  if (f.scheme !== SCHEME_V3) return null;
  const parts = f.contributions || [];
  const dropped = parts.filter((c) => c.value === null).length;
  return h(
    "details",
    { class: "fair-mixed", id: "fair-mixed", "data-values": parts.length - dropped, "data-dropped": dropped },
    h("summary", null, t("end.fair.mixed", { values: parts.length - dropped, dropped })),
    h(
      "ul",
      null,
      parts.map((c) =>
        h("li", null, h("code", null, c.commitment), " → ", h("code", null, c.value === null ? "—" : c.value)),
      ),
    ),
  );
}

/** The memory of one screen's deal check (`fairDealBlock`). */
export function newDeal() {
  return { key: null, status: "checking", open: false };
}

/**
 * The fair-deal block of an ended view, or null before the deal is revealed. The hash check
 * runs once per revealed deal (`deal` keeps its answer across redraws) and its answer fills
 * the status line in place, so a redraw never shows "checking" again. The online end screen
 * and the single-device one (web/js/device/screens.js) both show it.
 */
export function fairDealBlock(view, deal, opts = {}) {
  const f = view.fairness;
  if (!f || f.seed === null || f.seed === undefined) return null;
  const room = view.room && view.room.code;
  const key = `${room}|${f.commitment}|${JSON.stringify(f.seed)}|${f.salt}`;
  if (deal.key !== key) {
    deal.key = key;
    deal.status = "checking";
    checkDeal(view, room, opts)
      .catch(() => "unavailable")
      .then((status) => {
        if (deal.key !== key) return;
        deal.status = status || "unavailable";
        const line = document.querySelector("#fair-status");
        if (!line) return;
        line.dataset.status = deal.status;
        replaceChildren(line, dealStatusLine(deal.status));
      });
  }
  return dealSection(view, deal);
}

/** A row's outcome: won or lost, a draw, or nothing when the host ended the game (nobody won,
 * nobody lost). */
export function fateWord(winner, won) {
  if (winner === "none") return t("end.noWinner");
  if (winner === "draw") return t("end.drew");
  return t(won ? "end.won" : "end.lost");
}

/** Who played a seat before its substitute (the room's notices, `was`, once the game ended). */
export function formerNames(view, id) {
  const notes = (view.room && view.room.substituted) || [];
  return notes.filter((n) => n.player === id && n.was).map((n) => n.was);
}

export function winnerText(winner) {
  if (winner === "none") return t("end.winner.none");
  if (!winner || winner === "draw") return t("end.winner.draw");
  if (has(`end.winner.${winner}`)) return t(`end.winner.${winner}`);
  return t("end.winner.other", { team: teamName(winner) });
}

/** A ranked game's end: where the tier moved (`view.room.ranked`), drawn by screens/ranked.js. */
function rankedSlot(view) {
  if (!(view.room && view.room.ranked && view.room.ranked.table)) return null;
  const slot = h("div", { class: "ranked-slot" });
  import("./ranked.js").then((m) => replaceChildren(slot, m.rankedEnd(view)));
  return slot;
}

export function mount(root, ctx) {
  const body = h("div", { class: "end" });
  root.append(body);
  // One hash check per revealed deal (update runs on every view): `fairDealBlock`.
  const deal = newDeal();

  function update(view) {
    rememberDeal(view.room && view.room.code, view);
    forgetNotes(view); // notes on tiles live for one game (web/js/game/notes.js)
    const result = view.result || {};
    const byId = new Map((result.players || []).map((p) => [p.id, p]));
    const order = result.ranking && result.ranking.length ? result.ranking : (view.players || []).map((p) => p.id);
    const ids = [...order, ...[...byId.keys()].filter((id) => !order.includes(id))];
    const events = Array.isArray(view.events) ? view.events : [];
    const winner = result.winner;
    const isHost = Boolean(view.you && view.room && view.room.host === view.you.id);

    const scores = (view.room && view.room.scores) || null; // games won in this room
    const roles = h(
      "ul",
      { class: "end-roles", id: "end-roles" },
      ids.map((id) => {
        const r = byId.get(id) || {};
        const vp = (view.players || []).find((p) => p.id === id) || {};
        const role = r.role || (vp.revealed && vp.revealed.role);
        const isAlive = r.alive ?? vp.alive;
        const won = r.won ?? (winner && r.team === winner);
        const before = formerNames(view, id); // a substitute's seat credits whoever played it first
        return h(
          "li",
          { class: `end-player${won ? " won" : ""}${isAlive === false ? " dead" : ""}`, "data-pid": id },
          h("span", { class: "pname", title: playerName(view, id) }, playerName(view, id)),
          h("span", { class: "end-role", "data-role": role || "" }, role ? roleName(role, view.preset) : "?"),
          before.length ? h("span", { class: "end-subbed" }, t("end.subbed", { name: before.join(", ") })) : null,
          h(
            "span",
            { class: "end-fate" },
            isAlive === false && r.diedDay ? t(isNightDeath(r.diedBy) ? "end.diedNight" : "end.died", { n: r.diedDay }) : isAlive === false ? t("player.dead") : t("end.alive"),
            " · ",
            fateWord(winner, won),
            scores && id in scores ? [" · ", t("end.score", { n: scores[id] })] : null,
          ),
          result.mvp === id ? h("span", { class: "badge badge-mvp" }, t("end.mvp")) : null,
        );
      }),
    );

    const timeline = h(
      "ol",
      { class: "timeline", id: "timeline" },
      events.length
        ? storyEvents(events).map(({ ev }) => {
            const { text, detail } = eventText(view, ev);
            return h(
              "li",
              { "data-kind": ev.kind },
              ev.day ? h("span", { class: "tl-day" }, eventWhen(ev)) : null,
              h("span", { class: "tl-text" }, text, detail ? ` (${detail})` : ""),
            );
          })
        : h("li", null, t("end.noEvents")),
    );

    replaceChildren(
      body,
      h(
        "section",
        { class: `end-hero winner-${winner || "none"}`, "aria-labelledby": "end-title" },
        h("p", { class: "end-kicker" }, t("end.title")),
        h("h1", { id: "end-title" }, winnerText(winner)),
        h("p", { class: "end-cause", id: "end-cause" }, causeText(result, view.preset)),
        result.days ? h("p", null, t("end.days", { n: result.days })) : null,
        h(
          "p",
          { class: "end-mvp", id: "end-mvp" },
          result.mvp ? [h("strong", null, t("end.mvp")), " ", playerName(view, result.mvp)] : t("end.noMvp"),
        ),
      ),
      h(
        "div",
        { class: "end-cols" },
        h("section", { class: "card", "aria-labelledby": "roles-title" }, h("h2", { id: "roles-title" }, t("end.roles")), roles),
        h("section", { class: "card", "aria-labelledby": "timeline-title" }, h("h2", { id: "timeline-title" }, t("end.timeline")), timeline),
      ),
      rankedSlot(view), // a ranked game's tier move (screens/ranked.js, fetched on demand)
      fairDealBlock(view, deal, { roles: true }), // the online end also replays the roles
      reviewSection(view),
      chatLogSection(view, ctx),
      h(
        "div",
        { class: "row end-actions" },
        isHost
          ? h("button", { type: "button", class: "btn btn-primary", id: "new-game-btn", onclick: () => ctx.send("newGame") }, t("end.newGame"))
          : null,
        againButton(view, ctx, view.you && view.you.id),
        h("button", { type: "button", class: "btn", id: "home-btn", onclick: () => ctx.goHome() }, t("end.home")),
      ),
    );
  }

  return { update, destroy() {} };
}
