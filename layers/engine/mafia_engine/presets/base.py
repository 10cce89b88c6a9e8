"""What a preset is: everything the rest of the engine, the bots and the client need to know
about one rule system, declared in one place.

The generic API (``mafia_engine/__init__.py``), the view gate, the action union, the bots
and the client read a ``Preset`` (and the public ``Rules`` it carries into every view);
none of them branches on a preset's name. A new rule system is one module building one of
these (directly, or with ``presets.shared.assemble`` from a package's parts), registered with
``presets.register``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import roles as _roles
from .. import tasks as _tasks
from ..actions import CORE_CHANNELS
from ..options import OptionSpec, normalise
from ..roles import Role
from ..tasks import TASKS, Task

if TYPE_CHECKING:
    from ..game import Game
    from ..phases import PhaseSpec


@dataclass(frozen=True)
class Rules:
    """Public facts of a rule system that clients and bots act on (the view's ``rules``).

    Every flag is known to every player from the rulebook alone, so the same object goes
    into every view; a client or a bot reads these instead of the preset's name.
    """

    # A night choice (and the night's sleep) is confirmed once and then final; night tasks
    # can be skipped with ``sleep``. False: picks stay open until the timer (classic).
    confirm_locks: bool = True
    # Tapping the mafia's current target again withdraws it (no victim tonight).
    can_withdraw: bool = False
    # The day vote offers "abstain" (else a missing ballot counts for the last suspect).
    can_abstain: bool = True
    # A discussion where "ready" is not shown as a task: a player may still say it once.
    ready_unseen: bool = False
    # A role may have several night duties, shown one ``private.task`` at a time.
    duties_in_turn: bool = False
    # The mafia can never kill one of their own, so a night victim was not mafia.
    night_victim_not_mafia: bool = True

    def as_view(self) -> dict[str, bool]:
        return {
            "confirmLocks": self.confirm_locks,
            "canWithdraw": self.can_withdraw,
            "canAbstain": self.can_abstain,
            "readyUnseen": self.ready_unseen,
            "dutiesInTurn": self.duties_in_turn,
            "nightVictimNotMafia": self.night_victim_not_mafia,
        }


def _no_order(opts: dict) -> list[dict]:
    return []


def _same_options(raw: dict, opts: dict) -> dict:
    return opts


def _win_check_after_leave(g: Game, p: dict) -> None:
    g.check_win("left")


def _nothing_after_dead_leave(g: Game, p: dict) -> None:
    return None


@dataclass(frozen=True)
class Preset:
    name: str
    min_players: int
    max_players: int
    options: tuple[OptionSpec, ...]
    title: str = ""
    rules: Rules = field(default_factory=Rules)
    # set-up: normalised options + player count -> role ids (unshuffled); raises InvalidAction
    deal: Callable[[dict, int], list[str]] | None = None
    # cross-option checks once each option is valid on its own: (raw, normalised) -> normalised
    check_options: Callable[[dict, dict], dict] = _same_options
    start: Callable[[Game], None] | None = None  # enter the first phase
    phases: dict[str, PhaseSpec] = field(default_factory=dict)
    # action type -> handler; every type must have a model in ``actions.py`` or in
    # ``action_models`` (pydantic models subclassing ``actions.PlayerAction`` with
    # ``type: Literal["<type>"]``)
    actions: dict[str, Callable[[Game, Any], None]] = field(default_factory=dict)
    action_models: tuple[type, ...] = ()
    # what ``private.task`` may say in this preset (names of ``tasks.TASKS`` or ``own_tasks``)
    tasks: frozenset[str] = frozenset()
    # every role the preset can deal, in the rulebook's display order (``roles.Role``): the
    # one declaration of team, night task, channel, check reading and power per role
    roles: tuple[Role, ...] = ()
    own_tasks: tuple[Task, ...] = ()  # tasks no core table has (declared in ``tasks.TASKS``)
    # the game's chat channels, in the order the views list them: the channels a player may
    # read or write are drawn from these, and ``chat`` accepts them (``actions.chat_model``)
    channels: tuple[str, ...] = CORE_CHANNELS
    # the phase order of a round for these normalised options: [{"kind", "note"?}, ...]
    order: Callable[[dict], list[dict]] = _no_order
    win_checks: tuple[Callable[[Game], str | None], ...] = ()
    finish: Callable[[Game, str, str], None] | None = None  # (g, winner, cause): end the game
    # (g, player) after a living player's ``leave`` eliminated them: win check, then set the
    # phase right (a speaker, an accused or the last awaited player may be gone)
    after_leave: Callable[[Game, dict], None] = _win_check_after_leave
    # (g, player) after an already eliminated player's ``leave`` / ``remove``: the game is
    # unchanged, but a phase waiting on that player must move on (original: a last word)
    after_dead_leave: Callable[[Game, dict], None] = _nothing_after_dead_leave
    # view hooks: (state, player dict or None) -> ...
    read_channels: Callable[[dict, dict | None], tuple[str, ...]] | None = None
    write_channels: Callable[[dict, dict | None], tuple[str, ...]] | None = None
    known_roles: Callable[[dict, dict | None], set[str]] | None = None
    private: Callable[[dict, dict], dict] | None = None
    allies: Callable[[dict, dict], list[dict]] | None = None

    def __post_init__(self) -> None:
        _roles.declare(self.roles)
        _tasks.declare(self.own_tasks)
        object.__setattr__(self, "_role_by_id", {r.id: r for r in self.roles})
        object.__setattr__(self, "_catalogue", None)

    def role(self, role_id: str) -> Role:
        """This preset's declaration of ``role_id`` (its night task, channel, vote weight, ...)."""
        r = self._role_by_id.get(role_id)  # type: ignore[attr-defined]
        return r if r is not None else _roles.ROLES[role_id]

    def rules_view(self, opts: dict) -> dict:
        """The view's ``rules``: the rule flags, the role catalogue, the task table and the
        phase order for these options. Public: the preset and its options, never the deal."""
        cat = self._catalogue  # type: ignore[attr-defined]
        if cat is None:  # built once per preset; every view gets its own copies
            cat = (
                self.rules.as_view(),
                tuple(r.as_view() for r in self.roles),
                {name: TASKS[name].as_view() for name in sorted(self.tasks)},
            )
            object.__setattr__(self, "_catalogue", cat)
        flags, roles, tasks = cat
        return {
            **flags,
            "roles": [{**r, "duties": list(r["duties"])} for r in roles],
            "tasks": {name: dict(t) for name, t in tasks.items()},
            "order": [dict(step) for step in self.order(opts)],
        }

    @property
    def untimed(self) -> bool:
        """Can this preset run without deadlines (single-device play, option ``untimed``)?"""
        return any(o.key == "untimed" for o in self.options)

    def defaults(self) -> dict:
        """The normalised options of a room where the host changed nothing."""
        return self.check_options({}, normalise(self.options, {}, self.name))

    def info(self) -> dict:
        """Public facts for a lobby: title, player range, untimed support and the rules (with
        the default options' phase order)."""
        return {
            "title": self.title,
            "minPlayers": self.min_players,
            "maxPlayers": self.max_players,
            "untimed": self.untimed,
            "rules": self.rules_view(self.defaults()),
        }
