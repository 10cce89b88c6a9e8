"""Helpers of the e2e tests: the offline stack as a subprocess (``python -m local``) on a free
loopback port, and a runner for async test bodies."""

from __future__ import annotations

import asyncio
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

REPO = Path(__file__).resolve().parents[2]
TIME_SCALE = 20.0

FAKE_HANDLERS = [
    "--handler", "$connect=tests.e2e.fake_handlers:connect",
    "--handler", "$disconnect=tests.e2e.fake_handlers:disconnect",
    "--handler", "$default=tests.e2e.fake_handlers:default",
    "--handler", "timer=tests.e2e.fake_handlers:timer",
    "--handler", "rest=tests.e2e.fake_handlers:rest",
]


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


def start_stack(*extra: str, time_scale: float = TIME_SCALE, timeout: float = 60.0) -> StackProcess:
    """Start the stack and wait for its ``ready`` line."""
    port = free_port()
    log = Path(tempfile.mkstemp(prefix="local-stack-", suffix=".log")[1])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MAFIA_"))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "local", "--host", "127.0.0.1", "--port", str(port),
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


def run(coro, timeout: float = 120.0):
    """Run one async test body."""
    return asyncio.run(asyncio.wait_for(coro, timeout))
