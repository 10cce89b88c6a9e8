"""A preset that lives in the tests alone: proof that a rule system is one module.

"Tiny": 4 to 6 players, one mafioso, one owl, everyone else a citizen. A night (the mafioso
picks a victim or nobody, the owl watches one living player, everyone else confirms sleep)
then a day vote (the most votes, unique, is executed; abstaining is allowed), until no mafia
is left or the mafia equal the town. At dawn the owl learns what its check of the watched
player reads (``Role.check_reads``: "mafia" or "notMafia").

Nothing outside this file knows it: ``register()`` adds it to the engine's registry, and
the generic API, the view gate, the action union, the socket's frame union, the random
player and the bots read its declaration. It reuses the shared rule pieces and the library's
action models; the owl is a role of its own with its own night action (``OwlWatch``), task
(``owlWatch``) and private result: what a new role with a night power needs, in one module.
"""

# No ``from __future__ import annotations``: test tiers load this file under other module names
# (spec_from_file_location, not in sys.modules), where pydantic could not resolve string annotations.
from typing import Any, Literal

from mafia_engine.actions import PlayerAction
from mafia_engine.errors import InvalidAction
from mafia_engine.game import Game
from mafia_engine.options import OptionSpec
from mafia_engine.phases import PhaseSpec
from mafia_engine.presets import Preset, Rules
from mafia_engine.presets import register as _register
from mafia_engine.presets import unregister as _unregister
from mafia_engine.presets.shared import act_chat, all_in, check_mafia_target, finish_game, tally_ballots
from mafia_engine.roles import MAFIA, TOWN, Role, core, team_of
from mafia_engine.tasks import Task
from mafia_engine.wins import mafia_parity, no_mafia_left

NAME = "tiny"

OPTIONS = (
    OptionSpec("nightSeconds", "int", 30, min=10, max=120, help="how long a night lasts"),
    OptionSpec("voteSeconds", "int", 40, min=10, max=120, help="how long the day vote lasts"),
    OptionSpec("kidSafeChat", "bool", True, help="filter rude words in chat"),
    OptionSpec("untimed", "bool", False, help="no deadlines: phases end when everyone confirmed"),
)


# --- the owl: a role with a night power, declared here alone ----------------------------------
class OwlWatch(PlayerAction):
    """The owl watches one living player tonight (learns what a check of them reads)."""

    type: Literal["owlWatch"]
    target: str


OWL_WATCH = Task("owlWatch", "owlWatch", targeted=True, night=True, learns=True, aim="peek")
ROLES = (
    core("mafia", channel=None),
    Role("owl", TOWN, night="owlWatch", check_reads="notMafia", power="roledesc.citizen"),
    core("citizen"),
)
ROLE_BY_ID = {r.id: r for r in ROLES}


def deal(opts: dict, n: int) -> list[str]:
    return ["mafia", "owl"] + ["citizen"] * (n - 2)


def start(g: Game) -> None:
    g.goto("night")


# --- night ---------------------------------------------------------------------------------------
def _night_begin(g: Game) -> None:
    g.phase["acts"] = {}
    g.deadline_in(g.options["nightSeconds"])


def _night_end(g: Game) -> None:
    acts = g.phase["acts"]
    for pid, t in acts.items():  # the owl's check, read from the watched role's declaration
        if ROLE_BY_ID[g.by_id[pid]["role"]].night == "owlWatch" and t is not None:
            reads = ROLE_BY_ID[g.by_id[t]["role"]].check_reads
            result = {"day": g.day, "kind": "owlWatch", "target": t, "result": reads}
            g.s["results"].setdefault(pid, []).append(result)
    victim = next((t for pid, t in acts.items() if t and team_of(g.by_id[pid]["role"]) == MAFIA), None)
    if victim is not None:
        g.kill(g.by_id[victim], "mafia")
    if not g.check_win("night"):
        g.s["day"] += 1
        g.goto("vote")


def act_night(g: Game, a: Any) -> None:
    p = g.actor(a.player)
    acts = g.phase["acts"]
    if p["id"] in acts:
        raise InvalidAction("already_confirmed", "you have already confirmed tonight")
    target = getattr(a, "target", None)
    if a.type == "mafiaTarget":
        if team_of(p["role"]) != MAFIA:
            raise InvalidAction("not_your_role", "only the mafia picks a victim")
        why = check_mafia_target(g.s, g.by_id, p, target)
        if why:
            raise InvalidAction(*why)
    elif a.type == "owlWatch":
        if ROLE_BY_ID[p["role"]].night != "owlWatch":
            raise InvalidAction("not_your_role", "only the owl watches")
        q = g.by_id.get(target)
        if q is None or not q["alive"] or q is p:
            raise InvalidAction("bad_target", "watch another living player")
    acts[p["id"]] = target
    if all_in(g, acts):
        _night_end(g)


# --- the day vote --------------------------------------------------------------------------------
def _vote_begin(g: Game) -> None:
    g.phase["votes"] = {}
    g.deadline_in(g.options["voteSeconds"])


def _vote_end(g: Game) -> None:
    tally, ballots = tally_ballots(g, g.phase["votes"], None)
    g.s["votes"] = {"day": g.day, "tally": tally}
    g.event("voteResult", tally=tally, ballots=ballots)
    top = max(tally.values(), default=0)
    leaders = [t for t, n in tally.items() if n == top]
    if len(leaders) == 1:
        g.kill(g.by_id[leaders[0]], "vote")
        if g.check_win("vote"):
            return
    g.goto("night")


def act_vote(g: Game, a: Any) -> None:
    p = g.actor(a.player)
    if p["id"] in g.phase["votes"]:
        raise InvalidAction("already_voted", "you have already voted today")
    if a.target != "abstain":
        q = g.player(a.target)
        if q is p or not q["alive"]:
            raise InvalidAction("bad_target", "vote for another living player (or abstain)")
    g.phase["votes"][p["id"]] = a.target
    if all_in(g, g.phase["votes"]):
        _vote_end(g)


def finish(g: Game, winner: str, cause: str) -> None:
    summary = "Nobody wins." if winner == "none" else f"{winner.capitalize()} wins on day {{d}}."
    finish_game(g, winner, cause, summary, lambda p: team_of(p["role"]) == winner)


# --- what each seat sees -------------------------------------------------------------------------
def read_channels(s: dict, p: dict | None) -> tuple[str, ...]:
    out = ["day", "system"]
    if p is not None and team_of(p["role"]) == MAFIA:
        out.append("mafia")
    if p is not None and not p["alive"]:
        out.append("dead")
    return tuple(out)


def write_channels(s: dict, p: dict | None) -> tuple[str, ...]:
    if p is None or s["phase"]["kind"] == "ended":
        return ("day",) if p is not None else ()
    if not p["alive"]:
        return ("dead",)
    if s["phase"]["kind"] == "vote":
        return ("day",)
    return ("mafia",) if team_of(p["role"]) == MAFIA else ()


def chat_refusal(s: dict, p: dict, channel: str) -> str | None:
    ok = channel in write_channels(s, p)
    return None if ok else f"you cannot write in the {channel} channel now"


def known_roles(s: dict, p: dict | None) -> set[str]:
    if s["phase"]["kind"] == "ended":
        return {q["id"] for q in s["players"]}
    return {p["id"]} if p is not None else set()


def allies(s: dict, p: dict) -> list[dict]:
    return []  # one mafioso: nobody to know


def private(s: dict, p: dict) -> dict:
    ph = s["phase"]
    task, targets, choice = "none", [], None
    if p["alive"] and ph["kind"] == "night":
        if p["id"] in ph["acts"]:
            task, choice = "done", ph["acts"][p["id"]]
        elif team_of(p["role"]) == MAFIA:
            task = "mafiaTarget"
            targets = [q["id"] for q in s["players"] if q["alive"] and team_of(q["role"]) != MAFIA]
        elif ROLE_BY_ID[p["role"]].night == "owlWatch":
            task = "owlWatch"
            targets = [q["id"] for q in s["players"] if q["alive"] and q is not p]
        else:
            task = "sleep"
    elif p["alive"] and ph["kind"] == "vote":
        if p["id"] in ph["votes"]:
            task, choice = "done", ph["votes"][p["id"]]
        else:
            task = "vote"
            targets = [q["id"] for q in s["players"] if q["alive"] and q is not p]
    results = [dict(r) for r in s["results"].get(p["id"], ())]
    return {"task": task, "targets": targets, "choice": choice, "teamChoices": {}, "results": results}


TINY = Preset(
    name=NAME,
    roles=ROLES,
    channels=("day", "mafia", "dead", "system"),
    order=lambda opts: [{"kind": "night"}, {"kind": "vote"}],
    title="Tiny (tests only)",
    min_players=4,
    max_players=6,
    options=OPTIONS,
    rules=Rules(),  # choices lock, abstaining allowed, the mafia never kills its own
    deal=deal,
    start=start,
    phases={
        s.kind: s
        for s in (
            PhaseSpec("night", _night_begin, _night_end, frozenset({"mafiaTarget", "owlWatch", "sleep"})),
            PhaseSpec("vote", _vote_begin, _vote_end, frozenset({"vote"}), day=True),
            PhaseSpec("ended", timeout=None),
        )
    },
    actions={
        "chat": lambda g, a: act_chat(g, a, chat_refusal),
        "mafiaTarget": act_night,
        "owlWatch": act_night,
        "sleep": act_night,
        "vote": act_vote,
    },
    action_models=(OwlWatch,),
    tasks=frozenset({"none", "done", "sleep", "mafiaTarget", "owlWatch", "vote"}),
    own_tasks=(OWL_WATCH,),
    win_checks=(no_mafia_left, mafia_parity),
    finish=finish,
    read_channels=read_channels,
    write_channels=write_channels,
    known_roles=known_roles,
    private=private,
    allies=allies,
)


def register() -> Preset:
    """Make "tiny" playable (tests call this, and ``unregister`` when done)."""
    return _register(TINY)


def unregister() -> None:
    _unregister(NAME)
