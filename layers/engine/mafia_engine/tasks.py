"""What ``private.task`` can say: the one table of task kinds every reader shares.

A task is the engine's word for what a seat may do now; the action that performs it has
the same name (``ready`` is performed by ``readyEarly``; ``none`` and ``done`` need nothing).
The random player (``testing.py``), the bots and the client read this table instead of
keeping their own lists; a preset lists the tasks it hands out in ``Preset.tasks``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Task:
    name: str
    action: str | None  # the action type that performs it (None: nothing to send)
    targeted: bool = False  # the action names one of ``private.targets``
    null_target: bool = False  # "nobody" (target null) is a choice, not a skip
    night: bool = False  # a night duty (skippable with ``sleep`` where choices lock)
    learns: bool = False  # a check: the holder learns something about the target
    team: bool = False  # one target agreed by a team (mafia, yakuza)


TASKS: dict[str, Task] = {
    t.name: t
    for t in (
        Task("none", None),
        Task("done", None),
        Task("ready", "readyEarly"),
        Task("sleep", "sleep"),
        Task("endTurn", "endTurn"),
        Task("vote", "vote", targeted=True),
        Task("confirm", "confirm"),
        Task("nominate", "nominate", targeted=True, null_target=True),
        Task("mafiaTarget", "mafiaTarget", targeted=True, null_target=True, night=True, team=True),
        Task("yakuzaTarget", "yakuzaTarget", targeted=True, null_target=True, night=True, team=True),
        Task("investigate", "investigate", targeted=True, night=True, learns=True),
        Task("mediumPeek", "mediumPeek", targeted=True, night=True, learns=True),
        Task("godfatherCheck", "godfatherCheck", targeted=True, night=True, learns=True),
        Task("ninjaCheck", "ninjaCheck", targeted=True, night=True, learns=True),
        Task("lawyerPeek", "lawyerPeek", targeted=True, night=True, learns=True),
        Task("heal", "heal", targeted=True, night=True),
        Task("madmanKill", "madmanKill", targeted=True, null_target=True, night=True),
        Task("arrest", "arrest", targeted=True, null_target=True, night=True),
    )
}


def names(**flags: bool) -> frozenset[str]:
    """The task names whose flags all have the given values, e.g. ``names(night=True)``."""
    return frozenset(t.name for t in TASKS.values() if all(getattr(t, k) == v for k, v in flags.items()))


NIGHT_TASKS = names(night=True)  # every targeted night duty
CHECK_TASKS = names(learns=True)  # pick someone not checked yet
TEAM_KILLS = names(team=True)  # one target agreed by a team
NULL_TARGET_NIGHT = names(night=True, null_target=True)  # "nobody" keeps the other duties
