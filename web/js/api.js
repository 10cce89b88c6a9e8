// REST calls (docs/protocol.md, "REST"). Errors come back as ApiError with the server's code.
import { deviceKey } from "./session.js";
import { KEYS, device } from "./storage.js";
import { enableTestHooks } from "./testhooks.js";

let apiUrl = "/api";
// config.json's WebSocket URL: a deployed site's sockets go to API Gateway, not to its own
// host (template.yaml SiteDeployment writes it). Empty: this host's /ws (the offline stack).
let configWsUrl = "";
// The ICE servers of the voice's peer connections (web/js/voice/mesh.js): config.json's
// `iceServers` (a TURN server too: docs/operations.md, "Voice"), else one public STUN server.
let configIceServers = [{ urls: "stun:stun.l.google.com:19302" }];

/** The ICE servers a new voice connection uses (RTCConfiguration.iceServers). */
export function iceServers() {
  return configIceServers;
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code);
    this.status = status;
    this.code = code;
  }
}

export async function loadConfig() {
  try {
    const res = await fetch("./config.json", { cache: "no-store" });
    if (res.ok) {
      const cfg = await res.json();
      if (cfg.apiUrl) apiUrl = cfg.apiUrl.replace(/\/$/, "");
      if (typeof cfg.wsUrl === "string" && /^wss?:\/\//.test(cfg.wsUrl)) configWsUrl = cfg.wsUrl;
      if (Array.isArray(cfg.iceServers)) configIceServers = cfg.iceServers;
      if (cfg.testHooks === true) enableTestHooks(); // the offline stack's only (testhooks.js)
    }
  } catch {
    // Keep the default: the offline stack serves the API on /api.
  }
  return apiUrl;
}

/** Passkey sign-in's session kept in this browser ({session, person, expires}), or null. */
export function signedIn() {
  const s = device.getJSON(KEYS.signIn);
  return s && typeof s.session === "string" && s.expires * 1000 > Date.now() ? s : null;
}

async function call(method, path, body, headers = {}) {
  let res;
  const s = signedIn(); // every request says who is signed in (docs/protocol.md, "Account")
  const auth = s ? { Authorization: `Session ${s.session}` } : {};
  try {
    res = await fetch(apiUrl + path, {
      method,
      headers: { ...(body ? { "Content-Type": "application/json" } : {}), ...auth, ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new ApiError(0, "network", "");
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = (data && data.error) || {};
    const out = new ApiError(res.status, err.code || String(res.status), err.message || "");
    if (typeof err.retryAfter === "number") out.retryAfter = err.retryAfter; // a 429's wait (seconds)
    throw out;
  }
  return data;
}

// `lang`: the room's language (bot names and bot chat lines), the creator's language.
export const createRoom = (name, preset, options, lang) =>
  call("POST", "/rooms", { name, preset, options: options || {}, ...(lang ? { lang } : {}) });
// `device`: send this browser's device key (one person, one seat). Single-device play seats the
// whole table from one phone by design, so it sends none (an `untimed` room takes no substitutes).
export const joinRoom = (code, name, { device = true } = {}) =>
  call("POST", `/rooms/${encodeURIComponent(code)}/players`, { name, ...(device ? { device: deviceKey() } : {}) });
// Public rooms (docs/protocol.md, "REST"): a page of the open rooms of a language, and "Play now".
export const listPublicRooms = (lang, preset) =>
  call("GET", `/rooms?public=1&lang=${encodeURIComponent(lang)}${preset ? `&preset=${encodeURIComponent(preset)}` : ""}`);
// "Watch now": a page of the running public games of a language (the spectator view opens one).
export const listWatchGames = (lang, preset) =>
  call("GET", `/rooms?public=1&watch=1&lang=${encodeURIComponent(lang)}${preset ? `&preset=${encodeURIComponent(preset)}` : ""}`);
export const quickPlay = (name, lang, preset, party) =>
  call("POST", "/quickplay", { name, lang, ...(preset ? { preset } : {}), ...(party ? { party } : {}), device: deviceKey() });
export const getRoom = (code) => call("GET", `/rooms/${encodeURIComponent(code)}`);
// Ranked play (docs/protocol.md, "Ranked play"; screens/ranked.js)
export const quickPlayRanked = (name, lang) => call("POST", "/quickplay", { name, lang, ranked: true, device: deviceKey() });
export const ladder = (lang, cursor) => call("GET", `/ladder?lang=${encodeURIComponent(lang)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
export const person = (handle, lang) => call("GET", `/people/${encodeURIComponent(handle)}?lang=${encodeURIComponent(lang)}`);
// What became of the seat a kept token held (docs/protocol.md, "REST"): asked when a reconnect
// is refused. The token goes in a header, never in the URL (paths reach logs and caches).
export const seatFate = (code, token) =>
  call("POST", `/rooms/${encodeURIComponent(code)}/fate`, null, { "X-Mafia-Token": token });

/** The WebSocket URL from a REST answer; when it is missing (a spectator), config.json's,
 * else the same host's /ws. */
export function wsBase(wsUrl) {
  wsUrl = wsUrl || configWsUrl;
  if (wsUrl) {
    if (/^wss?:/.test(wsUrl)) return wsUrl;
    const u = new URL(wsUrl, location.href);
    u.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    return u.toString();
  }
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
}
// Passkey sign-in and the account (docs/protocol.md, "Account"; screens/account.js).
export const account = {
  createOptions: () => call("POST", "/account/passkeys/options", {}),
  create: (challengeId, credential) => call("POST", "/account/passkeys", { challengeId, credential }),
  signInOptions: () => call("POST", "/account/session/options", {}),
  signIn: (challengeId, credential) => call("POST", "/account/session", { challengeId, credential }),
  signOut: () => call("DELETE", "/account/session"),
  get: () => call("GET", "/account"),
  remove: () => call("DELETE", "/account"),
  removePasskey: (id) => call("DELETE", `/account/passkeys/${encodeURIComponent(id)}`),
};
