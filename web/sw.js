// The service worker: keeps the app shell (the page, its scripts, styles and icons) so the
// app opens from the home screen without a network and says so (js/install.js).
// - A release's files (`v/<release>/...`: every script, stylesheet and icon, named by the page)
//   are immutable by construction (another client is another release: the site deployer,
//   functions/sitedeploy/handler.py): cache first. Answered from here when kept; else fetched
//   once and kept; never fetched or stored again.
// - The page itself (and the manifest) change with each deployment: network first, one copy of
//   each (every page of the app is index.html, ?room=... links included), answering offline.
// - Never kept, never answered from here: config.json (where the API is, which differs per
//   deployment), the REST API and the WebSocket, and anything from another origin (the API on
//   AWS): they always go to the network, so a game is never played from stale data.
// The cache is named after the release (the deployer appends it), so a new release starts a
// new cache and the last one's is deleted once the new worker is active.
// PRECACHE: the build (scripts/build_web.mjs) writes the boot's files into it.
const CACHE = "mafia-shell-v1";
const PRECACHE = ["./", "index.html", "style.css", "js/app.js", "manifest.webmanifest", "icons/icon.svg", "icons/icon-192.png"];
const SHELL_FILE = /\.(?:html|css|js|mjs|png|svg|webmanifest)$/;
const NEVER = /^(?:config\.json|sw\.js|api|ws|_local)(?:\/|$)/;
const RELEASE = /^v\/[^/]+\//;

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
  const url = new URL(req.url);
  const rel = shellPath(url);
  if (rel === null) return; // the network, and only the network
  if (req.mode !== "navigate" && RELEASE.test(rel)) {
    event.respondWith(cacheFirst(event, req, url.origin + url.pathname));
    return;
  }
  // Every page of the app is index.html (?room=... links included): one copy of it.
  const key = new URL(req.mode === "navigate" ? "./" : rel || "./", self.registration.scope).href;
  event.respondWith(networkFirst(event, req, key));
});

async function cacheFirst(event, req, key) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(key);
  if (hit) return hit;
  const res = await fetch(req);
  if (res.ok && res.type === "basic") event.waitUntil(cache.put(key, res.clone()));
  return res;
}

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
