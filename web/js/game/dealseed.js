// No one chooses the deal (docs/rules.md, "Randomness"; docs/protocol.md, "dealCommit"): in
// the lobby this phone draws a value of its own (32 bytes from crypto.getRandomValues), keeps
// it on the device and sends only its hash (`dealCommit`); when the host starts, the lobby's
// view asks for the values (`room.deal.revealUntil`) and the phone reveals it (`dealReveal`).
// The server mixes the values into its secret, to which it committed in the lobby before any
// value was revealed (`room.deal.serverCommitment`); the end screen checks the whole record
// (game/fairness.js). A page without WebCrypto (plain http on a LAN address) contributes nothing.
import { device, KEYS } from "../storage.js";
import { sha256Hex } from "./fairness.js";

export const CLIENT_PREFIX = "mafia-deal-v3-client";
const VALUE_BYTES = 32;

let inflight = null; // the commitment being computed or sent (one at a time)
let revealedFor = null; // the wait (`room|revealUntil`) this phone answered

function keyOf(room) {
  return `${KEYS.dealValue}${room}`;
}

/** This phone's value for `room`'s current lobby: {serverCommitment, value, commitment} or null. */
export function kept(room) {
  const data = device.getJSON(keyOf(room), null);
  return data && typeof data === "object" && typeof data.value === "string" ? data : null;
}

/** 32 fresh random bytes as lowercase hex (the browser's CSPRNG). */
export function freshValue() {
  const bytes = new Uint8Array(VALUE_BYTES);
  globalThis.crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The commitment to `value`: SHA-256 of `mafia-deal-v3-client:<value>` (fairness.client_commitment). */
export function commitmentOf(value) {
  return sha256Hex(`${CLIENT_PREFIX}:${value}`);
}

/**
 * Every view of a seat: commit in the lobby (once per lobby secret, again when the commitment
 * is not in the lobby's list: a start called off spends the values), reveal when the start asks.
 * `send(action, payload)` sends a frame on the room's socket.
 */
export async function onView(view, session, send) {
  const deal = view && view.room && view.room.deal;
  if (!deal || !session || !session.room || !view.you || !view.phase || view.phase.kind !== "lobby") return;
  if (!(globalThis.crypto && globalThis.crypto.subtle)) return;
  const room = session.room;
  const mine = kept(room);
  const current = mine && mine.serverCommitment === deal.serverCommitment ? mine : null;
  const listed = current && (deal.commitments || []).includes(current.commitment);
  if (deal.revealUntil === null || deal.revealUntil === undefined) {
    if (listed || inflight) return;
    const value = freshValue();
    inflight = "…";
    try {
      const commitment = await commitmentOf(value);
      inflight = commitment;
      device.setJSON(keyOf(room), { serverCommitment: deal.serverCommitment, value, commitment });
      send("dealCommit", { commitment });
    } finally {
      setTimeout(() => (inflight = null), 2000); // its view confirms it; else commit again then
    }
    return;
  }
  const wait = `${room}|${deal.revealUntil}`;
  if (!listed || revealedFor === wait || (deal.revealed || []).includes(current.commitment)) return;
  revealedFor = wait;
  send("dealReveal", { value: current.value });
}

/** A refused commitment or reveal (busy, or a start already asking): the next view tries again. */
export function refused(action) {
  if (action === "dealReveal") revealedFor = null;
  else inflight = null;
}
