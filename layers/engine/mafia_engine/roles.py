"""The role table: every role id of the contract, its team and what it does at night.

Presets pick the roles they use; the table is shared so a role id means one thing everywhere.
``night`` is the action type the role performs at night in classic (None: the role sleeps);
city (``NIGHT_ABILITY``) and original (``duties``) say per game what a role does tonight.
"""

from __future__ import annotations

from dataclasses import dataclass

TOWN = "town"
MAFIA = "mafia"
YAKUZA = "yakuza"
SOLO = "solo"


@dataclass(frozen=True)
class Role:
    id: str
    team: str
    night: str | None = None  # action type used at night
    vote_weight: int = 1
    # who this role learns at the start: "team" (its team mates with the same flag) or "pair"
    knows: str | None = None


ROLES: dict[str, Role] = {
    r.id: r
    for r in (
        Role("mafia", MAFIA, night="mafiaTarget", knows="team"),
        Role("godfather", MAFIA, night="mafiaTarget", knows="team"),
        Role("police", TOWN, night="investigate"),
        Role("doctor", TOWN, night="heal"),
        Role("citizen", TOWN),
        Role("soldier", TOWN),
        Role("politician", TOWN, vote_weight=2),
        Role("medium", TOWN, night="mediumPeek"),
        Role("lover", TOWN, knows="pair"),
        Role("immortal", TOWN),
        Role("judge", TOWN),
        Role("corruptJudge", MAFIA),
        Role("sheriff", TOWN),
        Role("yakuza", YAKUZA, knows="team"),
        Role("ninja", YAKUZA, knows="team"),
        Role("madman", SOLO),
        Role("werewolf", SOLO),
        Role("lawyer", MAFIA),
    )
}


def team_of(role: str) -> str:
    """The team a role id belongs to ("town", "mafia", "yakuza" or "solo")."""
    try:
        return ROLES[role].team
    except KeyError:
        raise ValueError(f"unknown role {role!r}") from None
