"""A random legal-action generator: for property tests, the benchmark and bots.

``legal_actions(state)`` lists actions the engine accepts now (a sample, not every chat
text); ``random_game(...)`` plays one seeded game through the public API and yields each
(action, now, state). Deterministic: it uses the engine's own seeded RNG, never global random.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import apply, new_game, rng
from .chat import MIN_INTERVAL
from .presets import PRESETS
from .tasks import TASKS

CHAT_LINES = ("hi", "I trust p2", "who is it?", "not me", "vote p3", "hmm", "quiet night...")


def legal_actions(state: dict, chat: bool = True, now: float | None = None) -> list[dict]:
    """Actions the engine would accept at ``now`` (besides phaseTimeout and presence)."""
    preset = PRESETS[state["preset"]]
    ph = state["phase"]
    kind = ph["kind"]
    opts = state["options"]
    out: list[dict] = []
    for p in state["players"]:
        pid = p["id"]
        last = p["lastChatAt"]
        if chat and (now is None or last is None or now - last >= MIN_INTERVAL):
            for ch in preset.write_channels(state, p):
                out.append(
                    {
                        "type": "chat",
                        "player": pid,
                        "channel": ch,
                        "text": CHAT_LINES[len(out) % len(CHAT_LINES)],
                    }
                )
        if kind == "ended":
            continue
        if p["alive"] and "seenRole" in preset.phases[kind].actions and pid not in ph.get("ready", ()):
            out.append({"type": "seenRole", "player": pid})
        if preset.rules.confirm_locks:
            # the task drives these presets (dead players have none, but a last word)
            out.extend(_task_actions(preset.private(state, p), pid))
            continue
        if not p["alive"]:
            continue
        # picks stay open (classic): a pick may be changed, so offer every one each time
        acts = preset.phases[kind].actions
        if "adjustTime" in acts and opts.get("timeAdjust") and pid not in ph["adjustedBy"]:
            out.append({"type": "adjustTime", "player": pid, "delta": 15})
            out.append({"type": "adjustTime", "player": pid, "delta": -15})
        if (
            "readyEarly" in acts
            and pid not in ph["ready"]
            and (kind == "roleReveal" or preset.rules.ready_unseen)
        ):
            out.append({"type": "readyEarly", "player": pid})
        priv = preset.private(state, p)
        task = priv["task"]
        if task == "vote":
            out.extend({"type": "vote", "player": pid, "target": t} for t in [*priv["targets"], "abstain"])
        elif task == "confirm":
            out.extend({"type": "confirm", "player": pid, "choice": c} for c in ("yes", "no"))
        elif TASKS[task].night:
            targets = list(priv["targets"]) + ([None] if TASKS[task].null_target else [])
            out.extend({"type": task, "player": pid, "target": t} for t in targets)
    return out


def _task_actions(priv: dict, pid: str) -> list[dict]:
    """Presets whose choices lock: what the player's ``private.task`` allows (the view drives the player).

    Every night duty may also be skipped with ``sleep``; "nobody" is a choice for some."""
    task = priv["task"]
    targets = list(priv["targets"])
    spec = TASKS[task]
    if spec.action is None:  # none, done
        return []
    if task == "vote":
        return [{"type": "vote", "player": pid, "target": t} for t in [*targets, "abstain"]]
    if task == "confirm":
        return [{"type": "confirm", "player": pid, "choice": c} for c in ("yes", "no")]
    if not spec.targeted:  # ready (readyEarly), sleep, endTurn
        return [{"type": spec.action, "player": pid}]
    out = [{"type": spec.action, "player": pid, "target": t} for t in targets]
    if spec.null_target:
        out.append({"type": spec.action, "player": pid, "target": None})
    if spec.night:
        out.append({"type": TASKS["sleep"].action, "player": pid})
    return out


def random_game(
    n: int = 8,
    seed: int = 0,
    options: dict | None = None,
    chat: bool = True,
    timeout_chance: int = 8,
    presence: bool = False,
    max_steps: int = 2000,
    leaves: bool = False,
) -> Iterator[tuple[dict | None, float, dict]]:
    """Play one random game; yields (action, now, state) starting with (None, 0.0, initial state).

    ``leaves``: now and then (1 step in 80) a living player leaves the game (the room rule).
    """
    players = [f"p{i}" for i in range(1, n + 1)]
    now = 0.0
    state = new_game(players, options or {"preset": "classic"}, seed=seed, now=now)
    yield None, now, state
    yield from play_on(state, now, seed, chat, timeout_chance, presence, max_steps, leaves)


def play_on(
    state: dict,
    now: float,
    seed: int = 0,
    chat: bool = True,
    timeout_chance: int = 8,
    presence: bool = False,
    max_steps: int = 2000,
    leaves: bool = False,
) -> Iterator[tuple[dict, float, dict]]:
    """Play ``state`` (at game time ``now``) on with random legal actions until it ends (or
    ``max_steps``); yields (action, now, state) after each. ``random_game`` is this from a new
    game; the upgrade tests play states saved by earlier releases on with it."""
    players = [p["id"] for p in state["players"]]
    n = len(players)
    r = rng.seed_state(seed * 7919 + 1)
    for _ in range(max_steps):
        if state["phase"]["kind"] == "ended":
            return
        r, roll = rng.below(r, timeout_chance)
        action: dict
        ends = state["phase"]["endsAt"]
        leave = False
        if leaves:
            r, x = rng.below(r, 80)
            leave = x == 0 and (ends is None or now < ends)
        if leave:
            living = [p["id"] for p in state["players"] if p["alive"]]
            r, i = rng.below(r, len(living))
            action = {"type": "leave", "player": living[i]}
        elif ends is not None and (roll == 0 or now >= ends):
            now = max(now, ends)
            action = {"type": "phaseTimeout", "phase": state["seq"]}
        elif presence and roll == 1:
            r, i = rng.below(r, n)
            r, c = rng.below(r, 3)
            action = {"type": "presence", "player": players[i], "connected": c != 0}
        else:
            r, dt = rng.below(r, 2000)
            step_now = min(now + MIN_INTERVAL + dt / 1000, ends if ends is not None else now + 3)
            # untimed games move only by confirmations: mostly skip the chat there
            choices = legal_actions(state, chat=chat and (ends is not None or roll % 2 == 0), now=step_now)
            if not choices:
                continue
            r, i = rng.below(r, len(choices))
            action = choices[i]
            now = step_now
        state = apply(state, action, now)
        yield action, now, state
