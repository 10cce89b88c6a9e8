// One small renderer per phase kind: the banner's sub-line, the action panel, and what a
// tap on a player does. What a player may do comes from `private.task` (the same field for
// every role), so a phase kind we do not know still works through the generic renderer:
// it shows the task sentence, lets the player pick from private.targets (the task name is
// the action name) and offers the buttons of the tasks it knows (ready, endTurn, ...).
import { h } from "../dom.js";
import { has, t } from "../i18n.js";
import { isNight, playerName } from "./format.js";
import { roleCardBody } from "./overlays.js";
import { voteBars } from "./votes.js";
import { lastWordPhase } from "./lastword.js";

/** Per-phase memory that is not in the view (e.g. "I pressed ready early"). */
const local = { key: null, readyEarly: false, revealed: false, pick: undefined };

function localFor(view) {
  const key = `${view.phase.kind}:${view.phase.seq}:${view.day}`;
  if (local.key !== key) Object.assign(local, { key, readyEarly: false, pick: undefined });
  return local;
}

const priv = (view) => view.private || {};
const task = (view) => priv(view).task || "none";
const alive = (view) => Boolean(view.you && view.you.alive !== false);
const names = (view, ids) => (ids || []).map((id) => playerName(view, id)).join(", ");

function accusedOf(view) {
  const p = view.phase || {};
  return p.accused ?? (Array.isArray(p.suspects) && p.suspects.length === 1 ? p.suspects[0] : null);
}

function hint(text) {
  return h("p", { class: "hint phase-hint", id: "phase-hint" }, text);
}

/** A second line under the hint (what the others may do, how the phase ends). */
function hint2(text, id = "phase-hint-more") {
  return h("p", { class: "hint", id }, text);
}

function button(label, onclick, opts = {}) {
  return h(
    "button",
    {
      type: "button",
      class: `btn ${opts.primary ? "btn-primary" : ""} ${opts.cls || ""}`,
      onclick,
      disabled: opts.disabled,
      "aria-pressed": opts.pressed === undefined ? null : String(opts.pressed),
      "data-key": opts.key,
      id: opts.id,
    },
    label,
  );
}

/** Send an action and remember the choice until the next view says what the server took. */
function act(view, ctx, action, payload = {}, pick = undefined) {
  if (pick !== undefined) localFor(view).pick = pick;
  // bound to this view's phase: a second tap after the game moved on is refused `stale_phase`
  const seq = view.phase && typeof view.phase.seq === "number" ? view.phase.seq : undefined;
  ctx.send(action, seq === undefined ? payload : { ...payload, phase: seq });
  ctx.rerender();
}

function currentChoice(view) {
  const p = priv(view);
  if (p.choice !== undefined && p.choice !== null) return p.choice;
  const mem = localFor(view);
  return mem.pick === undefined ? null : mem.pick;
}

// ---------------------------------------------------------------- the night box
/** A mafioso whose rules give the mafia no night chat is told so (docs/rulebooks/001-city.txt «Ночь»). */
function noNightChat(view) {
  const you = view.you;
  if (!you || you.team !== "mafia" || !alive(view)) return null;
  const write = (view.channels && view.channels.write) || [];
  const read = (view.channels && view.channels.read) || [];
  if (write.includes("mafia") || read.includes("mafia")) return null;
  return h("p", { class: "hint", id: "no-night-chat" }, t("task.noMafiaChat"));
}

/** The one night box every role sees: a sentence, a choice line, at most one button. */
function taskBox(view, ctx) {
  const tk = task(view);
  let sentence;
  if (!view.you) sentence = t("hint.watch");
  else if (!alive(view)) sentence = t("task.dead");
  else sentence = has(`task.${tk}`) ? t(`task.${tk}`) : t("task.other");
  const targets = priv(view).targets || [];
  const me = view.you && view.you.id;
  const team = priv(view).teamChoices || {};
  const shared = Object.keys(team).length > 0; // a team picks together (the mafia)
  // "Your choice" is this player's own pick only; the team's picks go on their own line.
  let choice = currentChoice(view);
  if (shared) choice = team[me] ?? (localFor(view).pick === undefined ? null : localFor(view).pick);
  let choiceLine = "\u00a0"; // keep the line's height for everyone
  if (targets.length || (tk === "done" && choice)) {
    choiceLine = choice ? t("task.choice", { name: playerName(view, choice) }) : t("task.noChoice");
  }
  const mates = Object.entries(team).filter(([who, target]) => who !== me && target);
  let teamLine = "\u00a0";
  if (mates.length) {
    teamLine = t("task.teamPicks", {
      picks: mates.map(([who, target]) => t("task.pickOf", { who: playerName(view, who), name: playerName(view, target) })).join(", "),
    });
  }
  // Rulebooks where everyone confirms the night (view.rules.confirmLocks): one button for
  // every role, "sleep" for those without a night action and "skip" for the others.
  let confirm = null;
  if (view.rules.confirmLocks && alive(view) && tk !== "done" && tk !== "none") {
    confirm = button(t(tk === "sleep" ? "act.sleep" : "act.skip"), () => act(view, ctx, "sleep"), {
      id: "sleep-btn",
      key: "sleep",
    });
  }
  return h(
    "div",
    { class: "task-box", id: "task-box" },
    h("p", { class: "task-text", id: "task-text" }, sentence),
    h("p", { class: "task-choice", id: "task-choice" }, choiceLine),
    h("p", { class: "task-choice task-team", id: "task-team" }, teamLine),
    noNightChat(view),
    confirm,
  );
}

/** Tap on a target: the task name is the action name (investigate, heal, nominate, ...). */
function taskPick(view, ctx, pid) {
  const tk = task(view);
  if (["none", "sleep", "done", "ready"].includes(tk)) return;
  const current = currentChoice(view);
  // Where the rules allow it, tapping the mafia's current target again withdraws it (no victim).
  const target = tk === "mafiaTarget" && view.rules.canWithdraw && current === pid ? null : pid;
  localFor(view).pick = target;
  ctx.send(tk, { target });
}

// ---------------------------------------------------------------- day controls
function readyButton(view, ctx, label = "act.readyEarly") {
  const mem = localFor(view);
  const done = mem.readyEarly || task(view) === "done" || (view.phase.readyEarly || []).includes(view.you.id);
  return button(
    t(done ? "act.readyEarlyDone" : label),
    () => {
      mem.readyEarly = true;
      act(view, ctx, "readyEarly");
    },
    { disabled: done, key: "readyEarly", id: "ready-early-btn" },
  );
}

/** "3 of 7 ready to vote", where the rules make the count public (phase.readyCount). */
function readyCount(view) {
  const n = view.phase.readyCount;
  if (typeof n !== "number") return null;
  const total = (view.players || []).filter((p) => p.alive !== false).length;
  return h("p", { class: "hint ready-count", id: "ready-count" }, t("votes.readyCount", { n, total }));
}

/** Who used ±15 s today: public (docs/rulebooks/000-classic.txt §5.2), shown to everyone. */
function adjustedLine(view) {
  const who = view.phase.adjustedBy || [];
  if (!who.length) return null;
  return h("p", { class: "hint", id: "adjusted-by" }, t("act.adjustedBy", { names: names(view, who) }));
}

function timeButtons(view, ctx) {
  if (!view.options || view.options.timeAdjust !== true) return null;
  const adjusted = (view.phase.adjustedBy || []).includes(view.you.id);
  return h(
    "div",
    { class: "row time-row" },
    button(t("act.plus15"), () => act(view, ctx, "adjustTime", { delta: 15 }), { disabled: adjusted, key: "plus15", id: "plus15-btn" }),
    button(t("act.minus15"), () => act(view, ctx, "adjustTime", { delta: -15 }), { disabled: adjusted, key: "minus15", id: "minus15-btn" }),
    adjusted ? h("span", { class: "hint" }, t("act.timeUsed")) : null,
  );
}

function yesNo(view, ctx, yesKey, noKey) {
  const mine = currentChoice(view);
  const pick = (choice) => () => act(view, ctx, "confirm", { choice }, choice);
  return h(
    "div",
    { class: "yes-no-wrap" },
    h(
      "div",
      { class: "row yes-no" },
      button(t(yesKey), pick("yes"), { pressed: mine === "yes", cls: "btn-yes", key: "yes", id: "yes-btn" }),
      button(t(noKey), pick("no"), { pressed: mine === "no", cls: "btn-no", key: "no", id: "no-btn" }),
    ),
    mine === "yes" || mine === "no"
      ? h("p", { class: "my-vote", id: "my-vote" }, t("act.voted", { name: t(mine === "yes" ? yesKey : noKey) }))
      : null,
  );
}

/** Buttons for the day tasks any preset may hand out. */
function taskControls(view, ctx) {
  if (!alive(view)) return null;
  switch (task(view)) {
    case "ready":
      return readyButton(view, ctx, "act.ready");
    case "done":
      return h("p", { class: "hint", id: "task-done" }, t("hint.done"));
    case "endTurn":
      return button(t("act.endTurn"), () => act(view, ctx, "endTurn"), { id: "end-turn-btn", key: "endTurn", primary: true });
    case "nominate":
      // Day 1 of the original rules has no nominations: the speaker just ends the turn.
      if (!(priv(view).targets || []).length) {
        return button(t("act.endTurn"), () => act(view, ctx, "endTurn"), { id: "end-turn-btn", key: "endTurn", primary: true });
      }
      return button(t("act.noNomination"), () => act(view, ctx, "nominate", { target: null }), { id: "no-nomination-btn", key: "nominate" });
    case "confirm":
      return view.phase.kind === "allOrNone" ? yesNo(view, ctx, "act.yesAll", "act.noAll") : yesNo(view, ctx, "act.yes", "act.no");
    default:
      return null;
  }
}

function deadOrWatch(view) {
  return hint(view.you ? t("role.dead") : t("hint.watch"));
}

// ---------------------------------------------------------------- renderers
const SUSPECTS_NAMED = 2; // more suspects than this: the banner counts them

/** Every suspect by name, folded, where the banner only counts them. */
function suspectsList(view) {
  const s = view.phase.suspects;
  if (!Array.isArray(s) || s.length <= SUSPECTS_NAMED) return null;
  return h(
    "details",
    { class: "suspects-list", id: "suspects-list" },
    h("summary", null, t("defense.allSuspects", { n: s.length })),
    h("p", null, names(view, s)),
  );
}

const suspectsSub = (view) => {
  const s = view.phase.suspects;
  // many suspects (original, 10-14 seats): a count, so the sticky banner stays one line over
  // the tiles; the panel names them all behind a disclosure (suspectsList)
  if (Array.isArray(s) && s.length > SUSPECTS_NAMED) return t("banner.suspectsMany", { n: s.length });
  if (Array.isArray(s) && s.length > 1) return t("banner.suspects", { names: names(view, s) });
  const a = accusedOf(view);
  return a ? t("banner.accused", { name: playerName(view, a) }) : "";
};

const PHASES = {
  roleReveal: {
    panel(view, ctx) {
      const card = h(
        "section",
        { class: `role-card inline${local.revealed ? " revealed" : ""}`, "aria-labelledby": "inline-role-title" },
        h("h2", { id: "inline-role-title", class: "role-card-title" }, t("role.card.title")),
      );
      if (local.revealed) card.append(...roleCardBody(view).filter(Boolean));
      else {
        card.append(
          h(
            "button",
            {
              type: "button",
              class: "btn btn-primary role-tap",
              id: "reveal-role-btn",
              onclick: () => {
                local.revealed = true;
                // The reveal ends once everyone has seen their card (the server never says who has).
                if (task(view) === "ready") ctx.send("seenRole", {});
                ctx.rerender();
                const section = document.getElementById("inline-role-title")?.parentElement;
                if (section) {
                  section.setAttribute("tabindex", "-1");
                  section.focus();
                }
              },
            },
            t("role.card.tap"),
          ),
          h("p", { class: "hint" }, t("role.card.tapHint")),
        );
      }
      return [hint(t("hint.roleReveal")), view.you ? card : null, taskControls(view, ctx)];
    },
  },
  greeting: {
    panel(view, ctx) {
      // No "end discussion" here: the greeting is a fixed minute and `readyEarly` belongs to the
      // discussion alone (docs/rulebooks/000-classic.txt §5.1 and its action table; docs/rules.md,
      // classic).
      return [hint(t("hint.greeting")), hint2(t("hint.greetingEnds"))];
    },
  },
  discussion: {
    panel(view, ctx) {
      if (!alive(view)) return [deadOrWatch(view), adjustedLine(view), readyCount(view)];
      return [hint(t("hint.discussion")), timeButtons(view, ctx), readyButton(view, ctx), readyCount(view), adjustedLine(view)];
    },
  },
  vote: {
    sub: (view) => (Array.isArray(view.phase.candidates) && view.phase.round > 1 ? t("banner.suspects", { names: names(view, view.phase.candidates) }) : ""),
    panel(view, ctx) {
      const mine = currentChoice(view);
      const tk = task(view);
      const can = alive(view) && tk === "vote";
      // Some rulebooks have no abstention (a missing vote counts for the last suspect).
      const abstain = view.rules.canAbstain;
      let text;
      if (can) text = abstain ? t("hint.vote") : t("hint.voteSuspect");
      else if (tk === "done") text = t("hint.done");
      else text = view.you && !alive(view) ? t("role.dead") : t("hint.watch");
      return [
        hint(text),
        can || tk === "done"
          ? h(
              "div",
              { class: "row" },
              can && abstain
                ? button(t("act.abstain"), () => act(view, ctx, "vote", { target: "abstain" }, "abstain"), {
                    pressed: mine === "abstain",
                    key: "abstain",
                    id: "abstain-btn",
                  })
                : null,
              mine ? h("span", { class: "my-vote", id: "my-vote" }, t("act.voted", { name: mine === "abstain" ? t("act.abstain") : playerName(view, mine) })) : null,
            )
          : null,
        voteBars(view),
      ];
    },
    pick(view, ctx, pid) {
      localFor(view).pick = pid;
      ctx.send("vote", { target: pid });
    },
  },
  defense: {
    sub: suspectsSub,
    panel(view, ctx) {
      const me = view.you && view.you.id;
      const suspects = Array.isArray(view.phase.suspects) ? view.phase.suspects : [accusedOf(view)].filter(Boolean);
      const speaking = view.phase.accused ?? null;
      let text;
      if (suspects.length > 1 && speaking) {
        // Several suspects speak in turn (original): say who speaks now and what the others may do.
        if (speaking === me) text = t("hint.defenseYouNow");
        else if (suspects.includes(me)) text = t("hint.defenseWaiting", { name: playerName(view, speaking) });
        else text = t("hint.defenseNow", { name: playerName(view, speaking) });
      } else if (suspects.includes(me)) text = t("hint.defenseYou");
      else if (suspects.length > 1) text = t("hint.defenseMany", { names: names(view, suspects) });
      else text = t("hint.defense", { name: playerName(view, suspects[0]) });
      return [hint(text), suspectsList(view), taskControls(view, ctx), voteBars(view)];
    },
  },
  confirm: {
    sub: suspectsSub,
    panel(view, ctx) {
      const accused = accusedOf(view);
      const me = view.you && view.you.id;
      if (accused === me) return [hint(t("hint.confirmAccused")), voteBars(view, "nomination")];
      return [
        hint(t("hint.confirm", { name: playerName(view, accused) })),
        alive(view) ? yesNo(view, ctx, "act.yes", "act.no") : null,
        voteBars(view, "nomination"),
      ];
    },
  },
  night: {
    panel: (view, ctx) => [taskBox(view, ctx)],
    pick: taskPick,
  },
  speech: {
    sub: (view) => (view.phase.speaker ? t("banner.speaker", { name: playerName(view, view.phase.speaker) }) : ""),
    panel(view, ctx) {
      const mine = view.you && view.phase.speaker === view.you.id;
      const noms = (view.phase.nominations || []).map((n) => n.target ?? n).filter((x) => typeof x === "string");
      return [
        hint(mine ? t("hint.speechYou") : t("hint.speech", { name: playerName(view, view.phase.speaker) })),
        taskControls(view, ctx),
        noms.length ? h("p", { class: "hint", id: "nominations" }, t("banner.suspects", { names: names(view, noms) })) : null,
      ];
    },
    pick: taskPick,
  },
  allOrNone: {
    sub: suspectsSub,
    panel(view, ctx) {
      return [
        hint(t("hint.allOrNone", { names: names(view, view.phase.suspects) })),
        taskControls(view, ctx),
        voteBars(view),
      ];
    },
  },
};

PHASES.lastWord = lastWordPhase({ hint, button, act });

const GENERIC = {
  sub: suspectsSub,
  panel(view, ctx) {
    const tk = task(view);
    const acting = (priv(view).targets || []).length > 0 && !["vote", "nominate"].includes(tk);
    if (isNight(view.phase.kind) || acting) return [taskBox(view, ctx), voteBars(view)];
    return [hint(t("hint.unknown")), taskControls(view, ctx), voteBars(view)];
  },
  pick: taskPick,
};

export function phaseRenderer(kind) {
  return PHASES[kind] || GENERIC;
}

/** Has this player opened their role card yet (the tap, or "my role")? */
export function roleSeen() {
  return local.revealed;
}

export function markRoleSeen() {
  local.revealed = true;
}

/** Forget the revealed role card and choices (a new game or a new room). */
export function resetPhaseMemory() {
  Object.assign(local, { key: null, readyEarly: false, revealed: false, pick: undefined });
}
