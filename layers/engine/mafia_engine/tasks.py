"""What ``private.task`` can say: the one table of task kinds every reader shares.

A task is the engine's word for what a seat may do now; the action that performs it has
the same name (``ready`` is performed by ``readyEarly``; ``none`` and ``done`` need nothing).
The random player (``testing.py``), the bots and the client read this table instead of
keeping their own lists; a preset lists the tasks it hands out in ``Preset.tasks``. This
module holds the core tasks more than one preset hands out; a task only one preset has is
that preset's own (``Preset.own_tasks``, added here when the preset is built, e.g.
``presets/original/setup.py``), so ``TASKS`` lists a preset's own tasks once it is loaded.
"""

from __future__ import annotations

from collections.abc import Iterable
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
    # how a bot picks the target (bots/policy.py): "teamKill", "protect", "suspect" (the
    # most suspected), "peek" (any), "probe" (whoever talks like the police), "kill", "remove" (an arrest)
    aim: str | None = None
    channel: str | None = None  # a team task: the team chat where it is agreed

    def as_view(self) -> dict:
        """The task's public entry in ``view.rules.tasks``."""
        return {
            "action": self.action,
            "targeted": self.targeted,
            "nullTarget": self.null_target,
            "night": self.night,
            "learns": self.learns,
            "team": self.team,
            "aim": self.aim,
            "channel": self.channel,
        }


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
        Task(
            "mafiaTarget",
            "mafiaTarget",
            targeted=True,
            null_target=True,
            night=True,
            team=True,
            aim="teamKill",
            channel="mafia",
        ),
        Task("investigate", "investigate", targeted=True, night=True, learns=True, aim="suspect"),
        Task("heal", "heal", targeted=True, night=True, aim="protect"),
    )
}


def declare(tasks: Iterable[Task]) -> None:
    """Add a preset's own tasks to ``TASKS``. ValueError if a name already means another task."""
    for t in tasks:
        known = TASKS.get(t.name)
        if known is None:
            TASKS[t.name] = t
        elif known != t:
            raise ValueError(f"task {t.name!r} is declared twice, differently")


def names(**flags: bool) -> frozenset[str]:
    """The task names whose flags all have the given values, e.g. ``names(night=True)``."""
    return frozenset(t.name for t in TASKS.values() if all(getattr(t, k) == v for k, v in flags.items()))
