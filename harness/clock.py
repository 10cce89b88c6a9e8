"""A settable server clock for in-process runs: tests and benches put an instance in place
of `service.infra.clock.now` (the offline stack's equivalent is its manual clock, `local.clock`)."""

from __future__ import annotations


class Clock:
    """Game time that moves only by `advance` (or by setting `t`)."""

    def __init__(self, t: float = 1_800_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds
