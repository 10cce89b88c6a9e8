"""Chat message ids count per channel, so the ids a viewer reads say nothing about the
channels they cannot read (docs/rules.md, "Chat (§5.6)", docs/rulebooks/000-classic.txt).

One id counter for all channels let a citizen or a spectator count the mafia's (and the
dead's, the lovers', the yakuza's) messages from the gaps between the ids they see.
"""

from __future__ import annotations

import pytest

import mafia_engine as me
from mafia_engine.errors import InvalidAction
from mafia_engine.presets import PRESETS
from mafia_engine.testing import random_game

PUBLIC = ("day", "system")


def test_message_ids_count_per_channel():
    s = me.new_game([f"p{i}" for i in range(1, 7)], {"preset": "classic"}, seed=3, now=0.0)
    ids = [m["id"] for m in s["chat"]]
    assert len(ids) == len(set(ids))
    for ch in {m["channel"] for m in s["chat"]}:
        mine = [m["id"] for m in s["chat"] if m["channel"] == ch]
        assert mine == [f"{ch}:{n}" for n in range(1, len(mine) + 1)]


def replay_with_hidden_chat(preset: str, n: int, seed: int):
    """Play one random game twice: as generated (no chat), and with hidden-channel lines
    (mafia, dead, lovers, yakuza: whoever may write them) slipped in before every action.
    Yields (state without, state with, channels that got lines so far) after each action."""
    log = [(a, t) for a, t, _ in random_game(n, seed, {"preset": preset}, chat=False)][1:]
    plain = hidden = me.new_game([f"p{i}" for i in range(1, n + 1)], {"preset": preset}, seed=seed, now=0.0)
    written: set[str] = set()
    before = 0.0
    for action, at in log:
        for p in hidden["players"]:
            for ch in PRESETS[preset].write_channels(hidden, p):
                if ch in PUBLIC:
                    continue
                try:
                    hidden = me.apply(
                        hidden, {"type": "chat", "player": p["id"], "channel": ch, "text": "psst"}, before
                    )
                except InvalidAction:
                    continue  # the rate limit: the next action's turn
                written.add(ch)
        plain = me.apply(plain, action, at)
        hidden = me.apply(hidden, action, at)
        before = at
        yield plain, hidden, written


def with_a_death(preset: str, n: int, seed: int) -> int:
    """The first of seed, seed + 3, ... whose random game has a death (so a dead channel; a
    city night has no mafia chat, and a city game can end in a draw with nobody out)."""
    for s in range(seed, seed + 60, 3):
        *_, (_, _, last) = random_game(n, s, {"preset": preset}, chat=False)
        if not all(p["alive"] for p in last["players"]):
            return s
    raise AssertionError(f"no {preset} game with a death from seed {seed}")


@pytest.mark.parametrize(("preset", "n"), [("classic", 8), ("city", 9), ("original", 12)])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_hidden_chat_volume_changes_no_citizen_or_spectator_view(preset, n, seed):
    """Two games identical but for the number of hidden lines (mafia, dead, lovers, yakuza):
    every view of a viewer who cannot read any of those channels is identical, message ids
    included; only those who read them see a difference."""
    compared = differed = 0
    for plain, hidden, written in replay_with_hidden_chat(preset, n, with_a_death(preset, n, seed)):
        for viewer in [None, *(p["id"] for p in hidden["players"])]:
            who = None if viewer is None else next(p for p in hidden["players"] if p["id"] == viewer)
            if set(PRESETS[preset].read_channels(hidden, who)) & written:
                differed += me.view(plain, viewer) != me.view(hidden, viewer)
                continue
            compared += 1
            assert me.view(plain, viewer) == me.view(hidden, viewer), (viewer, hidden["phase"]["kind"])
    assert written and compared and differed  # the hidden lines were there, and were read by some
