"""The built web client (build/web: `make web`, scripts/build_web.mjs; docs/architecture.md,
"Client build"): what the offline stack serves and the site deployer publishes.

`built()` brings it up to date first (make's own rule: nothing to do when no file of web/
changed), under a lock: test processes started together build it once, and none reads a
half-written one. Needs node and npm (esbuild is pinned in package-lock.json)."""

from __future__ import annotations

import fcntl
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILT = REPO / "build" / "web"


def built() -> Path:
    """build/web, rebuilt if web/ changed since."""
    BUILT.parent.mkdir(exist_ok=True)
    with open(BUILT.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(["make", "-s", "--no-print-directory", "web"], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    return BUILT
