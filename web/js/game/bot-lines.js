// Bots in the viewer's language. A bot speaks in the room's language (its lines are final text
// from mafia_engine/bots/phrases.py, planned once for the whole table); each phone reads the line
// back against the phrasebook (bot-phrases.js, a generated copy), finds its intent, its variant
// and the player it names, and says the same variant in the viewer's language with that
// player's name as this phone shows it. A line that matches no phrase is shown as it came.
// A bot's default name ("Bot 5", "봇 5", "Бот 5": functions/service/room/operations.py bot_name)
// reads in the viewer's language too (`localBotNames`).
import { getLang, t } from "../i18n.js";
import { player, playerName } from "./format.js";
import PHRASES from "./bot-phrases.js";
import { BOT_WORD } from "./shared-constants.js";

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
let table = null; // [{intent, lang, index, re, named}]

function compiled() {
  if (table) return table;
  table = [];
  for (const [intent, byLang] of Object.entries(PHRASES)) {
    for (const [lang, variants] of Object.entries(byLang)) {
      variants.forEach((v, index) => {
        const parts = v.split("{name}");
        table.push({ intent, lang, index, re: new RegExp(`^${parts.map(escape).join("(.+)")}$`, "u"), named: parts.length > 1 });
      });
    }
  }
  return table;
}

/** The seat a bot's line names: by any name it may go by there (the server's, an alias). */
function seatNamed(view, said) {
  const p = (view.players || []).find((q) => [q.serverName, q.name, ...Object.values(q.alias || {})].includes(said));
  return p ? p.id : null;
}

/** A chat message's text as this phone shows it: a bot's phrase in the viewer's language. */
export function botLine(view, m) {
  const from = player(view, m.from);
  if (!from || !from.bot || typeof m.text !== "string") return m.text;
  const lang = getLang();
  for (const e of compiled()) {
    const match = e.re.exec(m.text);
    if (!match) continue;
    const variants = PHRASES[e.intent][lang];
    if (e.lang === lang || !variants || !variants.length) return m.text;
    const out = variants[e.index % variants.length];
    if (!e.named) return out;
    const id = seatNamed(view, match[1]);
    return id ? out.replace("{name}", playerName(view, id)) : m.text;
  }
  return m.text;
}

// "<word> N" with the word of any room language (the server's BOT_WORD)
const BOT_NAME = new RegExp(`^(?:${Object.values(BOT_WORD).map(escape).join("|")}) (\\d+)$`, "u");

/** A bot seat's default name in the viewer's language (the server's kept as `serverName`;
 * idempotent, so a language switch calls it again on the same view). */
export function localBotNames(view) {
  for (const p of (view && view.players) || []) {
    if (!p.bot) continue;
    if (p.serverName === undefined) p.serverName = p.name;
    const m = BOT_NAME.exec(p.serverName || "");
    if (m) p.name = t("bot.name", { n: m[1] });
  }
  return view;
}
