// How many of each role a game of `n` players gets: the few lines of each preset's deal()
// around the engine's own tables (generated into option-specs.js). test_options.py checks
// these answers against mafia_engine for every player count and many option sets.
import SPECS from "./option-specs.js";

/** {role: count} for `n` players with these options, or null if the set-up is refused. */
export function roleCounts(preset, options, n) {
  const tables = (SPECS[preset] && SPECS[preset].deal) || null;
  if (!tables) return null;
  const opts = options || {};
  const out = {};
  const add = (role, k = 1) => (out[role] = (out[role] || 0) + k);
  if (preset === "classic" || preset === "city") {
    const auto = opts.mafiaCount === undefined || opts.mafiaCount === "auto";
    const mafia = auto ? tables.autoMafia[String(n)] ?? (preset === "city" ? 1 : undefined) : Number(opts.mafiaCount);
    if (mafia === undefined || 2 * mafia >= n) return null;
    add("mafia", mafia);
    if (preset === "classic") {
      let citizens = n - mafia - 2;
      add("police");
      add("doctor");
      for (const extra of opts.extraRoles || []) {
        const seats = tables.extraSeats[extra] || [];
        if (seats.length > citizens) return null;
        citizens -= seats.length;
        for (const role of seats) add(role);
      }
      if (citizens > 0) add("citizen", citizens);
      return out;
    }
    if (opts.police !== false) add("police");
    if (opts.doctor !== false) add("doctor");
    const taken = Object.values(out).reduce((a, b) => a + b, 0);
    if (n - taken < 1) return null;
    add("citizen", n - taken);
    return out;
  }
  if (preset === "original") {
    const table = opts.expansion ? tables.expansion : tables.base;
    const row = table[String(n)];
    return row ? { ...row } : null;
  }
  return null;
}
