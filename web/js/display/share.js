// "Show on a screen": the host's card in the lobby and in the host tools. A tap asks the
// server for the room's display key (the `display` frame, answered to the host's connection
// only: docs/protocol.md, "A screen for the room"); the card then shows the screen link
// (?room=CODE&display=KEY) as a QR code and as text, how many screens are
// connected, the narrator switch and "Revoke screens" (a new key; every screen closes).
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { qrSvg } from "../qr.js";

let shown = null; // the newest `display` frame: {room, key, gen, screens, narrator}
let qr = { link: null, svg: null };
let asked = null; // "room:gen" this page asked the key again for (`followRevokes`)

// Which of the room's keys a frame or a view belongs to: the host's revokes so far
// (`gen`, views' `room.displayGen`; 0 from a server before it was counted).
const gen = (n) => (Number.isFinite(n) ? n : 0);

/** The screen link for `room` and `key`: this app's page in display mode (app.js). */
export function screenLink(room, key) {
  const u = new URL("./", location.href);
  u.search = new URLSearchParams({ room, display: key }).toString();
  u.hash = "";
  return u.toString();
}

/** A `display` frame from the server (web/js/frames.js hands it over). */
export function onDisplayFrame(frame, ctx) {
  // Two answers may cross (each frame is its own invocation): the narrator switch's answer,
  // made before a revoke, arriving after the revoke's must not bring the revoked key back.
  if (shown && shown.room === frame.room && gen(frame.gen) < shown.gen) return;
  shown = { room: frame.room, key: frame.key, gen: gen(frame.gen), screens: frame.screens, narrator: frame.narrator };
  ctx.rerender();
}

// The key shown is older than the room's (the host revoked on another device, or this
// page's answer is still on its way): ask once for the current one; the old link stays
// drawn until the answer comes, so the revoking page does not flicker.
function followRevokes(ctx, view, mine) {
  const now = gen(view.room.displayGen);
  if (!mine || now <= mine.gen || asked === `${mine.room}:${now}`) return;
  if (ctx.send("display")) asked = `${mine.room}:${now}`; // not sent (the socket dropped): the next view asks
}

/** How many screens are connected: the view's `room.screens`, else the frame's count. */
export function liveScreens(view, frame) {
  const n = view && view.room ? view.room.screens : undefined;
  return Number.isFinite(n) ? n : Number((frame && frame.screens) || 0);
}

/** The card, or null for anyone but the host. */
export function screenCard(ctx, view, isHost) {
  if (!isHost || !view.room) return null;
  const code = view.room.code;
  const mine = shown && shown.room === code ? shown : null;
  followRevokes(ctx, view, mine);
  const narrator = Boolean(view.room.narrator);
  const parts = [h("h2", { id: "screen-title" }, t("display.show"))];
  if (!mine) {
    parts.push(
      h("p", { class: "hint" }, t("display.showHint")),
      h("button", { type: "button", class: "btn", id: "screen-btn", "data-key": "screenLink", onclick: () => ctx.send("display") }, t("display.getLink")),
    );
  } else {
    const link = screenLink(code, mine.key);
    if (qr.link !== link) qr = { link, svg: qrSvg(link, t("display.qrLabel", { code })) };
    parts.push(
      h("p", { class: "hint" }, t("display.showHint")),
      h("label", { for: "screen-link" }, t("display.link")),
      h("input", { id: "screen-link", readonly: true, value: link, "data-key": "screenLinkText" }),
      h("figure", { class: "qr-box" }, qr.svg),
      // The live count is the view's public `room.screens` (every join and leave of a screen
      // rewrites the room); the `display` frame's `screens` is only the count when it was asked
      // for, so reading it kept "0" on the card while the TV already showed the lobby (#48).
      h("p", { id: "screen-count", role: "status" }, t("display.screens", { n: liveScreens(view, mine) })),
      h(
        "label",
        { class: "check" },
        h("input", {
          type: "checkbox",
          id: "screen-narrator",
          "data-key": "screenNarrator",
          checked: narrator,
          onchange: (e) => ctx.send("display", { narrator: e.target.checked }),
        }),
        " ",
        t("display.narrator"),
      ),
      h(
        "button",
        { type: "button", class: "btn", id: "screen-revoke", "data-key": "screenRevoke", "aria-describedby": "screen-revoke-hint", onclick: () => ctx.send("display", { revoke: true }) },
        t("display.revoke"),
      ),
      h("p", { class: "hint", id: "screen-revoke-hint" }, t("display.revokeHint")),
    );
  }
  return h("section", { class: "card screen-card", id: "screen-card", "aria-labelledby": "screen-title" }, parts);
}
