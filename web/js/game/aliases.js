// Anonymous games (host option `anonymous`; docs/rules.md, "Anonymous games"). The server
// deals the aliases and sends each seat's alias in every language (`players[].alias`,
// functions/service/features/aliases.py); this module only picks the viewer's language, marks the
// viewer's own seat ("You · Brave Fox"), and at the end shows alias and real name together.
// It rewrites `players[].name` once per view, so every screen that names a player (tiles,
// votes, chat, timeline, review) shows the alias without knowing about anonymity.
import { getLang, t } from "../i18n.js";
import { localBotNames } from "./bot-lines.js";

/** Is this view's game anonymous (from the start until the room returns to the lobby)? */
export function anonymous(view) {
  return Boolean(view && view.room && view.room.anonymous);
}

/** Put the display name of every seat into `players[].name` (idempotent: a language change
 * calls it again on the same view). */
export function applyAliases(view) {
  localBotNames(view); // "Bot 5" in the viewer's language, for every seat alike (bot-lines.js)
  if (!anonymous(view)) return view;
  const lang = getLang();
  const ended = view.phase && view.phase.kind === "ended";
  const me = view.you && view.you.id;
  for (const p of view.players || []) {
    if (!p.alias) continue;
    if (p.serverName === undefined) p.serverName = p.name; // the alias (room's language), or the real name at the end
    const alias = p.alias[lang] || p.alias.en || p.serverName;
    // the real name as this phone says it: a default seat name in the viewer's language (bot-lines.js)
    if (ended) p.name = t("anon.revealed", { alias, name: p.localName ?? p.serverName });
    else p.name = p.id === me ? t("anon.you", { alias }) : alias;
  }
  return view;
}

/** An anonymous game gives every seat a fresh id at the start: the seat this browser keeps
 * follows its own id in the view (so "my games" and private links find it). True if moved. */
export function seatMoved(session, view) {
  if (!session || session.spectator || !view || !view.you || !view.you.id) return false;
  if (session.playerId === view.you.id) return false;
  session.playerId = view.you.id;
  return true;
}
