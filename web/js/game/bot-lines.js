// Chat phrases in the viewer's language. A phrase line (bots say nothing else; people send
// them from the chat box's quick phrases) comes as an intent: a phrase id, the player it names
// by id and a variant number (`{phrase, args: {target}, variant}`, mafia_engine/chat.py
// PHRASES; docs/protocol.md, "Chat messages"). Each phone draws it from the phrasebook
// (bot-phrases.js, a generated copy of mafia_engine/bots/phrases.py LINES) in its own
// language, the variant modulo the wordings that language has, with the player's name as this
// phone shows it. Every seat's line is drawn alike, whoever said it: nothing here reads a bot
// flag, and no text is parsed back into an intent (free text is shown as it came).
// A default seat name ("Bot 5", "봇 5", "Бот 5": functions/service/room/operations.py bot_name)
// reads in the viewer's language too, for every seat alike (`localBotNames`).
import { getLang, t } from "../i18n.js";
import { playerName } from "./format.js";
import PHRASES from "./bot-phrases.js";
import { BOT_WORD } from "./shared-constants.js";

/** The phrase ids a person may send from the chat box (the ones that name nobody, then the
 * ones about a player): the same intents the bots use. */
export const QUICK_PHRASES = ["greet", "muse", "notMe", "gg"];
export const QUICK_CLAIMS = ["suspect", "trust", "kill"]; // "kill": the night team's chats only
const VARIANTS = 60; // mafia_engine/bots/phrases.py VARIANTS: any variant in 0..59 is as likely

/** A variant number for a phrase this phone sends: drawn like a bot's (uniform in 0..59). */
export function drawVariant() {
  return Math.floor(Math.random() * VARIANTS);
}

/** A phrase's wording in the viewer's language: `phrase` an id, `args` its arguments, `variant`
 * a number (English when the language lacks the phrase; the id when the book lacks it). */
export function phraseText(view, phrase, args, variant) {
  const byLang = PHRASES[phrase];
  if (!byLang) return String(phrase);
  const options = byLang[getLang()] || byLang.en || [];
  if (!options.length) return String(phrase);
  const n = Number.isInteger(variant) && variant >= 0 ? variant : 0;
  const out = options[n % options.length];
  const target = args && args.target;
  return target ? out.replace("{name}", playerName(view, target)) : out;
}

/** A chat message's text as this phone shows it: a phrase in the viewer's language, free text
 * as it came. The same for every seat. */
export function chatLine(view, m) {
  if (m && typeof m.phrase === "string") return phraseText(view, m.phrase, m.args, m.variant);
  return m ? m.text : "";
}

/** A last word's line in the review: text, or a phrase's fields (`{phrase, args, variant}`). */
export function lineText(view, line) {
  return line && typeof line === "object" ? phraseText(view, line.phrase, line.args, line.variant) : String(line);
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// "<word> N" with the word of any room language (the server's BOT_WORD)
const BOT_NAME = new RegExp(`^(?:${Object.values(BOT_WORD).map(escape).join("|")}) (\\d+)$`, "u");

/** A default seat name ("<word> N") in the viewer's language, for every seat alike (the
 * server's name kept as `serverName`, this phone's as `localName`; idempotent, so a language
 * switch calls it again on the same view). */
export function localBotNames(view) {
  for (const p of (view && view.players) || []) {
    if (p.serverName === undefined) p.serverName = p.name;
    const m = BOT_NAME.exec(p.serverName || "");
    p.localName = m ? t("bot.name", { n: m[1] }) : p.serverName;
    if (m) p.name = p.localName;
  }
  return view;
}
