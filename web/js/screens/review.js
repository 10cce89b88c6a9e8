// The post-game review on the end screen: the whole game, hidden parts included, as a
// night-by-night timeline the player expands one step at a time (<details>, so it works
// with a keyboard and a screen reader, and stays short on a phone). Data: `view.review`,
// which the server sends only once the game has ended (mafia_engine.review).
import { h } from "../dom.js";
import { has, roleName, t } from "../i18n.js";
import { lineNo, playerName } from "../game/format.js";
import { chatLine, lineText } from "../game/bot-lines.js";

// Which steps the reader has opened: the end screen redraws at every view (after-game chat).
const openSteps = new Set();
let logOpen = false; // the whole chat's <details>, kept open across redraws

const word = (prefix, key) => (has(`${prefix}.${key}`) ? t(`${prefix}.${key}`) : String(key));

function who(view, review, id) {
  if (!id) return "—";
  const p = (review.players || []).find((x) => x.id === id);
  const role = p && p.role ? ` (${roleName(p.role, review.preset)})` : "";
  return `${playerName(view, id)}${role}`;
}

function resultWord(review, value) {
  if (has(`result.${value}`)) return t(`result.${value}`);
  if (has(`role.${value}`)) return roleName(value, review.preset);
  return word("team", value);
}

function ballotsText(view, ballots) {
  const entries = Object.entries(ballots || {});
  if (!entries.length) return "—";
  return entries
    .map(([voter, choice]) => {
      let c;
      if (choice === "abstain") c = t("review.abstain");
      else if (choice === "yes" || choice === "no") c = t(`review.${choice}`);
      else c = playerName(view, choice);
      return `${playerName(view, voter)} → ${c}`;
    })
    .join(", ");
}

// People's own words inside a line (a last word, a chat message) stay as they wrote them:
// marked `.user-text`, like chat on the game screen, so the language check skips them.
const MARK = "\u0001";

function withUserText(text, words) {
  const parts = text.split(MARK);
  return parts.map((part, i) => (i % 2 ? h("span", { class: "user-text" }, words[(i - 1) / 2]) : part));
}

/** One line of a step: a string, or (with people's words in it) an array of strings and nodes. */
export function itemText(view, review, it) {
  switch (it.kind) {
    case "act": {
      const action = word("review.action", it.action);
      if (!it.target) return t("review.actNone", { who: who(view, review, it.player), action });
      return t("review.act", { who: who(view, review, it.player), action, target: playerName(view, it.target) });
    }
    case "result":
      if (it.result === "yes" || it.result === "no") {
        // godfather / ninja: "is this the investigator (or ...)?" answered yes or no
        return t("review.answer", {
          who: who(view, review, it.player),
          target: playerName(view, it.target),
          action: word("review.action", it.action),
          result: t(`review.answer.${it.result}`),
        });
      }
      return t("review.result", {
        who: who(view, review, it.player),
        target: it.target ? playerName(view, it.target) : word("review.action", it.action),
        result: resultWord(review, it.result),
      });
    case "vote":
      return it.round
        ? t("review.vote", { round: it.round, ballots: ballotsText(view, it.ballots) })
        : t("review.voteNoRound", { ballots: ballotsText(view, it.ballots) });
    case "confirm":
      return t("review.confirm", { name: playerName(view, it.accused), ballots: ballotsText(view, it.ballots) });
    case "allOrNone":
      return t("review.allOrNone", {
        names: (it.suspects || []).map((id) => playerName(view, id)).join(", "),
        ballots: ballotsText(view, it.ballots),
      });
    case "death":
      return t("review.death", { name: who(view, review, it.player), cause: word("review.cause", it.cause) });
    case "lastWord":
      return (it.lines || []).length
        ? withUserText(t("review.lastWord", { name: playerName(view, it.player), lines: `${MARK}0${MARK}` }), [
            it.lines.map((l) => `“${lineText(view, l)}”`).join(" "),
          ])
        : t("review.lastWordSilent", { name: playerName(view, it.player) });
    case "chat":
      return withUserText(
        t("review.chat", { channel: word("review.channel", it.channel), who: playerName(view, it.from), text: `${MARK}0${MARK}` }),
        [chatLine(view, it)],
      );
    default:
      return it.kind;
  }
}

/** Close every step again (a new game). */
export function resetReview() {
  openSteps.clear();
  logOpen = false;
}

/**
 * The whole game's chat after the end: every line this tab has (the view's newest ones, and
 * those seen before and the pages loaded so far, `ctx.state.chatArchive`), oldest first, and a button that asks the
 * server for the next older page (`chatLog`, docs/protocol.md) until the first line is in.
 * The moderator's lines are left out: the timeline above tells them in the reader's language.
 */
export function chatLogSection(view, ctx) {
  if (!view.review) return null;
  const from = ctx.state.chatLogFrom; // null: nothing loaded yet; 0: the first line is in
  const kept = new Map((view.chat || []).map((m) => [m.id, m]));
  for (const [id, m] of ctx.state.chatArchive || []) kept.set(id, m);
  const lines = [...kept.values()]
    .filter((m) => m.from !== null && m.from !== undefined)
    .sort((a, b) => (a.at || 0) - (b.at || 0) || lineNo(a.id) - lineNo(b.id));
  const more = () => {
    logOpen = true;
    ctx.send("chatLog", from === null ? {} : { before: from });
  };
  return h(
    "section",
    { class: "card review", id: "review-log", "aria-labelledby": "review-log-title" },
    h(
      "details",
      { open: logOpen, ontoggle: (e) => (logOpen = e.currentTarget.open) },
      h("summary", { class: "review-summary" }, h("span", { id: "review-log-title" }, t("review.log")), h("span", { class: "review-count" }, String(lines.length))),
      from === 0
        ? h("p", { class: "hint", id: "review-log-all" }, t("review.logAll"))
        : h("button", { type: "button", class: "btn", id: "review-log-more", onclick: more }, t("review.logMore")),
      lines.length
        ? h(
            "ul",
            { class: "review-items", id: "review-log-lines" },
            lines.map((m) =>
              h("li", { class: "review-item review-chat", "data-id": m.id }, itemText(view, view.review, { kind: "chat", channel: m.channel, from: m.from, text: m.text, phrase: m.phrase, args: m.args, variant: m.variant })),
            ),
          )
        : h("p", { class: "hint" }, t("review.logEmpty")),
    ),
  );
}

/** The review section, or null when the view carries none (a game that has not ended). */
export function reviewSection(view) {
  const review = view.review;
  if (!review || !Array.isArray(review.steps)) return null;
  const steps = review.steps.map((st, i) =>
    h(
      "li",
      { class: `review-step review-${st.part}`, "data-day": st.day, "data-part": st.part },
      h(
        "details",
        {
          id: `review-step-${i}`,
          open: openSteps.has(i),
          ontoggle: (e) => (e.currentTarget.open ? openSteps.add(i) : openSteps.delete(i)),
        },
        h(
          "summary",
          { class: "review-summary" },
          h("span", { class: "review-when" }, t(st.part === "night" ? "review.night" : "review.day", { n: st.day })),
          h("span", { class: "review-count" }, String((st.items || []).length)),
        ),
        (st.items || []).length
          ? h(
              "ul",
              { class: "review-items" },
              st.items.map((it) => h("li", { class: `review-item review-${it.kind}`, "data-kind": it.kind }, itemText(view, review, it))),
            )
          : h("p", { class: "hint" }, t("review.empty")),
      ),
    ),
  );
  return h(
    "section",
    { class: "card review", id: "review", "aria-labelledby": "review-title" },
    h("h2", { id: "review-title" }, t("review.title")),
    h("p", { class: "hint" }, t("review.hint")),
    h("ol", { class: "review-steps", id: "review-steps" }, steps),
  );
}
