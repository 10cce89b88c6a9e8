"""The ``original`` preset: docs/rulebooks/003-original.txt (seed 003, the Korean boxed game
"오리지널 마피아"), base and expansion.

Our reading of everything the seed leaves open (the immortal, the fair judge, the expansion
night order, several attacks on one player, ...) is in docs/rules.md, "Original (seed 003)",
each with the test that checks it.

Shape of a game: role reveal → night 1 (the groups plan; nobody is killed) → day 1 (night
report, speeches in seat order, no trial) → night 2 → day 2 (speeches with nominations, then
the trial: one defense per suspect, the vote, a revote between the tied, the all-or-none
vote) → ... Night N is followed by day N. At night every living player confirms what their
role does (possibly several things: the godfather kills and checks) or sleeps, so a dead
investigator or godfather changes neither the night's structure nor its length.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidAction
from ..game import Game
from ..options import OptionSpec
from ..phases import PhaseSpec
from ..roles import MAFIA, SOLO, TOWN, YAKUZA, Role, core, team_of
from . import PRESETS
from .base import Preset, Rules
from .shared import (
    ROLE_REVEAL_SECONDS,
    SUBSTITUTES,
    act_chat,
    act_seen_role,
    add_result,
    all_in,
    check_target,
    finish_game,
    role_reveal_begin,
    tally_ballots,
)

# The seed's tables: players -> role counts (base game: 4 kinds of cards; expansion)
BASE = {
    8: {"citizen": 5, "police": 1, "mafia": 1, "godfather": 1},
    9: {"citizen": 5, "police": 1, "mafia": 2, "godfather": 1},
    10: {"citizen": 6, "police": 1, "mafia": 2, "godfather": 1},
    11: {"citizen": 7, "police": 1, "mafia": 2, "godfather": 1},
    12: {"citizen": 8, "police": 1, "mafia": 2, "godfather": 1},
    13: {"citizen": 8, "police": 1, "mafia": 3, "godfather": 1},
}
EXPANSION = {
    8: {"citizen": 5, "police": 1, "mafia": 1, "godfather": 1},
    9: {"citizen": 5, "police": 1, "mafia": 1, "godfather": 1, "madman": 1},
    10: {"citizen": 6, "police": 1, "mafia": 2, "godfather": 1},
    11: {"citizen": 5, "police": 1, "doctor": 1, "mafia": 2, "godfather": 1, "werewolf": 1},
    12: {"citizen": 5, "police": 1, "sheriff": 1, "immortal": 1, "mafia": 2, "godfather": 1, "madman": 1},
    13: {
        "citizen": 5,
        "police": 1,
        "sheriff": 1,
        "immortal": 1,
        "doctor": 1,
        "mafia": 2,
        "godfather": 1,
        "madman": 1,
    },
    14: {
        "citizen": 6,
        "police": 1,
        "sheriff": 1,
        "immortal": 1,
        "doctor": 1,
        "mafia": 1,
        "godfather": 1,
        "ninja": 1,
        "yakuza": 1,
    },
    15: {
        "citizen": 4,
        "police": 1,
        "sheriff": 1,
        "judge": 2,
        "immortal": 1,
        "doctor": 1,
        "mafia": 2,
        "godfather": 1,
        "lawyer": 1,
        "corruptJudge": 1,
    },
    16: {
        "citizen": 5,
        "police": 1,
        "sheriff": 1,
        "judge": 2,
        "immortal": 1,
        "doctor": 1,
        "mafia": 2,
        "godfather": 1,
        "lawyer": 1,
        "corruptJudge": 1,
    },
}

# Every character of the base game and the expansion, in the rules sheet's order: the one
# declaration of each (team, night duties in the night's order, chat, what the investigator
# reads). A group's members kill together from night 2 (``group_of``: the role's channel).
ROLES: tuple[Role, ...] = (
    core("mafia", check_reads="criminal"),
    Role(
        "godfather",
        MAFIA,
        night="mafiaTarget",
        duties=("mafiaTarget", "godfatherCheck"),
        channel="mafia",
        check_reads="criminal",
        knows="team",
    ),
    Role("lawyer", MAFIA, night="lawyerPeek", check_reads="notCriminal"),
    Role("corruptJudge", MAFIA, check_reads="criminal"),
    Role("yakuza", YAKUZA, night="yakuzaTarget", channel="yakuza", check_reads="criminal", knows="team"),
    Role(
        "ninja",
        YAKUZA,
        night="yakuzaTarget",
        duties=("yakuzaTarget", "ninjaCheck"),
        channel="yakuza",
        check_reads="criminal",
        knows="team",
    ),
    Role("madman", SOLO, night="madmanKill", check_reads="criminal"),
    # reads as a citizen until it joins a group (then as a criminal: ``reads_criminal``)
    Role("werewolf", SOLO, check_reads="notCriminal"),
    core("police", check_reads="notCriminal"),
    Role("sheriff", TOWN, night="arrest", check_reads="notCriminal"),
    core("doctor", check_reads="notCriminal"),
    Role("immortal", TOWN, check_reads="notCriminal"),
    Role("judge", TOWN, check_reads="notCriminal"),
    core("citizen", check_reads="notCriminal"),
)


def _role(s: dict, role_id: str) -> Role:
    """A role as the game's preset declares it (this one, or one registered on top of it)."""
    return PRESETS[s["preset"]].role(role_id)


MAFIA_CORE = frozenset(r.id for r in ROLES if r.channel == "mafia")
YAKUZA_CORE = frozenset(r.id for r in ROLES if r.channel == "yakuza")
JUDGES = frozenset({"judge", "corruptJudge"})
GROUP_KILL = {"mafia": "mafiaTarget", "yakuza": "yakuzaTarget"}
FROM_NIGHT_TWO = frozenset({*GROUP_KILL.values(), "arrest"})  # night 1 is the groups' plan
MAX_NIGHTS = 30  # our safeguard: the seed has no draw (docs/rules.md)
DAY_KINDS = frozenset({"speech", "defense", "vote", "allOrNone", "lastWord"})
LAST_WORD_LINES = 3  # "최후의 한 마디": a last word, not a speech (docs/rules.md, reading)
CHANNELS = ("day", "mafia", "yakuza", "dead", "system")
NIGHT_TYPES = (
    "lawyerPeek",
    "mafiaTarget",
    "yakuzaTarget",
    "madmanKill",
    "arrest",
    "investigate",
    "godfatherCheck",
    "ninjaCheck",
    "heal",
)

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "expansion",
        "bool",
        False,
        help="the expansion's characters and tables (8–16 players); off: the base game (8–13)",
    ),
    ROLE_REVEAL_SECONDS,
    OptionSpec("nightSeconds", "int", 60, min=20, max=180, help="night 1: the groups' 60 s plan"),
    OptionSpec("speechSeconds", "int", 60, min=20, max=180, help="each player's turn to speak"),
    OptionSpec("defenseSeconds", "int", 30, min=10, max=120, help="each suspect's defense"),
    OptionSpec("voteSeconds", "int", 30, min=10, max=120),
    OptionSpec(
        "lastWordSeconds",
        "int",
        15,
        min=5,
        max=60,
        help="the executed player's last word (ends early when they are done)",
    ),
    OptionSpec(
        "untimed",
        "bool",
        False,
        help="no timers: a phase ends only when everyone it waits for has confirmed",
    ),
    OptionSpec("kidSafeChat", "bool", True, help="block profanity, links and phone numbers"),
    SUBSTITUTES,
)


# --- set-up ------------------------------------------------------------------------------------
def deal(opts: dict, n: int) -> list[str]:
    table = EXPANSION if opts["expansion"] else BASE
    if n not in table:
        raise InvalidAction(
            "too_many_players",
            f"the {'expansion' if opts['expansion'] else 'base game'} is for 8–{max(table)} players ({n} joined)",
        )
    return [role for role, count in table[n].items() for _ in range(count)]


def start(g: Game) -> None:
    g.s["extra"] = {"werewolf": None, "firstSeat": 1}
    g.goto("roleReveal")


# --- who is who ------------------------------------------------------------------------------------
def group_of(s: dict, p: dict) -> str | None:
    """The criminal group whose night kill ``p`` takes part in (a joined werewolf too)."""
    role = p["role"]
    if role == "werewolf":
        return s["extra"]["werewolf"]
    return _role(s, role).channel


def reads_criminal(s: dict, p: dict) -> bool:
    """What the investigator learns: the lawyer reads as a citizen, the werewolf until it joins."""
    if p["role"] == "werewolf" and s["extra"]["werewolf"] is not None:
        return True
    return _role(s, p["role"]).check_reads == "criminal"


def duties(s: dict, p: dict) -> list[str]:
    """What ``p`` does tonight, in the night's order (empty: sleeps)."""
    night = s["day"]
    role = _role(s, p["role"])
    own = set(role.duties or ((role.night,) if role.night else ())) - set(GROUP_KILL.values())
    group = group_of(s, p)
    if group:
        own.add(GROUP_KILL[group])
    return [t for t in NIGHT_TYPES if t in own and (night >= 2 or t not in FROM_NIGHT_TWO)]


def _check(s: dict, by_id: dict, p: dict, typ: str, t: str | None) -> tuple[str, str] | None:
    if t is None:
        if typ in ("mafiaTarget", "yakuzaTarget", "madmanKill", "arrest"):
            return None
        return "bad_target", f"{typ} needs a target"
    why = check_target(s, by_id, p, t, self_ok=typ == "heal")
    if why:
        return why
    q = by_id[t]
    if typ == "mafiaTarget" and group_of(s, q) == "mafia":
        return "bad_target", "the mafia group cannot target one of its own"
    if typ == "yakuzaTarget" and group_of(s, q) == "yakuza":
        return "bad_target", "the yakuza group cannot target one of its own"
    return None


# --- phases ------------------------------------------------------------------------------------------
def _night_begin(g: Game) -> None:
    g.deadline_in(g.options["nightSeconds"])
    g.phase["acts"] = {}  # player id -> {action type: target}
    g.phase["done"] = []  # players who have confirmed everything (or slept)


def _to_night(g: Game) -> None:
    g.goto("night")


def resolve_night(g: Game) -> None:
    """Every confirmed action at once, in the night's order (docs/rules.md)."""
    s = g.s
    night = g.day
    acts = g.phase["acts"]

    def picks(typ: str) -> dict[str, Any]:
        return {pid: a[typ] for pid, a in acts.items() if typ in a}

    # 1. the lawyer wakes first and learns one identity
    for pid, t in picks("lawyerPeek").items():
        add_result(s, pid, night, "lawyerPeek", t, g.by_id[t]["role"])
    # 2. the doctor's protection is in place before anyone strikes
    heal = {t for t in picks("heal").values() if t}
    # 3-6. mafia group, yakuza group (all living members on one target), madman, sheriff
    strikes: list[tuple[str, str]] = []
    if night >= 2:
        for group, typ in GROUP_KILL.items():
            members = [p for p in g.alive() if group_of(s, p) == group]
            chosen = {acts.get(p["id"], {}).get(typ) for p in members}
            if members and len(chosen) == 1 and None not in chosen:
                strikes.append((chosen.pop(), group))
    for typ, by in (("madmanKill", "madman"), ("arrest", "arrest")):
        for t in picks(typ).values():
            if t is not None:
                strikes.append((t, by))
    # 7. the checks (they read the night's starting state: simultaneous with the strikes)
    for pid, t in picks("investigate").items():
        add_result(
            s, pid, night, "investigate", t, "criminal" if reads_criminal(s, g.by_id[t]) else "notCriminal"
        )
    for pid, t in picks("godfatherCheck").items():
        add_result(
            s, pid, night, "godfatherCheck", t, "yes" if g.by_id[t]["role"] in ("police", "ninja") else "no"
        )
    for pid, t in picks("ninjaCheck").items():
        q = g.by_id[t]
        yes = q["role"] == "police" or group_of(s, q) == "mafia"
        add_result(s, pid, night, "ninjaCheck", t, "yes" if yes else "no")
    dead: dict[str, str] = {}
    for t, by in strikes:
        q = g.by_id[t]
        if not q["alive"] or t in dead or q["role"] == "immortal":
            continue
        if by != "arrest" and t in heal:
            continue
        dead[t] = by
    for p in s["players"]:
        if p["id"] in dead:
            # "목격자가 없다는 것입니다": the report never names the killer (nor an arrest);
            # the real cause is the player's diedBy, shown in the result and the review
            g.kill(p, dead[p["id"]], public="night")
            g.system(f"{p['id']} was taken out in the night.")
    if not dead:
        g.event("quietNight")
        g.system("The night was quiet.")
    _werewolf_joins(g)
    g.event("morning")
    if _check_end(g, "night"):
        return
    _start_day(g)


def _werewolf_joins(g: Game) -> None:
    """The werewolf joins the first criminal group found wiped out (privately told)."""
    s = g.s
    if s["extra"]["werewolf"] is not None:
        return
    for p in g.alive():
        if p["role"] != "werewolf":
            continue
        for group, members_of in (("mafia", MAFIA_CORE), ("yakuza", YAKUZA_CORE)):
            members = [q for q in s["players"] if q["role"] in members_of]
            if members and not any(q["alive"] for q in members):
                s["extra"] = {**s["extra"], "werewolf": group}
                add_result(s, p["id"], g.day, "werewolfJoins", None, group)
                return


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
    g.goto("defense", accused=suspects[0], suspects=suspects)


def _defense_begin(g: Game, accused: str, suspects: list[str]) -> None:
    g.deadline_in(g.options["defenseSeconds"])
    g.phase["accused"] = accused
    g.phase["suspects"] = list(suspects)


def _next_defense(g: Game) -> None:
    """The next suspect in nomination order defends; after the last, the vote (or one execution)."""
    ph = g.phase
    order = ph["suspects"]
    alive = [pid for pid in order if g.by_id[pid]["alive"]]
    later = [pid for pid in order[order.index(ph["accused"]) + 1 :] if g.by_id[pid]["alive"]]
    if later:
        g.goto("defense", accused=later[0], suspects=order)
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


# --- wins ------------------------------------------------------------------------------------------
def sides(s: dict) -> dict[str, int]:
    """Living players per side as the win checks count them (docs/rules.md, "Wins").

    ``town``: the citizens, and the werewolf until it joins a group ("사회자는 늑대인간을 선량한
    시민처럼 대우하다가"); ``mafia``: every criminal but the yakuza group and the madman (mafia,
    godfather, lawyer, corrupt judge, a werewolf that joined the mafia); ``mafiaGroup``: mafia,
    godfather and a werewolf that joined them; ``yakuza``: yakuza, ninja and a werewolf that
    joined them; ``solo``: the madman.
    """
    out = {"town": 0, "mafia": 0, "mafiaGroup": 0, "yakuza": 0, "solo": 0}
    joined = s["extra"]["werewolf"]
    for p in s["players"]:
        if not p["alive"]:
            continue
        role = p["role"]
        if role == "werewolf":
            side = joined or "town"
        elif role == "madman":
            side = "solo"
        elif role in YAKUZA_CORE:
            side = "yakuza"
        elif team_of(role) == TOWN:
            side = "town"
        else:
            side = "mafia"
        out[side] += 1
        if side == "mafia" and (role in MAFIA_CORE or role == "werewolf"):
            out["mafiaGroup"] += 1
    return out


def winner_now(s: dict) -> str | None:
    """The side that has won, "draw" when nobody is left, or None (docs/rules.md, "Wins")."""
    alive = [p for p in s["players"] if p["alive"]]
    if not alive:
        return "draw"
    if len(alive) == 1 and alive[0]["role"] in ("madman", "werewolf"):
        return alive[0]["role"]
    n = sides(s)
    if n["town"] == len(alive):
        return "town"  # "범죄자 그룹이 모두 죽었다면" (an unjoined werewolf passes for a citizen)
    if n["yakuza"] and not n["mafiaGroup"] and not n["town"]:
        return "yakuza"  # "마피아그룹과 시민을 모두 제거하면"
    if n["mafia"] and n["mafia"] >= n["town"]:
        return "mafia"  # "야쿠자그룹을 제외한 범죄자그룹의 수가 시민의 수와 같거나 많아지면"
    return None


def _check_end(g: Game, cause: str) -> bool:
    winner = winner_now(g.s)
    if winner is not None:
        finish(g, winner, cause)
        return True
    if cause == "night" and g.day >= MAX_NIGHTS:
        finish(g, "draw", "nights")
        return True
    return False


def won(s: dict, p: dict, winner: str) -> bool:
    role = p["role"]
    if winner == "town":
        return team_of(role) == TOWN
    if winner in ("mafia", "yakuza"):
        # the lawyer and the corrupt judge win with either group; the werewolf never does
        return role in (MAFIA_CORE if winner == "mafia" else YAKUZA_CORE) or role in (
            "lawyer",
            "corruptJudge",
        )
    return role == winner and p["alive"]


_HOW = {
    "town": "The citizens win! No criminal is left (day {d}).",
    "mafia": "The mafia wins! The mafia side is as many as the citizens (day {d}).",
    "yakuza": "The yakuza wins! The mafia group and the citizens are gone (day {d}).",
    "madman": "The madman wins as the last one alive (day {d}).",
    "werewolf": "The werewolf wins as the last one alive (day {d}).",
    "draw": "A draw: nobody can win any more (day {d}).",
}


def finish(g: Game, winner: str, cause: str) -> None:
    if winner == "none":
        summary = "The host ended the game on day {d}; nobody wins."
    elif cause == "nights":
        summary = "A draw: thirty nights have passed."
    else:
        summary = _HOW[winner]
    finish_game(g, winner, cause, summary, lambda p: won(g.s, p, winner))


# --- actions -------------------------------------------------------------------------------------------
def act_night(g: Game, a: Any) -> None:
    p = g.actor(a.player)
    ph = g.phase
    pid = p["id"]
    if pid in ph["done"]:
        raise InvalidAction("already_confirmed", "you have already confirmed tonight")
    mine = ph["acts"].get(pid, {})
    todo = [d for d in duties(g.s, p) if d not in mine]
    if a.type != "sleep":
        if a.type in mine:
            raise InvalidAction("already_confirmed", f"you have already confirmed {a.type} tonight")
        if a.type not in todo:
            raise InvalidAction("not_your_role", f"you cannot {a.type} tonight")
        why = _check(g.s, g.by_id, p, a.type, a.target)
        if why:
            raise InvalidAction(*why)
        ph["acts"][pid] = {**mine, a.type: a.target}
        todo.remove(a.type)
    if a.type == "sleep" or not todo:
        ph["done"].append(pid)
    if all_in(g, ph["done"]):
        resolve_night(g)


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


def act_seen_role_then_night(g: Game, a: Any) -> None:
    """``seenRole`` (or the reveal's ``readyEarly``): once everyone has seen their card, night."""
    act_seen_role(g, a, _to_night)


def after_leave(g: Game, p: dict) -> None:
    _werewolf_joins(g)
    if _check_end(g, "left"):
        return
    ph = g.phase
    kind = ph["kind"]
    pid = p["id"]
    if kind == "roleReveal" and all_in(g, ph["ready"]):
        g.goto("night")
    elif kind == "night" and all_in(g, ph["done"]):
        resolve_night(g)
    elif kind == "speech" and ph["speaker"] == pid:
        _next_speaker(g)
    elif kind == "defense" and ph["accused"] == pid:
        _next_defense(g)
    elif kind == "vote":
        if pid in ph["candidates"] and len([c for c in ph["candidates"] if g.by_id[c]["alive"]]) <= 1:
            close_vote(g)
        elif _all_voted(g, ph["votes"]):
            close_vote(g)
    elif kind == "allOrNone" and (
        _all_voted(g, ph["ballots"]) or not any(g.by_id[c]["alive"] for c in ph["suspects"])
    ):
        close_all_or_none(g)


def after_dead_leave(g: Game, p: dict) -> None:
    """An executed player leaves (or is removed) during the last words: their word is over
    (the next one speaks, or the night comes); one still queued is taken out of the queue."""
    ph = g.phase
    if ph["kind"] != "lastWord":
        return
    if ph["player"] == p["id"]:
        _next_last_word(g)
    elif p["id"] in ph["queue"]:
        ph["queue"] = [q for q in ph["queue"] if q != p["id"]]


# --- chat ----------------------------------------------------------------------------------------------
def act_chat_original(g: Game, a: Any) -> None:
    act_chat(g, a, chat_refusal)
    if g.phase["kind"] == "lastWord" and a.channel == "day":
        # kept for the review (the day chat's window may lose them in a long game)
        g.phase["lines"] = [*g.phase["lines"], g.s["chat"][-1]["text"]]


def chat_refusal(s: dict, p: dict, channel: str) -> str | None:
    kind = s["phase"]["kind"]
    if channel == "system":
        return "only the moderator writes in the system channel"
    if channel not in CHANNELS:
        return f"there is no {channel} chat in this game"
    if kind == "ended":
        return None if channel == "day" else "after the game only the day chat is open"
    if channel == "dead" and _awaits_last_word(s, p["id"]):
        return "your last word is for the living: the dead chat opens after it"
    if kind == "lastWord" and channel == "day":
        if s["phase"]["player"] != p["id"]:
            return "only the executed player speaks their last word"
        if len(s["phase"]["lines"]) >= LAST_WORD_LINES:
            return f"a last word is at most {LAST_WORD_LINES} messages"
        return None
    if channel == "dead":
        return None if not p["alive"] else "only the dead write in the dead chat"
    if not p["alive"]:
        return "the dead may not speak, sign or show their card"
    if channel in ("mafia", "yakuza"):
        if group_of(s, p) != channel:
            return f"only the {channel} group writes in the {channel} chat"
        if kind != "night" or s["day"] != 1:
            return "the groups plan only on the first night; later, only subtle signs by day"
        return None
    if kind not in DAY_KINDS:
        return "the day chat is closed until the day"
    if kind == "speech" and s["phase"]["speaker"] != p["id"]:
        return "nobody interrupts the speaker"
    if kind == "defense" and s["phase"]["accused"] != p["id"]:
        return "only the suspect speaks during their defense"
    return None


def _awaits_last_word(s: dict, pid: str) -> bool:
    """The executed player speaking now, or one queued for a last word: dead already, but
    they still talk to the living, so the dead chat stays shut to them until they are done."""
    ph = s["phase"]
    return ph["kind"] == "lastWord" and (ph["player"] == pid or pid in ph["queue"])


def write_channels(s: dict, p: dict | None) -> tuple[str, ...]:
    if p is None:
        return ()
    return tuple(ch for ch in CHANNELS if chat_refusal(s, p, ch) is None)


def read_channels(s: dict, p: dict | None) -> tuple[str, ...]:
    if s["phase"]["kind"] == "ended":
        return CHANNELS
    if p is None:
        return ("day", "system")
    out = ["day", "system"]
    group = group_of(s, p)
    if group:
        out.append(group)
    if not p["alive"] and not _awaits_last_word(s, p["id"]):
        out.append("dead")
    return tuple(out)


# --- views ---------------------------------------------------------------------------------------------
def _mates(s: dict, p: dict) -> list[dict]:
    """The group members ``p`` knows: the core of its group (a joined werewolf learns them)."""
    group = group_of(s, p)
    if group is None:
        return []
    core = MAFIA_CORE if group == "mafia" else YAKUZA_CORE
    return [q for q in s["players"] if q is not p and q["role"] in core]


def known_roles(s: dict, p: dict | None) -> set[str]:
    if s["phase"]["kind"] == "ended":
        return {q["id"] for q in s["players"]}
    if p is None:
        return set()
    return {p["id"], *(q["id"] for q in _mates(s, p))}


def allies(s: dict, p: dict) -> list[dict]:
    return [{"id": q["id"], "role": q["role"]} for q in _mates(s, p)]


def private(s: dict, p: dict) -> dict:
    ph = s["phase"]
    kind = ph["kind"]
    pid = p["id"]
    task = "none"
    targets: list = []
    choice = None
    if kind == "lastWord" and ph["player"] == pid:
        task = "endTurn"  # out of the game, but this is their last word
    elif p["alive"]:
        if kind == "roleReveal":
            task = "done" if pid in ph["ready"] else "ready"
        elif kind == "night":
            mine = ph["acts"].get(pid, {})
            todo = [d for d in duties(s, p) if d not in mine]
            if pid in ph["done"]:
                task = "done"
            elif not todo:
                task = "sleep"
            else:
                task = todo[0]
                by_id = {q["id"]: q for q in s["players"]}
                targets = [
                    q["id"] for q in s["players"] if q["alive"] and _check(s, by_id, p, task, q["id"]) is None
                ]
            if mine:
                choice = list(mine.values())[-1]
        elif kind == "speech" and ph["speaker"] == pid:
            task = "nominate"
            if s["day"] > 1:
                taken = {n["target"] for n in ph["nominations"]}
                targets = [
                    q["id"] for q in s["players"] if q["alive"] and q is not p and q["id"] not in taken
                ]
        elif kind == "defense" and ph["accused"] == pid:
            task = "endTurn"
        elif kind == "vote" and pid in ph["voters"]:
            if pid in ph["votes"]:
                task = "done"
                choice = ph["votes"][pid]
            else:
                task = "vote"
                targets = [
                    c
                    for c in ph["candidates"]
                    if c != pid and any(q["id"] == c and q["alive"] for q in s["players"])
                ]
        elif kind == "allOrNone" and pid in ph["voters"]:
            if pid in ph["ballots"]:
                task = "done"
                choice = ph["ballots"][pid]
            else:
                task = "confirm"
    return {
        "task": task,
        "targets": targets,
        "choice": choice,
        "teamChoices": {},
        "results": [dict(r) for r in s["results"].get(pid, ())],
    }


PHASES: dict[str, PhaseSpec] = {
    p.kind: p
    for p in (
        PhaseSpec("roleReveal", role_reveal_begin, _to_night, frozenset({"seenRole", "readyEarly"})),
        PhaseSpec("night", _night_begin, resolve_night, frozenset({*NIGHT_TYPES, "sleep"}), review=("acts",)),
        PhaseSpec(
            "speech",
            _speech_begin,
            _next_speaker,
            frozenset({"nominate", "endTurn"}),
            public=("speaker", "queue", "nominations"),
            day=True,
        ),
        PhaseSpec(
            "defense",
            _defense_begin,
            _next_defense,
            frozenset({"endTurn"}),
            public=("accused", "suspects"),
            day=True,
        ),
        PhaseSpec(
            "vote",
            _vote_begin,
            close_vote,
            frozenset({"vote"}),
            public=("round", "candidates", "voters"),
            day=True,
            review=("round", "candidates", "voters", "votes"),
        ),
        PhaseSpec(
            "allOrNone",
            _all_or_none_begin,
            close_all_or_none,
            frozenset({"confirm"}),
            public=("suspects", "voters"),
            day=True,
            review=("suspects", "voters", "ballots"),
        ),
        PhaseSpec(
            "lastWord",
            _last_word_begin,
            _next_last_word,
            frozenset({"endTurn"}),
            public=("player", "queue"),
            day=True,
            review=("player", "lines"),
        ),
        PhaseSpec("ended", timeout=None),
    )
}

ACTIONS = {
    "chat": act_chat_original,
    "seenRole": act_seen_role_then_night,
    "readyEarly": act_seen_role_then_night,
    "nominate": act_nominate,
    "endTurn": act_end_turn,
    "vote": act_vote,
    "confirm": act_confirm,
    **{t: act_night for t in (*NIGHT_TYPES, "sleep")},
}


def order(opts: dict) -> list[dict]:
    """A day's phases after the night; the all-or-none vote only after a tied vote."""
    return [
        {"kind": "roleReveal"},
        {"kind": "night"},
        {"kind": "speech"},
        {"kind": "defense"},
        {"kind": "vote"},
        {"kind": "allOrNone", "note": "rules.note.tie"},
    ]


ORIGINAL = Preset(
    name="original",
    title="Original (seed 003)",
    # no abstention; a role's duties come one task at a time; solo killers and the yakuza
    # kill too, so a night victim may have been mafia
    rules=Rules(can_abstain=False, duties_in_turn=True, night_victim_not_mafia=False),
    tasks=frozenset(
        {"none", "done", "ready", "sleep", "nominate", "endTurn", "vote", "confirm", *NIGHT_TYPES}
    ),
    roles=ROLES,
    order=order,
    min_players=8,
    max_players=16,
    options=OPTIONS,
    deal=deal,
    start=start,
    phases=PHASES,
    actions=ACTIONS,
    win_checks=(),
    finish=finish,
    after_leave=after_leave,
    after_dead_leave=after_dead_leave,
    read_channels=read_channels,
    write_channels=write_channels,
    known_roles=known_roles,
    private=private,
    allies=allies,
)
