"""The ``city`` preset: docs/rulebooks/001-city.txt (seed 001, Russian online/offline Mafia),
every rule of it.

Paragraphs of docs/rulebooks/001-city.txt are cited by their heading ("Ночь", "День и
голосование", ...). Our reading of anything the seed leaves open is in docs/rules.md, "City
(seed 001)", each with the test that checks it.

Shape of a game: role reveal → night 1 → day 1 (discussion → vote [→ defense → revote])
→ night 2 → ... Night N is followed by day N (``day`` grows when a day ends). At night
every living player confirms exactly one action or a skip; the night ends when all have
confirmed or at the timer. Every confirmation (night action, vote) is final.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidAction, quoted
from ..game import Game
from ..options import OptionSpec
from ..phases import PhaseSpec
from ..roles import MAFIA, Role, core, team_of
from ..wins import mafia_parity, no_mafia_left
from .base import Preset, Rules
from .shared import (
    ROLE_REVEAL_SECONDS,
    SUBSTITUTES,
    act_chat,
    act_ready,
    act_seen_role,
    add_result,
    all_in,
    check_investigate,
    check_mafia_target,
    finish_game,
    living_ids,
    role_reveal_begin,
    tally_ballots,
)

# "Подготовьте город": players -> mafia when the count is automatic
AUTO_MAFIA = {5: 1, 6: 1, 7: 2, 8: 2, 9: 2, 10: 2, 11: 3, 12: 3, 13: 3, 14: 3, 15: 4, 16: 4}
DRY_RESULTS_FOR_DRAW = 6  # "шести подряд итогов ... без выбывания"
MAX_NIGHTS = 30  # "либо 30 ночей"
DAY_KINDS = frozenset({"discussion", "vote", "defense"})
CHANNELS = ("day", "dead", "system")
# every role the city deals ("Подготовьте город"), in the rules sheet's order; the mafia has
# no chat of its own (it agrees at night by confirmed picks)
ROLES: tuple[Role, ...] = (core("mafia", channel=None), core("police"), core("doctor"), core("citizen"))
NIGHT_ABILITY = {r.id: r.night for r in ROLES if r.night}

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "mafiaCount",
        "choice",
        "auto",
        choices=("auto", 1, 2, 3, 4, 5, 6, 7),
        help="mafia seats; auto: 1 (5–6 players), 2 (7–10), 3 (11–14), 4 (15–16); always fewer than half",
    ),
    OptionSpec("police", "bool", True, help="a commissar checks one player a night"),
    OptionSpec("doctor", "bool", True, help="a doctor protects one player a night"),
    ROLE_REVEAL_SECONDS,
    OptionSpec("nightSeconds", "int", 45, min=15, max=180),
    OptionSpec("discussionSeconds", "int", 180, min=30, max=900),
    OptionSpec("voteSeconds", "int", 30, min=10, max=120),
    OptionSpec("defenseSeconds", "int", 30, min=10, max=120, help="the tied leaders' defense"),
    OptionSpec(
        "deathReveal",
        "choice",
        "none",
        choices=("none", "team", "role"),
        help="what is shown of an eliminated player (all roles are shown at the end)",
    ),
    OptionSpec("openVote", "bool", True, help="show who voted for whom with the result"),
    OptionSpec(
        "untimed",
        "bool",
        False,
        help="no timers: a phase ends only when everyone has confirmed (one device passed around)",
    ),
    OptionSpec("kidSafeChat", "bool", True, help="block profanity, links and phone numbers"),
    SUBSTITUTES,
)


# --- set-up ("Подготовьте город") ----------------------------------------------------------------
def deal(opts: dict, n: int) -> list[str]:
    """The role ids for ``n`` players (unshuffled), or the reason the set-up is refused."""
    mafia = AUTO_MAFIA.get(n, 1) if opts["mafiaCount"] == "auto" else opts["mafiaCount"]
    if 2 * mafia >= n:
        raise InvalidAction(
            "bad_options",
            f"option 'mafiaCount': {mafia} mafia need more than {2 * mafia} players (mafia must be fewer than half)",
        )
    roles = ["mafia"] * mafia
    if opts["police"]:
        roles.append("police")
    if opts["doctor"]:
        roles.append("doctor")
    citizens = n - len(roles)
    if citizens < 1:
        raise InvalidAction(
            "seats_short",
            f"the city needs at least one plain citizen ({n} players, {len(roles)} special roles)",
        )
    return roles + ["citizen"] * citizens


def start(g: Game) -> None:
    g.s["extra"] = {"dry": 0, "selfHealUsed": False}
    g.goto("roleReveal")


# --- phases -------------------------------------------------------------------------------------
def _night_begin(g: Game) -> None:
    g.deadline_in(g.options["nightSeconds"])
    g.phase["acts"] = {}  # player id -> confirmed target (None: sleep / skip)


def _to_night(g: Game) -> None:
    g.goto("night")


def _discussion_begin(g: Game) -> None:
    g.deadline_in(g.options["discussionSeconds"])
    g.phase["ready"] = []
    # How many are ready to vote is public ("3 of 7 ready"), who is not: saying "ready" is a
    # day act that tells nothing of a card (docs/rules.md, city, "ready to vote").
    g.phase["readyCount"] = 0


def _vote_begin(g: Game, round: int = 1, candidates: list[str] | None = None) -> None:
    g.deadline_in(g.options["voteSeconds"])
    g.phase["round"] = round
    g.phase["candidates"] = candidates
    g.phase["votes"] = {}


def _defense_begin(g: Game, suspects: list[str]) -> None:
    g.deadline_in(g.options["defenseSeconds"])
    g.phase["suspects"] = list(suspects)
    g.phase["done"] = []


def _to_vote(g: Game) -> None:
    g.goto("vote")


def _defense_timeout(g: Game) -> None:
    g.goto("vote", round=2, candidates=list(g.phase["suspects"]))


def resolve_night(g: Game) -> None:
    """ "Ночь": all confirmed actions together; unreceived actions are skips."""
    s = g.s
    ph = g.phase
    night = g.day
    acts = ph["acts"]
    mafia_alive = [p for p in g.alive() if team_of(p["role"]) == MAFIA]
    picks: dict[str, int] = {}
    for p in mafia_alive:
        t = acts.get(p["id"])
        if t is not None:
            picks[t] = picks.get(t, 0) + 1
    # one target chosen by more than half of the living mafia
    target = next((t for t, n in picks.items() if 2 * n > len(mafia_alive)), None)
    # the doctor's protection and the commissar's check work even if they are tonight's victim
    heal = None
    for pid, t in acts.items():
        role = g.by_id[pid]["role"]
        if role == "doctor" and t is not None:
            heal = t
            if t == pid:
                s["extra"]["selfHealUsed"] = True
        elif role == "police" and t is not None:
            verdict = "mafia" if team_of(g.by_id[t]["role"]) == MAFIA else "notMafia"
            add_result(s, pid, night, "investigate", t, verdict)
    s["lastHeal"] = {"night": night, "target": heal} if heal else None
    victim = g.by_id[target] if target is not None else None
    if victim is not None and victim["alive"] and target != heal:
        g.kill(victim, "mafia")
        g.system(f"{target} was killed in the night.")
        s["extra"]["dry"] = 0
    else:
        # "Причина ночи без потерь публично не раскрывается": no saved / no-kill distinction
        g.event("quietNight")
        g.system("Nobody died tonight.")
        s["extra"]["dry"] += 1
    g.event("morning")
    if g.check_win("night") or _check_draw(g, "night"):
        return
    g.goto("discussion")


def _check_draw(g: Game, cause: str) -> bool:
    if g.s["extra"]["dry"] >= DRY_RESULTS_FOR_DRAW:
        g.preset.finish(g, "draw", "dry")
        return True
    if cause == "night" and g.day >= MAX_NIGHTS:
        g.preset.finish(g, "draw", "nights")
        return True
    return False


def close_vote(g: Game) -> None:
    """ "День и голосование": a unique leader leaves; a tie → defense + revote; else nobody."""
    ph = g.phase
    rnd = ph["round"]
    candidates = ph["candidates"]
    tally, ballots = tally_ballots(g, ph["votes"], candidates)
    top = max(tally.values(), default=0)
    leaders = [pid for pid, n in tally.items() if n == top] if top else []
    eliminated = leaders[0] if len(leaders) == 1 else None
    tie = len(leaders) > 1
    record = {
        "round": rnd,
        "tally": tally,
        "ballots": ballots if g.options["openVote"] else None,
        "eliminated": eliminated,
        "tie": leaders if tie else None,
    }
    prev = g.s["votes"] if g.s["votes"] and g.s["votes"]["day"] == g.day else {"day": g.day, "rounds": []}
    g.s["votes"] = {"day": g.day, "rounds": [*prev["rounds"], record]}
    g.event("voteResult", **record)
    if eliminated is not None:
        g.kill(g.by_id[eliminated], "vote")
        g.system(f"{eliminated} leaves the city by the vote.")
        g.s["extra"]["dry"] = 0
        if g.check_win("vote"):
            return
    elif tie and rnd == 1:
        g.system("A tie: the leaders speak in their defense, then the city votes again between them.")
        g.goto("defense", suspects=leaders)
        return
    else:
        g.system("Nobody leaves today.")
        g.s["extra"]["dry"] += 1
    if _check_draw(g, "vote"):
        return
    end_day(g)


def end_day(g: Game) -> None:
    g.s["day"] += 1
    g.goto("night")


# --- actions ------------------------------------------------------------------------------------
def _check_heal(s: dict, by_id: dict, p: dict, t: str | None) -> tuple[str, str] | None:
    q = by_id.get(t)
    if q is None:
        return "unknown_player", f"there is no player {quoted(t)} in this game"
    if not q["alive"]:
        return "target_dead", f"{t} is already out of the game"
    last = s["lastHeal"]
    if last is not None and last["target"] == t and last["night"] == s["day"] - 1:
        return "repeat_heal", f"you protected {t} last night; not the same player two nights running"
    if q is p and s["extra"]["selfHealUsed"]:
        return "self_heal_used", "you may protect yourself only once a game"
    return None


NIGHT_CHECKS = {"mafiaTarget": check_mafia_target, "investigate": check_investigate, "heal": _check_heal}


def act_night(g: Game, a: Any) -> None:
    """A confirmed night action or skip: once per living player per night, final."""
    p = g.actor(a.player)
    acts = g.phase["acts"]
    if p["id"] in acts:
        raise InvalidAction("already_confirmed", "you have already confirmed your night action")
    target = None
    if a.type != "sleep":
        if NIGHT_ABILITY.get(p["role"]) != a.type:
            raise InvalidAction("not_your_role", f"your role cannot {a.type}")
        target = a.target
        if target is not None:
            why = NIGHT_CHECKS[a.type](g.s, g.by_id, p, target)
            if why:
                raise InvalidAction(*why)
    acts[p["id"]] = target
    if all_in(g, acts):
        resolve_night(g)


def act_vote(g: Game, a: Any) -> None:
    p = g.actor(a.player)
    ph = g.phase
    if p["id"] in ph["votes"]:
        raise InvalidAction("already_voted", "a confirmed vote cannot be changed")
    if a.target != "abstain":
        t = g.player(a.target)
        if t["id"] == p["id"]:
            raise InvalidAction("self_target", "you cannot vote for yourself")
        if not t["alive"]:
            raise InvalidAction("target_dead", f"{t['id']} is already out of the game")
        if ph["candidates"] is not None and t["id"] not in ph["candidates"]:
            raise InvalidAction(
                "not_a_candidate", f"the revote is only between {', '.join(ph['candidates'])}"
            )
    ph["votes"][p["id"]] = a.target
    if all_in(g, ph["votes"]):
        close_vote(g)


def act_end_defense(g: Game, a: Any) -> None:
    p = g.actor(a.player)
    ph = g.phase
    if p["id"] not in ph["suspects"]:
        raise InvalidAction("not_your_turn", "only the tied leaders are speaking in their defense")
    if p["id"] in ph["done"]:
        raise InvalidAction("already_ready", "you have already finished your defense")
    ph["done"].append(p["id"])
    if all(pid in ph["done"] for pid in ph["suspects"]):
        _defense_timeout(g)


def after_leave(g: Game, p: dict) -> None:
    """A player left: win check, then the phase goes on if it was waiting only for them."""
    if g.check_win("left"):
        return
    ph = g.phase
    kind = ph["kind"]
    if kind in ("roleReveal", "discussion") and all_in(g, ph["ready"]):
        _advance_ready(g)
    elif kind == "night" and all_in(g, ph["acts"]):
        resolve_night(g)
    elif kind == "vote":
        if ph["candidates"] is not None and p["id"] in ph["candidates"]:
            ph["candidates"] = [c for c in ph["candidates"] if c != p["id"]]
        if all_in(g, ph["votes"]):
            close_vote(g)
    elif kind == "defense" and p["id"] in ph["suspects"]:
        ph["suspects"] = [c for c in ph["suspects"] if c != p["id"]]
        if all(pid in ph["done"] for pid in ph["suspects"]):
            _defense_timeout(g)


def _advance_ready(g: Game) -> None:
    g.goto("night" if g.phase["kind"] == "roleReveal" else "vote")


def act_ready_early(g: Game, a: Any) -> None:
    if g.phase["kind"] == "roleReveal":  # the reveal's "ready" is "I have seen my card"
        act_seen_role(g, a, _advance_ready)
        return
    act_ready(g, a)
    g.phase["readyCount"] = len(g.phase["ready"])
    if all_in(g, g.phase["ready"]):
        _advance_ready(g)


# --- chat -------------------------------------------------------------------------------------
def chat_refusal(s: dict, p: dict, channel: str) -> str | None:
    kind = s["phase"]["kind"]
    if channel == "system":
        return "only the moderator writes in the system channel"
    if channel not in CHANNELS:
        return f"there is no {channel} chat in this game"
    if kind == "ended":
        return None if channel == "day" else "after the game only the day chat is open"
    if channel == "dead":
        return None if not p["alive"] else "only the eliminated write in the dead chat"
    if not p["alive"]:
        return "the eliminated no longer give hints"
    if kind not in DAY_KINDS:
        return "the day chat is closed until the day"
    if kind == "defense" and p["id"] not in s["phase"]["suspects"]:
        return "only the tied leaders may speak during their defense"
    return None


def write_channels(s: dict, p: dict | None) -> tuple[str, ...]:
    if p is None:
        return ()
    return tuple(ch for ch in CHANNELS if chat_refusal(s, p, ch) is None)


def read_channels(s: dict, p: dict | None) -> tuple[str, ...]:
    if s["phase"]["kind"] == "ended":
        return CHANNELS
    if p is not None and not p["alive"]:
        return ("day", "dead", "system")
    return ("day", "system")


# --- views ------------------------------------------------------------------------------------
def known_roles(s: dict, p: dict | None) -> set[str]:
    if s["phase"]["kind"] == "ended":
        return {q["id"] for q in s["players"]}
    if p is None:
        return set()
    if p["role"] == "mafia":
        return {q["id"] for q in s["players"] if q["role"] == "mafia"}
    return {p["id"]}


def allies(s: dict, p: dict) -> list[dict]:
    if p["role"] != "mafia":
        return []
    return [{"id": q["id"], "role": q["role"]} for q in s["players"] if q is not p and q["role"] == "mafia"]


def private(s: dict, p: dict) -> dict:
    """The one private field; the same keys for every role in every phase."""
    ph = s["phase"]
    kind = ph["kind"]
    task = "none"
    targets: list = []
    choice = None
    team_choices: dict = {}
    pid = p["id"]
    if p["alive"]:
        if kind in ("roleReveal", "discussion"):
            task = "done" if pid in ph["ready"] else "ready"
        elif kind == "night":
            acts = ph["acts"]
            ability = NIGHT_ABILITY.get(p["role"])
            if pid in acts:
                task = "done"
                choice = acts[pid]
            elif ability is None:
                task = "sleep"
            else:
                task = ability
                by_id = {q["id"]: q for q in s["players"]}
                check = NIGHT_CHECKS[ability]
                targets = [q["id"] for q in s["players"] if check(s, by_id, p, q["id"]) is None]
            if p["role"] == "mafia":
                # "Каждый мафиози видит уже подтверждённые решения сообщников"
                team_choices = {
                    q["id"]: acts[q["id"]] for q in s["players"] if q["role"] == "mafia" and q["id"] in acts
                }
        elif kind == "vote":
            if pid in ph["votes"]:
                task = "done"
                choice = ph["votes"][pid]
            else:
                task = "vote"
                pool = ph["candidates"] if ph["candidates"] is not None else living_ids(s)
                targets = [t for t in pool if t != pid]
        elif kind == "defense" and pid in ph["suspects"]:
            task = "done" if pid in ph["done"] else "endTurn"
    return {
        "task": task,
        "targets": targets,
        "choice": choice,
        "teamChoices": team_choices,
        "results": [dict(r) for r in s["results"].get(pid, ())],
    }


# --- the end ----------------------------------------------------------------------------------
_HOW = {
    ("town", "night"): "The city wins! No mafia is left after night {d}.",
    ("town", "vote"): "The city wins! The day-{d} vote found the last mafioso.",
    ("town", "left"): "The city wins! The last mafioso left the game on day {d}.",
    ("mafia", "night"): "The mafia wins! After night {d} the mafia are as many as the others.",
    ("mafia", "vote"): "The mafia wins! After the day-{d} vote the mafia are as many as the others.",
    ("mafia", "left"): "The mafia wins! After a player left on day {d} the mafia are as many as the others.",
    ("draw", "dry"): "A draw: six results in a row without an elimination (day {d}).",
    ("draw", "nights"): "A draw: thirty nights have passed.",
    ("none", "host"): "The host ended the game on day {d}; nobody wins.",
}


def finish(g: Game, winner: str, cause: str) -> None:
    finish_game(g, winner, cause, _HOW[(winner, cause)], lambda p: team_of(p["role"]) == winner)


PHASES: dict[str, PhaseSpec] = {
    p.kind: p
    for p in (
        PhaseSpec("roleReveal", role_reveal_begin, _to_night, frozenset({"seenRole", "readyEarly"})),
        PhaseSpec(
            "night", _night_begin, resolve_night, frozenset({*NIGHT_CHECKS, "sleep"}), review=("acts",)
        ),
        PhaseSpec(
            "discussion",
            _discussion_begin,
            _to_vote,
            frozenset({"readyEarly"}),
            public=("readyCount",),
            day=True,
        ),
        PhaseSpec(
            "vote",
            _vote_begin,
            close_vote,
            frozenset({"vote"}),
            public=("round", "candidates"),
            day=True,
            review=("round", "candidates", "votes"),
        ),
        PhaseSpec(
            "defense",
            _defense_begin,
            _defense_timeout,
            frozenset({"endTurn"}),
            public=("suspects",),
            day=True,
        ),
        PhaseSpec("ended", timeout=None),
    )
}

ACTIONS = {
    "chat": lambda g, a: act_chat(g, a, chat_refusal),
    "seenRole": lambda g, a: act_seen_role(g, a, _advance_ready),
    "readyEarly": act_ready_early,
    "vote": act_vote,
    "endTurn": act_end_defense,
    **{t: act_night for t in (*NIGHT_CHECKS, "sleep")},
}


def order(opts: dict) -> list[dict]:
    """A round's phases; the defense (and revote) only after a tied vote."""
    return [
        {"kind": "roleReveal"},
        {"kind": "night"},
        {"kind": "discussion"},
        {"kind": "vote"},
        {"kind": "defense", "note": "rules.note.tie"},
    ]


CITY = Preset(
    name="city",
    title="City (seed 001)",
    rules=Rules(),
    tasks=frozenset({"none", "done", "ready", "sleep", "vote", "endTurn", *NIGHT_CHECKS}),
    roles=ROLES,
    order=order,
    min_players=5,
    max_players=16,
    options=OPTIONS,
    deal=deal,
    start=start,
    phases=PHASES,
    actions=ACTIONS,
    win_checks=(no_mafia_left, mafia_parity),
    finish=finish,
    after_leave=after_leave,
    read_channels=read_channels,
    write_channels=write_channels,
    known_roles=known_roles,
    private=private,
    allies=allies,
)
