"""The ``city`` preset's day ("День и голосование"): discussion, vote, the tied leaders'
defense and the revote.

Paragraphs of docs/rulebooks/001-city.txt are cited by their heading.
"""

from __future__ import annotations

from typing import Any

from ...errors import InvalidAction
from ...game import Game
from ..shared import (
    act_ready,
    act_seen_role,
    all_in,
    tally_ballots,
)
from .wins import (
    _check_draw,
)


def _discussion_begin(g: Game) -> None:
    g.deadline_in(g.options["discussionSeconds"])
    g.phase["ready"] = []
    # How many are ready to vote is public ("3 of 7 ready"), who is not: saying "ready" is a
    # day act that tells nothing of a card (docs/rules.md, city, "ready to vote").
    g.phase["readyCount"] = 0


def _vote_begin(g: Game, round: int = 1, candidates: list[str] | None = None) -> None:
    g.deadline_in(g.options["voteSeconds"])
    g.phase["round"] = round
    g.phase["candidates"] = candidates
    g.phase["votes"] = {}


def _defense_begin(g: Game, suspects: list[str]) -> None:
    g.deadline_in(g.options["defenseSeconds"])
    g.phase["suspects"] = list(suspects)
    g.phase["done"] = []


def _to_vote(g: Game) -> None:
    g.goto("vote")


def _defense_timeout(g: Game) -> None:
    g.goto("vote", round=2, candidates=list(g.phase["suspects"]))


def close_vote(g: Game) -> None:
    """ "День и голосование": a unique leader leaves; a tie → defense + revote; else nobody."""
    ph = g.phase
    rnd = ph["round"]
    candidates = ph["candidates"]
    tally, ballots = tally_ballots(g, ph["votes"], candidates)
    top = max(tally.values(), default=0)
    leaders = [pid for pid, n in tally.items() if n == top] if top else []
    eliminated = leaders[0] if len(leaders) == 1 else None
    tie = len(leaders) > 1
    record = {
        "round": rnd,
        "tally": tally,
        "ballots": ballots if g.options["openVote"] else None,
        "eliminated": eliminated,
        "tie": leaders if tie else None,
    }
    prev = g.s["votes"] if g.s["votes"] and g.s["votes"]["day"] == g.day else {"day": g.day, "rounds": []}
    g.s["votes"] = {"day": g.day, "rounds": [*prev["rounds"], record]}
    g.event("voteResult", **record)
    if eliminated is not None:
        g.kill(g.by_id[eliminated], "vote")
        g.system(f"{eliminated} leaves the city by the vote.")
        g.s["extra"]["dry"] = 0
        if g.check_win("vote"):
            return
    elif tie and rnd == 1:
        g.system("A tie: the leaders speak in their defense, then the city votes again between them.")
        g.goto("defense", suspects=leaders)
        return
    else:
        g.system("Nobody leaves today.")
        g.s["extra"]["dry"] += 1
    if _check_draw(g, "vote"):
        return
    end_day(g)


def end_day(g: Game) -> None:
    g.s["day"] += 1
    g.goto("night")


def act_vote(g: Game, a: Any) -> None:
    p = g.actor(a.player)
    ph = g.phase
    if p["id"] in ph["votes"]:
        raise InvalidAction("already_voted", "a confirmed vote cannot be changed")
    if a.target != "abstain":
        t = g.player(a.target)
        if t["id"] == p["id"]:
            raise InvalidAction("self_target", "you cannot vote for yourself")
        if not t["alive"]:
            raise InvalidAction("target_dead", f"{t['id']} is already out of the game")
        if ph["candidates"] is not None and t["id"] not in ph["candidates"]:
            raise InvalidAction(
                "not_a_candidate", f"the revote is only between {', '.join(ph['candidates'])}"
            )
    ph["votes"][p["id"]] = a.target
    if all_in(g, ph["votes"]):
        close_vote(g)


def act_end_defense(g: Game, a: Any) -> None:
    p = g.actor(a.player)
    ph = g.phase
    if p["id"] not in ph["suspects"]:
        raise InvalidAction("not_your_turn", "only the tied leaders are speaking in their defense")
    if p["id"] in ph["done"]:
        raise InvalidAction("already_ready", "you have already finished your defense")
    ph["done"].append(p["id"])
    if all(pid in ph["done"] for pid in ph["suspects"]):
        _defense_timeout(g)


def _advance_ready(g: Game) -> None:
    g.goto("night" if g.phase["kind"] == "roleReveal" else "vote")


def act_ready_early(g: Game, a: Any) -> None:
    if g.phase["kind"] == "roleReveal":  # the reveal's "ready" is "I have seen my card"
        act_seen_role(g, a, _advance_ready)
        return
    act_ready(g, a)
    g.phase["readyCount"] = len(g.phase["ready"])
    if all_in(g, g.phase["ready"]):
        _advance_ready(g)
