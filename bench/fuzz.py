"""Fuzz soak: the function tier's hostile-frame run (tests/functions/test_fuzz.py) at any size.

Prints ONE JSON object: frames sent, replies, refusals, internal errors, invalid-JSON
replies, refusals that changed the stored room, the codes seen, and the wall time.

    .venv/bin/python bench/fuzz.py [FRAMES] [SEED]      # default 30000 frames, seed 1; 100000 for a soak
    .venv/bin/python bench/fuzz.py --quick              # 100 frames (one short round): does it run

Not part of the pass/fail suite (`make test` runs the same test with 10,000 frames).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--quick"]
    quick = len(args) < len(sys.argv) - 1
    frames = int(args[0]) if args else (100 if quick else 30_000)
    seed = int(args[1]) if len(args) > 1 else 1
    env = {**os.environ, "FUZZ_FRAMES": str(frames), "FUZZ_SEED": str(seed)}
    started = time.monotonic()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "tests/functions/test_fuzz.py::test_hostile_frames_get_clean_refusals_and_the_game_still_ends",
            "-q",
            "-s",
            "-p",
            "no:cacheprovider",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.monotonic() - started
    summary = next(
        (json.loads(line)["fuzz"] for line in out.stdout.splitlines() if line.startswith('{"fuzz"')), None
    )
    result = {
        "bench": "fuzz",
        "method": "tests/functions/test_fuzz.py's run on the in-memory store in a child pytest with "
        "FUZZ_FRAMES/FUZZ_SEED: seeded hostile frames through $default; wall time of the child",
        "requestedFrames": frames,
        "seed": seed,
        "passed": out.returncode == 0,
        "seconds": round(seconds, 1),
        **(summary or {"error": out.stdout[-2000:]}),
    }
    if summary:
        result["framesPerSecond"] = round(summary["frames"] / seconds, 1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
