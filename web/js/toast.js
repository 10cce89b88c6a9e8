// The one short message line at the bottom of the screen (errors, "link copied"). Shared by
// the online screens and single-device mode. It never takes taps: the screen stays usable.
import { $ } from "./dom.js";

let timer = null;

export function toast(text, ms = 4000) {
  const el = $("#toast");
  if (!el) return;
  el.textContent = text;
  // while the player types in the chat (the keyboard up, the box and its error at the foot of
  // the screen) the line shows at the top instead, over nothing they are reading or typing
  const typing = document.activeElement && document.activeElement.closest && document.activeElement.closest(".chat-panel");
  el.classList.toggle("toast-top", Boolean(typing));
  el.hidden = false;
  clearTimeout(timer);
  timer = setTimeout(() => (el.hidden = true), ms);
}
