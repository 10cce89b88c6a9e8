// Ranked play on the page (docs/rules.md, "Ranked play"): "Play ranked", the ladder of this
// language and season, a person's page, and the end's tier move. A chunk of its own, fetched on
// the first tap of a ranked button (the home bundle stays small); the end screen fetches it
// for `rankedEnd` on a ranked game's end (the lobby's band line is screens/lobby.js `bandLine`).
import * as api from "../api.js";
import { h, replaceChildren } from "../dom.js";
import { errorText, getLang, t } from "../i18n.js";
import { closeSheet, showSheet } from "../game/sheet.js";

/** A standing ({points, tier, placementLeft}) as players read it: "Gold · 1520" / "Placement (3 left)". */
export function standingText(s) {
  if (!s) return "";
  if (s.tier === "placement") return t("ranked.placement", { n: s.placementLeft });
  return `${t(`ranked.tier.${s.tier}`)} · ${s.points}`;
}

/** "Play ranked": the seat, or the refusal in words (a cool-down says until when). */
export async function playRanked(ctx, name, errorEl) {
  try {
    await ctx.quickPlayRanked(name);
  } catch (err) {
    if (err.code === "ranked_cooldown") {
      const until = new Date(Date.now() + (err.retryAfter || 0) * 1000);
      errorEl.textContent = t("ranked.cooldown", { time: until.toLocaleTimeString(getLang(), { hour: "2-digit", minute: "2-digit" }) });
    } else if (err.code === "ranked_locked") {
      errorEl.textContent = t("ranked.locked");
    } else if (err.code === "sign_in_required") {
      errorEl.textContent = t("ranked.signIn");
    } else {
      errorEl.textContent = errorText(err.code, err.message);
    }
  }
}

function row(r, place, open) {
  return h(
    "li",
    { class: "ladder-row", "data-handle": r.handle },
    h("span", { class: "ladder-place" }, String(place)),
    h("button", { type: "button", class: "link ladder-handle", onclick: () => open(r.handle) }, r.handle.slice(0, 8)),
    h("span", { class: "ladder-tier", "data-tier": r.tier }, standingText({ ...r, placementLeft: Math.max(0, 5 - r.games) })),
    h("span", { class: "hint" }, t("ranked.games", { n: r.games })),
  );
}

/** The ladder of this language and season, a page at a time. */
export function openLadder(mine) {
  const list = h("ol", { class: "ladder", id: "ladder-rows" });
  const error = h("p", { class: "form-error", role: "alert" });
  const more = h("button", { type: "button", class: "btn", id: "ladder-more", hidden: true }, t("ranked.more"));
  const title = h("p", { class: "hint", id: "ladder-season" });
  let cursor = null;
  let place = 0;
  async function load() {
    try {
      const page = await api.ladder(getLang(), cursor);
      title.textContent = t("ranked.season", { season: page.season });
      list.append(...page.rows.map((r) => row(r, ++place, (handle) => openPerson(handle))));
      cursor = page.cursor;
      more.hidden = !cursor;
      if (!place) list.append(h("li", { class: "hint" }, t("ranked.empty")));
    } catch (err) {
      error.textContent = errorText(err.code, err.message);
    }
  }
  more.onclick = load;
  showSheet("ladder-sheet", t("ranked.ladder"), [
    title,
    mine ? h("button", { type: "button", class: "btn btn-small", onclick: () => openPerson(mine) }, t("ranked.mine")) : null,
    list, more, error,
    h("button", { type: "button", class: "btn", onclick: closeSheet }, t("common.close")),
  ]);
  load();
}

/** A person's page: this season's standing, their last ranked games (each room's review). */
export async function openPerson(handle) {
  const body = h("div", { class: "person-page", id: "person-page" }, t("home.busy"));
  showSheet("person-sheet", t("ranked.person", { handle: handle.slice(0, 8) }), [
    body,
    h("button", { type: "button", class: "btn", onclick: closeSheet }, t("common.close")),
  ]);
  try {
    const p = await api.person(handle, getLang());
    replaceChildren(
      body,
      h("p", { class: "person-standing", id: "person-standing" }, t("ranked.season", { season: p.season }), " · ", standingText(p.standing)),
      p.games.length
        ? h("ul", { class: "person-games" }, p.games.map((g) => h(
            "li",
            { "data-room": g.room },
            h("span", null, new Date(g.at * 1000).toLocaleDateString(getLang())),
            " · ", t(g.won ? "ranked.won" : "ranked.lost"), " · ", deltaText(g.delta), " · ",
            // the game's review: the ended room shows it to anyone who opens it
            h("a", { href: `?room=${encodeURIComponent(g.room)}` }, t("ranked.review")),
          )))
        : h("p", { class: "hint" }, t("ranked.noGames")),
    );
  } catch (err) {
    replaceChildren(body, errorText(err.code, err.message));
  }
}

export function deltaText(d) {
  return d > 0 ? `+${d}` : String(d);
}

/** The end's ranked block (`view.room.ranked`): where the viewer's tier moved, and by how much. */
export function rankedEnd(view) {
  const r = view.room && view.room.ranked;
  if (!r || !r.table) return null;
  const you = r.you;
  let line = null;
  if (you) {
    const up = you.after.tier !== you.before.tier && you.delta > 0;
    const down = you.after.tier !== you.before.tier && you.delta < 0;
    const key = up ? "ranked.movedUp" : down ? "ranked.movedDown" : "ranked.moved";
    line = h("p", { class: "ranked-move", id: "ranked-move", "data-delta": String(you.delta), "data-tier": you.after.tier },
      t(key, { tier: standingText(you.after), delta: deltaText(you.delta) }));
  }
  return h(
    "section",
    { class: "card ranked-end", id: "ranked-end", "aria-labelledby": "ranked-end-title" },
    h("h2", { id: "ranked-end-title" }, t("ranked.title")),
    line,
    h("button", { type: "button", class: "btn btn-small", id: "ranked-ladder-btn", onclick: () => openLadder(you && you.handle) }, t("ranked.ladder")),
  );
}
