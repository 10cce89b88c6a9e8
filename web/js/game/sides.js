// How each side wins (the role card's goal, the rules sheet's "How each side wins") and why a
// game ended (the end screens' cause line), from the preset, the role's team and the result's
// `cause` (mafia_engine/presets/shared.py finish_game; docs/rules.md, "How each side wins").
// The words are in web/js/i18n/{en,ko,ru}.js (the section on how each side wins), in each
// rulebook's own terms.
import { has, t } from "../i18n.js";

/** The goal line's key for `role` (on `team`) in `preset`: the role's own goal where the
 * rulebook gives it one (original: the madman, the werewolf, the lawyer, the corrupt judge),
 * else its side's in this preset, else its side's in general. */
export function goalKey(role, team, preset) {
  for (const key of [`goal.${preset}.${role}`, `goal.${preset}.${team}`, `goal.${team}`]) {
    if (has(key)) return key;
  }
  return null;
}

/** The goals of the sides dealt in this game (one line per distinct goal, in the rulebook's
 * role order), for the rules sheet. `roles`: [{id, team}] of the roles in the deal. */
export function sideGoals(preset, roles) {
  const out = [];
  for (const r of roles) {
    const key = goalKey(r.id, r.team, preset);
    if (key && !out.some((g) => g.key === key)) out.push({ key, role: r.id, team: r.team });
  }
  return out;
}

/** The draw rule of `preset` and the host's early end, for the rules sheet. */
export function endRules(preset) {
  return [has(`rules.draw.${preset}`) ? `rules.draw.${preset}` : null, "rules.hostEnd"].filter(Boolean);
}

/** Why the game ended, in words: the rule that held and the moment it held (the result's
 * `winner` and `cause`; parity with the living counts from the result's players). */
export function causeText(result, preset) {
  const winner = result && result.winner;
  if (!winner) return "";
  const cause = result.cause || "";
  const players = result.players || [];
  const alive = players.filter((p) => p.alive);
  const mafia = alive.filter((p) => p.team === "mafia").length;
  const params = { mafia, others: alive.length - mafia };
  const leftish = cause === "disconnect" && !has(`end.cause.${winner}.disconnect`) ? "left" : cause;
  const keys = [
    `end.cause.${preset}.${winner}.${cause}`,
    `end.cause.${preset}.${winner}`,
    `end.cause.${winner}.${cause}`,
    `end.cause.${winner}.${leftish}`,
    `end.cause.${winner}`,
  ];
  const key = keys.find((k) => has(k));
  return key ? t(key, params) : "";
}
