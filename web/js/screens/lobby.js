// Lobby: who is here and ready, the options (editable by the host), the share link, start.
import { h, patchChildren } from "../dom.js";
import { errorText, has, t } from "../i18n.js";
import { serverNow } from "../clock.js";
import { optionLabel, optionsEditor, pendingOptions, presetSpecs, sendable } from "../game/options.js";
import { qrSvg } from "../qr.js";
import { screenCard } from "../display/share.js";
import { PUBLIC_DEFAULTS, lobbyCountdown } from "./public-list.js";

// One QR drawing per link, reused by every redraw of the lobby.
let qrCache = { link: null, label: null, svg: null };
function qrFor(link, code) {
  const label = t("lobby.qrLabel", { code });
  if (qrCache.link !== link || qrCache.label !== label) qrCache = { link, label, svg: qrSvg(link, label) };
  return qrCache.svg;
}

/** A setup problem (room.setupError) in the player's language, with its numbers. */
export function setupText(err, view) {
  const spec = presetSpecs(view.preset) || {};
  const joined = (view.players || []).length;
  const params = { min: spec.minPlayers ?? "?", max: spec.maxPlayers ?? "?", joined, ...(err.params || {}) };
  const key = `setup.${err.code}`;
  if (has(key)) return t(key, params);
  return errorText(err.code, "");
}

/** A public lobby counting down to a start by itself with bots filling the seats. */
export function countsDown(view) {
  const opts = view.options || {};
  return Boolean(opts.public) && opts.autoStartBots !== false && typeof (view.room && view.room.autoStartAt) === "number";
}

export function myId(ctx, view) {
  return (view && view.you && view.you.id) || (ctx.state.session && ctx.state.session.playerId) || null;
}

/** "Become the host" once the host has been away for a minute (docs/rulebooks/001-city.txt «Связь и сохранение»). */
export function takeHostButton(ctx, view) {
  const me = myId(ctx, view);
  const away = view.room && view.room.hostAwaySince;
  if (!me || !away || view.room.host === me || serverNow() - away < 60) return null;
  return h(
    "div",
    { class: "take-host" },
    h("p", { class: "hint" }, t("act.hostAway")),
    h("button", { type: "button", class: "btn", id: "take-host-btn", "data-key": "takeHost", onclick: () => ctx.send("takeHost") }, t("act.takeHost")),
  );
}

// Open or folded options: kept across redraws and a language switch's rebuild.
let optionsOpen = false;

/** A ranked lobby's rating band as it widens with the wait (`room.ranked.band`; docs/rules.md,
 * "Ranked play"): its width now, in points either side; no rating is ever shown before the end. */
function bandLine(view) {
  const b = view.room && view.room.ranked && view.room.ranked.band;
  if (!b) return null;
  const width = Math.min(b.max, Math.round(b.start + b.perSecond * Math.max(0, serverNow() - b.since)));
  return h("p", { class: "hint ranked-band", id: "ranked-band", "data-band": String(width) }, t("ranked.band", { n: width }));
}

export function mount(root, ctx) {
  const body = h("div", { class: "lobby" });
  root.append(body);

  let countdown = { el: null, tick() {} };
  // The host's option changes on their way (game/options.js pendingOptions): each change sends
  // the newest view's options with them laid over, so a second change made before the first
  // one's view came carries the first one's value (a slow phone's host lost it before).
  const edits = pendingOptions();
  let latest = null; // the newest view, which the next change starts from
  const socket = () => (ctx.state.conn && ctx.state.conn.ws) || null;
  // The countdown's words, ticked between views: one node, kept by every redraw.
  const seconds = h("span", { class: "auto-start", id: "auto-start", role: "timer" });

  function update(view) {
    const code = ctx.state.session.room;
    if (!view) {
      patchChildren(body, h("p", { class: "connecting", role: "status" }, t("conn.connecting")));
      return;
    }
    const me = myId(ctx, view);
    const players = view.players || [];
    const mine = players.find((p) => p.id === me) || null;
    const hostId = (view.room && view.room.host) || (players.find((p) => p.host) || {}).id;
    const isHost = me !== null && me === hostId;
    const setupError = view.room && view.room.setupError;
    latest = view;
    if (isHost) edits.settle(view.options || {}, ctx.state.lastError, socket());
    else edits.clear();
    const link = ctx.shareLink(code);

    const share = h(
      "section",
      { class: "card share", "aria-labelledby": "share-title" },
      h("h2", { id: "share-title" }, t("lobby.share")),
      h(
        "div",
        { class: "row" },
        h("input", { id: "share-link", readonly: true, value: link, "aria-labelledby": "share-title", "data-key": "share" }),
        h(
          "button",
          {
            type: "button",
            class: "btn",
            "data-key": "copy",
            onclick: async (e) => {
              try {
                await navigator.clipboard.writeText(link);
              } catch {
                e.target.previousSibling.select();
              }
              ctx.toast(t("lobby.copied"));
            },
          },
          t("lobby.copy"),
        ),
        // The phone's own share sheet, where the browser has one.
        navigator.share
          ? h(
              "button",
              {
                type: "button",
                class: "btn",
                id: "share-btn",
                "data-key": "shareSheet",
                onclick: () => navigator.share({ title: t("app.title"), text: t("lobby.shareText", { code }), url: link }).catch(() => {}),
              },
              t("lobby.shareSheet"),
            )
          : null,
      ),
      h("figure", { class: "qr-box" }, qrFor(link, code), h("figcaption", { class: "hint" }, t("lobby.qrHint"))),
    );

    const list = h(
      "section",
      { class: "card", "aria-labelledby": "players-title" },
      h("h2", { id: "players-title" }, t("lobby.players", { n: players.length })),
      h(
        "ul",
        { class: "lobby-players" },
        players.map((p) =>
          h(
            "li",
            { class: `lobby-player${p.ready ? " is-ready" : ""}`, "data-pid": p.id },
            h("span", { class: "seat", "aria-hidden": "true" }, p.seat ?? ""),
            h("span", { class: "pname", title: p.name }, p.name),
            p.id === hostId ? h("span", { class: "badge badge-host" }, t("player.host")) : null,
            p.id === me ? h("span", { class: "badge" }, t("player.you")) : null,
            p.bot ? h("span", { class: "badge" }, t("player.bot")) : null,
            p.connected === false && !p.bot ? h("span", { class: "badge badge-muted" }, t("player.offline")) : null,
            // The host starts the game; only the others mark themselves ready.
            p.id === hostId
              ? null
              : h(
                  "span",
                  { class: `ready-mark${p.ready ? " on" : ""}` },
                  h("span", { "aria-hidden": "true" }, p.ready ? "✔ " : "… "),
                  t(p.ready ? "lobby.ready" : "lobby.notReady"),
                ),
            isHost && p.id !== me
              ? h(
                  "button",
                  {
                    type: "button",
                    class: "btn btn-small btn-quiet",
                    "data-key": `kick-${p.id}`,
                    "aria-label": t("lobby.kick", { name: p.name }),
                    onclick: () => ctx.send("kick", { target: p.id }),
                  },
                  "✕",
                )
              : null,
          ),
        ),
      ),
    );

    // The setup problem in words, from its code and numbers the view holds (never the
    // server's English text).
    // a public room: who may join, and its start by itself (web/js/screens/public-list.js)
    countdown = lobbyCountdown(view, ctx.send, seconds);
    // A public room counting down starts by itself with bots in the empty seats (the server
    // arms the countdown only when it can: functions/service/room/public.py): its too-few-players
    // line is then no alarm but what will happen, said calmly (#48).
    const botsFill = setupError && countsDown(view);
    const status = botsFill
      ? h("p", { class: "hint", role: "status", id: "setup-error", "data-code": setupError.code }, t("lobby.botsFill", { joined: players.length }))
      : setupError
      ? h("p", { class: "setup-error", role: "status", id: "setup-error" }, setupText(setupError, view))
      : h("p", { class: "setup-ok", role: "status" }, t(isHost ? "lobby.setupOk" : "lobby.waitingHost"));

    // An option switched on that deals the same roles at this count (the original expansion
    // at 8 or 10 seats): the host is told, rather than find out from the role cards.
    const idle = ((view.room && view.room.idleOptions) || []).map((key) =>
      h("p", { class: "hint idle-option", "data-option": key }, t("lobby.idleOption", { option: optionLabel(key), n: players.length })),
    );

    const actions = h(
      "div",
      { class: "lobby-actions" },
      mine && !isHost
        ? h(
            "button",
            {
              type: "button",
              class: `btn ${mine.ready ? "" : "btn-primary"}`,
              id: "ready-btn",
              "data-key": "ready",
              "aria-pressed": mine.ready ? "true" : "false",
              onclick: () => ctx.send("ready", { ready: !mine.ready }),
            },
            t(mine.ready ? "lobby.cancelReady" : "lobby.imReady"),
          )
        : mine
          ? null
          : h("p", { class: "hint" }, t("lobby.spectator")),
      isHost
        ? h(
            "button",
            {
              type: "button",
              class: "btn btn-primary",
              id: "start-btn",
              "data-key": "start",
              disabled: Boolean(setupError),
              "aria-describedby": setupError ? "setup-error" : null,
              onclick: () => ctx.send("start"),
            },
            t("lobby.start"),
          )
        : null,
      isHost
        ? h("button", { type: "button", class: "btn", id: "add-bot-btn", "data-key": "addBot", onclick: () => ctx.send("addBot") }, t("lobby.addBot"))
        : null,
      takeHostButton(ctx, view),
      h("button", { type: "button", class: "btn btn-quiet", id: "leave-btn", "data-key": "leave", onclick: () => ctx.leave() }, t("lobby.leave")),
    );

    // The options fold away (closed at first) so Tab goes from the players and Start to the
    // share link without passing every option; opened, they stay open across redraws.
    const options = h(
      "section",
      { class: "card", "aria-labelledby": "options-title" },
      h(
        "details",
        { class: "lobby-details", id: "lobby-options", open: optionsOpen ? true : null, ontoggle: (e) => (optionsOpen = e.target.open) },
        h("summary", null, h("h2", { id: "options-title", class: "lobby-options-title" }, t("lobby.options"), " · ", t(`preset.${view.preset}`))),
        isHost ? null : h("p", { class: "hint" }, t("lobby.optionsReadonly")),
        optionsEditor(isHost ? edits.over(view.options || {}) : view.options || {}, {
          editable: isHost,
          idPrefix: "lobby-opt",
          preset: view.preset,
          onChange: (k, v) => {
            // made public: the protecting defaults come with it (docs/rules.md, "Public rooms")
            const change = { ...(k === "public" && v ? PUBLIC_DEFAULTS : {}), [k]: v };
            const shown = latest.options || {};
            const id = ctx.send("setOptions", { options: { ...sendable(edits.over(shown)), ...change } });
            if (id !== null) edits.sent(change, id, shown, socket()); // null: not connected, nothing went
          },
        }),
      ),
    );

    // Drawn into the nodes already there (dom.js patchChildren, as the game screen's panels): a
    // push (someone joins, a ready mark) updates the players, the marks and Start around an
    // option field the host is typing in, which keeps its node, focus, caret and what was typed.
    patchChildren(
      body,
      h("h1", { class: "lobby-title" }, t("lobby.room", { code })),
      h("div", { class: "lobby-cols" }, h("div", null, list, status, countdown.el, bandLine(view), ...idle, actions, share, screenCard(ctx, view, isHost)), options),
    );
  }

  return { update, tick: () => countdown.tick(), destroy() {} };
}
