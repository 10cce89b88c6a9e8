"""One viewer's push, timed: fingerprint the view (did it change?) and build its frame, as
`viewdiff.changed_frames` does for every viewer on every change. The views are
tests/functions/viewsamples.py's (a lobby, a night, an ended game, spectators).

    .venv/bin/python bench/views.py

Prints microseconds per viewer, best of 27 runs of 500: `once` (views.py: the view serialised
once, the frame spliced from those bytes) and `twice` (the models alone: a clocked copy of
the view serialised again), interleaved; and the frame's size (both write the same bytes).
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [
    str(ROOT),
    str(ROOT / "layers" / "engine"),
    str(ROOT / "functions"),
    str(ROOT / "tests" / "functions"),
]

import hashlib  # noqa: E402

import viewsamples  # noqa: E402

from service import clock, server_frames, views  # noqa: E402


def push(view: dict) -> tuple[str, bytes]:
    rendered = views.render(view)  # validated once, serialised once
    return views.digest(rendered), views.frame(rendered, 3)


def push_twice(view: dict) -> tuple[str, bytes]:
    """The same from the models alone: the view serialised, then a clocked copy
    (`model_construct`) serialised again inside the frame (views.py before the one rendering)."""
    m = server_frames.View.model_validate(view)
    fingerprint = hashlib.blake2b(server_frames.encode(m), digest_size=8).hexdigest()
    clocked = server_frames.Clocked.model_construct(
        **dict(m), serverNow=round(clock.now(), 3), clockRate=float(clock.rate())
    )
    return fingerprint, server_frames.encode(server_frames.ViewFrame.model_construct(version=3, view=clocked))


def best_us(fn, view: dict, n: int = 500, rounds: int = 9) -> float:
    return min(timeit.repeat(lambda: fn(view), number=n, repeat=rounds)) / n * 1e6


def main() -> None:
    clock.now = lambda: 1796124229.928  # a fixed clock: both paths write the same bytes
    print(f"{'view':16s} {'once':>9s} {'twice':>9s}  bytes")
    for name, view in viewsamples.samples().items():
        assert push(view) == push_twice(view), name
        once, twice = [], []
        for _ in range(3):  # interleaved: a busy machine slows both alike
            once.append(best_us(push, view))
            twice.append(best_us(push_twice, view))
        print(f"{name:16s} {min(once):7.1f}us {min(twice):7.1f}us  {len(push(view)[1])}")


if __name__ == "__main__":
    main()
