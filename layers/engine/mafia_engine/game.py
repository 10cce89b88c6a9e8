"""The working copy of a state during one ``apply``, with the helpers every rule uses.

The state itself is a plain JSON-ready dict (its shape is described in ``state.py``). ``clone`` copies the
parts rules change; chat messages and events are never changed after creation, so their
dicts are shared between the old and the new state (this is what keeps ``apply`` fast).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from . import rng
from .chat import append as _chat_append
from .errors import InvalidAction, quoted
from .jsondata import jcopy as _jcopy
from .roles import Role, team_of


class RuleSystem(Protocol):
    """What the reducer's helpers read of a preset (``presets.base.Preset`` is one): named here
    so this module needs nothing of the presets package."""

    phases: Mapping[str, Any]  # kind -> phases.PhaseSpec
    win_checks: tuple[Callable[[Game], str | None], ...]
    finish: Callable[[Game, str, str], None] | None
    after_leave: Callable[[Game, dict], None]
    after_dead_leave: Callable[[Game, dict], None]

    def role(self, role_id: str) -> Role: ...


def _copy_value(v: Any) -> Any:
    if isinstance(v, dict):
        return dict(v)
    if isinstance(v, list):
        return list(v)
    return v


def clone(s: dict) -> dict:
    c = dict(s)
    c["players"] = [dict(p) for p in s["players"]]
    c["phase"] = {k: _copy_value(v) for k, v in s["phase"].items()}
    c["chat"] = list(s["chat"])
    c["events"] = list(s["events"])
    c["results"] = {k: list(v) for k, v in s["results"].items()}
    c["votes"] = _copy_value(s["votes"])
    if "log" in s:  # the secret record for the post-game review (append-only, like events)
        c["log"] = list(s["log"])
    if "extra" in s:  # a preset's own bookkeeping (classic, city, original): one level deep
        c["extra"] = {k: _copy_value(v) for k, v in s["extra"].items()}
    return c


class Game:
    """Rules operate on ``g.s`` (the cloned state) through these helpers."""

    __slots__ = ("s", "preset", "now", "by_id")

    def __init__(self, s: dict, preset: RuleSystem, now: float) -> None:
        self.s = s
        self.preset = preset
        self.now = now
        self.by_id = {p["id"]: p for p in s["players"]}

    # --- reading -----------------------------------------------------------------------
    @property
    def options(self) -> dict:
        return self.s["options"]

    @property
    def phase(self) -> dict:
        return self.s["phase"]

    @property
    def day(self) -> int:
        return self.s["day"]

    def player(self, pid: Any) -> dict:
        p = self.by_id.get(pid) if isinstance(pid, str) else None
        if p is None:
            raise InvalidAction("unknown_player", f"there is no player {quoted(pid)} in this game")
        return p

    def actor(self, pid: Any) -> dict:
        """The acting player, who must be alive."""
        p = self.player(pid)
        if not p["alive"]:
            raise InvalidAction("dead_player", f"{pid} is out of the game and cannot do that")
        return p

    def role(self, p: dict) -> Role:
        """``p``'s role as this preset declares it."""
        return self.preset.role(p["role"])

    @staticmethod
    def team(p: dict) -> str:
        return team_of(p["role"])

    def alive(self) -> list[dict]:
        return [p for p in self.s["players"] if p["alive"]]

    # --- changing ----------------------------------------------------------------------
    def goto(self, kind: str, **data: Any) -> None:
        """Enter phase ``kind``: the only way the phase changes."""
        old = self.s["phase"]
        spec = self.preset.phases.get(old["kind"])
        if spec is not None and spec.review:
            # what the phase decided in secret (night choices, ballots), for review(state)
            self.record(
                "phase",
                phase=old["kind"],
                day=old.get("day", self.s["day"]),
                **{k: _jcopy(old[k]) for k in spec.review if k in old},
            )
        self.s["seq"] += 1
        self.s["phase"] = {"kind": kind, "endsAt": None}
        if self.preset.phases[kind].review:
            self.s["phase"]["day"] = self.s["day"]  # the day the phase began (night N: N)
        self.preset.phases[kind].begin(self, **data)

    def deadline_in(self, seconds: float) -> None:
        """Give the phase a deadline, unless the game is untimed (single-device play)."""
        if self.options.get("untimed"):
            return
        self.s["phase"]["endsAt"] = float(self.now + seconds)

    def event(self, kind: str, **fields: Any) -> None:
        """A public announcement (every viewer sees every event)."""
        self.s["events"].append({"kind": kind, "day": self.s["day"], **fields})

    def record(self, kind: str, **fields: Any) -> None:
        """A secret line of the game's record (never in a view; ``review`` reads it after the end)."""
        if "log" in self.s:
            self.s["log"].append({"k": kind, **fields})

    def system(self, text: str) -> None:
        _chat_append(self.s, "system", None, text, self.now)

    def rand_below(self, n: int) -> int:
        """A draw of the game's ``play`` stream (rng.py): a uniform integer in [0, n)."""
        self.s["rng"], value = rng.below(self.s["rng"], n)
        return value

    def reveal(self, p: dict, what: str) -> None:
        """Make public ``what`` ("team" or "role") of ``p``, never less than already shown."""
        if what == "role":
            p["revealed"] = {"role": p["role"], "team": self.team(p)}
        elif what == "team" and not p["revealed"]:
            p["revealed"] = {"team": self.team(p)}

    def kill(self, p: dict, by: str, public: str | None = None, phase: str | None = None) -> None:
        """Take ``p`` out of the game (death, execution or disconnect) with the death reveal.

        ``by`` is the real cause (``diedBy``, the result, the review); ``public`` what the
        public ``death`` event says when the cause itself is secret (original: "night");
        ``phase`` the phase kind the event names, for a death that is no phase's own (the
        host's removal, a player leaving), so that it reads "Night 3" or "Day 3".
        """
        p["alive"] = False
        p["diedDay"] = self.s["day"]
        p["diedBy"] = by
        reveal = self.options.get("deathReveal", "none")
        if reveal != "none":
            self.reveal(p, reveal)
        self.record("death", player=p["id"], by=by, day=self.s["day"], phase=self.s["phase"]["kind"])
        extra = {"phase": phase} if phase else {}
        self.event("death", player=p["id"], by=public or by, revealed=p["revealed"], **extra)

    def check_win(self, cause: str) -> bool:
        """Run the preset's win checks in order; end the game at the first that holds."""
        for check in self.preset.win_checks:
            winner = check(self)
            if winner:
                self.preset.finish(self, winner, cause)
                return True
        return False
