// Views as patches (docs/protocol.md, "Patches"): the connection asks for them (`?patches=1`);
// after a full view the server sends RFC 6902 patches, applied here by the vendored
// fast-json-patch (web/vendor/fast-json-patch, MIT) to the view of the version just before.
// The rest of the client only ever sees full view frames.
import { applyPatch } from "../vendor/fast-json-patch/core.mjs";

export const PATCH_QUERY = "patches"; // the connect URL's query key (service/protocol/patches.py)

/**
 * The view a frame gives a client that holds `held` ({version, view} exactly as received,
 * or null). A full view replaces what is held; a patch applies to the view of the version
 * just before it. Null when a patch does not follow (a missed frame, no view yet, a patch
 * that does not apply): the caller asks for `sync`. `held` is never changed.
 */
export function nextView(held, frame) {
  if (frame.type === "view") return { version: frame.version, view: frame.view };
  if (!held || frame.version !== held.version + 1 || !Array.isArray(frame.ops)) return null;
  const base = structuredClone(held.view);
  delete base.serverNow; // patches are made between views without the clock (service/protocol/patches.py)
  delete base.clockRate;
  let view;
  try {
    view = applyPatch(base, frame.ops, true, true).newDocument;
  } catch {
    return null;
  }
  view.serverNow = frame.serverNow;
  view.clockRate = frame.clockRate;
  return { version: frame.version, view };
}

/** Turns one socket's `view` and `patch` frames into full view frames (one per socket). */
export class ViewFeed {
  /** @param {() => void} askSync sends `sync` (after a gap: the answer is the full view) */
  constructor(askSync) {
    this.askSync = askSync;
    this.held = null; // {version, view}: the last view exactly as the server sent it
    this.seen = -1; // the highest version any frame carried: a sync answer below it is old
    this.asked = false; // a `sync` asked after a gap, not answered yet
  }

  /** The full view frame to hand on (a fresh copy: screens may change it), or null. */
  take(frame) {
    if (typeof frame.version !== "number") return frame.type === "view" ? frame : null;
    this.seen = Math.max(this.seen, frame.version);
    if (this.held && frame.version < this.held.version) return null; // old: ignore it
    const next = nextView(this.held, frame);
    if (!next) {
      if (!this.asked) {
        this.asked = true;
        this.askSync();
      }
      return null;
    }
    if (frame.type === "view") {
      this.asked = false;
      // a patch newer than this answer came first and was dropped: ask again
      if (next.version < this.seen) {
        this.asked = true;
        this.askSync();
      }
    }
    this.held = next;
    return { type: "view", version: next.version, view: structuredClone(next.view) };
  }
}
