// What the single device says aloud, once per step (narrator.js speaks it): the phase and
// whom to pass the phone to, a public phase's name, the end. Public words only.
import { t } from "../i18n.js";
import { playerName } from "../game/format.js";
import { say } from "./narrator.js";
import { ctl } from "./state.js";

function speakOnce(key, text) {
  if (ctl.spoken.has(key)) return;
  ctl.spoken.add(key);
  say(text);
}

export function narrate(view, s) {
  if (s.screen === "handover") {
    const phaseKey = `phase:${ctl.game.progress.key}`;
    speakOnce(phaseKey, t(`device.say.${s.stage}`));
    speakOnce(`pass:${ctl.game.progress.key}:${ctl.game.progress.pos}`, t("device.say.pass", { name: playerName(view, s.seat) }));
  } else if (["discussion", "defense", "speech", "lastWord"].includes(s.screen)) {
    speakOnce(`phase:${s.screen}:${view.phase.seq}`, t(`device.say.${s.screen}`));
  } else if (s.screen === "end") {
    speakOnce(`end:${ctl.game.room}:${(view.events || []).length}`, t("device.say.end"));
  }
}
