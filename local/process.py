"""Run the offline stack as a subprocess, for tests, benchmarks and browser tests::

    stack = start_stack("--echo-route", time_scale=20)
    ... stack.url, stack.ws_url ...
    stack.stop()

    stack = start_stack(manual_clock=True, seed=7)   # game time moves only when stepped
    stack.step(advance=30)       # 30 game seconds, due schedules delivered in order
    stack.step(to="next")        # to the next planned Scheduler delivery
    room = stack.room({"seats": [...], "until": {"phase": "night", "day": 2}})  # local/rooms.py

The one launcher of the offline stack: the e2e and browser tiers and the benches start it here.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from . import webbuild

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RoomRefused(Exception):
    """``POST /_local/rooms`` refused the room (400): ``code`` and ``message`` say why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass
class StackProcess:
    """A running ``python -m local``; ``url`` is ``http://127.0.0.1:PORT/``."""

    proc: subprocess.Popen
    port: int
    time_scale: float
    log_path: Path
    lines: list[str] = field(default_factory=list)
    manual_clock: bool = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-6000:]

    def step(
        self, advance: float | None = None, to: float | str | None = None, timeout: float = 60.0
    ) -> dict:
        """Manual clock: advance game time (``advance`` seconds, or ``to`` an epoch second or
        ``"next"``, the next planned Scheduler delivery). Returns once every due schedule was
        handled: ``{"now", "fired": [schedule names], "next", "ttlDeleted"}``."""
        body = {"advance": advance} if to is None else {"to": to}
        req = urllib.request.Request(
            self.url + "_local/clock",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=timeout) as res:  # noqa: S310 - our own 127.0.0.1 stack
            return json.load(res)

    def room(self, spec: dict, timeout: float = 60.0) -> dict:
        """A room written at a chosen phase (``POST /_local/rooms``, local/rooms.py): its code,
        ``wsUrl`` and seats (``playerId``, ``token``, ``role``). Raises ``RoomRefused`` (its
        ``code`` and ``message``) for a room the stack cannot write."""
        req = urllib.request.Request(
            self.url + "_local/rooms",
            data=json.dumps(spec).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout) as res:  # noqa: S310 - our own 127.0.0.1 stack
                return json.load(res)
        except urllib.error.HTTPError as err:
            error = json.load(err).get("error") or {}
            raise RoomRefused(error.get("code", str(err.code)), error.get("message", "")) from None

    async def astep(self, advance: float | None = None, to: float | str | None = None) -> dict:
        """``step`` for asyncio tests: the blocking request runs on a thread."""
        import asyncio

        return await asyncio.to_thread(self.step, advance, to)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60.0) -> int:
        """Stop the stack (SIGTERM: it stops its handler containers itself). A stack killed
        outright cannot, so its containers are killed with it rather than left running.
        ``timeout``: a loaded machine needs tens of seconds for a clean stop."""
        if self.proc.poll() is None:
            children = _children(self.proc.pid)
            if sig == signal.SIGKILL:
                self._kill(children)
            else:
                self.proc.send_signal(sig)
                try:
                    self.proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    self._kill(children)
        return self.proc.returncode

    def _kill(self, children: list[int]) -> None:
        self.proc.kill()
        self.proc.wait(5)
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass  # already gone


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started (its handler containers), from /proc (Linux; [] elsewhere)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields and int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def start_stack(*extra: str, time_scale: float = 1.0, timeout: float = 180.0, python: str | None = None,
                env: dict[str, str] | None = None, manual_clock: bool = False,
                seed: int | None = None, cwd: Path | None = None) -> StackProcess:
    """Start ``python -m local`` on a free port with ``extra`` arguments; wait for ``ready``.
    ``manual_clock``: game time moves only through ``StackProcess.step``; ``seed`` fixes the
    Scheduler's jitter and duplicates. The client it serves is built first when web/ changed
    (local/webbuild.py; a stack started from another folder serves that folder's build)."""
    if cwd is None:
        webbuild.built()
    port = free_port()
    if manual_clock:
        extra = ("--manual-clock", *extra)
    if seed is not None:
        extra = ("--seed", str(seed), *extra)
    log = Path(tempfile.mkstemp(prefix="local-stack-", suffix=".log")[1])
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MAFIA_"))}, **(env or {})}
    proc = subprocess.Popen(
        [
            python or sys.executable,
            "-m",
            "local",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--time-scale",
            str(time_scale),
            *extra,
        ],
        cwd=cwd or REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=log.open("w"),
        text=True,
    )
    stack = StackProcess(proc, port, time_scale, log, manual_clock=manual_clock)
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
