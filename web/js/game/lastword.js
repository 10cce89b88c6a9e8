// The original rules' last word (docs/rulebooks/003-original.txt «◎3단계 낮: 재판»: "최후의 한
// 마디를 남기고 게임에서 떠나게 되며"): the executed player, already out of the game, writes in
// the day chat until the timer or their "done" (endTurn); everyone reads it. The banner shows the phase title and countdown.
import { t } from "../i18n.js";
import { playerName } from "./format.js";

/** The renderer for phase kind `lastWord`; `ui` brings phases.js's small helpers. */
export function lastWordPhase(ui) {
  return {
    sub: (view) => t("banner.lastWord", { name: playerName(view, view.phase.player) }),
    panel(view, ctx) {
      const speaker = view.phase.player;
      const mine = Boolean(view.you && view.you.id === speaker);
      if (!mine) return [ui.hint(t("hint.lastWord", { name: playerName(view, speaker) }))];
      const done = view.private && view.private.task === "endTurn";
      return [
        ui.hint(t("hint.lastWordYou")),
        done ? ui.button(t("act.lastWordDone"), () => ui.act(view, ctx, "endTurn"), { id: "last-word-done", key: "endTurn", primary: true }) : null,
      ];
    },
  };
}
