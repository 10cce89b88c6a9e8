// The one short message line at the bottom of the screen (errors, "link copied"). Shared by
// the online screens and single-device mode. It never takes taps: the screen stays usable.
import { $ } from "./dom.js";

let timer = null;

export function toast(text, ms = 4000) {
  const el = $("#toast");
  if (!el) return;
  el.textContent = text;
  el.hidden = false;
  clearTimeout(timer);
  timer = setTimeout(() => (el.hidden = true), ms);
}
