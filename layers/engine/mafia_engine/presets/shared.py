"""Rule pieces presets share (chat, night target checks, ballots, the end of a game)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..actions import CORE_CHANNELS
from ..chat import append, check_message, check_rate
from ..errors import InvalidAction, quoted
from ..game import Game
from ..options import OptionSpec
from ..phases import PhaseSpec
from ..roles import MAFIA, ROLES, Role, team_of
from .base import Preset

__all__ = [
    "act_chat",
    "ANONYMOUS",
    "AUTO_START",
    "AUTO_START_BOTS",
    "PUBLIC",
    "ROLE_REVEAL_SECONDS",
    "AFK_LIMIT",
    "AFK_REPLACE",
    "SUBSTITUTES",
    "SUBSTITUTE_APPROVAL",
    "act_ready",
    "act_seen_role",
    "add_result",
    "all_in",
    "check_investigate",
    "check_mafia_target",
    "check_target",
    "finish_game",
    "living_ids",
    "role_reveal_begin",
    "tally_ballots",
]


def assemble(views: Any, *, phases: Iterable[PhaseSpec], actions: dict, **fields: Any) -> Preset:
    """A ``Preset`` from a preset package's parts, with what every built-in one joins alike:
    the view hooks of its ``views`` module (``chat_refusal``, ``read_channels``,
    ``known_roles``, ``private``, ``allies``; ``write_channels`` if it has one, else every
    declared channel ``chat_refusal`` allows), the ``chat`` action checked by ``chat_refusal``
    (unless ``actions`` has its own ``chat``) and the ``ended`` phase. ``fields``: the rest of
    the ``Preset`` (name, roles, options, deal, start, ...)."""
    refusal = views.chat_refusal
    channels = fields.get("channels", CORE_CHANNELS)

    def write_channels(s: dict, p: dict | None) -> tuple[str, ...]:
        return () if p is None else tuple(ch for ch in channels if refusal(s, p, ch) is None)

    return Preset(
        phases={p.kind: p for p in (*phases, PhaseSpec("ended", timeout=None))},
        actions={"chat": lambda g, a: act_chat(g, a, refusal), **actions},
        read_channels=views.read_channels,
        write_channels=getattr(views, "write_channels", write_channels),
        known_roles=views.known_roles,
        private=views.private,
        allies=views.allies,
        **fields,
    )


def role_table(roles: Iterable[Role]) -> Callable[[str], Role]:
    """A preset's lookup of the roles it declares, by id, for the rules that have a state but
    no ``Game`` (view hooks); a role a variant registered on top of the preset added is found
    by its first declaration (``roles.ROLES``). Rules with a ``Game`` ask ``g.role(p)``."""
    by_id = {r.id: r for r in roles}

    def role_of(role_id: str) -> Role:
        r = by_id.get(role_id)
        return r if r is not None else ROLES[role_id]

    return role_of


def check_mafia_target(s: dict, by_id: dict, p: dict, t: str | None) -> tuple[str, str] | None:
    if t is None:
        return None
    q = by_id.get(t)
    if q is None:
        return "unknown_player", f"there is no player {quoted(t)} in this game"
    if not q["alive"]:
        return "target_dead", f"{t} is already out of the game"
    if team_of(q["role"]) == MAFIA:
        return "bad_target", "the mafia cannot target one of their own"
    return None


def check_investigate(s: dict, by_id: dict, p: dict, t: str | None) -> tuple[str, str] | None:
    q = by_id.get(t)
    if q is None:
        return "unknown_player", f"there is no player {quoted(t)} in this game"
    if q is p:
        return "self_target", "you cannot investigate yourself"
    if not q["alive"]:
        return "target_dead", f"{t} is already out of the game"
    return None


def living_ids(s: dict) -> list[str]:
    return [q["id"] for q in s["players"] if q["alive"]]


def all_in(g: Game, done: Any) -> bool:
    """Has every living player confirmed (is in ``done``, a list or a dict)?"""
    return all(p["id"] in done for p in g.alive())


def check_target(
    s: dict, by_id: dict, p: dict, t: str | None, self_ok: bool = False
) -> tuple[str, str] | None:
    """A living player (other than ``p`` unless ``self_ok``)."""
    q = by_id.get(t)
    if q is None:
        return "unknown_player", f"there is no player {quoted(t)} in this game"
    if q is p and not self_ok:
        return "self_target", "you cannot choose yourself"
    if not q["alive"]:
        return "target_dead", f"{t} is already out of the game"
    return None


def add_result(s: dict, pid: str, night: int, kind: str, target: str, result: str) -> None:
    """A private night result (shown only to ``pid``, in ``private.results``)."""
    s["results"].setdefault(pid, []).append({"day": night, "kind": kind, "target": target, "result": result})


def act_chat(g: Game, a: Any, refusal: Callable[[dict, dict, str], str | None]) -> None:
    p = g.player(a.player)
    why = refusal(g.s, p, a.channel)
    if why:
        raise InvalidAction("no_permission", why)
    content = check_message(g.s, a, g.options["kidSafeChat"])
    check_rate(p, g.now)
    p["lastChatAt"] = float(g.now)
    append(g.s, a.channel, p["id"], content.get("text", content), g.now)


def act_ready(g: Game, a: Any) -> None:
    p = g.actor(a.player)
    ready = g.phase["ready"]
    if p["id"] in ready:
        raise InvalidAction("already_ready", "you have already said you are ready")
    ready.append(p["id"])


# --- the role reveal (every preset) ------------------------------------------------------------
# A fixed few seconds ended before a first-time player had tapped "Tap to see your
# role". The reveal ends once every living player has seen their card (``seenRole``; bots
# send it too), and at the latest after this generous limit (docs/rules.md, "Room rules").
ROLE_REVEAL_SECONDS = OptionSpec(
    "roleRevealSeconds",
    "int",
    60,
    min=5,
    max=120,
    help="the longest time to read the role card; it ends once everyone has seen theirs",
)


# --- substitutes (every preset; a host option, off by default) ---------------------------------
# The engine never reads it: a vacated seat is offered to a newcomer by the room layer
# (functions/service/room/substitutes.py), which swaps who holds the seat; the seat id, its role
# and its results stay as they are here (docs/rules.md, "Substitutes").
SUBSTITUTES = OptionSpec(
    "substitutes",
    "bool",
    False,
    help="a seat given up mid-game is first offered to a spectator or newcomer for 60 s",
)
# One person, one seat: with substitutes on, the host approves each newcomer with one tap
# unless switched off (functions/service/room/substitutes.py; docs/rules.md, "Substitutes").
SUBSTITUTE_APPROVAL = OptionSpec(
    "substituteApproval",
    "bool",
    True,
    help="with substitutes on, the host approves each newcomer before they take a seat",
)

# Idle seats: a seat that misses this many required actions in a row is warned one miss
# before, then handed on (0: never); the room layer counts, the engine never reads either
# option (functions/service/room/afk.py; docs/rules.md, "Idle seats").
AFK_LIMIT = OptionSpec(
    "afkLimit",
    "choice",
    0,
    choices=(0, 2, 3, 4, 5),
    help="a seat that misses this many required actions in a row is warned, then handed on (0: never)",
)
AFK_REPLACE = OptionSpec(
    "afkReplace",
    "choice",
    "bot",
    choices=("bot", "substitute"),
    help="who takes an idle seat: a bot at once, or a substitute (with substitutes on; a bot if nobody comes)",
)


def role_reveal_begin(g: Game) -> None:
    """The role reveal: a limit of ``roleRevealSeconds``; ``ready`` lists who has seen their card
    (never public: a count would be harmless, but nobody needs it)."""
    g.deadline_in(g.options["roleRevealSeconds"])
    g.phase["ready"] = []


def act_seen_role(g: Game, a: Any, then: Callable[[Game], None]) -> None:
    """``seenRole`` (and the role reveal's ``readyEarly``): this player has seen their card;
    once every living player has, the reveal ends (``then``). Every seat sends the same
    action whatever its role, so neither its timing nor the count says anything about roles."""
    p = g.actor(a.player)
    seen = g.phase.setdefault("ready", [])  # a reveal begun before the rule stored no list
    if p["id"] in seen:
        raise InvalidAction("already_ready", "you have already seen your role")
    seen.append(p["id"])
    if all_in(g, seen):
        then(g)


def tally_ballots(
    g: Game, votes: dict, candidates: list[str] | None, default: str | None = None
) -> tuple[dict[str, int], dict[str, str]]:
    """(tally, ballots) over the living voters' ballots for living candidates.

    ``default``: what a missing ballot counts as (None: not counted); ``"abstain"`` is never counted.
    """
    tally: dict[str, int] = {}
    ballots: dict[str, str] = {}
    pool = set(candidates) if candidates is not None else None
    for pid, target in votes.items():
        if g.by_id[pid]["alive"]:
            ballots[pid] = target
    if default is not None:
        for p in g.alive():
            ballots.setdefault(p["id"], default)
    if candidates is not None:  # keep the candidates' order (nomination order) in the tally
        for c in candidates:
            if g.by_id[c]["alive"]:
                tally[c] = 0
    for target in ballots.values():
        if target == "abstain" or not g.by_id[target]["alive"]:
            continue
        if pool is not None and target not in pool:
            continue
        tally[target] = tally.get(target, 0) + 1
    return {t: n for t, n in tally.items() if n}, ballots


def finish_game(
    g: Game,
    winner: str,
    cause: str,
    summary: str,
    won: Callable[[dict], bool],
    mvp: str | None = None,
    day: int | None = None,
) -> None:
    """End the game: a result shaped as docs/rulebooks/000-classic.txt §8.6 says (``won`` says
    who is on the winning side; ``{d}`` in ``summary`` is ``day``, by default the current day)."""
    s = g.s
    summary = summary.format(d=s["day"] if day is None else day)
    players = []
    for p in s["players"]:
        players.append(
            {
                "id": p["id"],
                "role": p["role"],
                "team": team_of(p["role"]),
                "alive": p["alive"],
                "diedDay": p["diedDay"],
                "diedBy": p["diedBy"],
                "won": winner not in ("draw", "none") and won(p),
            }
        )
    ranking = [
        r["id"]
        for r in sorted(players, key=lambda r: (not r["won"], not r["alive"], g.by_id[r["id"]]["seat"]))
    ]
    s["winner"] = winner
    s["result"] = {
        "winner": winner,
        # why it ended (the client words it per language): vote | night | left | disconnect
        # (the check that held after that moment), dry | nights (a draw rule), host (endGame)
        "cause": cause,
        "days": s["day"],
        "players": players,
        "ranking": ranking,
        "summary": summary,
        "mvp": mvp,
    }
    g.event("end", winner=winner, cause=cause)
    g.system(summary)
    g.goto("ended")


# Anonymous games: a host option of every preset that changes no rule of the engine. The room
# layer shuffles the seats, gives them fresh ids and shows aliases until the end
# (functions/service/features/aliases.py; docs/rules.md, "Anonymous games").
ANONYMOUS = OptionSpec(
    "anonymous",
    "bool",
    False,
    help="everyone plays under an alias drawn for the game; names are shown at the end",
)


# Public rooms: host options of every preset that change no rule of the engine. A public room is
# listed on the home screen by language and preset while its lobby is open, strangers take its
# seats with "Play now", and once ``autoStart`` people are seated it starts by itself after a
# short countdown, bots filling seats if ``autoStartBots`` (functions/service/room/public.py;
# docs/rules.md, "Public rooms").
PUBLIC = OptionSpec(
    "public",
    "bool",
    False,
    help="listed for strangers to join with Play now; anonymous, kid-safe and with substitutes by default",
)
AUTO_START = OptionSpec(
    "autoStart",
    "int",
    4,
    min=2,
    max=12,
    help="a public room starts by itself once this many people are seated",
)
AUTO_START_BOTS = OptionSpec(
    "autoStartBots",
    "bool",
    True,
    help="when a public room starts by itself, bots fill the seats a game needs",
)
