"""The headless client's side of the contract, for every registered preset: local/client.py's
players and bots play a whole game over real sockets against the offline stack started in
this process (``local.stack.LocalStack``: the gateway, the real handlers on threads, moto's
server, the Scheduler on a manual clock), so a test-only preset registered here is served too.

Every seat is a ``client.Bot``; when no bot has anything to send, game time steps to the next
Scheduler delivery (a deadline), as tests/e2e/stackproc.py's ``drive`` does across processes.
"""

from __future__ import annotations

import asyncio
import gc
import os
import random

import aiohttp
import contractkit as kit
import pytest
from moto.core.base_backend import BackendDict

from harness import wiring
from harness.emulator import with_fixes
from local import client
from local.stack import LocalStack, StackOptions
from mafia_engine.presets import PRESETS

PACE = 0.05  # real seconds without a frame: the pushes of one round have all arrived
STEPS = 400  # clock steps at most (a game of the longest preset at its minimum takes ~100)


@pytest.fixture
def stack(monkeypatch):
    """The offline stack in this process; the environment, moto and the service put back after."""
    saved = dict(os.environ)
    BackendDict.reset()  # moto's server serves this process's backends: start empty
    with_fixes(monkeypatch)  # monkeypatch restores plain moto afterwards
    with wiring.cold_handlers():  # the stack imports the handlers afresh, in its environment
        s = LocalStack(StackOptions(port=0, web_dir=None, containers=0, manual_clock=True, seed=21,
                                    duplicate_probability=0.3))
        try:
            yield s
        finally:
            BackendDict.reset()
            os.environ.clear()
            os.environ.update(saved)
            gc.unfreeze()  # the stack froze what it had imported: let it go like the rest


def _roles_seen_while_running(view: dict) -> set[str]:
    """The seats whose role a running view shows, besides the viewer and its allies."""
    you = view.get("you") or {}
    known = {you.get("id"), *(a["id"] for a in you.get("allies") or [])}
    return {p["id"] for p in view["players"] if p.get("role") is not None and p["id"] not in known}


def _note_sent_phase(player: client.Player) -> None:
    """Remember the phase seq of the view each frame was sent from (``player.sent_seq``)."""
    send = player.send
    player.sent_seq = {}

    async def noting(action: str, **payload) -> str:
        seq = ((player.view or {}).get("phase") or {}).get("seq")
        fid = await send(action, **payload)
        player.sent_seq[fid] = seq
        return fid

    player.send = noting


def _raced(player: client.Player, error: dict) -> bool:
    """A refusal of a frame sent from a view whose phase (or game) had already ended: the bots
    send in turn, so the last one to answer may end the phase another bot is still answering."""
    if error.get("code") not in ("wrong_phase", "stale_phase", "game_over", "busy"):
        return False
    i = next(k for k, f in enumerate(player.frames) if f.data is error)
    seqs = [(k, f.data["view"]["phase"]["seq"]) for k, f in enumerate(player.frames)
            if isinstance(f.data, dict) and f.data.get("type") == "view"]
    # the phase as of the refusal: the views before it and the first one after (pushes from
    # different invocations may arrive in either order)
    upto = next((k for k, _ in seqs if k > i), len(player.frames))
    seq = max(q for k, q in seqs if k <= upto)
    return seq > player.sent_seq[error["id"]]


async def _settle(stack: LocalStack, players: list[client.Player], limit: float = 5.0) -> None:
    """Wait until the stack has handled every frame sent so far (their pushes posted), then
    until no frame has arrived for ``PACE`` seconds (at most ``limit``): on a loaded machine a
    quiet moment alone may fall inside an invocation, and the bots would decide on an old view."""
    await stack.gateway.handled()
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    count = -1
    while count != (count := sum(len(p.frames) for p in players)) and loop.time() < end:
        await asyncio.sleep(PACE)


async def _game(stack: LocalStack, preset: str) -> list[client.Player]:
    n = PRESETS[preset].min_players
    options = next(o for o, m in kit.legal_setups(preset) if m == n)
    await stack.start()
    try:
        async with aiohttp.ClientSession() as http:
            api = client.Api(http, stack.url)
            seats = await client.fill_room(api, n, preset=preset,
                                           options={k: v for k, v in options.items() if k != "preset"})
            players = await client.start_game(http, seats)
            for p in players:
                _note_sent_phase(p)
            bots = [client.Bot(p, rng=random.Random(i)) for i, p in enumerate(players)]
            for _ in range(STEPS):
                await _settle(stack, players)  # every bot decides on the view the room has now
                if all((p.view or {}).get("result") for p in players):
                    break
                sent = [await b.step() for b in bots]
                if not any(sent):
                    await stack.step(to="next")
            for p in players:
                await p.close()
            return players
    finally:
        await stack.stop()


@pytest.mark.whole_game
def test_the_headless_client_plays_a_whole_game(stack, preset) -> None:
    players = asyncio.run(asyncio.wait_for(_game(stack, preset), 280))
    results = [(p.view or {}).get("result") for p in players]
    assert all(results), [p.phase_kind() for p in players]
    assert len({r["winner"] for r in results}) == 1
    for p in players:
        views = [f.data["view"] for f in p.frames if isinstance(f.data, dict) and f.data.get("type") == "view"]
        assert views and all(v["preset"] == preset for v in views)
        running = [v for v in views if v["phase"]["kind"] not in ("lobby", "ended")]
        assert running and not any(_roles_seen_while_running(v) for v in running), p.name
        # the bot answers only what its view offers: a refusal is only a race with a phase change
        assert [e for e in p.errors if not _raced(p, e)] == [], p.errors


def test_a_test_only_roles_own_night_action_is_played_over_the_socket(stack) -> None:
    """The owl (tests/unit/tinypreset.py: its own role, action model, task and result, declared
    in that module alone) watches over a real socket: the frame union built from the registered
    presets takes ``owlWatch``, the engine applies it and the owl's view carries its result."""
    players = asyncio.run(asyncio.wait_for(_game(stack, "tiny"), 280))
    owl = next(p for p in players if p.view["you"]["role"] == "owl")
    views = [f.data["view"] for f in owl.frames if isinstance(f.data, dict) and f.data.get("type") == "view"]
    private = [v["private"] for v in views if v.get("private")]
    assert any(p["task"] == "owlWatch" for p in private)
    results = [r for p in private for r in p["results"] if r["kind"] == "owlWatch"]
    assert results and {r["result"] for r in results} <= {"mafia", "notMafia"}
    assert [e for e in owl.errors if not _raced(owl, e)] == [], owl.errors
