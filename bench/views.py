"""One viewer's push, timed: fingerprint the view (did it change?) and build its frame, as
`viewframes.frames_for` does for every viewer on every change. The views are
tests/functions/viewsamples.py's (a lobby, a night, an ended game, spectators).

    .venv/bin/python bench/views.py            # --quick: a few runs (tests/bench: the keys)

Prints ONE JSON object: per view, microseconds per viewer for `once` (views.py: the view
serialised once, the frame spliced from those bytes) and `twice` (the models alone: a clocked
copy of the view serialised again), interleaved; the frame's size; whether both wrote the same.
"""

from __future__ import annotations

import json
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

from service.infra import clock  # noqa: E402
from service.protocol import server_frames, views  # noqa: E402


def push(view: dict) -> tuple[str, bytes]:
    rendered = views.render(view)  # validated once, serialised once
    return views.digest(rendered), views.frame(rendered, 3, views.server_clock())


def push_twice(view: dict) -> tuple[str, bytes]:
    """The same from the models alone: the view serialised, then a clocked copy
    (`model_construct`) serialised again inside the frame (views.py before the one rendering)."""
    m = server_frames.View.model_validate(view)
    fingerprint = hashlib.blake2b(server_frames.encode(m), digest_size=8).hexdigest()
    clocked = server_frames.Clocked.model_construct(
        **dict(m), serverNow=round(clock.now(), 3), clockRate=float(clock.rate())
    )
    return fingerprint, server_frames.encode(server_frames.ViewFrame.model_construct(version=3, view=clocked))


def best_us(fn, view: dict, n: int, rounds: int) -> float:
    return min(timeit.repeat(lambda: fn(view), number=n, repeat=rounds)) / n * 1e6


def run(quick: bool) -> dict:
    clock.now = lambda: 1796124229.928  # a fixed clock: both ways write the same bytes
    n, rounds, turns = (50, 3, 1) if quick else (500, 9, 3)
    by_view = {}
    for name, view in viewsamples.samples().items():
        once, twice = [], []
        for _ in range(turns):  # interleaved: a busy machine slows both alike
            once.append(best_us(push, view, n, rounds))
            twice.append(best_us(push_twice, view, n, rounds))
        by_view[name] = {
            "once_us": round(min(once), 1),
            "twice_us": round(min(twice), 1),
            "ratio": round(min(twice) / min(once), 2),
            "bytes": len(push(view)[1]),
            "same_bytes": push(view) == push_twice(view),
        }
    return {
        "method": f"timeit in one process: per view, the best of {turns * rounds} runs of {n} pushes "
        "(render + digest + frame, as viewframes.frames_for does per viewer), `once` (views.py) "
        "and `twice` (the models alone: a model_construct'ed clocked copy serialised again) "
        "interleaved; same_bytes: both wrote the same frame and digest",
        "views": by_view,
    }


def main(argv: list[str]) -> None:
    print(json.dumps(run("--quick" in argv)))


if __name__ == "__main__":
    main(sys.argv[1:])
