// "Your seat" on the game screen: continue on another device, leave the game, and the
// safety tools on each other player (mute on this screen, report to the operators).
import { h } from "../dom.js";
import { has, t } from "../i18n.js";
import { privateLink } from "../session.js";
import { qrSvg } from "../qr.js";
import { isMuted, setMuted } from "./mute.js";
import { openReport } from "./report.js";
import { closeSheet, showSheet } from "./sheet.js";

let toolsOpen = false;

export function seatTools(view, ctx) {
  const session = ctx.state.session;
  if (!view.you || !session || !session.token) return null;
  const room = session.room;
  const others = (view.players || []).filter((p) => p.id !== view.you.id);
  return h(
    "details",
    {
      class: "seat-tools",
      id: "seat-tools",
      open: toolsOpen ? true : null,
      ontoggle: (e) => (toolsOpen = e.target.open),
    },
    h("summary", null, t("seat.title")),
    h(
      "div",
      { class: "row" },
      h("button", { type: "button", class: "btn", id: "another-device-btn", "data-key": "another-device", onclick: () => openHandoff(session) }, t("seat.another")),
      h("button", { type: "button", class: "btn btn-quiet", id: "leave-game-btn", "data-key": "leave-game", onclick: () => confirmLeave(ctx, view) }, t("seat.leave")),
    ),
    h(
      "ul",
      { class: "seat-players", id: "seat-players", "aria-label": t("seat.players") },
      others.map((p) => {
        const muted = isMuted(room, p.id);
        return h(
          "li",
          { "data-pid": p.id },
          h("span", { class: "pname" }, p.name, muted ? h("span", { class: "hint" }, ` (${t("mute.muted")})`) : null),
          h(
            "button",
            {
              type: "button",
              class: "btn btn-small",
              "data-key": `mute-${p.id}`,
              "data-mute": p.id,
              "aria-pressed": String(muted),
              "aria-label": t(muted ? "mute.unmuteLabel" : "mute.muteLabel", { name: p.name }),
              onclick: () => {
                setMuted(room, p.id, !muted);
                ctx.rerender();
              },
            },
            t(muted ? "mute.unmute" : "mute.mute"),
          ),
          h(
            "button",
            {
              type: "button",
              class: "btn btn-small",
              "data-key": `report-${p.id}`,
              "data-report": p.id,
              "aria-label": t("report.title", { name: p.name }),
              onclick: () => openReport(ctx, view, p.id, null),
            },
            t("report.player"),
          ),
        );
      }),
    ),
  );
}

/** Whether leaving now hands this seat to a substitute: the option is on, the game runs and
 * this seat's character is alive (a dead seat has nothing to hand on). */
function offersSeat(view) {
  return Boolean(view.options && view.options.substitutes && view.you && view.you.alive !== false && !view.result);
}

/** What leaving means for this seat: a character already out is eliminated no further and
 * decides nothing (#48); a living one is eliminated at once, in this preset's words. */
export function leaveKey(view, preset) {
  if (view.you && view.you.alive === false) return "leave.dead";
  return has(`leave.what.${preset}`) ? `leave.what.${preset}` : "leave.what";
}

/** Leaving a running game: say what it means in this preset, then leave for good. */
function confirmLeave(ctx, view) {
  const preset = view.preset || "classic";
  showSheet(
    "leave-dialog",
    t("leave.title"),
    h(
      "div",
      null,
      // with substitutes on, a living character stays in for a minute while its seat is offered
      // (functions/service/room/substitutes.py should_vacate): say that, and what happens if nobody comes
      offersSeat(view)
        ? [h("p", { id: "leave-what" }, t("leave.sub")), h("p", { id: "leave-expiry" }, t("leave.subExpiry"))]
        : h("p", { id: "leave-what" }, t(leaveKey(view, preset))),
      h(
        "div",
        { class: "row" },
        h("button", { type: "button", class: "btn btn-yes", id: "leave-confirm", onclick: () => { closeSheet(); ctx.leave(); } }, t("leave.confirm")),
        h("button", { type: "button", class: "btn", id: "leave-cancel", onclick: closeSheet }, t("leave.cancel")),
      ),
    ),
  );
}

/** The private link + QR code, behind a tap, with the warning first. */
function openHandoff(session) {
  const reveal = h("div", { class: "handoff-secret", id: "handoff-secret" });
  const show = h(
    "button",
    {
      type: "button",
      class: "btn btn-primary",
      id: "handoff-show",
      onclick: () => {
        show.remove();
        const link = privateLink(session);
        const input = h("input", { id: "handoff-link", class: "handoff-link", readonly: true, value: link, "aria-label": t("handoff.link") });
        reveal.replaceChildren(
          handoffQr(link),
          input,
          h(
            "div",
            { class: "row" },
            h(
              "button",
              {
                type: "button",
                class: "btn",
                id: "handoff-copy",
                onclick: async () => {
                  input.select();
                  try {
                    await navigator.clipboard.writeText(link);
                  } catch {
                    document.execCommand && document.execCommand("copy");
                  }
                  copied.textContent = t("handoff.copied");
                },
              },
              t("handoff.copy"),
            ),
          ),
          copied,
        );
      },
    },
    t("handoff.show"),
  );
  const copied = h("p", { class: "hint", role: "status" });
  showSheet(
    "handoff-dialog",
    t("handoff.title"),
    h(
      "div",
      null,
      h("p", { class: "warning", id: "handoff-warning" }, t("handoff.warn")),
      h("p", { class: "hint" }, t("handoff.hint")),
      show,
      reveal,
      h("div", { class: "row" }, h("button", { type: "button", class: "btn", id: "handoff-close", onclick: closeSheet }, t("handoff.close"))),
    ),
  );
}

function handoffQr(text) {
  const svg = qrSvg(text, t("handoff.qr"));
  svg.id = "handoff-qr";
  svg.classList.add("handoff-qr");
  return svg;
}
