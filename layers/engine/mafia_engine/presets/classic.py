"""The ``classic`` preset: docs/rulebooks/000-classic.txt (seed 000, Korean online Mafia),
every rule of it.

Sections of docs/rulebooks/000-classic.txt are cited as §n. Our reading of anything the seed
leaves open is in docs/rules.md, "Classic (seed 000)", each with the test that checks it.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidAction, quoted
from ..game import Game
from ..options import OptionSpec
from ..phases import PhaseSpec
from ..roles import MAFIA, TOWN, Role, core, team_of
from ..wins import mafia_parity, no_mafia_left
from . import PRESETS
from .base import Preset, Rules
from .shared import (
    ROLE_REVEAL_SECONDS,
    SUBSTITUTES,
    act_chat,
    act_ready,
    act_seen_role,
    all_in,
    check_investigate,
    check_mafia_target,
    finish_game,
    role_reveal_begin,
)

# §4.4's 8 s role reveal is the option roleRevealSeconds (default 60: docs/rules.md, Classic "Set-up")
GREETING_SECONDS = 60  # §5.1
MIN_LEFT_AFTER_ADJUST = 5  # §5.2
ADJUST_STEP = 15

# §4.1: players -> mafia count when mafiaCount is auto (police 1, doctor 1, citizens the rest)
AUTO_MAFIA = {4: 1, 5: 1, 6: 2, 7: 2, 8: 2, 9: 3, 10: 3, 11: 3, 12: 3}
# §4.2: extra roles replace citizen seats, in this order
EXTRA_SEATS = {
    "soldier": ("soldier",),
    "politician": ("politician",),
    "medium": ("medium",),
    "lovers": ("lover", "lover"),
}
EXTRA_NAMES = {"soldier": "a soldier", "politician": "a politician", "medium": "a medium", "lovers": "lovers"}

# §3: every role classic deals, in the rules sheet's order (the view's ``rules.roles``)
ROLES: tuple[Role, ...] = (
    core("mafia"),
    core("police"),
    core("doctor"),
    Role("medium", TOWN, night="mediumPeek", check_reads="notMafia"),
    Role("soldier", TOWN, check_reads="notMafia", armor=1),
    Role("politician", TOWN, check_reads="notMafia", vote_weight=2),
    Role("lover", TOWN, channel="lovers", check_reads="notMafia", knows="pair"),
    core("citizen"),
)


def _role(s: dict, role_id: str) -> Role:
    """A role as the game's preset declares it (this one, or one registered on top of it)."""
    return PRESETS[s["preset"]].role(role_id)


DAY_KINDS = frozenset({"greeting", "discussion", "vote", "defense", "confirm"})
CHANNELS = ("day", "mafia", "dead", "lovers", "system")

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "mafiaCount",
        "choice",
        "auto",
        choices=("auto", 1, 2, 3, 4),
        help="mafia seats; auto follows the §4 table",
    ),
    OptionSpec(
        "extraRoles", "multi", [], choices=tuple(EXTRA_SEATS), help="extra roles replacing citizen seats"
    ),
    ROLE_REVEAL_SECONDS,
    OptionSpec(
        "firstPhase", "choice", "day", choices=("day", "night"), help="day: a 60 s greeting day without vote"
    ),
    OptionSpec("noVoteDayOne", "bool", True, help="the §7 name for firstPhase: true = day, false = night"),
    OptionSpec(
        "discussionPerAlive", "choice", 15, choices=(10, 15, 20), help="discussion seconds per living player"
    ),
    OptionSpec("discussionMin", "int", 60, min=30, max=300),
    OptionSpec("discussionMax", "int", 180, min=30, max=300),
    OptionSpec("timeAdjust", "bool", True, help="each living player may add or cut 15 s once a day"),
    OptionSpec("voteSeconds", "int", 20, min=10, max=60),
    OptionSpec("defenseSeconds", "int", 20, min=10, max=60),
    OptionSpec("confirmSeconds", "int", 10, min=5, max=30),
    OptionSpec("nightSeconds", "int", 30, min=15, max=90),
    OptionSpec("deathReveal", "choice", "team", choices=("none", "team", "role")),
    OptionSpec("openVote", "bool", True, help="show who voted for whom after the nomination vote"),
    OptionSpec("doctorSelfHeal", "bool", True),
    OptionSpec("doctorRepeat", "bool", True, help="the doctor may heal the same player two nights running"),
    OptionSpec("mafiaMustKill", "choice", "noKill", choices=("noKill", "random")),
    OptionSpec("deadSeeAll", "bool", False, help="the dead see every role and the mafia chat"),
    OptionSpec("kidSafeChat", "bool", True, help="block profanity, links and phone numbers"),
    SUBSTITUTES,
    OptionSpec("policeRevealRole", "bool", False, help="the police learn the exact role"),
)


# --- set-up (§4) ---------------------------------------------------------------------------
def check_options(raw: dict, opts: dict) -> dict:
    if opts["discussionMin"] > opts["discussionMax"]:
        raise InvalidAction(
            "bad_options",
            f"option 'discussionMin' ({opts['discussionMin']}) must not exceed 'discussionMax' ({opts['discussionMax']})",
        )
    if "noVoteDayOne" in raw and "firstPhase" in raw:
        if opts["noVoteDayOne"] != (opts["firstPhase"] == "day"):
            raise InvalidAction(
                "bad_options",
                "option 'noVoteDayOne' contradicts 'firstPhase' (noVoteDayOne true means firstPhase day)",
            )
    elif "noVoteDayOne" in raw:
        opts["firstPhase"] = "day" if opts["noVoteDayOne"] else "night"
    opts["noVoteDayOne"] = opts["firstPhase"] == "day"
    return opts


def deal(opts: dict, n: int) -> list[str]:
    """The role ids for ``n`` players (unshuffled), or the reason the set-up is refused."""
    if opts["mafiaCount"] == "auto":
        mafia = AUTO_MAFIA[n]
    else:
        mafia = opts["mafiaCount"]
        if 2 * mafia >= n:
            raise InvalidAction(
                "bad_options",
                f"option 'mafiaCount': {mafia} mafia need more than {2 * mafia} players (mafia must be fewer than half)",
            )
    citizens = n - mafia - 2
    roles = ["mafia"] * mafia + ["police", "doctor"]
    for extra in opts["extraRoles"]:
        seats = EXTRA_SEATS[extra]
        if len(seats) > citizens:
            raise InvalidAction(
                "seats_short",
                f"Not enough citizen seats for {EXTRA_NAMES[extra]} (needs {len(seats)}, {citizens} left)",
            )
        citizens -= len(seats)
        roles.extend(seats)
    roles.extend(["citizen"] * citizens)
    return roles


# --- phases (§5.1) -----------------------------------------------------------------------------
def start(g: Game) -> None:
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
            tally[target] = tally.get(target, 0) + _role(g.s, p["role"]).vote_weight
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
    g.s["nominatedBy"] = [pid for pid, t in ballots.items() if t == accused]
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
        w = _role(g.s, g.by_id[pid]["role"]).vote_weight
        if choice == "yes":
            yes += w
        else:
            no += w
    passed = yes > no
    immune = passed and accused["role"] == "politician"
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
            mvp = g.s["mvpVotes"]
            for pid in g.s.get("nominatedBy") or ():
                if team_of(g.by_id[pid]["role"]) != MAFIA:
                    mvp[pid] = mvp.get(pid, 0) + 1
        g.kill(accused, "vote")
        g.system(f"{accused['id']} was executed.")
        if g.check_win("vote"):
            return
    else:
        g.system(f"{accused['id']} survives the vote ({yes} yes, {no} no).")
    end_day(g)


def _night_begin(g: Game) -> None:
    g.deadline_in(g.options["nightSeconds"])
    ph = g.phase
    ph["mafiaPicks"] = {}
    ph["mafiaTarget"] = None
    ph["mafiaPickedBy"] = None
    ph["acts"] = {}  # actor id -> target, for investigate / heal / mediumPeek


def _night_timeout(g: Game) -> None:
    """§5.5 resolution order: mafia target, doctor, soldier, death, private results."""
    ph = g.phase
    s = g.s
    night = g.day
    target_id = ph["mafiaTarget"]
    if target_id is not None and not g.by_id[target_id]["alive"]:
        target_id = None
    if target_id is None and g.options["mafiaMustKill"] == "random":
        if any(team_of(p["role"]) == MAFIA for p in g.alive()):
            pool = [p for p in g.alive() if team_of(p["role"]) != MAFIA]
            if pool:
                target_id = pool[g.rand_below(len(pool))]["id"]
    acts = ph["acts"]
    heal = next((t for a, t in acts.items() if g.by_id[a]["role"] == "doctor"), None)
    if target_id is not None:
        target = g.by_id[target_id]
        if target_id == heal:
            g.event("saved")
            g.system("The doctor saved someone tonight.")
        elif target["role"] == "soldier" and not target["soldierUsed"]:
            target["soldierUsed"] = True
            g.reveal(target, "role")
            g.event("soldierSurvived", player=target_id)
            g.system(f"Soldier {target_id} survived an attack.")
        else:
            g.kill(target, "mafia")
            g.system(f"{target_id} was killed in the night.")
    if target_id is None:
        g.event("quietNight")
        g.system("The night was quiet.")
    s["lastHeal"] = {"night": night, "target": heal} if heal else None
    for actor_id, t in acts.items():
        actor = g.by_id[actor_id]
        role = actor["role"]
        if role == "police":
            tp = g.by_id[t]
            if g.options["policeRevealRole"]:
                outcome = tp["role"]
            else:
                outcome = "mafia" if team_of(tp["role"]) == MAFIA else "notMafia"
            s["results"].setdefault(actor_id, []).append(
                {"day": night, "kind": "investigate", "target": t, "result": outcome}
            )
        elif role == "medium":
            s["results"].setdefault(actor_id, []).append(
                {"day": night, "kind": "mediumPeek", "target": t, "result": g.by_id[t]["role"]}
            )
    s["day"] += 1
    g.event("morning")
    if g.check_win("night"):
        return
    start_day(g, "discussion")


# --- actions (§8.2) -----------------------------------------------------------------------------
def chat_refusal(s: dict, p: dict, channel: str) -> str | None:
    """Why ``p`` may not write in ``channel`` now (§5.6), or None if they may."""
    kind = s["phase"]["kind"]
    if channel == "system":
        return "only the moderator writes in the system channel"
    if kind == "ended":
        return None if channel == "day" else "after the game only the day chat is open"
    role = p["role"]
    if channel == "day":
        if not p["alive"]:
            return "the dead cannot write in the day chat"
        if kind not in DAY_KINDS:
            return "the day chat is closed until the day"
        if kind == "defense" and s["phase"]["accused"] != p["id"]:
            return "only the accused may speak during the defense"
        return None
    if channel == "mafia":
        if team_of(role) != MAFIA:
            return "only the mafia write in the mafia chat"
        if not p["alive"]:
            return "the dead cannot write in the mafia chat"
        return None if kind == "night" else "the mafia chat opens at night"
    if channel == "dead":
        if not p["alive"] or (role == "medium" and kind == "night"):
            return None
        return "only the dead (and the medium at night) write in the dead chat"
    if channel == "lovers":
        if role != "lover":
            return "only the lovers write in the lovers chat"
        if not p["alive"]:
            return "the dead cannot write in the lovers chat"
        return None if kind == "night" else "the lovers chat opens at night"
    return "unknown channel"


def write_channels(s: dict, p: dict | None) -> tuple[str, ...]:
    if p is None:
        return ()
    return tuple(ch for ch in CHANNELS if chat_refusal(s, p, ch) is None)


def read_channels(s: dict, p: dict | None) -> tuple[str, ...]:
    kind = s["phase"]["kind"]
    if kind == "ended":
        return CHANNELS
    if p is None:
        return ("day", "system")
    out = ["day", "system"]
    role = p["role"]
    dead = not p["alive"]
    if team_of(role) == MAFIA or (dead and s["options"]["deadSeeAll"]):
        out.append("mafia")
    if dead or (role == "medium" and kind == "night"):
        out.append("dead")
    if role == "lover":
        out.append("lovers")
    return tuple(out)


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


# Night target checks, shared by the actions and by the view's list of choosable targets
# (the mafia's and the police's are the same in every preset: shared.py).
def _check_heal(s: dict, by_id: dict, p: dict, t: str | None) -> tuple[str, str] | None:
    q = by_id.get(t)
    if q is None:
        return "unknown_player", f"there is no player {quoted(t)} in this game"
    if not q["alive"]:
        return "target_dead", f"{t} is already out of the game"
    if q is p and not s["options"]["doctorSelfHeal"]:
        return "self_heal_off", "healing yourself is switched off in this game"
    last = s["lastHeal"]
    if (
        not s["options"]["doctorRepeat"]
        and last is not None
        and last["target"] == t
        and last["night"] == s["day"] - 1
    ):
        return "repeat_heal_off", f"you healed {t} last night and may not heal them two nights running"
    return None


def _check_medium_peek(s: dict, by_id: dict, p: dict, t: str | None) -> tuple[str, str] | None:
    q = by_id.get(t)
    if q is None:
        return "unknown_player", f"there is no player {quoted(t)} in this game"
    if q["alive"]:
        return "target_alive", f"{t} is alive; the medium reads only the dead"
    return None


NIGHT_CHECKS = {
    "mafiaTarget": check_mafia_target,
    "investigate": check_investigate,
    "heal": _check_heal,
    "mediumPeek": _check_medium_peek,
}


def act_night(g: Game, a: Any) -> None:
    """Every night ability: role check, target check, then record (changeable until dawn)."""
    p = g.actor(a.player)
    if _role(g.s, p["role"]).night != a.type:
        raise InvalidAction("not_your_role", f"your role cannot {a.type}")
    why = NIGHT_CHECKS[a.type](g.s, g.by_id, p, a.target)
    if why:
        raise InvalidAction(*why)
    ph = g.phase
    if a.type == "mafiaTarget":
        ph["mafiaPicks"][p["id"]] = a.target
        ph["mafiaTarget"] = a.target  # §5.5: the last pick of any mafia counts
        ph["mafiaPickedBy"] = p["id"]
    else:
        ph["acts"][p["id"]] = a.target


# --- views (§8.3) -----------------------------------------------------------------------------
def known_roles(s: dict, p: dict | None) -> set[str]:
    players = s["players"]
    if s["phase"]["kind"] == "ended":
        return {q["id"] for q in players}
    if p is None:
        return set()
    if not p["alive"] and s["options"]["deadSeeAll"]:
        return {q["id"] for q in players}
    known = {p["id"]}
    knows = _role(s, p["role"]).knows
    if knows == "team":
        team = team_of(p["role"])
        known.update(
            q["id"] for q in players if _role(s, q["role"]).knows == "team" and team_of(q["role"]) == team
        )
    elif knows == "pair":
        known.update(q["id"] for q in players if q["role"] == p["role"])
    return known


def allies(s: dict, p: dict) -> list[dict]:
    knows = _role(s, p["role"]).knows
    if knows == "team":
        team = team_of(p["role"])
        return [
            {"id": q["id"], "role": q["role"]}
            for q in s["players"]
            if q is not p and _role(s, q["role"]).knows == "team" and team_of(q["role"]) == team
        ]
    if knows == "pair":
        return [
            {"id": q["id"], "role": q["role"]} for q in s["players"] if q is not p and q["role"] == p["role"]
        ]
    return []


def private(s: dict, p: dict) -> dict:
    """The one private field; the same keys for every role in every phase (§8.3)."""
    ph = s["phase"]
    kind = ph["kind"]
    task = "none"
    targets: list = []
    choice = None
    team_choices: dict = {}
    if p["alive"]:
        if kind == "roleReveal":
            task = "done" if p["id"] in ph.get("ready", ()) else "ready"
        elif kind == "night":
            ability = _role(s, p["role"]).night
            if ability is None:
                task = "sleep"
            else:
                task = ability
                check = NIGHT_CHECKS[ability]
                by_id = {q["id"]: q for q in s["players"]}
                targets = [q["id"] for q in s["players"] if check(s, by_id, p, q["id"]) is None]
                if ability == "mafiaTarget":
                    choice = ph["mafiaTarget"]
                    team_choices = dict(ph["mafiaPicks"])
                else:
                    choice = ph["acts"].get(p["id"])
        elif kind == "vote":
            task = "vote"
            targets = [q["id"] for q in s["players"] if q["alive"] and q is not p]
            choice = ph["votes"].get(p["id"])
        elif kind == "confirm" and ph["accused"] != p["id"]:
            task = "confirm"
            choice = ph["ballots"].get(p["id"])
    results = [dict(r) for r in s["results"].get(p["id"], ())]
    return {
        "task": task,
        "targets": targets,
        "choice": choice,
        "teamChoices": team_choices,
        "results": results,
    }


# --- the end (§6, §8.6) -------------------------------------------------------------------------
_HOW = {
    ("town", "vote"): "Town wins! The day-{d} vote found the last mafia.",
    ("town", "night"): "Town wins! No mafia is left after night {d}.",
    ("town", "disconnect"): "Town wins! The last mafia left the game on day {d}.",
    ("mafia", "vote"): "Mafia wins! After the day-{d} execution the mafia equal the town.",
    ("mafia", "night"): "Mafia wins! After night {d} the mafia equal the town.",
    ("mafia", "disconnect"): "Mafia wins! After a player left on day {d} the mafia equal the town.",
    ("town", "left"): "Town wins! The last mafia left the game on day {d}.",
    ("mafia", "left"): "Mafia wins! After a player left on day {d} the mafia equal the town.",
    ("none", "host"): "The host ended the game on day {d}; nobody wins.",
}


def finish(g: Game, winner: str, cause: str) -> None:
    """§6 and §8.6: the result; a night ending counts as the day before (night n follows day n)."""
    mvp_votes = g.s["mvpVotes"]
    mvp = None
    if mvp_votes:  # §6: the town player with the most nominations that got a mafioso executed
        best = max(mvp_votes.values())
        mvp = min((pid for pid, n in mvp_votes.items() if n == best), key=lambda pid: g.by_id[pid]["seat"])
    day = g.s["day"] - 1 if cause == "night" else g.s["day"]
    won = lambda p: team_of(p["role"]) == winner  # noqa: E731
    finish_game(g, winner, cause, _HOW[(winner, cause)], won, mvp=mvp, day=day)


def after_leave(g: Game, p: dict) -> None:
    """A player left (room rule): win check, then mend the phase they were needed in."""
    if g.check_win("left"):
        return
    ph = g.phase
    kind = ph["kind"]
    if kind == "roleReveal" and all_in(g, ph.get("ready", ())):
        _role_reveal_timeout(g)
    elif kind in ("defense", "confirm") and ph["accused"] == p["id"]:
        g.system("The accused has left; there is no execution today.")
        end_day(g)
    elif kind == "discussion" and all(q["id"] in ph["ready"] for q in g.alive()):
        g.goto("vote")


def _no_timeout(g: Game) -> None:  # pragma: no cover - ended has no deadline
    raise InvalidAction("game_over", "the game is over")


PHASES: dict[str, PhaseSpec] = {
    p.kind: p
    for p in (
        PhaseSpec(
            "roleReveal", role_reveal_begin, _role_reveal_timeout, frozenset({"seenRole", "readyEarly"})
        ),
        PhaseSpec("greeting", _greeting_begin, end_day, frozenset(), day=True),
        PhaseSpec(
            "discussion",
            _discussion_begin,
            lambda g: g.goto("vote"),
            frozenset({"adjustTime", "readyEarly"}),
            public=("adjustedBy",),
            day=True,
        ),
        PhaseSpec("vote", _vote_begin, _vote_timeout, frozenset({"vote"}), day=True, review=("votes",)),
        PhaseSpec("defense", _defense_begin, _defense_timeout, frozenset(), public=("accused",), day=True),
        PhaseSpec(
            "confirm",
            _confirm_begin,
            _confirm_timeout,
            frozenset({"confirm"}),
            public=("accused",),
            day=True,
            review=("accused", "ballots"),
        ),
        PhaseSpec(
            "night",
            _night_begin,
            _night_timeout,
            frozenset(NIGHT_CHECKS),
            review=("mafiaPicks", "mafiaTarget", "acts"),
        ),
        PhaseSpec("ended", timeout=None),
    )
}

ACTIONS = {
    "chat": lambda g, a: act_chat(g, a, chat_refusal),
    "adjustTime": act_adjust_time,
    "seenRole": act_seen_role_then_first_phase,
    "readyEarly": act_ready_early,
    "vote": act_vote,
    "confirm": act_confirm,
    **{t: act_night for t in NIGHT_CHECKS},
}


def order(opts: dict) -> list[dict]:
    """A round's phases (§5.1); the greeting day only when the game starts by day."""
    greeting = (
        [{"kind": "greeting", "note": "rules.note.dayOne"}] if opts.get("firstPhase", "day") == "day" else []
    )
    return (
        [{"kind": k} for k in ("roleReveal",)]
        + greeting
        + [{"kind": k} for k in ("night", "discussion", "vote", "defense", "confirm")]
    )


CLASSIC = Preset(
    name="classic",
    title="Classic (seed 000)",
    # picks stay open until the timer; the mafia may take theirs back; ready is not a task
    rules=Rules(confirm_locks=False, can_withdraw=True, ready_unseen=True),
    tasks=frozenset({"none", "ready", "done", "sleep", "vote", "confirm", *NIGHT_CHECKS}),
    roles=ROLES,
    order=order,
    min_players=4,
    max_players=12,
    options=OPTIONS,
    deal=deal,
    check_options=check_options,
    start=start,
    phases=PHASES,
    actions=ACTIONS,
    win_checks=(no_mafia_left, mafia_parity),
    finish=finish,
    after_leave=after_leave,
    read_channels=read_channels,
    write_channels=write_channels,
    known_roles=known_roles,
    private=private,
    allies=allies,
)
