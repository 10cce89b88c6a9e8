// The player grid of the game screen: one tile per seat, with what this viewer may see of it
// (alive, offline, a bot, a revealed or known role, its own finding, today's votes, the team's
// picks), and a tap on it when the phase asks this player to pick that seat.
import { h, patchChildren } from "../dom.js";
import { roleName, t } from "../i18n.js";
import { catalogue, isNight, playerName, resultIsBad, resultMark, resultsByTarget, resultText, revealedBadge, seatColour } from "./format.js";
import { marksFor, noteButton, noteChip } from "./notes.js";
import { roleSeen } from "./phases.js";
import { votesFor } from "./votes.js";

/** The grid (`#player-grid`); `update(view, renderer)` redraws it for the phase's renderer
 * (game/phases.js) into the same nodes (dom.js patchChildren, as the action panel): the same
 * view again writes nothing, a focused tile keeps its focus, and a vote changes only its tile. */
export function tileGrid(ctx) {
  const el = h("ul", { class: "player-grid", id: "player-grid", "aria-labelledby": "players-title" });

  function update(view, renderer) {
    const seen = whatTilesShow(view, renderer);
    patchChildren(el, ...(view.players || []).map((p) => tile(view, ctx, seen, p)));
  }

  return { el, update };
}

// What every tile of this view draws from: the viewer, the phase's pick, the tallies, the
// team's picks and this player's own findings.
function whatTilesShow(view, renderer) {
  const priv = view.private || {};
  // Before the player has tapped "see your role", the grid shows nothing secret either
  // (no team-mates' badges): someone may be looking over their shoulder.
  const secretsOk = view.phase.kind !== "roleReveal" || roleSeen();
  const teamPicks = {};
  for (const [who, target] of Object.entries(secretsOk ? priv.teamChoices || {} : {})) {
    if (target) (teamPicks[target] ||= []).push(playerName(view, who));
  }
  return {
    me: view.you && view.you.id,
    pick: renderer.pick,
    targets: new Set(Array.isArray(priv.targets) ? priv.targets : []),
    choice: priv.choice ?? null,
    // Tally badges belong to today's vote: gone as soon as night falls.
    counts: isNight(view.phase.kind) ? {} : votesFor(view),
    teamPicks,
    secretsOk,
    accused: view.phase.accused ?? null,
    checked: resultsByTarget(view),
    marks: marksFor(view), // this player's own notes (game/notes.js)
  };
}

function tile(view, ctx, seen, p) {
  const { me, pick, targets, choice, counts, teamPicks, secretsOk, accused, checked, marks } = seen;
  const selectable = Boolean(pick) && targets.has(p.id);
  const dead = p.alive === false;
  const status = [];
  if (p.id === me) status.push(t("player.you"));
  if (dead) status.push(t("player.dead"));
  if (p.connected === false && !dead && !p.bot) status.push(t("player.offline"));
  if (p.bot) status.push(t("player.bot"));
  // A public reveal, else what this viewer alone knows (mafia mates, the other lover).
  const known = secretsOk && p.role && p.id !== me ? p.role : null;
  const badge = revealedBadge(view, p.revealed) || (known ? roleName(known, view.preset) : "");
  const classes = ["tile"];
  if (dead) classes.push("dead");
  if (selectable) classes.push("selectable");
  if (choice === p.id) classes.push("chosen");
  if (p.id === me) classes.push("me");
  if (p.id === accused) classes.push("accused");
  const shownRole = (p.revealed && p.revealed.role) || known;
  const shownTeam = (p.revealed && p.revealed.team) || (catalogue(view).find((r) => r.id === shownRole) || {}).team;
  if (shownTeam === "mafia") classes.push("rev-mafia");
  // This player's own finding about p ("checked: mafia"), for the rest of the game.
  const found = checked[p.id];
  const mark = found ? t("mark.line", { result: resultMark(view, found) }) : "";
  if (found) classes.push("checked");
  // The tile's name is its own visible text (no aria-label: a label that words it
  // otherwise fails "label in name", WCAG 2.5.3), the parts kept apart for a screen reader.
  const sep = () => h("span", { class: "sr-only" }, ", ");
  return h(
    "li",
    { class: "tile-cell", "data-key": `cell-${p.id}` },
    h(
      "button",
      {
        type: "button",
        class: classes.join(" "),
        "data-key": `tile-${p.id}`,
        "data-pid": p.id,
        title: p.name,
        disabled: !selectable,
        "aria-pressed": selectable ? String(choice === p.id) : null,
        onclick: selectable ? () => {
          pick(view, ctx, p.id);
          ctx.rerender();
        } : null,
      },
      h("span", { class: "tile-seat", "data-colour": p.seat ? seatColour(p.seat) : null, "aria-hidden": "true" }, p.seat ?? ""),
      // A long name gets smaller letters and up to two lines rather than an ellipsis; so does
      // one of several words (an anonymous game's alias, "황금빛 스라소니"), broken between them.
      h("span", { class: `tile-name${[...(p.name || "")].length > 8 || (p.alias && /\s/.test(p.name || "")) ? " long" : ""}`, title: p.name }, p.name),
      status.length || badge ? sep() : null,
      h("span", { class: "tile-status" }, [status.join(" · "), status.length && badge ? sep() : null, badge ? h("span", { class: "tile-badge" }, badge) : null]),
      found ? sep() : null,
      found
        ? h("span", { class: `tile-check${resultIsBad(found, view) ? " bad" : ""}`, title: resultText(view, found) }, mark)
        : null,
      selectable ? h("span", { class: "sr-only" }, ", " + t("a11y.tileChoose")) : null,
      counts[p.id] ? h("span", { class: "tile-votes", "aria-hidden": "true" }, String(counts[p.id])) : null,
      teamPicks[p.id] ? h("span", { class: "tile-team", title: teamPicks[p.id].join(", "), "aria-hidden": "true" }) : null,
      noteChip(view, p.id, marks),
    ),
    noteButton(view, ctx, p, marks),
  );
}
