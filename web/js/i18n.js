// Translation: one flat dictionary per language (web/js/i18n/en.js, ko.js, ru.js), `{param}`
// placeholders, a kid-wording variant per key (`key@kid`), and role names per preset
// (`role.police.original`). A language's dictionary is a chunk of its own, fetched when the
// visitor first reads it (`loadLang`): a boot downloads one language, not three.
import { device, KEYS } from "./storage.js";
import { testHook } from "./testhooks.js";

// One file per language, every key in each (a new key goes into all three, beside its kin);
// tests/unit/test_i18n_keys.py and the browser tests check the three hold the same keys.

export const DICTS = {}; // the languages loaded so far
export const LANGS = ["ko", "ru", "en"];
// literal paths: the bundler makes each a chunk of its own (scripts/build_web.mjs)
const LOADERS = {
  ko: () => import("./i18n/ko.js"),
  ru: () => import("./i18n/ru.js"),
  en: () => import("./i18n/en.js"),
};

let lang = pickDefault();
let kid = device.get(KEYS.kid) === "1";
// The current language's load (the boot awaits it before its first drawing: `langReady`). A
// load that fails (no network, the chunk not kept) leaves the keys themselves on the screen
// rather than no screen at all.
let pending = loadLang(lang).catch(() => {});
let wanted = lang;
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

/** `next`'s dictionary, fetched once (its chunk). */
export async function loadLang(next) {
  if (!DICTS[next]) DICTS[next] = (await LOADERS[next]()).default;
  return DICTS[next];
}

/** The current language's dictionary is here (a drawing after it speaks that language). */
export const langReady = () => pending;

/** Switch to `next` once its dictionary is here; resolves then (draw after it). */
export function setLang(next) {
  if (!LANGS.includes(next)) return pending;
  device.set(KEYS.lang, next);
  wanted = next;
  pending = loadLang(next).then(
    () => {
      if (wanted !== next) return; // a later switch won
      lang = next;
      document.documentElement.lang = next;
    },
    () => {}, // not fetched (offline): the language stays
  );
  return pending;
}

export function setKid(on) {
  kid = Boolean(on);
  device.set(KEYS.kid, kid ? "1" : "0");
}

export function has(key) {
  return key in (DICTS[lang] || {});
}

/** Translate `key` with `{name}` parameters; kid wording wins when switched on. */
export function t(key, params) {
  const dict = DICTS[lang] || {};
  let text = kid && dict[`${key}@kid`] !== undefined ? dict[`${key}@kid`] : dict[key];
  if (text === undefined) {
    missing.add(`${lang}:${key}`);
    text = DICTS.en?.[key] ?? key;
  }
  if (params) {
    text = text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
  }
  return text;
}

/** `key` for the count `n`: the language's plural form of it (`key.one`, `key.few`, `key.many`,
 * `key.other`, as `Intl.PluralRules` picks; every language holds all four, so the three keep
 * the same keys), with `{n}` and `params` filled. */
export function tn(key, n, params) {
  let form = "other";
  try {
    form = new Intl.PluralRules(lang).select(n);
  } catch {
    // no plural rules in this browser: the general form
  }
  const dict = DICTS[lang] || {};
  const full = dict[`${key}.${form}`] !== undefined ? `${key}.${form}` : `${key}.other`;
  return t(full, { ...params, n });
}

/** Role name in the current language, with the preset's own word where it has one. */
export function roleName(role, preset) {
  if (!role) return "";
  const dict = DICTS[lang] || {};
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
