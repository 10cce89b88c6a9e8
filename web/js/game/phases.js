// One small renderer per phase kind: the banner's sub-line, the action panel, and what a
// tap on a player does. A kind we do not know falls back to a generic renderer that
// still shows the private task and lets the player pick from private.targets.
import { h } from "../dom.js";
import { has, t } from "../i18n.js";
import { isNight, playerName } from "./format.js";
import { roleCardBody } from "./overlays.js";
import { voteBars } from "./votes.js";

/** Per-phase memory that is not in the view (e.g. "I pressed ready early"). */
const local = { key: null, readyEarly: false, revealed: false, pick: undefined };

function localFor(view) {
  const key = `${view.phase.kind}:${view.phase.seq}:${view.day}`;
  if (local.key !== key) Object.assign(local, { key, readyEarly: false, pick: undefined });
  return local;
}

function alive(view) {
  return Boolean(view.you && view.you.alive !== false);
}

function accusedOf(view) {
  const p = view.phase || {};
  return p.accused ?? (Array.isArray(p.suspects) && p.suspects.length === 1 ? p.suspects[0] : null);
}

function hint(text) {
  return h("p", { class: "hint phase-hint" }, text);
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

/** The one night box every role sees: a sentence, a choice line, nothing else. */
function taskBox(view) {
  const priv = view.private || {};
  const task = priv.task || "none";
  let sentence;
  if (!view.you) sentence = t("hint.watch");
  else if (!alive(view)) sentence = t("task.dead");
  else if (task === "sleep" || task === "none") sentence = t(`task.${task}`);
  else sentence = has(`task.${task}`) ? t(`task.${task}`) : t("task.other");
  const acts = Array.isArray(priv.targets) && priv.targets.length > 0;
  const choice = priv.choice ?? localFor(view).pick ?? null;
  let choiceLine = "\u00a0"; // keep the line's height for everyone
  if (acts) choiceLine = choice ? t("task.choice", { name: playerName(view, choice) }) : t("task.noChoice");
  return h(
    "div",
    { class: "task-box", id: "task-box" },
    h("p", { class: "task-text", id: "task-text" }, sentence),
    h("p", { class: "task-choice", id: "task-choice" }, choiceLine),
  );
}

/** Tap on a target during a task: the task name is the action name (investigate, heal, ...). */
function taskPick(view, ctx, pid) {
  const priv = view.private || {};
  const task = priv.task;
  if (!task || task === "sleep" || task === "none") return;
  const current = priv.choice ?? localFor(view).pick ?? null;
  // Tapping the mafia's current target again withdraws it (no victim).
  const target = task === "mafiaTarget" && current === pid ? null : pid;
  localFor(view).pick = target;
  ctx.send(task, { target });
}

/** Who used ±15 s today: public (seed 000 §5.2), shown to everyone. */
function adjustedLine(view) {
  const who = view.phase.adjustedBy || [];
  if (!who.length) return null;
  return h("p", { class: "hint", id: "adjusted-by" }, t("act.adjustedBy", { names: who.map((id) => playerName(view, id)).join(", ") }));
}

function timeButtons(view, ctx) {
  const adjusted = (view.phase.adjustedBy || []).includes(view.you.id);
  if (view.options && view.options.timeAdjust === false) return null;
  return h(
    "div",
    { class: "row time-row" },
    button(t("act.plus15"), () => ctx.send("adjustTime", { delta: 15 }), { disabled: adjusted, key: "plus15", id: "plus15-btn" }),
    button(t("act.minus15"), () => ctx.send("adjustTime", { delta: -15 }), { disabled: adjusted, key: "minus15", id: "minus15-btn" }),
    adjusted ? h("span", { class: "hint" }, t("act.timeUsed")) : null,
  );
}

function readyEarlyButton(view, ctx) {
  const mem = localFor(view);
  const done = mem.readyEarly || (view.phase.readyEarly || []).includes(view.you.id);
  return button(
    t(done ? "act.readyEarlyDone" : "act.readyEarly"),
    () => {
      mem.readyEarly = true;
      ctx.send("readyEarly");
      ctx.rerender();
    },
    { disabled: done, key: "readyEarly", id: "ready-early-btn" },
  );
}

function myVote(view) {
  const priv = view.private || {};
  if (priv.choice !== undefined && priv.choice !== null) return priv.choice;
  const mem = localFor(view);
  if (mem.pick !== undefined) return mem.pick;
  return null;
}

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
                ctx.rerender();
                const title = document.getElementById("inline-role-title");
                if (title) title.parentElement.setAttribute("tabindex", "-1"), title.parentElement.focus();
              },
            },
            t("role.card.tap"),
          ),
          h("p", { class: "hint" }, t("role.card.tapHint")),
        );
      }
      return [hint(t("hint.roleReveal")), view.you ? card : null];
    },
  },
  greeting: {
    panel(view, ctx) {
      return [hint(t("hint.greeting")), alive(view) ? readyEarlyButton(view, ctx) : null];
    },
  },
  discussion: {
    panel(view, ctx) {
      if (!alive(view)) return [hint(view.you ? t("role.dead") : t("hint.watch")), adjustedLine(view)];
      return [hint(t("hint.discussion")), timeButtons(view, ctx), readyEarlyButton(view, ctx), adjustedLine(view)];
    },
  },
  vote: {
    panel(view, ctx) {
      const mine = myVote(view);
      const can = alive(view) && ((view.private && view.private.targets) || []).length > 0;
      return [
        hint(can ? t("hint.vote") : view.you && !alive(view) ? t("role.dead") : t("hint.watch")),
        can
          ? h(
              "div",
              { class: "row" },
              button(
                t("act.abstain"),
                () => {
                  localFor(view).pick = "abstain";
                  ctx.send("vote", { target: "abstain" });
                  ctx.rerender();
                },
                { pressed: mine === "abstain", key: "abstain", id: "abstain-btn" },
              ),
              mine ? h("span", { class: "my-vote" }, t("act.voted", { name: mine === "abstain" ? t("act.abstain") : playerName(view, mine) })) : null,
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
    sub: (view) => accusedOf(view) && t("banner.accused", { name: playerName(view, accusedOf(view)) }),
    panel(view) {
      const accused = accusedOf(view);
      const me = view.you && view.you.id;
      return [
        hint(accused === me ? t("hint.defenseYou") : t("hint.defense", { name: playerName(view, accused) })),
        voteBars(view, "nomination"),
      ];
    },
  },
  confirm: {
    sub: (view) => accusedOf(view) && t("banner.accused", { name: playerName(view, accusedOf(view)) }),
    panel(view, ctx) {
      const accused = accusedOf(view);
      const me = view.you && view.you.id;
      if (accused === me) return [hint(t("hint.confirmAccused")), voteBars(view, "nomination")];
      const mine = myVote(view);
      const can = alive(view);
      const pick = (choice) => () => {
        localFor(view).pick = choice;
        ctx.send("confirm", { choice });
        ctx.rerender();
      };
      return [
        hint(t("hint.confirm", { name: playerName(view, accused) })),
        can
          ? h(
              "div",
              { class: "row yes-no" },
              button(t("act.yes"), pick("yes"), { pressed: mine === "yes", cls: "btn-yes", key: "yes", id: "yes-btn" }),
              button(t("act.no"), pick("no"), { pressed: mine === "no", cls: "btn-no", key: "no", id: "no-btn" }),
            )
          : null,
        voteBars(view, "nomination"),
      ];
    },
  },
  night: {
    panel: (view) => [taskBox(view)],
    pick: taskPick,
  },
};

const GENERIC = {
  sub: (view) => accusedOf(view) && t("banner.accused", { name: playerName(view, accusedOf(view)) }),
  panel(view) {
    const priv = view.private || {};
    const acting = priv.task && !["sleep", "none"].includes(priv.task);
    if (isNight(view.phase.kind) || acting) return [taskBox(view), voteBars(view)];
    return [hint(t("hint.unknown")), voteBars(view)];
  },
  pick: taskPick,
};

export function phaseRenderer(kind) {
  return PHASES[kind] || GENERIC;
}

/** Forget the revealed role card (a new game or a new room). */
export function resetPhaseMemory() {
  Object.assign(local, { key: null, readyEarly: false, revealed: false, pick: undefined });
}
