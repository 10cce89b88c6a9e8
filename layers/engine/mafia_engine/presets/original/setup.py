"""The ``original`` preset's set-up and who is who: the seed's deal tables, every
character's declaration, the options, and the questions the other parts ask about a player
(their group, what a check reads, tonight's duties) (docs/rulebooks/003-original.txt)."""

from __future__ import annotations

from ...errors import InvalidAction
from ...game import Game
from ...options import OptionSpec
from ...roles import MAFIA, SOLO, TOWN, YAKUZA, Role, core
from ...tasks import Task
from ..shared import (
    AFK_LIMIT,
    AFK_REPLACE,
    ANONYMOUS,
    AUTO_START,
    AUTO_START_BOTS,
    PUBLIC,
    ROLE_REVEAL_SECONDS,
    SUBSTITUTE_APPROVAL,
    SUBSTITUTES,
    add_result,
    check_target,
    role_table,
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


role_of = role_table(ROLES)  # id -> this preset's declaration (view hooks; rules ask g.role)


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

# The tasks only this preset hands out (``Preset.own_tasks``: declared in ``tasks.TASKS``); the
# core ones it shares with the other presets are in ``mafia_engine/tasks.py``.
TASKS: tuple[Task, ...] = (
    Task("nominate", "nominate", targeted=True, null_target=True),
    Task(
        "yakuzaTarget",
        "yakuzaTarget",
        targeted=True,
        null_target=True,
        night=True,
        team=True,
        aim="teamKill",
        channel="yakuza",
    ),
    Task("godfatherCheck", "godfatherCheck", targeted=True, night=True, learns=True, aim="probe"),
    Task("ninjaCheck", "ninjaCheck", targeted=True, night=True, learns=True, aim="probe"),
    Task("lawyerPeek", "lawyerPeek", targeted=True, night=True, learns=True, aim="probe"),
    Task("madmanKill", "madmanKill", targeted=True, null_target=True, night=True, aim="kill"),
    Task("arrest", "arrest", targeted=True, null_target=True, night=True, aim="remove"),
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
    ANONYMOUS,
    SUBSTITUTES,
    SUBSTITUTE_APPROVAL,
    AFK_LIMIT,
    AFK_REPLACE,
    PUBLIC,
    AUTO_START,
    AUTO_START_BOTS,
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
    return role_of(role).channel


def reads_criminal(s: dict, p: dict) -> bool:
    """What the investigator learns: the lawyer reads as a citizen, the werewolf until it joins."""
    if p["role"] == "werewolf" and s["extra"]["werewolf"] is not None:
        return True
    return role_of(p["role"]).check_reads == "criminal"


def duties(s: dict, p: dict) -> list[str]:
    """What ``p`` does tonight, in the night's order (empty: sleeps)."""
    night = s["day"]
    role = role_of(p["role"])
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
