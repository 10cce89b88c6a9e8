"""Helpers for scripted engine tests: a game with chosen roles and a clock that moves."""

from __future__ import annotations

import json
from typing import Any

import mafia_engine as me


class Table:
    """One scripted game. ``roles`` in seat order; players are p1..pN."""

    def __init__(self, roles: list[str], seed: int = 1, **options: Any) -> None:
        self.ids = [f"p{i}" for i in range(1, len(roles) + 1)]
        self.now = 0.0
        opts = {"preset": "classic", "kidSafeChat": False, **options}
        state = me.new_game(self.ids, opts, seed=seed, now=self.now)
        # Choose the deal: tests name the roles instead of searching for a seed.
        for p, role in zip(state["players"], roles, strict=True):
            p["role"] = role
        self.state = state
        self.log: list[tuple[dict, float]] = []

    # --- reading ---
    @property
    def kind(self) -> str:
        return self.state["phase"]["kind"]

    def who(self, role: str) -> list[str]:
        return [p["id"] for p in self.state["players"] if p["role"] == role]

    def p(self, pid: str) -> dict:
        return next(p for p in self.state["players"] if p["id"] == pid)

    def alive(self, pid: str) -> bool:
        return self.p(pid)["alive"]

    def view(self, viewer: str | None) -> dict:
        return me.view(self.state, viewer)

    def events(self, kind: str | None = None) -> list[dict]:
        return [e for e in self.state["events"] if kind is None or e["kind"] == kind]

    # --- acting ---
    def do(self, action: dict, dt: float = 1.0) -> dict:
        self.now += dt
        before = json.dumps(self.state, sort_keys=True)
        try:
            self.state = me.apply(self.state, action, self.now)
        except me.InvalidAction:
            assert json.dumps(self.state, sort_keys=True) == before, "a refusal changed the state"
            raise
        self.log.append((action, self.now))
        return self.state

    def act(self, type_: str, player: str | None = None, **payload: Any) -> dict:
        action = {"type": type_, **payload}
        if player is not None:
            action["player"] = player
        return self.do(action)

    def timeout(self) -> dict:
        self.now = max(self.now, self.state["phase"]["endsAt"] or self.now)
        return self.do({"type": "phaseTimeout", "phase": self.state["seq"]}, dt=0.0)

    def until(self, kind: str, limit: int = 20) -> None:
        for _ in range(limit):
            if self.kind == kind:
                return
            self.timeout()
        raise AssertionError(f"never reached {kind}, at {self.kind}")

    def to_night(self) -> None:
        self.until("night")

    def to_vote(self) -> None:
        self.until("vote")

    def nominate(self, accused: str, voters: list[str] | None = None) -> None:
        """From wherever in the day: everyone in ``voters`` (default: every other living player) votes ``accused``."""
        self.to_vote()
        for pid in voters if voters is not None else [q for q in self.ids if q != accused and self.alive(q)]:
            self.act("vote", pid, target=accused)
        self.timeout()

    def execute(self, accused: str) -> None:
        self.nominate(accused)
        assert self.kind == "defense", self.kind
        self.timeout()
        for pid in self.ids:
            if pid != accused and self.alive(pid):
                self.act("confirm", pid, choice="yes")
        self.timeout()

    def night(self, **picks: Any) -> None:
        """A whole night: picks like mafia=("p1", "p3"), heal=("p2", "p3"), then dawn."""
        self.to_night()
        for kind, (actor, target) in picks.items():
            type_ = {
                "mafia": "mafiaTarget",
                "heal": "heal",
                "investigate": "investigate",
                "peek": "mediumPeek",
            }[kind]
            self.act(type_, actor, target=target)
        self.timeout()


def refused(fn, code: str) -> me.InvalidAction:
    try:
        fn()
    except me.InvalidAction as e:
        assert e.code == code, (e.code, str(e))
        assert str(e)
        return e
    raise AssertionError(f"expected InvalidAction {code}")
