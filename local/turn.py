"""The offline stack's TURN server: Debian's coturn (`turnserver`), on loopback, with the TURN
REST API's shared secret (`use-auth-secret`). The stack starts it beside moto, keeps its
secret in moto's Secrets Manager as template.yaml's `TurnSecret` (the frames function reads
it there, as on AWS) and points `TURN_URLS` at it; `stop()` ends the process it started.
`scripts/ensure-coturn.sh` installs coturn (`make install` runs it)."""

from __future__ import annotations

import ctypes
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

log = logging.getLogger("local.turn")


def _die_with_parent() -> None:
    """In the child, before exec: a SIGTERM when the stack's process dies, even by SIGKILL
    (Linux `prctl(PR_SET_PDEATHSIG)`), so a stack killed outright leaves no TURN server
    behind (its handler containers watch their parent the same way:
    tests/e2e/test_containers.py)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass

BINARY = "turnserver"
REALM = "mafia.local"
RELAY_PORTS = 200  # relay endpoints: a 12-seat table in full relay needs ~2 per pair end


def available() -> bool:
    return shutil.which(BINARY) is not None


def _free_udp_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _free_range(host: str, size: int) -> int:
    """The first of `size` consecutive UDP ports that are free now (a best guess)."""
    for _ in range(50):
        first = 20000 + secrets.randbelow(40000 - size)
        try:
            socks = []
            for port in range(first, first + size, max(1, size // 8)):
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                socks.append(s)
                s.bind((host, port))
            return first
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError("no free UDP port range for the TURN relays")


class TurnServer:
    """One coturn process: `start()` returns its URL (`turn:127.0.0.1:<port>?transport=udp`)."""

    def __init__(self, host: str = "127.0.0.1", secret: str | None = None) -> None:
        self.host = host
        self.secret = secret or secrets.token_urlsafe(32)
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self._dir: tempfile.TemporaryDirectory | None = None

    @property
    def url(self) -> str:
        return f"turn:{self.host}:{self.port}?transport=udp"

    def start(self, timeout: float = 60.0, tries: int = 3) -> str:
        """Start coturn on a free port; again on other ports when it does not answer (the
        ports are picked free, then handed to coturn: a process beside it, such as a
        browser's WebRTC, may take one in between, seen on a loaded clean-clone run)."""
        for _ in range(tries - 1):
            try:
                return self._start_once(timeout / 2)
            except RuntimeError:
                self.stop()
                log.warning("turnserver did not start on %s:%d; trying other ports", self.host, self.port)
        return self._start_once(timeout / 2)

    def _start_once(self, timeout: float) -> str:
        binary = shutil.which(BINARY)
        if binary is None:
            raise RuntimeError("coturn is not installed: run scripts/ensure-coturn.sh (make install does)")
        self.port = _free_udp_port(self.host)
        first = _free_range(self.host, RELAY_PORTS)
        self._dir = tempfile.TemporaryDirectory(prefix="mafia-turn-")
        conf = Path(self._dir.name) / "turnserver.conf"
        # the secret in a file only its owner reads, not on the command line (ps shows that)
        conf.write_text(
            "\n".join(
                [
                    f"listening-ip={self.host}",
                    f"relay-ip={self.host}",
                    f"listening-port={self.port}",
                    f"min-port={first}",
                    f"max-port={first + RELAY_PORTS - 1}",
                    "use-auth-secret",
                    f"static-auth-secret={self.secret}",
                    f"realm={REALM}",
                    f"userdb={Path(self._dir.name) / 'turndb'}",  # its own, not the system's
                    "fingerprint",
                    "no-tls",
                    "no-dtls",
                    "no-tcp-relay",
                    "no-cli",
                    "no-multicast-peers",
                    "allow-loopback-peers",  # every page of the offline stack is on this machine
                    "no-software-attribute",
                    f"pidfile={Path(self._dir.name) / 'turnserver.pid'}",
                    f"log-file={Path(self._dir.name) / 'turn.log'}",
                    "simple-log",
                    "no-stdout-log",
                    "",
                ]
            )
        )
        conf.chmod(0o600)
        self.proc = subprocess.Popen(
            [binary, "-c", str(conf)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"turnserver exited ({self.proc.returncode}): {self.log_tail()}")
            if self._answers():
                log.info("TURN server on %s (relays %d-%d)", self.url, first, first + RELAY_PORTS - 1)
                return self.url
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"turnserver did not answer on {self.host}:{self.port}")

    def _answers(self) -> bool:
        """A STUN Binding request on the port is answered (the server is up)."""
        request = b"\x00\x01\x00\x00\x21\x12\xa4\x42" + os.urandom(12)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(0.2)
            try:
                s.sendto(request, (self.host, self.port))
                data, _ = s.recvfrom(2048)
            except OSError:
                return False
        return data[:2] == b"\x01\x01" and data[8:20] == request[8:20]

    def log_tail(self, n: int = 4000) -> str:
        if self._dir is None:
            return ""
        path = Path(self._dir.name) / "turn.log"
        return path.read_text(errors="replace")[-n:] if path.exists() else ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self.proc = None
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None
