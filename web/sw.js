// The service worker: keeps the app shell (the page, its scripts, styles and icons) so the
// app opens from the home screen without a network and says so (js/install.js). Network
// first: online, every file comes fresh from the server (the shell changes with each
// deployment; Cache-Control is no-cache) and the copy here is refreshed; offline, the copy
// answers. Never kept, never answered from here: config.json (where the API is, which
// differs per deployment), the REST API and the WebSocket, and anything from another
// origin (the API on AWS): they always go to the network, so a game is never played from
// stale data.
const CACHE = "mafia-shell-v1";
const PRECACHE = ["./", "index.html", "style.css", "js/app.js", "manifest.webmanifest", "icons/icon.svg", "icons/icon-192.png"];
const SHELL_FILE = /\.(?:html|css|js|mjs|png|svg|webmanifest)$/;
const NEVER = /^(?:config\.json|sw\.js|api|ws|_local)(?:\/|$)/;

function shellPath(url) {
  const scope = new URL(self.registration.scope);
  if (url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return null;
  const rel = url.pathname.slice(scope.pathname.length);
  if (NEVER.test(rel)) return null;
  return rel === "" || SHELL_FILE.test(rel) ? rel : null;
}

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(PRECACHE)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) if (key !== CACHE) await caches.delete(key);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;
  const rel = shellPath(new URL(req.url));
  if (rel === null) return; // the network, and only the network
  // Every page of the app is index.html (?room=... links included): one copy of it.
  const key = new URL(req.mode === "navigate" ? "./" : rel || "./", self.registration.scope).href;
  event.respondWith(networkFirst(event, req, key));
});

async function networkFirst(event, req, key) {
  const cache = await caches.open(CACHE);
  try {
    const res = await fetch(req);
    if (res.ok && res.type === "basic") event.waitUntil(cache.put(key, res.clone()));
    return res;
  } catch (err) {
    const hit = await cache.match(key);
    if (hit) return hit;
    throw err;
  }
}
