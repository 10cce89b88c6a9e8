"""The offline stack as a subprocess for the browser tests and the screenshot script."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
MISSING_CHROMIUM = (
    f"Chromium is missing at {CHROMIUM}: the browser tests drive Debian's Chromium "
    "(Playwright's own download does not work here). Install it with `apt-get install -y chromium`."
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Stack:
    """``python -m local`` on a free loopback port; ``url`` is ``http://127.0.0.1:PORT/``."""

    def __init__(self, time_scale: float, timeout: float = 60.0) -> None:
        self.port = free_port()
        self.time_scale = time_scale
        self.log_path = Path(tempfile.mkstemp(prefix="browser-stack-", suffix=".log")[1])
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MAFIA_"))}
        self._log = self.log_path.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "local", "--host", "127.0.0.1", "--port", str(self.port),
             "--time-scale", str(time_scale)],
            cwd=REPO, env=env, stdout=self._log, stderr=subprocess.STDOUT, text=True,
        )
        deadline = time.monotonic() + timeout
        while "ready http" not in self.log():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the offline stack did not start:\n{self.log()}")
            time.sleep(0.1)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-6000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._log.close()
