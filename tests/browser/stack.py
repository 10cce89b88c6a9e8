"""The offline stack as a subprocess for the browser tests and the screenshot script."""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

from local import process

REPO = Path(__file__).resolve().parents[2]
# Pages: Chromium's headless shell (Debian's chromium-headless-shell, the headless mode
# Playwright itself drives by default): the same engine without the full browser's UI process
# work, ~18 % less CPU in this tier; the voice pages too (test_voice.py, fake media devices, real
# WebRTC), but for the relay: the full Chromium, whose candidate gathering is a phone's (it
# differs in the shell: test_voice_turn.py's relay-only pair).
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium-headless-shell")
MEDIA_CHROMIUM = os.environ.get("MEDIA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
MISSING_CHROMIUM = (
    f"Chromium is missing at {CHROMIUM} or {MEDIA_CHROMIUM}: the browser tests drive Debian's "
    "Chromium and its headless shell (Playwright's own download does not work here). Install them "
    "with `apt-get install -y chromium chromium-headless-shell` (scripts/ensure-browser.sh)."
)


def stack_store(url: str):  # -> service.infra.storage.Store
    """The stack at `url`'s own table through `Store`, found as `ops.reports.use_local_stack`
    finds it (`GET /_local/env`) without changing this process's environment (other tests
    share it)."""
    import boto3

    from service.infra.storage import Store  # the screenshot scripts import this module too

    with urllib.request.urlopen(url.rstrip("/") + "/_local/env", timeout=30) as res:  # noqa: S310 - our stack
        env = json.load(res)
    client = boto3.client(
        "dynamodb",
        endpoint_url=env["AWS_ENDPOINT_URL_DYNAMODB"],
        region_name=env.get("AWS_DEFAULT_REGION", "us-east-1"),
        aws_access_key_id=env.get("AWS_ACCESS_KEY_ID", "testing"),
        aws_secret_access_key=env.get("AWS_SECRET_ACCESS_KEY", "testing"),
        aws_session_token=env.get("AWS_SESSION_TOKEN"),
    )
    return Store(client, env["TABLE_NAME"])


# Stack.step_on's least step of game time (s)
STEP_AT_LEAST = 5.0


class Stack:
    """``python -m local`` on a free loopback port, started by the one launcher
    (``local.process.start_stack``); ``url`` is ``http://127.0.0.1:PORT/``.

    ``manual_clock=True``: game time stands still until ``step(advance=N)`` or
    ``step(to="next")`` moves it (the Scheduler's due deliveries are handled before it returns)."""

    def __init__(self, time_scale: float = 1.0, timeout: float = 60.0, *, manual_clock: bool = False,
                 seed: int | None = None, extra: tuple[str, ...] = ()) -> None:
        self.time_scale = time_scale
        self.manual_clock = manual_clock
        self._proc = process.start_stack(*extra, time_scale=time_scale, timeout=timeout,
                                         manual_clock=manual_clock, seed=seed)
        self.port = self._proc.port
        self.proc = self._proc.proc
        self.log_path = self._proc.log_path
        self._warm_up()

    def _warm_up(self) -> None:
        """Create one room over REST before any page does: the first write of a fresh stack
        (each container's first DynamoDB and management API calls) takes seconds on a loaded
        machine, more than a page's 5 s wait for its lobby."""
        req = urllib.request.Request(self.url + "api/rooms", method="POST",
                                     data=json.dumps({"name": "Warm", "preset": "classic", "options": {}}).encode(),
                                     headers={"Content-Type": "application/json", "Origin": self.url.rstrip("/")})
        with urllib.request.urlopen(req, timeout=120) as res:  # noqa: S310 - our own 127.0.0.1 stack
            res.read()

    @property
    def url(self) -> str:
        return self._proc.url

    def step(self, advance: float | None = None, to: float | str | None = None) -> dict:
        return self._proc.step(advance, to)

    def room(self, spec: dict) -> dict:
        """A live room written at a chosen phase (``POST /_local/rooms``, local/rooms.py): its
        code, ``wsUrl`` and seats (``playerId``, ``token``, ``role``)."""
        return self._proc.room(spec)

    def step_on(self, at_least: float = STEP_AT_LEAST) -> dict:
        """Manual clock: step to the next Scheduler delivery, or ``at_least`` seconds on if that
        comes sooner (delivering all due on the way). The session's stack holds the schedules of
        every room the tests left behind (rooms of bots keep playing), so "the next delivery"
        alone would move a room's own deadline nearer only by the moments of others'."""
        at = self.step(advance=0)
        return self.step(to=at["now"] + at_least if at["next"] is None else max(at["next"], at["now"] + at_least))

    def log(self) -> str:
        return self._proc.log()

    def stop(self) -> None:
        self._proc.stop()
