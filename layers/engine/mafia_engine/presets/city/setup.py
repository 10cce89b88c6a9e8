"""The ``city`` preset's set-up ("Подготовьте город"): its characters, options and the deal.

Paragraphs of docs/rulebooks/001-city.txt are cited by their heading.
"""

from __future__ import annotations

from ...errors import InvalidAction
from ...game import Game
from ...options import OptionSpec
from ...roles import Role, core
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

# "Подготовьте город": players -> mafia when the count is automatic
AUTO_MAFIA = {5: 1, 6: 1, 7: 2, 8: 2, 9: 2, 10: 2, 11: 3, 12: 3, 13: 3, 14: 3, 15: 4, 16: 4}
DRY_RESULTS_FOR_DRAW = 6  # "шести подряд итогов ... без выбывания"
MAX_NIGHTS = 30  # "либо 30 ночей"
DAY_KINDS = frozenset({"discussion", "vote", "defense"})
CHANNELS = ("day", "dead", "system")
# every role the city deals ("Подготовьте город"), in the rules sheet's order; the mafia has
# no chat of its own (it agrees at night by confirmed picks)
ROLES: tuple[Role, ...] = (core("mafia", channel=None), core("police"), core("doctor"), core("citizen"))
NIGHT_ABILITY = {r.id: r.night for r in ROLES if r.night}
role_of = role_table(ROLES)  # id -> this preset's declaration

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "mafiaCount",
        "choice",
        "auto",
        choices=("auto", 1, 2, 3, 4, 5, 6, 7),
        help="mafia seats; auto: 1 (5–6 players), 2 (7–10), 3 (11–14), 4 (15–16); always fewer than half",
    ),
    OptionSpec("police", "bool", True, help="a commissar checks one player a night"),
    OptionSpec("doctor", "bool", True, help="a doctor protects one player a night"),
    ROLE_REVEAL_SECONDS,
    OptionSpec("nightSeconds", "int", 45, min=15, max=180),
    OptionSpec("discussionSeconds", "int", 180, min=30, max=900),
    OptionSpec("voteSeconds", "int", 30, min=10, max=120),
    OptionSpec("defenseSeconds", "int", 30, min=10, max=120, help="the tied leaders' defense"),
    OptionSpec(
        "deathReveal",
        "choice",
        "none",
        choices=("none", "team", "role"),
        help="what is shown of an eliminated player (all roles are shown at the end)",
    ),
    OptionSpec("openVote", "bool", True, help="show who voted for whom with the result"),
    OptionSpec(
        "untimed",
        "bool",
        False,
        help="no timers: a phase ends only when everyone has confirmed (one device passed around)",
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


# --- set-up ("Подготовьте город") ----------------------------------------------------------------
def deal(opts: dict, n: int) -> list[str]:
    """The role ids for ``n`` players (unshuffled), or the reason the set-up is refused."""
    mafia = AUTO_MAFIA.get(n, 1) if opts["mafiaCount"] == "auto" else opts["mafiaCount"]
    if 2 * mafia >= n:
        raise InvalidAction(
            "bad_options",
            f"option 'mafiaCount': {mafia} mafia need more than {2 * mafia} players (mafia must be fewer than half)",
        )
    roles = ["mafia"] * mafia
    if opts["police"]:
        roles.append("police")
    if opts["doctor"]:
        roles.append("doctor")
    citizens = n - len(roles)
    if citizens < 1:
        raise InvalidAction(
            "seats_short",
            f"the city needs at least one plain citizen ({n} players, {len(roles)} special roles)",
        )
    return roles + ["citizen"] * citizens


def start(g: Game) -> None:
    g.s["extra"] = {"dry": 0, "selfHealUsed": False}
    g.goto("roleReveal")
