// The host's tools on the game screen: pause / resume / end the game (the second tap ends
// it) / remove a player (the second tap on the same name sends `kick`, which the server
// applies as the engine's `remove`: the character leaves the game, the whole table sees
// "removed by the host").
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { screenCard } from "../display/share.js";

/** A drawer of host tools that keeps its armed taps across redraws: `(view) => element | null`. */
export function hostTools(ctx) {
  let endArmed = false;
  let removeArmed = null;
  let toolsOpen = false;

  return function draw(view) {
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
      // The wish is kept at the tap, not at the later "toggle" event: a view arriving in
      // between redraws the panel, and the new one must already be open.
      h("summary", { onclick: (e) => (toolsOpen = !e.currentTarget.parentElement.open) }, t("host.controls")),
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
      screenCard(ctx, view, true), // "Show on a screen" (display/share.js)
    );
  };
}
