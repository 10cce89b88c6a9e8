// The narrator on the room's screen: what it says when a new view arrives, worked out from
// the display's own view (the spectator's) and the one before it, so it can never say what a
// spectator could not read. It speaks through the single-device mode's narrator
// (web/js/device/narrator.js, the browser's speech synthesis) when the host has switched it
// on (`room.narrator`), in the language the page is in (the room's).
import { t } from "../i18n.js";
import { speak } from "../device/narrator.js";
import { eventText, isNight, phaseTitle, playerName } from "../game/format.js";
import { onStage } from "./screen.js";

/** The lines to speak for the step from `prev` to `view` (public words only). */
export function linesFor(prev, view) {
  if (!view || !view.phase) return [];
  const lines = [];
  const kind = view.phase.kind;
  const was = prev && prev.phase ? prev.phase.kind : null;
  const turned = !prev || was !== kind || prev.phase.seq !== view.phase.seq;
  // the public events that arrived since the last view (deaths, votes, the end, ...)
  const before = prev && Array.isArray(prev.events) ? prev.events.length : (view.events || []).length;
  const fresh = (view.events || []).slice(before).filter((ev) => ev && ev.kind !== "morning");
  // Morning first, then what the night brought; but the day's last events (the execution)
  // before "Night falls": the story in the order it happened (#48).
  if (turned && was && isNight(was) && !isNight(kind)) lines.push(t("display.say.morning"));
  for (const ev of fresh) lines.push(eventText(view, ev).text);
  if (turned && isNight(kind) && !isNight(was)) lines.push(t("display.say.night"));
  if (turned && !isNight(kind) && kind !== "lobby") {
    const stage = onStage(view);
    if (stage.accused) lines.push(t("display.say.defense", { name: playerName(view, stage.accused) }));
    else if (stage.speaker) lines.push(t("display.say.speaker", { name: playerName(view, stage.speaker) }));
    else if (kind === "vote") lines.push(t("display.say.vote"));
    // the game's first phase: the room is told what happens, not the phones' "Your role"
    else if (kind === "roleReveal") lines.push(t("display.say.roleReveal"));
    else if (was !== kind && kind !== "ended") lines.push(phaseTitle(kind));
  }
  return lines.filter(Boolean);
}

/** Speak what the step from `prev` to `view` brings, if the host's switch is on. */
export function narrate(prev, view) {
  if (!view || !view.room || !view.room.narrator) return [];
  const lines = linesFor(prev, view);
  for (const line of lines) speak(line);
  return lines;
}
