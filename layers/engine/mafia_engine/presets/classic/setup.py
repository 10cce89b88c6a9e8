"""The ``classic`` preset's set-up (§4): its characters, options, the deal and the
options' cross-checks.

Sections of docs/rulebooks/000-classic.txt are cited as §n.
"""

from __future__ import annotations

from ...errors import InvalidAction
from ...options import OptionSpec
from ...roles import TOWN, Role, core
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
    role_table,
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
    Role("politician", TOWN, check_reads="notMafia", vote_weight=2, vote_immune=True),
    Role("lover", TOWN, channel="lovers", check_reads="notMafia", knows="pair"),
    core("citizen"),
)


role_of = role_table(ROLES)  # id -> this preset's declaration (view hooks; rules ask g.role)


# classic's own task (the other night tasks are the core ones of ``tasks.TASKS``)
OWN_TASKS = (Task("mediumPeek", "mediumPeek", targeted=True, night=True, learns=True, aim="peek"),)

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
    ANONYMOUS,
    SUBSTITUTES,
    SUBSTITUTE_APPROVAL,
    AFK_LIMIT,
    AFK_REPLACE,
    PUBLIC,
    AUTO_START,
    AUTO_START_BOTS,
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
