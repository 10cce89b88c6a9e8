// The narrator: the browser's speech synthesis, in the chosen language. It is handed only
// public words (phase names, the next player's name); callers never pass roles or results.
import { getLang } from "../i18n.js";
import { voiceOn } from "./store.js";

const VOICE_LANG = { ko: "ko-KR", ru: "ru-RU", en: "en-US" };

export function say(text) {
  if (voiceOn()) speak(text);
}

/** Speak `text` now, in the language of the page (the room's screen calls it when the host's
 * narrator switch is on: web/js/display/narrate.js). */
export function speak(text) {
  if (!text) return;
  const synth = window.speechSynthesis;
  if (!synth || typeof window.SpeechSynthesisUtterance !== "function") return;
  const u = new window.SpeechSynthesisUtterance(text);
  u.lang = VOICE_LANG[getLang()] || "en-US";
  synth.speak(u);
}

export function hush() {
  if (window.speechSynthesis && window.speechSynthesis.cancel) window.speechSynthesis.cancel();
}
