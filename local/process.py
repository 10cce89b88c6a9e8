"""Run the offline stack as a subprocess, for tests, benchmarks and browser tests::

    stack = start_stack("--echo-route", time_scale=20)
    ... stack.url, stack.ws_url ...
    stack.stop()
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class StackProcess:
    """A running ``python -m local``; ``url`` is ``http://127.0.0.1:PORT/``."""

    proc: subprocess.Popen
    port: int
    time_scale: float
    log_path: Path
    lines: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-6000:]

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        return self.proc.returncode


def start_stack(*extra: str, time_scale: float = 1.0, timeout: float = 60.0, python: str | None = None,
                env: dict[str, str] | None = None) -> StackProcess:
    """Start ``python -m local`` on a free port with ``extra`` arguments; wait for ``ready``."""
    port = free_port()
    log = Path(tempfile.mkstemp(prefix="local-stack-", suffix=".log")[1])
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MAFIA_"))}, **(env or {})}
    proc = subprocess.Popen(
        [python or sys.executable, "-m", "local", "--host", "127.0.0.1", "--port", str(port),
         "--time-scale", str(time_scale), *extra],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=log.open("w"), text=True,
    )
    stack = StackProcess(proc, port, time_scale, log)
    ready = threading.Event()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            stack.lines.append(line.rstrip("\n"))
            if line.startswith("ready "):
                ready.set()

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.time() + timeout
    while not ready.wait(0.1):
        if proc.poll() is not None or time.time() > deadline:
            stack.stop(signal.SIGKILL)
            raise RuntimeError(f"local stack did not start (rc={proc.returncode}):\n{stack.log()}")
    return stack
