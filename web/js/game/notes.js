// Notes on tiles: this player's own marks on the other players (a suspected role or side of
// this game's roster, or a colour, and a short note), shown on the tiles and in the vote list.
// A personal tool like mute (./mute.js): kept in this browser only, never sent (nothing here
// calls the connection or the API), and forgotten when the game ends (docs/rules.md, "Notes
// on tiles").
import { h } from "../dom.js";
import { roleName, t, teamName } from "../i18n.js";
import { catalogue } from "./format.js";
import { device, KEYS } from "../storage.js";
import { closeSheet, showSheet } from "./sheet.js";

const KEY = KEYS.notes;
export const NOTE_MAX = 40; // characters: a few words fit a tile and the vote row
export const COLOURS = ["red", "yellow", "green", "blue"];
// The sides a mark can name, in this order, when this game deals a role of that team
// (`view.rules.roles`): every rulebook has a town and a mafia; `original`'s expansion deals a
// second criminal group. A lone role (a "solo" team) is marked by its role instead.
const SIDES = ["town", "mafia", "yakuza"];
const TAG = /^(role|side|colour):[A-Za-z]{1,20}$/;

function roomOf(view) {
  return (view && view.room && view.room.code) || null;
}

// One game is told from another by its seats (the same ids for the whole game) and its phase
// counter (`phase.seq` only grows within a game and starts again at 1 in the next one): the
// view carries no game id, and a tab that missed the end screen must still start clean.
function seatsOf(view) {
  return (view.players || []).map((p) => p.id).sort().join(",");
}

function load(room) {
  const rec = device.getJSON(KEY + room);
  if (!rec || typeof rec !== "object" || typeof rec.marks !== "object" || !rec.marks) return null;
  return rec;
}

function clean(mark) {
  if (!mark || typeof mark !== "object") return null;
  const tag = typeof mark.tag === "string" && TAG.test(mark.tag) ? mark.tag : null;
  const note = typeof mark.note === "string" ? [...mark.note].slice(0, NOTE_MAX).join("") : "";
  return tag || note ? { tag, note } : null;
}

/** This game's marks for the view's room: {playerId: {tag, note}}; stale ones are dropped. */
export function marksFor(view) {
  const room = roomOf(view);
  if (!room || !view.you) return {};
  const kind = view.phase && view.phase.kind;
  if (kind === "lobby" || kind === "ended" || view.result) {
    forgetNotes(view);
    return {};
  }
  const rec = load(room);
  if (!rec) return {};
  const seq = (view.phase && view.phase.seq) || 0;
  if (rec.seats !== seatsOf(view) || (typeof rec.seq === "number" && rec.seq > seq)) {
    device.remove(KEY + room); // another game of this room
    return {};
  }
  if (rec.seq !== seq) device.setJSON(KEY + room, { ...rec, seq });
  const out = {};
  for (const [pid, mark] of Object.entries(rec.marks)) {
    const m = clean(mark);
    if (m) out[pid] = m;
  }
  return out;
}

/** Save (or, with an empty mark, remove) this player's mark on `pid`. */
export function setMark(view, pid, mark) {
  const room = roomOf(view);
  if (!room) return;
  const marks = { ...marksFor(view) };
  const m = clean(mark);
  if (m) marks[pid] = m;
  else delete marks[pid];
  if (Object.keys(marks).length) {
    device.setJSON(KEY + room, { seats: seatsOf(view), seq: (view.phase && view.phase.seq) || 0, marks });
  } else {
    device.remove(KEY + room);
  }
}

/** The game is over (the end screen, a new lobby): its notes go. */
export function forgetNotes(view) {
  const room = roomOf(view);
  if (room) device.remove(KEY + room);
}

/** The choices this game offers: its roster's roles, the sides, the colours. */
export function tagChoices(view) {
  const roles = Object.keys(view.roster || {});
  const dealt = new Set(catalogue(view).filter((r) => roles.includes(r.id)).map((r) => r.team));
  const sides = SIDES.filter((side) => side === "town" || side === "mafia" || dealt.has(side));
  return [
    { group: "role", items: roles.map((r) => ({ tag: `role:${r}`, label: roleName(r, view.preset) })) },
    { group: "side", items: sides.map((s) => ({ tag: `side:${s}`, label: teamName(s) })) },
    { group: "colour", items: COLOURS.map((c) => ({ tag: `colour:${c}`, label: t(`notes.colour.${c}`) })) },
  ].filter((g) => g.items.length);
}

function tagLabel(view, tag) {
  if (!tag) return "";
  const [kind, name] = tag.split(":");
  if (kind === "role") return roleName(name, view.preset);
  if (kind === "side") return teamName(name);
  return t(`notes.colour.${name}`);
}

/** The mark on `pid` as a small chip (tile, vote row), or null when there is none. */
export function noteChip(view, pid, marks = marksFor(view)) {
  const m = marks[pid];
  if (!m) return null;
  const colour = m.tag && m.tag.startsWith("colour:") ? m.tag.slice(7) : null;
  const tag = tagLabel(view, m.tag);
  return h(
    "span",
    { class: "note-chip", "data-note": pid, "data-tag": m.tag || "", title: [tag, m.note].filter(Boolean).join(" · ") },
    h("span", { class: "sr-only" }, `, ${t("notes.yours")}: `),
    tag
      ? h(
          "span",
          { class: `note-tag-words${colour ? " is-colour" : ""}` },
          colour ? h("span", { class: `note-dot note-${colour}`, "aria-hidden": "true" }) : null,
          h("span", { class: "note-tag-name" }, tag),
        )
      : null,
    tag && m.note ? h("span", { class: "sr-only" }, ", ") : null,
    m.note ? h("span", { class: "note-words" }, m.note) : null,
  );
}

/** The tile's "note" button (beside the tile: a tile is a button already), or null for oneself. */
export function noteButton(view, ctx, p, marks = marksFor(view)) {
  if (!view.you || p.id === view.you.id || !roomOf(view)) return null;
  const marked = Boolean(marks[p.id]);
  return h(
    "button",
    {
      type: "button",
      class: `note-btn${marked ? " marked" : ""}`,
      "data-key": `note-${p.id}`,
      "data-note-btn": p.id,
      "aria-label": t("notes.button", { name: p.name }),
      "aria-haspopup": "dialog",
      onclick: () => openNote(view, ctx, p),
    },
    h("span", { "aria-hidden": "true" }, "✎"),
  );
}

function openNote(view, ctx, p) {
  const mark = marksFor(view)[p.id] || { tag: null, note: "" };
  const done = (next) => {
    // the latest view: a phase may have passed while the sheet was open
    if (next !== undefined) setMark((ctx.state && ctx.state.view) || view, p.id, next);
    closeSheet();
    ctx.rerender();
  };
  const groups = tagChoices(view).map((g) =>
    h(
      "fieldset",
      { class: "note-tags", "data-group": g.group },
      h("legend", null, t(`notes.group.${g.group}`)),
      g.items.map((it) =>
        h(
          "label",
          { class: "note-tag" },
          h("input", { type: "radio", name: "note-tag", value: it.tag, checked: mark.tag === it.tag }),
          it.tag.startsWith("colour:") ? h("span", { class: `note-dot note-${it.tag.slice(7)}`, "aria-hidden": "true" }) : null,
          h("span", null, it.label),
        ),
      ),
    ),
  );
  const text = h("input", { id: "note-text", class: "note-text", maxlength: NOTE_MAX, autocomplete: "off", value: mark.note || "" });
  const form = h(
    "form",
    {
      class: "note-form",
      onsubmit: (e) => {
        e.preventDefault();
        const picked = form.querySelector('input[name="note-tag"]:checked');
        done({ tag: picked ? picked.value : null, note: text.value.trim() });
      },
    },
    h("p", { class: "hint", id: "note-hint" }, t("notes.private")),
    groups,
    h("label", { for: "note-text", class: "note-text-label" }, t("notes.text", { n: NOTE_MAX })),
    text,
    h(
      "div",
      { class: "row" },
      h("button", { type: "submit", class: "btn btn-primary", id: "note-save" }, t("notes.save")),
      mark.tag || mark.note
        ? h("button", { type: "button", class: "btn", id: "note-clear", onclick: () => done(null) }, t("notes.clear"))
        : null,
      h("button", { type: "button", class: "btn btn-quiet", id: "note-cancel", onclick: () => done(undefined) }, t("notes.cancel")),
    ),
  );
  showSheet("note-dialog", t("notes.title", { name: p.name }), form);
}
