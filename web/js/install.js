// Installable app: the service worker (sw.js) that keeps the app shell for opening without
// a network, the theme colour of the browser's bar following the day and night screens, and
// whether the network is there at all (the banner that render.js draws says so in the player's words).

/** Registers /sw.js, whose scope (the folder it is served from) is the whole site. The scripts
 * are served from the release's folder (/v/<release>/js/ once deployed) but the worker and the
 * manifest always from the root (functions/sitedeploy/handler.py), so the app keeps one
 * identity across releases. Service workers need HTTPS or localhost. */
export function registerServiceWorker() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register("/sw.js").catch(() => {
    // No worker (private mode, a browser setting): the app works, it just can't open offline.
  });
}

/** Calls onChange(online) whenever the browser's network goes or comes back. */
export function watchNetwork(onChange) {
  window.addEventListener("offline", () => onChange(false));
  window.addEventListener("online", () => onChange(true));
}

export function online() {
  return navigator.onLine !== false;
}

// The bar above the page takes the screen's own background: night screens dark, the rest light.
const THEME = { night: "#0d1122", day: "#f6f2e9" };
export function setThemeColor(tone) {
  const color = tone === "night" ? THEME.night : THEME.day;
  for (const meta of document.querySelectorAll('meta[name="theme-color"]')) if (meta.content !== color) meta.content = color;
}
