// Translation: one flat dictionary per language (web/js/i18n/en.js, ko.js, ru.js), `{param}`
// placeholders, a kid-wording variant per key (`key@kid`), and role names per preset
// (`role.police.original`).
import en from "./i18n/en.js";
import ko from "./i18n/ko.js";
import ru from "./i18n/ru.js";
import { device, KEYS } from "./storage.js";
import { testHook } from "./testhooks.js";

// One file per language, every key in each (a new key goes into all three, beside its kin);
// tests/unit/test_i18n_keys.py and the browser tests check the three hold the same keys.

export const DICTS = { ko, ru, en };
export const LANGS = ["ko", "ru", "en"];

let lang = pickDefault();
let kid = device.get(KEYS.kid) === "1";
// Keys asked for but missing in the current language; the browser tests read this.
export const missing = new Set();
testHook("i18nMissing", missing);

function pickDefault() {
  const saved = device.get(KEYS.lang);
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
  device.set(KEYS.lang, next);
  document.documentElement.lang = next;
}

export function setKid(on) {
  kid = Boolean(on);
  device.set(KEYS.kid, kid ? "1" : "0");
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
