"""States saved by earlier releases, brought to this release's shape when they are loaded.

Every state carries its format version (``state["v"]``, ``STATE_VERSION`` for the states this
release makes). A release that changes the shape of a state bumps ``STATE_VERSION`` and
appends one step to ``STEPS``: a function that takes a state of version ``n`` to ``n + 1``,
in place, on a copy ``migrate`` made. ``migrate`` runs the steps from the saved version to
this one, in order, so a game saved by any earlier release plays on (the golden states of
tests/unit/golden/ are saved by earlier releases and played to the end by
tests/unit/test_state_upgrades.py). A state saved by a newer release than this one is refused
(``state_too_new``): a rollback must not play a state whose meaning it does not know.

Pure like the rest of the engine: the steps read nothing but the state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import rng
from .errors import InvalidAction, quoted
from .jsondata import jcopy

STATE_VERSION = 6


def _v1_to_v2(s: dict) -> None:
    """Version 1 was written with two shapes (the version was not bumped when they changed):

    - before 978fbc7 (released with 6566d99), every preset's state carried classic's
      bookkeeping at the top (``mvpVotes``, ``nominatedBy``) and every player a
      ``soldierUsed``; since, classic keeps the first two in ``extra`` (which city and
      original already had) and ``soldierUsed`` is classic's alone. A state with no ``extra``
      is one of classic's (or of a preset played by classic's rules): its bookkeeping moves
      there; another preset's copies are dropped;
    - before b24c301 (released with 3718119), ``rng`` was the 48-bit LCG's integer state; the
      game draws on from the ``play`` stream of a key derived from it (rng.py).
    """
    if "mvpVotes" in s:  # the shape before 978fbc7
        mvp = s.pop("mvpVotes")
        nominated = s.pop("nominatedBy", None)
        if "extra" not in s:
            s["extra"] = {"mvpVotes": mvp, "nominatedBy": nominated}
        else:  # city, original: copies no rule of theirs ever read
            for p in s["players"]:
                p.pop("soldierUsed", None)
    if isinstance(s["rng"], int):
        s["rng"] = rng.seed_state(s["rng"], "play")


def _v2_to_v3(s: dict) -> None:
    """Version 3's commitment binds the secret, the seat list in order and the options
    (``fairness.SCHEME``, ``sha256/mafia-deal-v2``); a game committed before keeps its
    commitment (every phone saw it from the start) and says how it was made: its record gets
    ``"scheme": "sha256/mafia-deal-v1"`` (the secret and salt alone), which ``verify`` and the
    end screen check as such."""
    rec = s.get("fairness")
    if isinstance(rec, dict) and "scheme" not in rec:
        rec["scheme"] = "sha256/mafia-deal-v1"


def _v3_to_v4(s: dict) -> None:
    """Version 4's original defenses carry the day's ``nominations`` of their suspects ({by,
    target}: who nominated whom, public, shown by the room's screen). A defense saved before
    has lost them (its speech phase is gone): it goes on with none, as a defense shows when
    nobody's nominator is known."""
    ph = s.get("phase")
    if s.get("preset") == "original" and isinstance(ph, dict) and ph.get("kind") == "defense":
        ph.setdefault("nominations", [])


def _v4_to_v5(s: dict) -> None:
    """Version 5's room games are dealt from the server's secret mixed with values the seated
    clients revealed (``fairness.SCHEME_V3``, ``sha256/mafia-deal-v3``: the record gains
    ``serverCommitment`` and ``contributions``). A game saved before was dealt from its secret
    alone and keeps the record it committed to (its scheme says which: v1 or v2); the bump keeps
    an earlier release, which cannot check a v3 record, from loading a game that has one
    (``state_too_new``)."""
    rec = s.get("fairness")
    if isinstance(rec, dict):
        rec.setdefault("scheme", "sha256/mafia-deal-v1")


def _v5_to_v6(s: dict) -> None:
    """Version 6's chat messages are free text (``text``) or a phrase (``phrase``, ``args``,
    ``variant``, no ``text``: chat.check_message), and an original last word's ``lines`` may
    hold a phrase's fields too. A state saved before holds text only and reads as it was (its
    bots' lines stay the room-language text they were said in); the bump keeps an earlier
    release, which reads every message's ``text``, from loading a game with phrases
    (``state_too_new``)."""


# STEPS[n - 1] takes a state of version n to version n + 1
STEPS: tuple[Callable[[dict], None], ...] = (_v1_to_v2, _v2_to_v3, _v3_to_v4, _v4_to_v5, _v5_to_v6)
assert len(STEPS) == STATE_VERSION - 1, "one step per version bump"


def version_of(data: Any) -> int:
    """The format version a saved state says it has, or ``bad_state``."""
    v = data.get("v") if isinstance(data, dict) else None
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise InvalidAction("bad_state", f"not a saved mafia_engine state (version {quoted(v)})")
    return v


def migrate(data: dict) -> dict:
    """``data`` as this release's state: itself when it is already (no copy), else a migrated
    copy (``data`` is never changed). ``state_too_new`` for a state a newer release saved."""
    v = version_of(data)
    if v == STATE_VERSION:
        return data
    if v > STATE_VERSION:
        raise InvalidAction(
            "state_too_new",
            f"this game was saved by a newer release (state version {v}); "
            f"this one reads versions up to {STATE_VERSION}",
        )
    s = jcopy(data)
    for step in STEPS[v - 1 :]:
        step(s)
        s["v"] += 1
    return s
