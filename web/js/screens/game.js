// The game screen: phase banner with countdown, player grid, chat, action panel.
// Desktop puts the three panels side by side; a phone stacks them.
import { secondsLeft } from "../clock.js";
import { h, replaceChildren } from "../dom.js";
import { errorText, roleName, t } from "../i18n.js";
import { eventText, eventWhen, isNight, lineNo, phaseTitle, playerName, resultIsBad, resultMark, resultsByTarget, resultText, revealedBadge } from "../game/format.js";
import { phaseRenderer, roleSeen } from "../game/phases.js";
import { logWithResults, resultsBox } from "../game/results.js";
import { votesFor } from "../game/votes.js";
import { takeHostButton } from "./lobby.js";
import { withoutMuted } from "../game/mute.js";
import { lineReportButton } from "../game/report.js";
import { seatTools } from "../game/seat-tools.js";

export function mount(root, ctx) {
  const dayLabel = h("p", { class: "day-label", id: "day-label" });
  const title = h("h1", { class: "phase-title", id: "phase-title" });
  const sub = h("p", { class: "phase-sub", id: "phase-sub" });
  const countdown = h("p", { class: "countdown", id: "countdown", role: "timer", "aria-label": t("banner.timeLeft") });
  const banner = h(
    "section",
    { class: "phase-banner", id: "phase-banner", "aria-labelledby": "phase-title" },
    h("div", { class: "phase-words" }, dayLabel, title, sub),
    countdown,
    // Announcements go here, under the title and the clock, inside the sticky banner: a
    // player scrolled down to the chat still sees them, and nothing of the game is covered.
    h("div", { class: "event-slot", id: "event-slot" }),
  );
  const grid = h("ul", { class: "player-grid", id: "player-grid", "aria-labelledby": "players-title" });
  const actions = h("div", { class: "actions-body", id: "actions" });
  const chat = chatPanel(ctx);

  root.append(
    h(
      "div",
      { class: "game" },
      banner,
      h(
        "div",
        { class: "game-cols" },
        h(
          "section",
          { class: "panel players-panel", "aria-labelledby": "players-title" },
          h("h2", { class: "panel-title", id: "players-title" }, t("players.title")),
          grid,
        ),
        // DOM order = phone order (players, what to do, chat) so focus follows the screen;
        // the desktop grid puts the chat in the middle column.
        h(
          "section",
          { class: "panel actions-panel", "aria-labelledby": "actions-title" },
          h("h2", { class: "sr-only", id: "actions-title" }, t("actions.title")),
          actions,
        ),
        chat.el,
      ),
    ),
  );

  let view = null;

  function drawCountdown() {
    if (!view) return;
    const left = secondsLeft(view.phase.endsAt);
    if (left === null) {
      countdown.textContent = "";
      countdown.hidden = true;
      return;
    }
    countdown.hidden = false;
    const s = Math.ceil(left);
    countdown.textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
    countdown.classList.toggle("urgent", s <= 5);
  }

  function update(next) {
    view = next;
    const kind = view.phase.kind;
    const renderer = phaseRenderer(kind);
    const night = isNight(kind);
    banner.dataset.tone = night ? "night" : "day";
    banner.dataset.kind = kind;
    dayLabel.textContent = view.day ? t(night ? "banner.night" : "banner.day", { n: view.day }) : "";
    title.textContent = phaseTitle(kind);
    sub.textContent = view.paused ? t("banner.paused") : (renderer.sub && renderer.sub(view)) || "";
    sub.hidden = !sub.textContent;
    banner.classList.toggle("paused", Boolean(view.paused));
    drawCountdown();
    drawGrid(renderer);
    replaceChildren(actions, ...renderer.panel(view, ctx).filter(Boolean), resultsBox(view), hostTools(view), takeHostButton(ctx, view), seatTools(view, ctx));
    chat.update(view);
    const phaseKey = `${kind}:${view.phase.seq}`;
    if (phaseKey !== shownPhase) {
      shownPhase = phaseKey;
      bringChoiceIntoView();
    }
  }

  // A phase that asks this player for a choice brings it into view: on a small phone the
  // player may be scrolled down at the chat when the vote starts, and the sticky banner
  // would cover the hint. The tiles to tap, else the yes/no buttons, under the banner.
  let shownPhase = null;
  function bringChoiceIntoView() {
    const target = grid.querySelector(".tile.selectable") ? grid : actions.querySelector("#yes-btn, #end-turn-btn, #no-nomination-btn");
    if (!target) return;
    const top = banner.getBoundingClientRect().bottom;
    const box = target.getBoundingClientRect();
    if (box.top >= top && box.bottom <= window.innerHeight) return; // already in view
    const panel = target === grid ? grid.closest(".players-panel") : target;
    window.scrollBy({ top: panel.getBoundingClientRect().top - top - 8, behavior: "instant" });
  }

  // Host tools: pause / resume / end the game (the second tap ends it) / remove a player
  // (the second tap on the same name sends `kick`, which the server applies as the engine's
  // `remove`: the character leaves the game, the whole table sees "removed by the host").
  let endArmed = false;
  let removeArmed = null;
  let toolsOpen = false;
  function hostTools(view) {
    if (!view.you || !view.room || view.room.host !== view.you.id) return null;
    const others = (view.players || []).filter((p) => p.id !== view.you.id && p.alive !== false);
    if (removeArmed && !others.some((p) => p.id === removeArmed)) removeArmed = null;
    const removals = others.map((p) =>
      h(
        "button",
        {
          type: "button",
          class: `btn ${removeArmed === p.id ? "btn-yes" : ""}`,
          "data-key": `remove-${p.id}`,
          "data-pid": p.id,
          onclick: () => {
            if (removeArmed === p.id) {
              ctx.send("kick", { target: p.id });
              removeArmed = null;
            } else {
              removeArmed = p.id;
            }
            endArmed = false;
            ctx.rerender();
          },
        },
        t(removeArmed === p.id ? "host.removeSure" : "host.remove", { name: p.name }),
      ),
    );
    const end = h(
      "button",
      {
        type: "button",
        class: `btn ${endArmed ? "btn-yes" : ""}`,
        id: "end-game-btn",
        "data-key": "endGame",
        onclick: () => {
          if (endArmed) ctx.send("endGame");
          endArmed = !endArmed;
          removeArmed = null;
          ctx.rerender();
        },
      },
      t(endArmed ? "act.endGameSure" : "act.endGame"),
    );
    return h(
      "details",
      {
        class: "host-tools",
        id: "host-tools",
        open: toolsOpen || endArmed || removeArmed || view.paused ? true : null,
        ontoggle: (e) => (toolsOpen = e.target.open),
      },
      h("summary", null, t("host.controls")),
      h(
        "div",
        { class: "row" },
        view.paused
          ? h("button", { type: "button", class: "btn btn-primary", id: "resume-btn", "data-key": "resume", onclick: () => ctx.send("resume") }, t("act.resume"))
          : h("button", { type: "button", class: "btn", id: "pause-btn", "data-key": "pause", onclick: () => ctx.send("pause") }, t("act.pause")),
        end,
      ),
      removals.length
        ? h(
            "div",
            { class: "host-remove", id: "host-remove", role: "group", "aria-label": t("host.removeTitle") },
            h("p", { class: "host-remove-title" }, t("host.removeTitle")),
            h("div", { class: "row" }, ...removals),
          )
        : null,
    );
  }

  function drawGrid(renderer) {
    const me = view.you && view.you.id;
    const priv = view.private || {};
    const targets = new Set(Array.isArray(priv.targets) ? priv.targets : []);
    const pick = renderer.pick;
    const choice = priv.choice ?? null;
    // Tally badges belong to today's vote: gone as soon as night falls.
    const counts = isNight(view.phase.kind) ? {} : votesFor(view);
    const teamPicks = {};
    // Before the player has tapped "see your role", the grid shows nothing secret either
    // (no team-mates' badges): someone may be looking over their shoulder.
    const secretsOk = view.phase.kind !== "roleReveal" || roleSeen();
    for (const [who, target] of Object.entries(secretsOk ? priv.teamChoices || {} : {})) {
      if (target) (teamPicks[target] ||= []).push(playerName(view, who));
    }
    const accused = view.phase.accused ?? null;
    const checked = resultsByTarget(view);
    replaceChildren(
      grid,
      ...(view.players || []).map((p) => {
        const selectable = Boolean(pick) && targets.has(p.id);
        const dead = p.alive === false;
        const status = [];
        if (p.id === me) status.push(t("player.you"));
        if (dead) status.push(t("player.dead"));
        if (p.connected === false && !dead && !p.bot) status.push(t("player.offline"));
        if (p.bot) status.push(t("player.bot"));
        // A public reveal, else what this viewer alone knows (mafia mates, the other lover).
        const known = secretsOk && p.role && p.id !== me ? p.role : null;
        const badge = revealedBadge(view, p.revealed) || (known ? roleName(known, view.preset) : "");
        const classes = ["tile"];
        if (dead) classes.push("dead");
        if (selectable) classes.push("selectable");
        if (choice === p.id) classes.push("chosen");
        if (p.id === me) classes.push("me");
        if (p.id === accused) classes.push("accused");
        const shownRole = (p.revealed && p.revealed.role) || known;
        if ((p.revealed && p.revealed.team === "mafia") || ["mafia", "godfather"].includes(shownRole)) classes.push("rev-mafia");
        // This player's own finding about p ("checked: mafia"), for the rest of the game.
        const found = checked[p.id];
        const mark = found ? t("mark.line", { result: resultMark(view, found) }) : "";
        if (found) classes.push("checked");
        // The tile's name is its own visible text (no aria-label: a label that words it
        // otherwise fails "label in name", WCAG 2.5.3), the parts kept apart for a screen reader.
        const sep = () => h("span", { class: "sr-only" }, ", ");
        return h(
          "li",
          null,
          h(
            "button",
            {
              type: "button",
              class: classes.join(" "),
              "data-key": `tile-${p.id}`,
              "data-pid": p.id,
              title: p.name,
              disabled: !selectable,
              "aria-pressed": selectable ? String(choice === p.id) : null,
              onclick: selectable ? () => {
                pick(view, ctx, p.id);
                ctx.rerender();
              } : null,
            },
            h("span", { class: "tile-seat", "aria-hidden": "true" }, p.seat ?? ""),
            // A long name gets smaller letters and up to two lines rather than an ellipsis; so does
            // one of several words (an anonymous game's alias, "황금빛 스라소니"), broken between them.
            h("span", { class: `tile-name${[...(p.name || "")].length > 8 || (p.alias && /\s/.test(p.name || "")) ? " long" : ""}`, title: p.name }, p.name),
            status.length || badge ? sep() : null,
            h("span", { class: "tile-status" }, [status.join(" · "), status.length && badge ? sep() : null, badge ? h("span", { class: "tile-badge" }, badge) : null]),
            found ? sep() : null,
            found
              ? h("span", { class: `tile-check${resultIsBad(found) ? " bad" : ""}`, title: resultText(view, found) }, mark)
              : null,
            selectable ? h("span", { class: "sr-only" }, ", " + t("a11y.tileChoose")) : null,
            counts[p.id] ? h("span", { class: "tile-votes", "aria-hidden": "true" }, String(counts[p.id])) : null,
            teamPicks[p.id] ? h("span", { class: "tile-team", title: teamPicks[p.id].join(", "), "aria-hidden": "true" }) : null,
          ),
        );
      }),
    );
  }

  return { update, tick: drawCountdown, destroy() {} };
}

// Chat: one tab per channel this player may read, input only where they may write.
function chatPanel(ctx) {
  let active = null;
  let lastPhase = null;
  // One draft per channel: the input always holds the active tab's draft, so text typed in
  // one tab (the mafia's, at night) is never sent to another one the screen switched to (the
  // day chat, at dawn), and it is back when its tab is chosen again.
  const drafts = {};
  const drawn = { tab: null, ids: [] };
  const lastSeen = {}; // channel -> highest message number (lineNo) seen while the tab was open

  const tabs = h("div", { class: "chat-tabs", role: "tablist", "aria-label": t("chat.title") });
  // The log landmark is a box around the list: role=log on the <ol> itself would take away
  // its list semantics, leaving every <li> outside a list (axe: listitem, aria-allowed-role).
  const lines = h("ol", { class: "chat-lines" });
  const log = h("div", { class: "chat-log", id: "chat-log", role: "log", "aria-live": "polite", tabindex: "0", "aria-labelledby": "chat-title" }, lines);
  const input = h("input", {
    id: "chat-input",
    class: "chat-input",
    maxlength: 200,
    autocomplete: "off",
    "aria-label": t("chat.input"),
    oninput: () => {
      if (active) drafts[active] = input.value;
    },
  });
  function show(channel) {
    if (channel === active) return;
    if (active) drafts[active] = input.value;
    active = channel;
    input.value = (channel && drafts[channel]) || "";
  }
  const send = h("button", { type: "submit", class: "btn btn-primary", id: "chat-send" }, t("chat.send"));
  const err = h("p", { class: "chat-error", id: "chat-error", role: "alert" });
  const form = h(
    "form",
    {
      class: "chat-form",
      onsubmit: (e) => {
        e.preventDefault();
        const text = input.value.trim();
        if (!text || !active) return;
        if (!ctx.send("chat", { channel: active, text })) return; // not connected: the text stays
        input.value = "";
        drafts[active] = "";
        err.textContent = "";
      },
    },
    input,
    send,
  );
  const el = h(
    "section",
    { class: "panel chat-panel", "aria-labelledby": "chat-title" },
    h("h2", { class: "sr-only", id: "chat-title" }, t("chat.title")),
    tabs,
    h("div", { class: "chat-log-wrap", role: "tabpanel", id: "chat-tabpanel" }, log),
    err,
    form,
  );

  function tabChannels(view) {
    const read = (view.channels && view.channels.read) || [];
    // The moderator's tab comes last; the conversation tabs keep the server's order.
    return [...read.filter((c) => c !== "system"), ...read.filter((c) => c === "system")];
  }

  function messagesFor(view, channel) {
    if (channel === "system") {
      // The moderator's lines are drawn from the public events, in this player's language
      // (the server's system messages are English text).
      return logWithResults(view, Array.isArray(view.events) ? view.events : []).map((m) => ({ ...m, channel, from: null }));
    }
    const msgs = (Array.isArray(view.chat) ? view.chat : []).filter((m) => m.channel === channel);
    return withoutMuted(ctx.state.session && ctx.state.session.room, msgs).shown; // muted: this screen only
  }

  function messageItem(view, m) {
    if (m.result) {
      // A private line: only this player's view carries it.
      return h(
        "li",
        { class: "msg msg-system msg-private", "data-id": m.id, "data-kind": "result" },
        h("span", { class: "msg-from" }, t("log.private")),
        h("span", { class: "msg-text" }, resultText(view, m.result)),
      );
    }
    if (m.ev) {
      const { text, detail } = eventText(view, m.ev);
      return h(
        "li",
        { class: "msg msg-system", "data-id": m.id, "data-kind": m.ev.kind },
        m.ev.day ? h("span", { class: "msg-from" }, eventWhen(m.ev)) : null,
        h("span", { class: "msg-text" }, text, detail ? ` (${detail})` : ""),
      );
    }
    const system = m.from === null || m.from === undefined;
    return h(
      "li",
      { class: `msg${system ? " msg-system" : ""}${view.you && m.from === view.you.id ? " msg-mine" : ""}`, "data-id": m.id },
      h("span", { class: "msg-from", title: system ? null : playerName(view, m.from) }, system ? t("chat.moderator") : playerName(view, m.from)),
      h("span", { class: `msg-text ${system ? "server-text" : "user-text"}` }, m.text),
      lineReportButton(ctx, view, m),
    );
  }

  function update(view) {
    const channels = tabChannels(view);
    const write = (view.channels && view.channels.write) || [];
    const phaseKey = `${view.phase.kind}:${view.phase.seq}`;
    if (phaseKey !== lastPhase) {
      lastPhase = phaseKey;
      // Follow the conversation this player can take part in now.
      const preferred = write.find((c) => channels.includes(c) && c !== "day") || (write.includes("day") ? "day" : null);
      if (preferred) show(preferred);
    }
    if (!channels.includes(active)) show(channels.includes("day") ? "day" : channels[0] || null);

    replaceChildren(
      tabs,
      ...channels.map((c, i) => {
        const msgs = messagesFor(view, c);
        const newest = msgs.length ? lineNo(msgs[msgs.length - 1].id) : -1;
        if (c === active) lastSeen[c] = newest;
        const unread = c !== active && newest > (lastSeen[c] ?? -1);
        return h(
          "button",
          {
            type: "button",
            role: "tab",
            class: `chat-tab${c === active ? " active" : ""}`,
            id: `chat-tab-${c}`,
            "data-key": `tab-${c}`,
            "data-channel": c,
            "aria-selected": String(c === active),
            "aria-controls": "chat-tabpanel",
            tabindex: c === active ? "0" : "-1",
            onclick: () => {
              show(c);
              update(view);
            },
            onkeydown: (e) => {
              const d = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
              if (!d) return;
              show(channels[(i + d + channels.length) % channels.length]);
              update(view);
              tabs.querySelector(".active").focus();
            },
          },
          t(`chat.channel.${c}`),
          unread ? h("span", { class: "unread", "aria-hidden": "true" }, " •") : null,
        );
      }),
    );

    const msgs = active ? messagesFor(view, active) : [];
    const ids = msgs.map((m) => m.id);
    const nearBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    const appendOnly = drawn.tab === active && drawn.ids.length <= ids.length && drawn.ids.every((id, i) => ids[i] === id);
    if (appendOnly && drawn.ids.length) {
      for (const m of msgs.slice(drawn.ids.length)) lines.append(messageItem(view, m));
    } else {
      lines.replaceChildren(...(msgs.length ? msgs.map((m) => messageItem(view, m)) : [h("li", { class: "msg-empty" }, t("chat.empty"))]));
    }
    drawn.tab = active;
    drawn.ids = ids;
    if (nearBottom || !appendOnly) log.scrollTop = log.scrollHeight;

    const canWrite = Boolean(active) && write.includes(active);
    input.disabled = !canWrite;
    send.disabled = !canWrite;
    // No Send while the channel is read-only: the hint in the field gets the whole row.
    send.hidden = !canWrite;
    input.placeholder = canWrite ? t("chat.placeholder") : t("chat.readonly");
    const e = ctx.state.lastError;
    err.textContent = e && e.action === "chat" ? errorText(e.code, e.message) : "";
  }

  return { el, update };
}
