"""What a role is, the core roles every preset shares, and the registry of role ids.

A preset declares every role it deals once, in its own module (``Preset.roles``, in the
rulebook's display order): team, night task, chat channel, what a check of it reads and
the i18n key of its one-line power. That declaration is the role catalogue the view's
``rules.roles`` carries (``Role.as_view``, gathered by ``presets.base.Preset.rules_view``);
the client, the bots, the scripted clients and the fuzz generator read it there. The rules
read it too: a check's reading, vote weight, armour and immunity come from the declaration,
never from a role's name.

The core roles (mafia, police, doctor, citizen: in every preset) live here; a preset takes
one as it is or with its own changes (``core("police", check_reads="criminal")``). Building
a ``Preset`` declares its roles' ids and teams in ``ROLES`` (``declare``), so ``team_of``
knows every role of every preset built so far; one id means one team everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

TOWN = "town"
MAFIA = "mafia"
YAKUZA = "yakuza"
SOLO = "solo"


@dataclass(frozen=True)
class Role:
    id: str
    team: str
    night: str | None = None  # the task (``tasks.TASKS``) the role performs at night (None: sleeps)
    # every night task of the role when it has more than one (original's godfather kills and checks)
    duties: tuple[str, ...] = ()
    channel: str | None = None  # the team chat it writes in (None: day chat only)
    check_reads: str | None = None  # what a check of this role reports ("mafia", "notCriminal", ...)
    power: str = ""  # i18n key of its one-line power ("" -> "roledesc.<id>")
    vote_weight: int = 1
    armor: int = 0  # night attacks it survives (classic's soldier: one)
    # an execution vote against it passes without executing: its role is revealed instead
    # (classic's politician). Not in ``as_view``: the power's words say it (``power``).
    vote_immune: bool = False
    # who this role learns at the start: "team" (its team mates with the same flag) or "pair"
    knows: str | None = None

    def as_view(self) -> dict:
        """The role's public entry in ``view.rules.roles`` (the rulebook's facts, no deal)."""
        return {
            "id": self.id,
            "team": self.team,
            "night": self.night,
            "duties": list(self.duties or ((self.night,) if self.night else ())),
            "channel": self.channel,
            "checkReads": self.check_reads,
            "power": self.power or f"roledesc.{self.id}",
            "voteWeight": self.vote_weight,
            "armor": self.armor,
        }


# The roles of every preset, as classic (docs/rulebooks/000-classic.txt §3) describes them.
CORE: dict[str, Role] = {
    r.id: r
    for r in (
        Role("mafia", MAFIA, night="mafiaTarget", channel="mafia", check_reads="mafia", knows="team"),
        Role("police", TOWN, night="investigate", check_reads="notMafia"),
        Role("doctor", TOWN, night="heal", check_reads="notMafia"),
        Role("citizen", TOWN, check_reads="notMafia"),
    )
}

# The core role with no power and no team knowledge: how a seat whose role a viewer may not
# know is judged (voice.py: a policy never depends on a hidden role).
PLAIN = "citizen"

# id -> the first declaration of that id (a core role, else the preset that built it first)
ROLES: dict[str, Role] = dict(CORE)


def core(role_id: str, **changes: object) -> Role:
    """A core role as a preset deals it, with that preset's changes (never its team)."""
    if "team" in changes:
        raise ValueError(f"a preset cannot change the team of the core role {role_id!r}")
    return replace(CORE[role_id], **changes)  # type: ignore[arg-type]


def declare(roles: Iterable[Role]) -> None:
    """Add a preset's roles to ``ROLES``. ValueError if an id already means another team."""
    for r in roles:
        known = ROLES.get(r.id)
        if known is None:
            ROLES[r.id] = r
        elif known.team != r.team:
            raise ValueError(f"role {r.id!r} is on team {known.team!r}, not {r.team!r}")


def team_of(role: str) -> str:
    """The team a declared role id belongs to ("town", "mafia", "yakuza" or "solo")."""
    try:
        return ROLES[role].team
    except KeyError:
        raise ValueError(f"unknown role {role!r}") from None
