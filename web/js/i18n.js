// Translation: flat dictionaries per language, `{param}` placeholders, a kid-wording
// variant per key (`key@kid`), and role names per preset (`role.police.original`).
import en from "./i18n/en.js";
import ko from "./i18n/ko.js";
import ru from "./i18n/ru.js";
import extra from "./i18n/review.js";
import table from "./i18n/table.js";
import away from "./i18n/away.js";
import sides from "./i18n/sides.js";
import display from "./i18n/display.js";
import publicWords from "./i18n/public.js";

// Last word, removal and post-game review words (docs/rules.md: Original "Day", "Room rules",
// "Post-game review") live in their own file.
for (const [code, dict] of Object.entries({ ko, ru, en }))
  Object.assign(dict, extra[code], table[code], away[code], sides[code], display[code], publicWords[code]);

export const DICTS = { ko, ru, en };
export const LANGS = ["ko", "ru", "en"];

const LANG_KEY = "mafia.lang";
const KID_KEY = "mafia.kid";

let lang = pickDefault();
let kid = localStorage.getItem(KID_KEY) === "1";
// Keys asked for but missing in the current language; the browser tests read this.
export const missing = new Set();
window.__i18nMissing = missing;

function pickDefault() {
  const saved = localStorage.getItem(LANG_KEY);
  if (LANGS.includes(saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().slice(0, 2);
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

export const getLang = () => lang;
export const getKid = () => kid;

export function setLang(next) {
  if (!LANGS.includes(next)) return;
  lang = next;
  localStorage.setItem(LANG_KEY, next);
  document.documentElement.lang = next;
}

export function setKid(on) {
  kid = Boolean(on);
  localStorage.setItem(KID_KEY, kid ? "1" : "0");
}

export function has(key) {
  return key in DICTS[lang];
}

/** Translate `key` with `{name}` parameters; kid wording wins when switched on. */
export function t(key, params) {
  const dict = DICTS[lang];
  let text = kid && dict[`${key}@kid`] !== undefined ? dict[`${key}@kid`] : dict[key];
  if (text === undefined) {
    missing.add(`${lang}:${key}`);
    text = DICTS.en[key] ?? key;
  }
  if (params) {
    text = text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
  }
  return text;
}

/** Role name in the current language, with the preset's own word where it has one. */
export function roleName(role, preset) {
  if (!role) return "";
  const dict = DICTS[lang];
  const specific = dict[`role.${role}.${preset}`];
  if (specific !== undefined) return specific;
  if (dict[`role.${role}`] !== undefined) return dict[`role.${role}`];
  missing.add(`${lang}:role.${role}`);
  return role;
}

/**
 * A refusal from the server in words: our translation of its code. The server's message is
 * English for developers; it never reaches the screen (an unknown code gets a plain line).
 */
export function errorText(code, message) {
  if (code && has(`err.${code}`)) return t(`err.${code}`);
  if (message) console.info(`refused (${code}): ${message}`);
  return t("err.other");
}

export function teamName(team) {
  return has(`team.${team}`) ? t(`team.${team}`) : team;
}

document.documentElement.lang = lang;
