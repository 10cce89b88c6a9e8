// Single-device mode: the executed player's last word (original rules). Nobody types: the
// player speaks aloud and the table listens; "done" (that seat's endTurn) moves the game on.
// Built from public view data only (the phase, names).
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { phaseTitle, playerName } from "../game/format.js";

export function lastWord(view, { onDone }) {
  const speaker = view.phase.player;
  return h(
    "section",
    { class: "device-screen device-public", id: "device-last-word" },
    h("h1", null, phaseTitle("lastWord")),
    h("p", { class: "device-pass", id: "device-last-word-who" }, t("device.lastWord", { name: playerName(view, speaker) })),
    h("p", { class: "hint" }, t("device.lastWordHint")),
    h(
      "button",
      { type: "button", class: "btn btn-primary device-big", id: "device-last-word-done", onclick: () => onDone(speaker) },
      t("act.lastWordDone"),
    ),
  );
}
