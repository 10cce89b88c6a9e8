// Substitutes (docs/rules.md, "Substitutes"): a spectator or newcomer takes an open seat
// ("Take seat N"); the server answers with a `seat` frame (the seat's new token), kept in this
// browser like any seat, and the role card opens; the table reads "Seat N has a new player"
// (the substitute does not: it is their own seat). A browser that held a seat
// of this room (left, removed, or still holding a dead seat's token) sends that token as
// `former`, so the server refuses it: such a player cannot come back as a substitute; and it
// sends this browser's device key (session.js), so a browser that held a seat of the game
// takes no other. Unless the host switched it off, the host lets each newcomer in with one
// tap: the newcomer reads "waiting for the host" (`seatPending`), the host gets the request
// box (`seatRequestsBox`) at the top of its action panel.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { deviceKey, loadSession, saveSession } from "../session.js";
import { device, KEYS, tab } from "../storage.js";
import { showRoleCard } from "./overlays.js";

let form = null; // kept across redraws so a typed name survives the next view
let pending = null; // {request, player}: this connection's request waiting for the host
let shownNotices = null; // "room:at" of the notices already shown in this tab

/** Remember the seat's token before the seat ends on this browser (left, kicked). */
export function rememberFormer(session) {
  if (!session || !session.token || !session.room) return;
  device.set(KEYS.former + session.room.toUpperCase(), session.token); // storage off: the server's other checks still hold
}

function formerToken(room) {
  const kept = loadSession(room);
  if (kept && kept.token) return kept.token;
  return device.get(KEYS.former + room.toUpperCase()) || null;
}

/** A newcomer whose "Join" found the game running (room.js `join`) watches it: say so, and
 * whether a seat is open to take (the box below) or may open. */
function lateJoinNote(view, ctx) {
  const late = ctx.state.lateJoin;
  if (view.you || !late || !view.room || late.room !== view.room.code || view.result) return null;
  const open = (view.room.openSeats || []).length;
  const next = !(view.options && view.options.substitutes) ? "sub.lateNone" : open ? "sub.lateOpen" : "sub.lateWait";
  return h("p", { class: "notice late-join", id: "late-join", role: "status" }, t("sub.lateJoin"), " ", t(next));
}

/** The "take a seat" box for a viewer without a seat while some seat is open (after the late
 * joiner's note); null otherwise. */
export function openSeatsBox(view, ctx) {
  const note = lateJoinNote(view, ctx);
  const box = seatsBox(view, ctx);
  return note && box ? h("div", { class: "sub-offer" }, note, box) : note || box;
}

function seatsBox(view, ctx) {
  const open = (view.room && view.room.openSeats) || [];
  if (view.you || !open.length || !ctx.state.session) return null;
  if (!form) {
    // the name typed on the home screen (a late "Join" lands here) fills it in
    const typed = tab.get(KEYS.name) || "";
    const input = h("input", { id: "sub-name", "data-key": "sub-name", class: "input", maxlength: "20", autocomplete: "nickname", value: typed });
    form = {
      input,
      buttons: h("div", { class: "row", id: "sub-seats" }),
      // polite: read once when the request goes out, and again if the host refuses (an error toast)
      status: h("p", { class: "sub-pending", id: "sub-pending", role: "status", "aria-live": "polite" }),
      el: null,
    };
    form.el = h(
      "section",
      { class: "sub-box", id: "sub-box", "aria-labelledby": "sub-title" },
      h("h3", { id: "sub-title" }, t("sub.title")),
      h("p", { class: "hint" }, t("sub.hint")),
      h("label", { for: "sub-name" }, t("sub.name")),
      input,
      form.buttons,
      form.status,
    );
  }
  form.el.querySelector("#sub-title").textContent = t("sub.title");
  form.el.querySelector(".hint").textContent = t("sub.hint");
  form.el.querySelector("label").textContent = t("sub.name");
  if (pending && !open.some((s) => s.player === pending.player)) pending = null; // the seat closed
  const seatNo = pending && (open.find((s) => s.player === pending.player) || {}).seat;
  form.status.textContent = pending ? t("sub.pending", { n: seatNo }) : "";
  form.status.hidden = !pending;
  form.buttons.replaceChildren(
    ...open.map((s) =>
      h(
        "button",
        {
          type: "button",
          class: "btn btn-primary",
          "data-seat": s.player,
          onclick: () => take(ctx, s.player),
        },
        t("sub.take", { n: s.seat }),
      ),
    ),
  );
  return form.el;
}

function take(ctx, seat) {
  const name = form.input.value.trim();
  if (!name) {
    form.input.focus();
    ctx.toast(t("sub.needName"));
    return;
  }
  const former = formerToken(ctx.state.session.room);
  ctx.send("takeSeat", { seat, name, device: deviceKey(), ...(former ? { former } : {}) });
}

/** The `seatPending` frame: the request waits for the host's tap. */
export function onSeatPending(frame, ctx) {
  pending = { request: frame.request, player: frame.player };
  ctx.rerender();
}

/** The host refused (`seat_refused`): the box offers the seats again. */
export function seatRefused() {
  pending = null;
}

/**
 * The host's box of newcomers asking for a seat (`view.room.seatRequests`, the host's view
 * only): one "Let in" and one "Refuse" per request, each a single tap with a label that names
 * the newcomer and the seat. Null when nobody asks.
 */
export function seatRequestsBox(view, ctx) {
  const asks = (view.room && view.room.seatRequests) || [];
  if (!view.you || !asks.length || view.room.host !== view.you.id) return null;
  return h(
    "section",
    { class: "sub-box sub-requests", id: "seat-requests", "aria-labelledby": "seat-requests-title" },
    h("h3", { id: "seat-requests-title" }, t("sub.requests")),
    h(
      "ul",
      { class: "sub-request-list" },
      ...asks.map((r) =>
        h(
          "li",
          { class: "sub-request", "data-request": r.request },
          h("p", {}, t("sub.request", { name: r.name, n: r.seat })),
          // the server's boolean (never the address): the newcomer's network is one a seat used
          r.sharesAddress ? h("p", { class: "hint sub-shared", "data-shared": "1" }, t("sub.sharesAddress")) : null,
          h(
            "div",
            { class: "row" },
            h(
              "button",
              {
                type: "button",
                class: "btn btn-primary",
                "data-key": `let-in-${r.request}`,
                "aria-label": t("sub.letInLabel", { name: r.name, n: r.seat }),
                onclick: () => ctx.send("approveSeat", { request: r.request, approve: true }),
              },
              t("sub.letIn"),
            ),
            h(
              "button",
              {
                type: "button",
                class: "btn",
                "data-key": `refuse-${r.request}`,
                "aria-label": t("sub.refuseLabel", { name: r.name, n: r.seat }),
                onclick: () => ctx.send("approveSeat", { request: r.request, approve: false }),
              },
              t("sub.refuse"),
            ),
          ),
        ),
      ),
    ),
  );
}

/** The `seat` frame: this connection now holds the seat; keep its token in this browser. */
export function onSeatFrame(frame, ctx) {
  const session = ctx.state.session;
  if (!session || frame.room !== session.room) return;
  const seated = { room: session.room, token: frame.token, playerId: frame.player, wsUrl: session.wsUrl || "" };
  saveSession(seated);
  ctx.state.session = seated;
  if (ctx.state.conn) ctx.state.conn.session = seated; // a reconnect comes back as the seat
  form = null;
  pending = null;
  ctx.state.lateJoin = null;
  ctx.rerender();
  // the seat's role, at once: the substitute lands mid-game and must know who they now are
  const view = ctx.state.view;
  const mine = view && view.you && view.you.id === frame.player ? view.players.find((p) => p.id === frame.player) : null;
  if (mine) showRoleCard(view, t("sub.landed", { n: mine.seat }));
}

/** "Seat N has a new player" for each notice this tab has not shown yet. */
export function substituteCues(view, toast) {
  const notes = (view.room && view.room.substituted) || [];
  const keys = notes.map((n) => `${view.room.code}:${n.at}:${n.seat}`);
  if (shownNotices === null) {
    shownNotices = new Set(keys); // the notices of before this tab arrived are old news
    return;
  }
  for (let i = 0; i < notes.length; i++) {
    if (shownNotices.has(keys[i])) continue;
    shownNotices.add(keys[i]);
    if (view.you && notes[i].player === view.you.id) continue; // our own seat: the role card says it
    toast(t("sub.notice", { n: notes[i].seat }));
  }
  // the host hears of each new request once (the toast is a live region): the box may be
  // scrolled out of sight, and a screen reader does not announce a box that appears
  for (const r of (view.room && view.room.seatRequests) || []) {
    const key = `${view.room.code}:${r.request}`;
    if (shownNotices.has(key)) continue;
    shownNotices.add(key);
    toast(t("sub.request", { name: r.name, n: r.seat }));
  }
}
