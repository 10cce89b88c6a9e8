// The device's screens. The hand-over screen is built from the next name alone; a player's
// screen from that seat's own view; the shared screens from public view data only
// (phase, names, alive, public reveals, events, the result), never `you` or `private`.
import { h } from "../dom.js";
import { roleName, t, teamName } from "../i18n.js";
import { eventText, isNightDeath, phaseTitle, playerName } from "../game/format.js";
import { roleCardBody } from "../game/overlays.js";
import { causeText } from "../game/sides.js";
import { fairDealBlock, fateWord, newDeal } from "../screens/end.js";

const stageTitle = (stage, view) =>
  stage === "dawn" ? t("device.stage.dawn") : stage === "night" ? `${phaseTitle("night")} ${view.day}` : phaseTitle(stage);

/** "Pass the device to Bob": the same for everyone but the name. */
export function handover(view, stage, seat, { onOpen }) {
  const name = playerName(view, seat);
  return h(
    "section",
    { class: "device-screen device-closed", id: "device-closed" },
    h("p", { class: "device-stage" }, stageTitle(stage, view)),
    h("h1", { class: "device-pass", id: "device-pass" }, t("device.passTo", { name })),
    h("p", { class: "hint" }, t("device.passHint")),
    h("button", { type: "button", class: "btn btn-primary device-big", id: "device-iam", onclick: onOpen }, t("device.iam", { name })),
  );
}

// Options on a player's screen: [{value, label}], where value is what `act` sends.
function options(view, stage) {
  const pv = view.private || {};
  const task = pv.task;
  const targets = (pv.targets || []).map((id) => ({ value: { target: id }, label: playerName(view, id), pid: id }));
  if (stage === "dawn") return { text: t("device.task.dawn"), list: [], button: t("device.close"), action: null };
  if (task === "ready") return { text: t("device.task.ready"), list: [], button: t("device.readCard"), action: "readyEarly" };
  if (task === "done") return { text: t("device.task.done"), list: [], button: t("device.close"), action: null };
  if (task === "sleep")
    return { text: t("device.task.sleep"), list: [{ value: {}, label: t("device.sleep"), action: "sleep" }], action: "sleep" };
  if (task === "vote")
    return {
      text: t("device.task.vote"),
      list: [...targets, { value: { target: "abstain" }, label: t("device.abstain") }],
      action: "vote",
    };
  if (task === "confirm")
    return {
      text: t("device.task.confirm"),
      list: [
        { value: { choice: "yes" }, label: t("device.yes") },
        { value: { choice: "no" }, label: t("device.no") },
      ],
      action: "confirm",
    };
  if (task && task !== "none" && targets.length) {
    // A night action: choose a target, or skip (the engine's `sleep` skips what is left).
    return {
      text: t(`task.${task}`),
      list: [...targets, { value: {}, label: t("device.skip"), action: "sleep" }],
      action: task,
    };
  }
  return { text: t("device.task.none"), list: [], button: t("device.close"), action: null };
}

/** A player's own screen: the role card and the task, one layout for every role. */
export function turn(view, stage, { chosen: chosenIndex, onChoose, onDone }) {
  const you = view.you || {};
  const o = options(view, stage);
  let chosen = chosenIndex !== null && chosenIndex !== undefined ? o.list[chosenIndex] || null : null;
  const confirm = h(
    "button",
    {
      type: "button", class: "btn btn-primary device-big", id: "device-confirm", disabled: o.list.length > 0 && !chosen,
      onclick: () => {
        if (o.list.length && !chosen) return;
        confirm.disabled = true;
        if (!o.action) return onDone(null);
        onDone(chosen ? { action: chosen.action || o.action, payload: chosen.value } : { action: o.action, payload: {} });
      },
    },
    o.button || t("device.confirm"),
  );
  const buttons = o.list.map((opt, i) =>
    h(
      "button",
      {
        type: "button", class: "btn device-option", "aria-pressed": String(opt === chosen), "data-option": i,
        "data-pid": opt.pid || null,
        onclick: (e) => {
          chosen = opt;
          onChoose(i);
          for (const b of e.currentTarget.parentElement.children) b.setAttribute("aria-pressed", String(b === e.currentTarget));
          confirm.disabled = false;
        },
      },
      opt.label,
    ),
  );
  const team = view.private && view.private.teamChoices ? Object.entries(view.private.teamChoices) : [];
  return h(
    "section",
    { class: "device-screen device-turn", id: "device-turn", "data-seat": you.id, "data-role": you.role },
    h("p", { class: "device-stage" }, `${stageTitle(stage, view)} · ${playerName(view, you.id)}`),
    h("div", { class: "role-card inline device-card" }, roleCardBody(view)),
    h("p", { class: "device-task", id: "device-task" }, o.text),
    team.length
      ? h(
          "ul",
          { class: "device-team" },
          team.map(([who, target]) =>
            h("li", null, t("task.teamPick", { who: playerName(view, who), target: target ? playerName(view, target) : t("device.skip") })),
          ),
        )
      : null,
    buttons.length ? h("div", { class: "device-options", role: "group", "aria-label": o.text }, buttons) : null,
    buttons.length ? h("p", { class: "hint" }, t("device.pick")) : null,
    confirm,
  );
}

export function waiting() {
  return h("section", { class: "device-screen", id: "device-wait" }, h("p", { class: "device-pass" }, t("device.waiting")));
}

// A vote's result in words with its tally; the death it caused is the same news, so its
// public reveal (if any) joins that line instead of a second one.
function eventLines(view, events) {
  const lines = [];
  for (const ev of events) {
    const { text, detail } = eventText(view, ev);
    if (ev.kind === "death" && ev.by === "vote") {
      const vote = lines.find((l) => l.ev.kind === "voteResult" && l.ev.eliminated === ev.player);
      if (vote) {
        vote.detail = [vote.detail, detail].filter(Boolean).join(" · ");
        continue;
      }
    }
    let extra = detail;
    if (ev.kind === "voteResult" && ev.tally) {
      const tally = Object.entries(ev.tally)
        .sort((a, b) => b[1] - a[1])
        .map(([id, n]) => `${playerName(view, id)}: ${n}`)
        .join(", ");
      extra = [tally, detail].filter(Boolean).join(" · ");
    }
    lines.push({ ev, text, detail: extra });
  }
  return lines;
}

function eventList(view, events) {
  return h(
    "ul",
    { class: "device-news-list" },
    eventLines(view, events).map(({ text, detail }) =>
      h("li", null, h("span", null, text), detail ? h("span", { class: "device-detail" }, ` (${detail})`) : null),
    ),
  );
}

/** Public news (deaths, a quiet night, vote results) for the whole table. */
export function news(view, events, { onContinue }) {
  return h(
    "section",
    { class: "device-screen device-public", id: "device-news" },
    h("h1", null, t("device.news")),
    eventList(view, events),
    h("button", { type: "button", class: "btn btn-primary device-big", id: "device-continue", onclick: onContinue }, t("device.continue")),
  );
}

function roster(view) {
  const alive = (view.players || []).filter((p) => p.alive);
  const out = (view.players || []).filter((p) => !p.alive);
  return [
    h("h2", null, t("device.alive", { n: alive.length })),
    h("ul", { class: "device-roster", id: "device-alive" }, alive.map((p) => h("li", { class: "pname" }, p.name))),
    out.length ? h("h2", null, t("device.out")) : null,
    out.length
      ? h(
          "ul",
          { class: "device-roster out" },
          out.map((p) => {
            const r = p.revealed && (p.revealed.role ? roleName(p.revealed.role, view.preset) : p.revealed.team ? teamName(p.revealed.team) : "");
            return h("li", null, h("span", { class: "pname" }, p.name), r ? ` — ${r}` : null);
          }),
        )
      : null,
  ];
}

/** The day's shared screen: last night's news, who is still in, and "start the vote". */
export function discussion(view, { onVote }) {
  const night = (view.events || []).filter(
    (ev) => ev.day === view.day && (ev.kind === "quietNight" || (ev.kind === "death" && ev.by !== "vote")),
  );
  return h(
    "section",
    { class: "device-screen device-public", id: "device-discussion" },
    h("h1", null, t("device.discussion", { n: view.day })),
    night.length ? eventList(view, night) : null,
    h("p", { class: "hint" }, t("device.discussionHint")),
    roster(view),
    h("button", { type: "button", class: "btn btn-primary device-big", id: "device-start-vote", onclick: onVote }, t("device.startVote")),
  );
}

/** A tie: the leaders defend themselves aloud; each one's "finished" is public. */
export function defense(view, speaking, { onFinished }) {
  const suspects = view.phase.suspects || (view.phase.accused ? [view.phase.accused] : []);
  return h(
    "section",
    { class: "device-screen device-public", id: "device-defense" },
    h("h1", null, phaseTitle("defense")),
    h("p", null, suspects.map((id) => playerName(view, id)).join(", ")),
    h("p", { class: "hint" }, t("device.defenseHint")),
    h(
      "div",
      { class: "device-options" },
      // The buttons in the order the list names the suspects (the phase's order, not seats').
      [...speaking].sort((a, b) => suspects.indexOf(a) - suspects.indexOf(b)).map((id) =>
        h("button", { type: "button", class: "btn device-finished", "data-pid": id, onclick: () => onFinished(id) }, t("device.finished", { name: playerName(view, id) })),
      ),
    ),
  );
}

/** Original rules' speeches: the speaker names a suspect aloud, or nobody. Public. */
export function speech(view, speakerView, { onNominate }) {
  const speaker = view.phase.speaker;
  const pv = (speakerView && speakerView.private) || {};
  const can = pv.task === "nominate";
  return h(
    "section",
    { class: "device-screen device-public", id: "device-speech" },
    h("h1", null, phaseTitle("speech")),
    h("p", { class: "device-pass" }, t("device.speaker", { name: playerName(view, speaker) })),
    roster(view),
    h(
      "div",
      { class: "device-options" },
      can ? (pv.targets || []).map((id) => h("button", { type: "button", class: "btn", onclick: () => onNominate(speaker, "nominate", { target: id }) }, t("device.accuse", { name: playerName(view, id) }))) : null,
      h("button", { type: "button", class: "btn btn-primary", onclick: () => onNominate(speaker, can ? "nominate" : "endTurn", can ? { target: null } : {}) }, t("device.noAccusation")),
    ),
  );
}

export function publicPhase(view) {
  return h("section", { class: "device-screen device-public", id: "device-public" }, h("h1", null, phaseTitle(view.phase.kind)), roster(view));
}

// The device's deal check, kept across redraws of its end screen (screens/end.js fairDealBlock).
const deviceDeal = newDeal();

/** How a seat left the game, from the result's `diedBy` and `diedDay`. */
function deviceFate(p) {
  if (!p.diedDay) return t("player.dead");
  return t(isNightDeath(p.diedBy) ? "end.diedNight" : "end.died", { n: p.diedDay });
}

/** The end: the winner and why, every role (the public result), the last news and the fair
 * deal, as the online end screen shows them (web/js/screens/end.js). */
export function end(view, { onAgain, onFinish }) {
  const r = view.result || {};
  const winner = (view.events || []).filter((ev) => ev.kind === "end").pop() || { kind: "end", winner: r.winner };
  // the whole story, from night 1's first death to the last vote (#48: the last three left
  // out a night-1 death and a day-1 exit)
  const last = (view.events || []).filter((ev) => !["morning", "end", "paused", "resumed"].includes(ev.kind));
  return h(
    "section",
    { class: "device-screen device-public", id: "device-end", "data-winner": r.winner || "" },
    h("h1", { id: "device-winner" }, eventText(view, winner).text),
    h("p", { class: "end-cause", id: "device-cause" }, causeText(r, view.preset)),
    last.length ? eventList(view, last) : null,
    h("h2", null, t("device.endRoles")),
    h(
      "ul",
      { class: "end-roles", id: "device-roles" },
      (r.players || []).map((p) =>
        h(
          "li",
          { class: `end-player${p.won ? " won" : ""}${p.alive ? "" : " dead"}`, "data-pid": p.id, "data-role": p.role },
          h("span", { class: "pname" }, playerName(view, p.id)),
          h("span", { class: "end-role" }, roleName(p.role, view.preset)),
          h(
            "span",
            { class: "end-fate" },
            // how each left (killed at night, or out by day: a vote, a leave) and every seat's
            // result word, won or lost, as the online end screen words them (#48)
            [p.alive ? t("device.fate.alive") : deviceFate(p), fateWord(r.winner, p.won)]
              .filter(Boolean)
              .join(" · "),
          ),
        ),
      ),
    ),
    fairDealBlock(view, deviceDeal),
    h(
      "div",
      { class: "row end-actions" },
      h("button", { type: "button", class: "btn btn-primary", id: "device-again", onclick: onAgain }, t("device.again")),
      h("button", { type: "button", class: "btn", id: "device-finish", onclick: onFinish }, t("device.finish")),
    ),
  );
}
