"""The ``original`` preset's day: speeches with nominations, one defense per suspect, the
vote, the revote, the all-or-none vote and the last words (docs/rulebooks/003-original.txt)."""

from __future__ import annotations

from typing import Any

from ...errors import InvalidAction
from ...game import Game
from ..shared import (
    check_target,
    tally_ballots,
)
from .setup import (
    JUDGES,
    _werewolf_joins,
)
from .wins import (
    _check_end,
)


def _judges_in_play(s: dict) -> list[str]:
    return [p["id"] for p in s["players"] if p["role"] in JUDGES]


def _start_day(g: Game) -> None:
    s = g.s
    if g.day == 1:
        judges = _judges_in_play(s)
        if judges:
            # "모든 판사는 자신이 판사라고 알려야 합니다" — which one is corrupt stays secret
            for pid in judges:
                g.by_id[pid]["revealed"] = {"judge": True}
            g.event("judges", players=judges)
            g.system("The judges are " + ", ".join(judges) + ". Only judges vote in this game.")
    # the first speaker carries over from the previous day; if dead, the next living seat
    seats = sorted(s["players"], key=lambda p: p["seat"])
    first = s["extra"]["firstSeat"]
    order = [p for p in seats if p["seat"] >= first] + [p for p in seats if p["seat"] < first]
    living = [p["id"] for p in order if p["alive"]]
    s["extra"] = {**s["extra"], "firstSeat": g.by_id[living[0]]["seat"]}
    g.goto("speech", speaker=living[0], queue=living[1:], nominations=[])


def _speech_begin(g: Game, speaker: str, queue: list[str], nominations: list[dict]) -> None:
    g.deadline_in(g.options["speechSeconds"])
    g.phase["speaker"] = speaker
    g.phase["queue"] = list(queue)
    g.phase["nominations"] = list(nominations)


def _next_speaker(g: Game) -> None:
    ph = g.phase
    queue = [pid for pid in ph["queue"] if g.by_id[pid]["alive"]]
    if queue:
        g.goto("speech", speaker=queue[0], queue=queue[1:], nominations=ph["nominations"])
        return
    suspects = [n["target"] for n in ph["nominations"] if g.by_id[n["target"]]["alive"]]
    if g.day == 1 or not suspects:
        g.system("No trial today." if g.day == 1 else "Nobody was nominated; no trial today.")
        _end_day(g)
        return
    # who nominated each suspect stays public through the defenses (the room's screen says it)
    nominations = [n for n in ph["nominations"] if n["target"] in suspects]
    g.goto("defense", accused=suspects[0], suspects=suspects, nominations=nominations)


def _defense_begin(g: Game, accused: str, suspects: list[str], nominations: list[dict]) -> None:
    g.deadline_in(g.options["defenseSeconds"])
    g.phase["accused"] = accused
    g.phase["suspects"] = list(suspects)
    g.phase["nominations"] = [dict(n) for n in nominations]


def _next_defense(g: Game) -> None:
    """The next suspect in nomination order defends; after the last, the vote (or one execution)."""
    ph = g.phase
    order = ph["suspects"]
    alive = [pid for pid in order if g.by_id[pid]["alive"]]
    later = [pid for pid in order[order.index(ph["accused"]) + 1 :] if g.by_id[pid]["alive"]]
    if later:
        g.goto("defense", accused=later[0], suspects=order, nominations=ph["nominations"])
    elif not alive:
        _end_day(g)
    elif len(alive) == 1:
        # "용의자가 한 명뿐이어도 ... 그 용의자는 즉시 처형됩니다"
        _execute(g, alive)
    else:
        g.goto("vote", round=1, candidates=alive)


def _voters(s: dict) -> list[str]:
    """With judges in play only the living judges vote; with none left, every living player."""
    living = [p for p in s["players"] if p["alive"]]
    judges = [p["id"] for p in living if p["role"] in JUDGES]
    return judges if judges else [p["id"] for p in living]


def _vote_begin(g: Game, round: int, candidates: list[str]) -> None:
    g.deadline_in(g.options["voteSeconds"])
    g.phase["round"] = round
    g.phase["candidates"] = list(candidates)
    g.phase["voters"] = _voters(g.s)
    g.phase["votes"] = {}


def close_vote(g: Game) -> None:
    """Most votes is executed; no vote (or abstain) counts for the last suspect; ties: revote, then all-or-none."""
    ph = g.phase
    candidates = [c for c in ph["candidates"] if g.by_id[c]["alive"]]
    if not candidates:
        _end_day(g)
        return
    last = candidates[-1]
    votes = {pid: t for pid, t in ph["votes"].items() if pid in ph["voters"]}
    for pid in ph["voters"]:
        votes.setdefault(pid, last)
    votes = {pid: (last if t == "abstain" or not g.by_id[t]["alive"] else t) for pid, t in votes.items()}
    tally, ballots = tally_ballots(g, votes, candidates)
    top = max(tally.values(), default=0)
    leaders = [c for c in candidates if tally.get(c, 0) == top] if top else candidates
    record = {"round": ph["round"], "tally": tally, "ballots": ballots, "leaders": leaders}
    prev = g.s["votes"] if g.s["votes"] and g.s["votes"]["day"] == g.day else {"day": g.day, "rounds": []}
    g.s["votes"] = {"day": g.day, "rounds": [*prev["rounds"], record]}
    g.event("trialVote", **record)
    if len(leaders) == 1:
        _execute(g, leaders)
    elif ph["round"] == 1:
        g.system("A tie: the tied suspects face a second vote.")
        g.goto("vote", round=2, candidates=leaders)
    elif not _deciders(g.s, leaders):
        g.system("A tie again, and nobody else is left to decide: nobody is executed today.")
        _end_day(g)
    else:
        g.system("A tie again: the others decide to execute all of them or none.")
        g.goto("allOrNone", suspects=leaders)


def _deciders(s: dict, tied: list[str]) -> list[str]:
    """Who decides "all or none" after a second tie (docs/rules.md, reading).

    "그들을 제외한 모든 플레이어는 ... 정합니다": every living player not among the tied; but
    "판사가 포함된 게임에서는, 오직 판사만 투표를 할 수 있습니다": where a living judge is not
    among the tied, only those judges decide.
    """
    others = [p for p in s["players"] if p["alive"] and p["id"] not in tied]
    judges = [p["id"] for p in others if p["role"] in JUDGES]
    return judges or [p["id"] for p in others]


def _all_or_none_begin(g: Game, suspects: list[str]) -> None:
    g.deadline_in(g.options["voteSeconds"])
    g.phase["suspects"] = list(suspects)
    g.phase["voters"] = _deciders(g.s, suspects)
    g.phase["ballots"] = {}


def close_all_or_none(g: Game) -> None:
    ph = g.phase
    yes = sum(1 for pid, c in ph["ballots"].items() if c == "yes" and g.by_id[pid]["alive"])
    no = sum(1 for pid, c in ph["ballots"].items() if c == "no" and g.by_id[pid]["alive"])
    suspects = [pid for pid in ph["suspects"] if g.by_id[pid]["alive"]]
    executed = yes > no
    record = {"suspects": suspects, "yes": yes, "no": no, "executed": executed}
    g.s["votes"] = {**g.s["votes"], "allOrNone": record}
    g.event("allOrNone", **record)
    if executed and suspects:
        _execute(g, suspects)
    else:
        g.system("Nobody is executed today.")
        _end_day(g)


def _execute(g: Game, ids: list[str]) -> None:
    for pid in ids:
        # "처형된 플레이어의 캐릭터 카드를 공개하지 않습니다": no reveal
        g.kill(g.by_id[pid], "vote")
        g.system(f"{pid} was executed.")
    _werewolf_joins(g)
    if _check_end(g, "vote"):
        return
    # "그 플레이어는 최후의 한 마디를 남기고 게임에서 떠나게 되며": one last word each
    g.goto("lastWord", player=ids[0], queue=ids[1:])


def _last_word_begin(g: Game, player: str, queue: list[str]) -> None:
    g.deadline_in(g.options["lastWordSeconds"])
    g.phase["player"] = player
    g.phase["queue"] = list(queue)
    g.phase["lines"] = []


def _next_last_word(g: Game) -> None:
    queue = g.phase["queue"]
    if queue:
        g.goto("lastWord", player=queue[0], queue=queue[1:])
    else:
        _end_day(g)


def _end_day(g: Game) -> None:
    g.s["day"] += 1
    g.goto("night")


def act_nominate(g: Game, a: Any) -> None:
    p = g.actor(a.player)
    ph = g.phase
    if ph["speaker"] != p["id"]:
        raise InvalidAction("not_your_turn", f"it is {ph['speaker']}'s turn to speak")
    target = getattr(a, "target", None)
    if target is not None:
        if g.day == 1:
            raise InvalidAction("no_trial_today", "there is no trial on the first day")
        why = check_target(g.s, g.by_id, p, target)
        if why:
            raise InvalidAction(*why)
        if any(n["target"] == target for n in ph["nominations"]):
            raise InvalidAction("already_suspect", f"{target} is already a suspect")
        ph["nominations"] = [*ph["nominations"], {"by": p["id"], "target": target}]
        g.system(f"{p['id']} nominates {target}.")
    _next_speaker(g)


def act_end_turn(g: Game, a: Any) -> None:
    if g.phase["kind"] == "speech":
        act_nominate(g, a)
        return
    if g.phase["kind"] == "lastWord":
        p = g.player(a.player)  # the executed player: out of the game, done speaking
        if g.phase["player"] != p["id"]:
            raise InvalidAction("not_your_turn", f"it is {g.phase['player']}'s last word")
        _next_last_word(g)
        return
    p = g.actor(a.player)
    if g.phase["accused"] != p["id"]:
        raise InvalidAction("not_your_turn", f"it is {g.phase['accused']}'s defense")
    _next_defense(g)


def act_vote(g: Game, a: Any) -> None:
    p = g.actor(a.player)
    ph = g.phase
    if p["id"] not in ph["voters"]:
        raise InvalidAction("not_a_voter", "only the judges vote in this game")
    if p["id"] in ph["votes"]:
        raise InvalidAction("already_voted", "a cast vote cannot be changed")
    if a.target != "abstain":
        if a.target == p["id"]:
            raise InvalidAction("self_target", "you cannot vote for yourself")
        if a.target not in ph["candidates"]:
            raise InvalidAction("not_a_candidate", f"the suspects are {', '.join(ph['candidates'])}")
    ph["votes"][p["id"]] = a.target
    if _all_voted(g, ph["votes"]):
        close_vote(g)


def _all_voted(g: Game, done: dict) -> bool:
    return all(pid in done for pid in g.phase["voters"] if g.by_id[pid]["alive"])


def act_confirm(g: Game, a: Any) -> None:
    p = g.actor(a.player)
    ph = g.phase
    if p["id"] not in ph["voters"]:
        raise InvalidAction(
            "not_a_voter", "the tied suspects (and, with judges, all but the judges) do not vote"
        )
    if p["id"] in ph["ballots"]:
        raise InvalidAction("already_voted", "a cast vote cannot be changed")
    ph["ballots"][p["id"]] = a.choice
    if _all_voted(g, ph["ballots"]):
        close_all_or_none(g)
