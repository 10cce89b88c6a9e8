// The chat panel of the game screen: one tab per channel this player may read, input only
// where they may write, a draft per channel. Drawn again with every view into the same nodes
// (dom.js patchChildren, as the action panel): the same view again writes nothing, the focused
// input or tab keeps its focus, and the log keeps where the player scrolled to.
import { h, patchChildren } from "../dom.js";
import { errorText, t } from "../i18n.js";
import { eventText, eventWhen, lineNo, playerName, resultText, seatMark } from "./format.js";
import { chatLine, drawVariant, QUICK_CLAIMS, QUICK_PHRASES } from "./bot-lines.js";
import { withoutMuted } from "./mute.js";
import { lineReportButton } from "./report.js";
import { logWithResults } from "./results.js";

/** The panel (`el`) and `update(view)`, which redraws its tabs, lines and input for the view. */
export function chatPanel(ctx) {
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
  // Quick phrases: the phrases bots say, sent as intents (a phrase id, the player it names, a
  // variant) that every phone draws in its own language (bot-lines.js), so a phrase line says
  // nothing about who sent it. Free text stays text.
  function sendPhrase(phrase, args) {
    if (!active) return;
    if (ctx.send("chat", { channel: active, phrase, args, variant: drawVariant() })) err.textContent = "";
  }
  const about = h("select", { id: "chat-phrase-target", class: "chat-phrase-target", "aria-label": t("chat.phrase.about") });
  const phrases = h(
    "details",
    { class: "chat-phrases", id: "chat-phrases" },
    h("summary", {}, t("chat.phrases")),
    h(
      "div",
      { class: "chat-phrase-row" },
      ...QUICK_PHRASES.map((p) => h("button", { type: "button", class: "btn btn-small chat-phrase", "data-phrase": p, onclick: () => sendPhrase(p, {}) }, t(`chat.phrase.${p}`))),
    ),
    h(
      "div",
      { class: "chat-phrase-row" },
      about,
      ...QUICK_CLAIMS.map((p) =>
        h("button", { type: "button", class: "btn btn-small chat-phrase", "data-phrase": p, onclick: () => about.value && sendPhrase(p, { target: about.value }) }, t(`chat.phrase.${p}`)),
      ),
    ),
  );
  let aboutKey = "";
  function updatePhrases(view, canWrite) {
    if (phrases.hidden === canWrite) phrases.hidden = !canWrite;
    // the team's night pick ("Let's take … tonight") only where a team talks at night
    const kill = phrases.querySelector('[data-phrase="kill"]');
    const team = active !== "day" && active !== "dead";
    if (kill && kill.hidden === team) kill.hidden = !team;
    const me = view.you && view.you.id;
    const others = (view.players || []).filter((p) => p.id !== me);
    const key = others.map((p) => `${p.id}:${playerName(view, p.id)}`).join("|");
    if (key === aboutKey) return;
    aboutKey = key;
    const was = about.value;
    patchChildren(about, ...others.map((p) => h("option", { value: p.id, "data-key": `opt-${p.id}` }, playerName(view, p.id))));
    if (others.some((p) => p.id === was)) about.value = was;
  }
  const el = h(
    "section",
    { class: "panel chat-panel", "aria-labelledby": "chat-title" },
    h("h2", { class: "sr-only", id: "chat-title" }, t("chat.title")),
    tabs,
    h("div", { class: "chat-log-wrap", role: "tabpanel", id: "chat-tabpanel" }, log),
    err,
    form,
    phrases,
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
        { class: "msg msg-system msg-private", "data-key": `msg-${m.id}`, "data-id": m.id, "data-kind": "result" },
        h("span", { class: "msg-from" }, t("log.private")),
        h("span", { class: "msg-text" }, resultText(view, m.result)),
      );
    }
    if (m.ev) {
      const { text, detail } = eventText(view, m.ev);
      return h(
        "li",
        { class: "msg msg-system", "data-key": `msg-${m.id}`, "data-id": m.id, "data-kind": m.ev.kind },
        m.ev.day ? h("span", { class: "msg-from" }, eventWhen(m.ev)) : null,
        h("span", { class: "msg-text" }, text, detail ? ` (${detail})` : ""),
      );
    }
    const system = m.from === null || m.from === undefined;
    return h(
      "li",
      { class: `msg${system ? " msg-system" : ""}${view.you && m.from === view.you.id ? " msg-mine" : ""}`, "data-key": `msg-${m.id}`, "data-id": m.id },
      h("span", { class: "msg-from", title: system ? null : playerName(view, m.from) }, system ? t("chat.moderator") : [seatMark(view, m.from), playerName(view, m.from)]),
      h("span", { class: `msg-text ${system ? "server-text" : "user-text"}` }, system ? m.text : chatLine(view, m)),
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

    patchChildren(
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
    const sameTab = drawn.tab === active;
    // The tab's lines only grow (frames.js keeps every line this tab has seen): the new ones
    // are all that is written. Anything else (another tab, a muted player) is patched in.
    const appendOnly = sameTab && drawn.ids.length > 0 && drawn.ids.length <= ids.length && drawn.ids.every((id, i) => ids[i] === id);
    if (appendOnly) {
      for (const m of msgs.slice(drawn.ids.length)) lines.append(messageItem(view, m));
    } else {
      patchChildren(lines, ...(msgs.length ? msgs.map((m) => messageItem(view, m)) : [h("li", { class: "msg-empty" }, t("chat.empty"))]));
    }
    drawn.tab = active;
    drawn.ids = ids;
    // Another tab starts at its newest line; the same tab follows new lines only while the
    // player reads at the bottom, and stays where they scrolled to otherwise.
    if (nearBottom || !sameTab) log.scrollTop = log.scrollHeight;

    const canWrite = Boolean(active) && write.includes(active);
    if (input.disabled === canWrite) input.disabled = !canWrite;
    if (send.disabled === canWrite) send.disabled = !canWrite;
    // No Send while the channel is read-only: the hint in the field gets the whole row.
    if (send.hidden === canWrite) send.hidden = !canWrite;
    updatePhrases(view, canWrite);
    const hint = canWrite ? t("chat.placeholder") : t("chat.readonly");
    if (input.placeholder !== hint) input.placeholder = hint;
    const e = ctx.state.lastError;
    const said = e && e.action === "chat" ? errorText(e.code, e.message) : "";
    if (err.textContent !== said) err.textContent = said;
  }

  return { el, update };
}

