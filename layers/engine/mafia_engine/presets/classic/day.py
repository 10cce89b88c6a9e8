"""The ``classic`` preset's day (§5): greeting, discussion, vote, defense and the final
confirmation, the day's actions, and the day's end (§8.5's disconnect eliminations).

Sections of docs/rulebooks/000-classic.txt are cited as §n.
"""

from __future__ import annotations

from typing import Any

from ...errors import InvalidAction
from ...game import Game
from ...roles import MAFIA, team_of
from ..shared import (
    act_ready,
    act_seen_role,
    all_in,
)
from .setup import (
    GREETING_SECONDS,
    MIN_LEFT_AFTER_ADJUST,
)


# --- phases (§5.1) -----------------------------------------------------------------------------
def start(g: Game) -> None:
    """Classic's own bookkeeping, then the role reveal: each seat's armour (``soldierUsed``: the
    one attack an armoured role survives, ``Role.armor``) and the MVP count (§6) in ``extra``."""
    for p in g.s["players"]:
        p["soldierUsed"] = False
    # mvpVotes: town player id -> nominations that got a mafioso executed; nominatedBy: who
    # nominated today's accused
    g.s["extra"] = {"mvpVotes": {}, "nominatedBy": None}
    g.goto("roleReveal")


def _role_reveal_timeout(g: Game) -> None:
    if g.options["firstPhase"] == "day":
        start_day(g, "greeting")
    else:
        g.goto("night")


def start_day(g: Game, kind: str) -> None:
    for p in g.s["players"]:
        p["seenToday"] = p["connected"]
    g.s["votes"] = None
    g.goto(kind)


def _greeting_begin(g: Game) -> None:
    g.deadline_in(GREETING_SECONDS)


def end_day(g: Game) -> None:
    """The day is over: disconnect eliminations (§8.5), their win check, then night."""
    gone = []
    for p in g.s["players"]:
        if not p["alive"]:
            continue
        if p["seenToday"] or p["connected"]:
            p["absentDays"] = 0
        else:
            p["absentDays"] += 1
            if p["absentDays"] >= 2:
                gone.append(p)
    for p in gone:
        g.kill(p, "disconnect")
        g.system(f"{p['id']} was away for two days and leaves the game.")
    if gone and g.check_win("disconnect"):
        return
    g.goto("night")


def discussion_seconds(opts: dict, alive: int) -> int:
    return max(opts["discussionMin"], min(opts["discussionMax"], alive * opts["discussionPerAlive"]))


def _discussion_begin(g: Game) -> None:
    g.deadline_in(discussion_seconds(g.options, len(g.alive())))
    g.phase["adjustedBy"] = []
    g.phase["ready"] = []


def _vote_begin(g: Game) -> None:
    g.deadline_in(g.options["voteSeconds"])
    g.phase["votes"] = {}


def _vote_timeout(g: Game) -> None:
    """§5.3: count the nomination; a unique leader with at least one vote is accused."""
    votes = g.phase["votes"]
    tally: dict[str, int] = {}
    ballots: dict[str, str] = {}
    for p in g.alive():
        target = votes.get(p["id"], "abstain")
        ballots[p["id"]] = target
        if target != "abstain":
            tally[target] = tally.get(target, 0) + g.role(p).vote_weight
    top = max(tally.values(), default=0)
    leaders = [pid for pid, n in tally.items() if n == top]
    accused = leaders[0] if top >= 1 and len(leaders) == 1 else None
    nomination = {"tally": tally, "ballots": ballots if g.options["openVote"] else None, "accused": accused}
    g.s["votes"] = {"day": g.day, "nomination": nomination, "confirm": None}
    g.event("nomination", **nomination)
    if accused is None:
        g.system("No one was accused (tie or no votes). Night falls.")
        end_day(g)
        return
    g.s["extra"]["nominatedBy"] = [pid for pid, t in ballots.items() if t == accused]
    g.system(f"{accused} is accused and may speak in their defense.")
    g.goto("defense", accused=accused)


def _defense_begin(g: Game, accused: str) -> None:
    g.deadline_in(g.options["defenseSeconds"])
    g.phase["accused"] = accused


def _defense_timeout(g: Game) -> None:
    g.goto("confirm", accused=g.phase["accused"])


def _confirm_begin(g: Game, accused: str) -> None:
    g.deadline_in(g.options["confirmSeconds"])
    g.phase["accused"] = accused
    g.phase["ballots"] = {}


def _confirm_timeout(g: Game) -> None:
    """§5.4: yes > no executes (politician counts 2; non-voters not counted)."""
    accused = g.player(g.phase["accused"])
    yes = no = 0
    for pid, choice in g.phase["ballots"].items():
        w = g.role(g.by_id[pid]).vote_weight
        if choice == "yes":
            yes += w
        else:
            no += w
    passed = yes > no
    immune = passed and g.role(accused).vote_immune
    confirm = {
        "accused": accused["id"],
        "yes": yes,
        "no": no,
        "executed": passed and not immune,
        "immune": immune,
    }
    g.s["votes"] = {**g.s["votes"], "confirm": confirm}
    g.event("confirm", **confirm)
    if immune:
        g.reveal(accused, "role")
        g.event("politicianImmune", player=accused["id"])
        g.system(f"{accused['id']} is the politician and cannot be executed.")
    elif passed:
        if team_of(accused["role"]) == MAFIA:
            mvp = g.s["extra"]["mvpVotes"]
            for pid in g.s["extra"]["nominatedBy"] or ():
                if team_of(g.by_id[pid]["role"]) != MAFIA:
                    mvp[pid] = mvp.get(pid, 0) + 1
        g.kill(accused, "vote")
        g.system(f"{accused['id']} was executed.")
        if g.check_win("vote"):
            return
    else:
        g.system(f"{accused['id']} survives the vote ({yes} yes, {no} no).")
    end_day(g)


def act_adjust_time(g: Game, a: Any) -> None:
    """§5.2: ±15 s once per living player per day; never below 5 s left."""
    if not g.options["timeAdjust"]:
        raise InvalidAction("time_adjust_off", "time adjustment is switched off in this game")
    p = g.actor(a.player)
    ph = g.phase
    if p["id"] in ph["adjustedBy"]:
        raise InvalidAction("already_adjusted", "you have already adjusted the time today")
    ends = ph["endsAt"]
    if a.delta > 0:
        new = ends + a.delta
    else:
        new = max(ends + a.delta, min(ends, g.now + MIN_LEFT_AFTER_ADJUST))
    ph["endsAt"] = float(new)
    # who pressed is public (§5.2) through phase.adjustedBy; no event, to keep views small
    ph["adjustedBy"].append(p["id"])


def act_seen_role_then_first_phase(g: Game, a: Any) -> None:
    """§4.4 as docs/rules.md reads it (Classic "Set-up"): the reveal ends once every living
    player has seen their card."""
    act_seen_role(g, a, _role_reveal_timeout)


def act_ready_early(g: Game, a: Any) -> None:
    if g.phase["kind"] == "roleReveal":  # the reveal's "ready" is "I have seen my card"
        act_seen_role_then_first_phase(g, a)
        return
    act_ready(g, a)
    if all_in(g, g.phase["ready"]):
        g.goto("vote")


def act_vote(g: Game, a: Any) -> None:
    p = g.actor(a.player)
    if a.target != "abstain":
        t = g.player(a.target)
        if t["id"] == p["id"]:
            raise InvalidAction("self_target", "you cannot nominate yourself")
        if not t["alive"]:
            raise InvalidAction("target_dead", f"{t['id']} is already out of the game")
    g.phase["votes"][p["id"]] = a.target


def act_confirm(g: Game, a: Any) -> None:
    p = g.actor(a.player)
    if p["id"] == g.phase["accused"]:
        raise InvalidAction("accused_cannot_vote", "the accused does not vote on their own execution")
    g.phase["ballots"][p["id"]] = a.choice
