// A provably fair deal (docs/rules.md, "A provably fair deal"): every view of a game carries
// `fairness.commitment`, SHA-256 of the game's secret seed (64 hex digits: docs/rules.md,
// "Randomness"), a salt, and (scheme v2) the game it deals: the seat list in order and the
// options, preset included (layers/engine/mafia_engine/fairness.py); the ended view reveals
// seed and salt, and this browser checks the hash itself with WebCrypto over the seat list and
// options the end screen shows, so a hash that verifies means they are the committed ones.
// `rolesMatch` replays the deal from the seed (`replayDeal`, the engine's rng in WebCrypto)
// and compares it with the roles the end screen shows (`check(view, room, {roles: true})`); `python -m mafia_engine.verify` (the
// command `verifyCommand` writes, with the end screen's roles) replays it with the engine itself.
// A v3 deal (docs/rules.md, "Randomness", "No one chooses the deal") was dealt from the secret
// mixed with the phones' revealed values (game/dealseed.js): `check` also checks the lobby's
// commitment to the secret and each value against its commitment, and replays from `mixedSeed`.
import { device, KEYS } from "../storage.js";

const PREFIX_V1 = "mafia-deal-v1";
const SCHEME_V1 = "sha256/mafia-deal-v1"; // games committed before state version 3: the secret alone
const PREFIX = "mafia-deal-v2";
const SCHEME = "sha256/mafia-deal-v2";
// v3: the server's secret, committed in the lobby, mixed with the values the phones revealed
// at the start (docs/rules.md, "Randomness"; game/dealseed.js)
const PREFIX_V3 = "mafia-deal-v3";
export const SCHEME_V3 = "sha256/mafia-deal-v3";
const SEEN_PER_ROOM = 8;

/** JSON with sorted keys and no spaces, characters as they are: Python's
 * `json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)` (fairness.game_text). */
export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The player ids of a view in seat order. */
export function seatList(view) {
  return [...((view && view.players) || [])].sort((a, b) => (a.seat || 0) - (b.seat || 0)).map((p) => p.id);
}

/** The text that is hashed: v2 `mafia-deal-v2:<salt>:<seed as JSON>:<game>` with `game =
 * {options, players}` as canonical JSON; without `game`, v1's `mafia-deal-v1:<salt>:<seed as JSON>`
 * (JSON keeps 7 and "7" apart). */
export function preimage(seed, salt, game) {
  if (game === undefined) return `${PREFIX_V1}:${salt}:${JSON.stringify(seed)}`;
  return `${PREFIX}:${salt}:${JSON.stringify(seed)}:${canonicalJson(game)}`;
}

/** SHA-256 of `text` (UTF-8) as 64 lowercase hex digits; null where WebCrypto is missing
 * (`crypto.subtle` exists only in secure contexts: HTTPS, or localhost). */
export async function sha256Hex(text) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (!subtle) return null;
  const digest = await subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function hmac(keyBytes, message) {
  const subtle = globalThis.crypto.subtle;
  const key = await subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await subtle.sign("HMAC", key, message));
}

function hexOf(bytes) {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The contributions in their one order (by commitment), as the engine keeps them. */
function ordered(contributions) {
  return [...(contributions || [])]
    .map((c) => ({ commitment: c.commitment, value: c.value === undefined ? null : c.value }))
    .sort((a, b) => (a.commitment < b.commitment ? -1 : a.commitment > b.commitment ? 1 : 0));
}

/** A v3 game's preimage: `mafia-deal-v3:<salt>:<secret as JSON>:<game>:<contributions>`
 * (mafia_engine/fairness.py, preimage_v3). */
export function preimageV3(seed, salt, game, contributions) {
  return `${PREFIX_V3}:${salt}:${JSON.stringify(seed)}:${canonicalJson(game)}:${canonicalJson(ordered(contributions))}`;
}

/** The secret a v3 game was dealt with: HMAC-SHA-256(key = the secret's JSON text, message =
 * `mafia-deal-v3-mix:` + the revealed values as a JSON list, in the contributions' order), hex
 * (fairness.mix); null without WebCrypto. */
export async function mixedSeed(seed, contributions) {
  if (!(globalThis.crypto && globalThis.crypto.subtle)) return null;
  const enc = new TextEncoder();
  const values = ordered(contributions)
    .filter((c) => c.value !== null)
    .map((c) => c.value);
  return hexOf(await hmac(enc.encode(JSON.stringify(seed)), enc.encode(`mafia-deal-v3-mix:${JSON.stringify(values)}`)));
}

/** A v3 record's own checks: the lobby's commitment to the secret, and each revealed value
 * against its phone's commitment. true, false, or null without WebCrypto. */
async function recordHolds(f) {
  const server = await sha256Hex(`mafia-deal-v3-server:${f.salt}:${JSON.stringify(f.seed)}`);
  if (server === null) return null;
  if (server !== String(f.serverCommitment || "").toLowerCase()) return false;
  for (const c of f.contributions || []) {
    if (c.value === null || c.value === undefined) continue; // dropped: shown, takes no part
    if ((await sha256Hex(`mafia-deal-v3-client:${c.value}`)) !== c.commitment) return false;
  }
  return true;
}

/** The deal replayed from the revealed seed, as the engine deals it (mafia_engine/rng.py:
 * key = HMAC-SHA-256(JSON(seed), "deal"), blocks HMAC(key, n as 8 bytes big-endian), uniform
 * draws by rejection, Fisher-Yates over the preset's deal list, which is the view's `roster`
 * expanded in its order). The role of each seat, in seat order; null without WebCrypto. */
export async function replayDeal(seed, roster) {
  if (!(globalThis.crypto && globalThis.crypto.subtle)) return null;
  const enc = new TextEncoder();
  const key = await hmac(enc.encode(JSON.stringify(seed)), enc.encode("deal"));
  let n = 0;
  const block = async () => {
    const msg = new Uint8Array(8);
    new DataView(msg.buffer).setBigUint64(0, BigInt(n));
    n += 1;
    return BigInt(`0x${hexOf(await hmac(key, msg))}`);
  };
  const top = 1n << 256n;
  const below = async (k) => {
    const m = BigInt(k);
    const limit = top - (top % m);
    for (;;) {
      const r = await block();
      if (r < limit) return Number(r % m);
    }
  };
  const out = Object.entries(roster || {}).flatMap(([role, count]) => Array(count).fill(role));
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = await below(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Whether the roles an ended view shows (`result.players`) are the deal replayed from its seed:
 * true, false, or null when the view lacks what the replay needs. */
export async function rolesMatch(view) {
  const f = view && view.fairness;
  const shown = new Map(((view && view.result && view.result.players) || []).map((p) => [p.id, p.role]));
  const seats = seatList(view);
  if (!f || !view.roster || !seats.length || !seats.every((id) => shown.has(id))) return null;
  const seed = f.scheme === SCHEME_V3 ? await mixedSeed(f.seed, f.contributions) : f.seed;
  if (seed === null) return null;
  const dealt = await replayDeal(seed, view.roster);
  if (dealt === null) return null;
  return dealt.length === seats.length && seats.every((id, i) => shown.get(id) === dealt[i]);
}

function seenAll() {
  const data = device.getJSON(KEYS.deals, {}); // {room code: [commitments seen while a game ran]}
  return data && typeof data === "object" ? data : {};
}

/** Keep the commitment a running game's view carries, so the end can tell whether the one
 * it reveals against is the one this browser saw before the end (a server that swapped the
 * deal would have to swap the commitment too). Call it with every view. */
export function remember(room, view) {
  const f = view && view.fairness;
  if (!room || !f || !f.commitment || !view.phase || view.phase.kind === "ended") return;
  const all = seenAll();
  const list = Array.isArray(all[room]) ? all[room] : [];
  if (list.includes(f.commitment)) return;
  all[room] = [...list, f.commitment].slice(-SEEN_PER_ROOM);
  device.setJSON(KEYS.deals, all); // storage full or off: the hash check still runs
}

/** The commitments this browser saw in running games of `room`. */
export function seen(room) {
  const list = seenAll()[room];
  return Array.isArray(list) ? list : [];
}

/**
 * Check an ended view's deal: "verified" (the revealed seed and salt, with the seat list and
 * options this view shows for a v2 game, hash to the commitment, and it is one this browser
 * saw during the game, or it saw none), "mismatch" (they do not: another seed, seat order,
 * option or preset),
 * "changed" (they do, but the commitment is not the one this browser saw while the game
 * ran), "unavailable" (no WebCrypto here), or null (no commitment: an older game).
 */
export async function check(view, room, opts = {}) {
  const f = view && view.fairness;
  if (!f || !f.commitment || f.seed === null || f.seed === undefined || !f.salt) return null;
  const v1 = !f.scheme || f.scheme === SCHEME_V1;
  const v3 = f.scheme === SCHEME_V3;
  if (!v1 && !v3 && f.scheme !== SCHEME) return "mismatch";
  const game = v1 ? undefined : { options: view.options || {}, players: seatList(view) };
  const hash = await sha256Hex(v3 ? preimageV3(f.seed, f.salt, game, f.contributions) : preimage(f.seed, f.salt, game));
  if (hash === null) return "unavailable";
  if (hash !== String(f.commitment).toLowerCase()) return "mismatch";
  if (v3 && (await recordHolds(f)) === false) return "mismatch";
  if (v3) {
    // this phone's own value (game/dealseed.js): a record without it was not dealt with it
    const mine = device.getJSON(`${KEYS.dealValue}${room}`, null);
    const lost = mine && mine.serverCommitment === f.serverCommitment;
    if (lost && !(f.contributions || []).some((c) => c.commitment === mine.commitment)) return "changed";
  }
  // the roles it shows against the deal replayed from the seed: only with `roles: true` (the
  // display's and the device's tests draw scripted states whose roles no seed deals)
  if (opts.roles && (await rolesMatch(view)) === false) return "mismatch";
  const earlier = seen(room);
  if (earlier.length && !earlier.includes(f.commitment)) return "changed";
  return "verified";
}

function shellQuote(text) {
  return `'${String(text).replace(/'/g, `'\\''`)}'`;
}

/** The command that replays this game's deal from a copy of the project (docs/rules.md) and
 * compares it with the roles this end screen shows (`--roles`); for an anonymous game also its
 * seat shuffle and aliases (`--anonymous`). */
export function verifyCommand(view) {
  const f = view.fairness;
  const seats = seatList(view);
  const shown = new Map(((view.result && view.result.players) || []).map((p) => [p.id, p.role]));
  const roles = seats.every((id) => shown.get(id)) ? seats.map((id) => shown.get(id)) : null;
  return [
    "PYTHONPATH=layers/engine python3 -m mafia_engine.verify",
    `--seed ${shellQuote(JSON.stringify(f.seed))}`,
    `--salt ${f.salt}`,
    `--commitment ${f.commitment}`,
    `--players ${seats.join(",")}`,
    `--options ${shellQuote(JSON.stringify(view.options || {}))}`,
    ...(roles ? [`--roles ${roles.join(",")}`] : []),
    ...(f.scheme === SCHEME_V1 ? [`--scheme ${SCHEME_V1}`] : []),
    ...(f.scheme === SCHEME_V3
      ? [
          `--scheme ${SCHEME_V3}`,
          `--server-commitment ${f.serverCommitment}`,
          `--contributions ${shellQuote(JSON.stringify(ordered(f.contributions)))}`,
        ]
      : []),
    ...(view.room && view.room.anonymous ? ["--anonymous"] : []),
  ].join(" ");
}
