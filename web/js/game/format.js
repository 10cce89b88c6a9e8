// Words for view data: player names, roles, events, results. Shared by every screen.
import { h } from "../dom.js";
import { has, roleName, t, teamName } from "../i18n.js";

export const SEAT_COLOURS = 8; // seat marks cycle through this many colours (style.css)

/** The colour of seat `n` (0..SEAT_COLOURS-1), the same on every phone. */
export const seatColour = (n) => String((Math.max(1, n) - 1) % SEAT_COLOURS);

/** A seat's mark: its number on a coloured dot, beside a name on chat lines. One name per seat
 * that every phone shows the same: an anonymous game's alias differs by language, the seat not. */
export function seatMark(view, id) {
  const p = player(view, id);
  if (!p || p.seat === null || p.seat === undefined) return null;
  return h("span", { class: "seat-mark", "data-colour": seatColour(p.seat), title: t("seat.number", { n: p.seat }) }, String(p.seat));
}

export function player(view, id) {
  return (view.players || []).find((p) => p.id === id) || null;
}

export function playerName(view, id) {
  if (id === null || id === undefined) return "—";
  const p = player(view, id);
  return p ? p.name : String(id);
}

export function phaseTitle(kind) {
  return has(`phase.${kind}`) ? t(`phase.${kind}`) : t("phase.unknown");
}

/** The number in a chat message id: ids count per channel ("day:12"); the system log's are numbers. */
export function lineNo(id) {
  if (typeof id === "number") return id;
  const n = Number(String(id).split(":").pop());
  return Number.isFinite(n) ? n : 0;
}

export function isNight(kind) {
  return /night/i.test(kind || "");
}

/** "Role: Doctor" / "Team: Mafia" for a revealed {role, team}; "" when nothing is revealed. */
export function revealedText(view, revealed) {
  if (!revealed) return "";
  if (revealed.role) return t("event.revealRole", { role: roleName(revealed.role, view.preset) });
  if (revealed.team) return t("event.revealTeam", { team: teamName(revealed.team) });
  return "";
}

/** A short badge for a revealed player tile. */
export function revealedBadge(view, revealed) {
  if (!revealed) return "";
  if (revealed.role) return roleName(revealed.role, view.preset);
  if (revealed.team) return teamName(revealed.team);
  return "";
}

// Events that pop up as a big card (docs/rulebooks/000-classic.txt §9: deaths and executions, and
// the other outcomes of a night or a trial); the rest only go to the moderator's log.
const CARD_KINDS = new Set(["death", "saved", "soldierSurvived", "quietNight", "politicianImmune", "paused", "resumed"]);

export function isCardEvent(ev) {
  return CARD_KINDS.has(ev.kind) || (ev.kind === "confirm" && ev.executed === false && !ev.immune);
}

export function isDeathEvent(ev) {
  return ev.kind === "death";
}

const NIGHT_KINDS = new Set(["saved", "soldierSurvived", "quietNight"]);
const NIGHT_DEATHS = new Set(["mafia", "yakuza", "madman", "arrest", "night"]);

/** Was a death (by: mafia, vote, ...) one of the night's? */
export function isNightDeath(by) {
  return NIGHT_DEATHS.has(by);
}

/** "Night 1" / "Day 2": when an event happened (night events carry the night number). */
export function eventWhen(ev) {
  if (!ev.day) return "";
  // The host's pause, resume and removal carry the phase they happened in: at night they
  // read "Night 3", by day "Day 3" (layers/engine/mafia_engine/room.py).
  if (ev.phase) return t(isNight(ev.phase) ? "banner.night" : "banner.day", { n: ev.day });
  const night = NIGHT_KINDS.has(ev.kind) || (ev.kind === "death" && NIGHT_DEATHS.has(ev.by));
  return t(night ? "banner.night" : "event.day", { n: ev.day });
}

function namesOf(view, ids) {
  return (ids || []).map((id) => playerName(view, id)).join(", ");
}

/** What the executions folded into a vote line revealed ("Bob: Role: Mafia"). */
function deathDetails(view, ev) {
  const deaths = ev.deaths || [];
  if (deaths.length === 1) return revealedText(view, deaths[0].revealed);
  return deaths
    .map((d) => [playerName(view, d.player), revealedText(view, d.revealed)].filter(Boolean).join(": "))
    .join("; ");
}

const VOTE_KINDS = new Set(["confirm", "voteResult", "allOrNone"]);

function votedOut(ev) {
  if (ev.kind === "confirm") return ev.executed ? [ev.accused] : [];
  if (ev.kind === "voteResult") return ev.eliminated ? [ev.eliminated] : [];
  if (ev.kind === "allOrNone") return ev.executed ? ev.suspects || [] : [];
  return [];
}

/**
 * The public events as a story, each execution told once: the death that follows a vote
 * ("executed", with its reveal) folds into that vote's line. Returns [{ev, index}], index
 * being the place in view.events.
 */
export function storyEvents(events) {
  const out = [];
  let vote = null; // the last vote line that sent players out, and who is still to fold in
  (events || []).forEach((ev, index) => {
    if (ev && ev.kind === "death" && ev.by === "vote" && vote && vote.left.has(ev.player)) {
      vote.left.delete(ev.player);
      vote.entry.ev = { ...vote.entry.ev, deaths: [...(vote.entry.ev.deaths || []), ev] };
      return;
    }
    const entry = { ev, index };
    out.push(entry);
    vote = ev && VOTE_KINDS.has(ev.kind) ? { entry, left: new Set(votedOut(ev)) } : null;
  });
  return out;
}

/** One public event in words: {text, detail}. Unknown kinds still read as something. */
export function eventText(view, ev) {
  const who = ev.player ?? ev.accused ?? null;
  const params = { name: playerName(view, who), kind: ev.kind, n: ev.day ?? "" };
  let text;
  let detail = "";
  switch (ev.kind) {
    case "death":
      text = ev.by && has(`event.death.${ev.by}`) ? t(`event.death.${ev.by}`, params) : t("event.death", params);
      detail = revealedText(view, ev.revealed);
      break;
    case "nomination": {
      const n = ev.accused && ev.tally ? ev.tally[ev.accused] : "";
      text = ev.accused ? t("event.nomination", { ...params, votes: n }) : t("event.nomination.none");
      break;
    }
    case "confirm":
      detail = deathDetails(view, ev);
      if (ev.executed) text = t("event.confirm.executed", { ...params, yes: ev.yes, no: ev.no });
      else if (ev.immune) text = t("event.confirm.immune", { ...params, yes: ev.yes, no: ev.no });
      else text = t("event.confirm.spared", { ...params, yes: ev.yes, no: ev.no });
      break;
    case "voteResult":
      detail = deathDetails(view, ev);
      if (ev.eliminated) text = t("event.voteResult.out", { ...params, name: playerName(view, ev.eliminated) });
      // A first-round tie sends the leaders to defend themselves; a tie in the revote ends the day
      // with nobody out (docs/rulebooks/001-city.txt «День и голосование», "Повторная ничья ...
      // день без выбывших").
      else if (ev.tie) text = t(ev.round > 1 ? "event.voteResult.tieAgain" : "event.voteResult.tie", { names: namesOf(view, ev.tie) });
      else text = t("event.voteResult.none");
      break;
    case "trialVote":
      text =
        (ev.leaders || []).length === 1
          ? t("event.trialVote.one", { name: playerName(view, ev.leaders[0]) })
          : t("event.trialVote.tie", { names: namesOf(view, ev.leaders) });
      break;
    case "allOrNone":
      detail = deathDetails(view, ev);
      text = t(ev.executed ? "event.allOrNone.all" : "event.allOrNone.none", {
        names: namesOf(view, ev.suspects),
        yes: ev.yes,
        no: ev.no,
      });
      break;
    case "judges":
      text = t("event.judges", { names: namesOf(view, ev.players) });
      break;
    case "end":
      text = has(`end.winner.${ev.winner}`) ? t(`end.winner.${ev.winner}`) : t("end.winner.other", { team: teamName(ev.winner) });
      break;
    default:
      text = has(`event.${ev.kind}`) ? t(`event.${ev.kind}`, params) : t("event.other", params);
  }
  return { text, detail };
}

/** A police / medium / other private result in words. */
export function resultText(view, r) {
  if (r.kind === "werewolfJoins") return t("result.werewolfJoins", { day: r.day ?? "?", team: teamName(r.result) });
  let result = r.result;
  if (has(`result.${r.kind}.${result}`)) result = t(`result.${r.kind}.${result}`);
  else if ([...readings(view), "yes", "no"].includes(result)) result = t(`result.${result}`);
  else if (typeof result === "string") result = roleName(result, view.preset) || result;
  else if (typeof result === "boolean") result = t(result ? "result.yes" : "result.no");
  return t("result.line", { day: r.day ?? "?", name: playerName(view, r.target), result });
}

/** The short word for one result, as shown on the checked player's tile ("mafia", "not mafia"). */
export function resultMark(view, r) {
  const key = `mark.${r.kind}.${r.result}`;
  if (has(key)) return t(key);
  if (readings(view).includes(r.result)) return t(`mark.${r.result}`);
  if (typeof r.result === "string") return roleName(r.result, view.preset) || t("mark.checked");
  return t("mark.checked");
}

/** This player's own findings (their view's private.results), newest last. */
export function myResults(view) {
  const rs = view.private && view.private.results;
  return Array.isArray(rs) ? rs.filter((r) => r && typeof r === "object") : [];
}

/** The newest finding about each player: target id -> result. */
export function resultsByTarget(view) {
  const out = {};
  for (const r of myResults(view)) if (r.target) out[r.target] = r;
  return out;
}

/** The roles of this game as the server declares them (view.rules.roles: team, checkReads, ...). */
export function catalogue(view) {
  return (view && view.rules && Array.isArray(view.rules.roles) && view.rules.roles) || [];
}

/** The words a check of this game can read ("mafia", "notCriminal", ...), from the catalogue. */
function readings(view) {
  return catalogue(view).map((r) => r.checkReads).filter(Boolean);
}

/** Does a result say "this one is bad"? (for the red mark on a tile): a "yes", a reading that
 * no town role gives, or a role that is not on the town's side. */
export function resultIsBad(r, view) {
  if (r.result === "yes") return true;
  const roles = catalogue(view);
  if (readings(view).includes(r.result)) return !roles.some((x) => x.team === "town" && x.checkReads === r.result);
  const role = roles.find((x) => x.id === r.result);
  return Boolean(role && role.team !== "town");
}
