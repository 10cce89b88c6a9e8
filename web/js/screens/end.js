// End: the winner, everyone's role, the MVP, and the timeline of public events.
import { h, replaceChildren } from "../dom.js";
import { has, roleName, t, teamName } from "../i18n.js";
import { eventText, eventWhen, isNightDeath, playerName, storyEvents } from "../game/format.js";
import { chatLogSection, reviewSection } from "./review.js";
import { forgetNotes } from "../game/notes.js";

function winnerText(winner) {
  if (winner === "none") return t("end.winner.none");
  if (!winner || winner === "draw") return t("end.winner.draw");
  if (has(`end.winner.${winner}`)) return t(`end.winner.${winner}`);
  return t("end.winner.other", { team: teamName(winner) });
}

export function mount(root, ctx) {
  const body = h("div", { class: "end" });
  root.append(body);

  function update(view) {
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
        return h(
          "li",
          { class: `end-player${won ? " won" : ""}${isAlive === false ? " dead" : ""}`, "data-pid": id },
          h("span", { class: "pname", title: playerName(view, id) }, playerName(view, id)),
          h("span", { class: "end-role", "data-role": role || "" }, role ? roleName(role, view.preset) : "?"),
          h(
            "span",
            { class: "end-fate" },
            isAlive === false && r.diedDay ? t(isNightDeath(r.diedBy) ? "end.diedNight" : "end.died", { n: r.diedDay }) : isAlive === false ? t("player.dead") : t("end.alive"),
            " · ",
            t(won ? "end.won" : "end.lost"),
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
      reviewSection(view),
      chatLogSection(view, ctx),
      h(
        "div",
        { class: "row end-actions" },
        isHost
          ? h("button", { type: "button", class: "btn btn-primary", id: "new-game-btn", onclick: () => ctx.send("newGame") }, t("end.newGame"))
          : null,
        h("button", { type: "button", class: "btn", id: "home-btn", onclick: () => ctx.goHome() }, t("end.home")),
      ),
    );
  }

  return { update, destroy() {} };
}
