"""The bots' policy: what one seat does this phase, decided from its view alone.

What to do comes from ``private.task`` (``tasks.TASKS``); how the rule system behaves comes
from the view's public ``rules`` (choices lock, abstention, duties in turn, an unseen
ready), never from the preset's name. ``decide`` / ``plan`` / ``revise`` are pure
functions of (view, seed, time); the loop (``loop.py``) is the only part that sees a state.
"""

from __future__ import annotations

import random
from typing import Any

from ..chat import MIN_INTERVAL, PHRASES
from ..roles import TOWN
from . import phrases
from .evidence import Seat, verdict

CHAT_GAP = 1.2  # seconds between two planned lines of one bot (the engine allows 0.7 s)
PASS = "pass"  # a planned wake with nothing to do (never applied: ``revise`` drops it)
SKIP = "sleep"  # the night's skip (``tasks.TASKS``: a core task every preset with night duties has)
ARREST_AT = 3.0  # an arrest removes a player: more than the table's talk, a found mafioso
SUSPECT_AT = 0.9  # public suspicion (a claim, a reveal, ballots) worth voicing in the day chat
SMALL_TALK = 0.3  # else, the chance of a line that names nobody (every card alike)

# When each kind of action falls due, as fractions of the phase's length.
WINDOWS: dict[str, tuple[float, float]] = {
    # a glance at the card as it is dealt, whatever the role: never published (not even as a
    # count), it lapses at the first request or wake after the reveal begins (``loop.HIDDEN``),
    # so the reveal waits only for its people's taps, however late a Scheduler wake would come
    "seenRole": (0.0, 0.0),
    "greet": (0.05, 0.6),
    "talk": (0.08, 0.5),
    "readyEarly": (0.55, 0.9),
    "ready": (0.3, 0.85),
    "endTurn": (0.45, 0.85),
    # a speech turn the bot has nothing to say in: done within the first fifth of it
    "quickTurn": (0.08, 0.2),
    "nominate": (0.35, 0.8),
    "vote": (0.25, 0.8),
    "confirm": (0.2, 0.75),
    "night": (0.15, 0.7),
    "nightTalk": (0.05, 0.4),
    "nightMore": (0.72, 0.8),
    "nightLast": (0.82, 0.9),
    "defense": (0.1, 0.5),
    "end": (0.0, 0.0),
    # a speech turn (original) the bot talks in: a line or two at once, then done by a quarter of
    # the turn, as a player who says their piece and passes the word (docs/rules.md, Original
    # "Wins", "Bots' pace"; measured by bench/bot_day.py)
    "turnTalk": (0.02, 0.1),
    "turnEnd": (0.2, 0.25),
}

TURN_LINES = 2  # lines a bot says in its own speech turn at most: short, like a player's turn

# Windows of the night's hidden work: drawn alike by every bot of the room (``_pace``).
NIGHT_WINDOWS = frozenset({"night", "nightTalk", "nightMore", "nightLast"})

# Windows only ``plan`` uses: a ready the view does not show (``rules.readyUnseen``) and a
# night's later wake-ups for duties in turn (``revise`` turns them into the next duty).
PLAN_ONLY = frozenset({"readyEarly", "nightMore", "nightLast"})

UNTIMED_SPAN = 6.0  # seconds a plan spreads over in a phase without a deadline (ended)


# --- what the bot wants this phase ---------------------------------------------------------------
def _line(seat: Seat, intent: str, purpose: str, p: str | None = None, lang: str = "en") -> dict:
    """A phrase of ``intent`` naming ``p`` by its id: every phone draws it in its own language
    with the name it shows for ``p`` (chat.PHRASES; ``lang`` is unused, the table's language
    no longer shapes a line). The variant is one draw the whole table shares, shifted by the
    seat's number: two bots with the same intent in a phase say different wordings (no
    "Anyone notice anything?" twice in a row)."""
    pick = seat.rng("line:" + purpose, shared="table")
    variant = (pick.randrange(phrases.VARIANTS) + seat.seat_of.get(seat.me, 0)) % phrases.VARIANTS
    return {"phrase": intent, "args": {"target": p} if p is not None else {}, "variant": variant}


def _say(seat: Seat, channel: str, kind: str, purpose: str, lang: str, p: str | None = None) -> dict | None:
    if channel not in seat.write or (p is None) == bool(PHRASES[kind]):
        return None  # no one to name for a phrase that names someone (or one to name for one that names none)
    return {"type": "chat", "channel": channel, **_line(seat, kind, purpose, p, lang)}


def _vote_target(seat: Seat) -> str | None:
    targets = [t for t in seat.private.get("targets") or () if t != seat.me]
    s = seat.score()
    cands = [t for t in targets if s.get(t, 0.0) > -50]  # never a team mate or a cleared player
    if not cands:
        return None
    best = max(cands, key=lambda t: s.get(t, 0.0))
    open_ = [t for t in cands if s.get(t, 0.0) > -0.5]  # not someone the table vouched for
    if seat.stalled() >= 2:
        # days without an execution: the evidence is split, so follow the shared hunch
        return seat.hunch(open_ or cands)
    if s.get(best, 0.0) >= 0.9:
        return best
    if seat.rng("abstain").random() < 0.8:
        return seat.hunch(open_ or cands)
    return None


def _confirm_choice(seat: Seat) -> str:
    """Classic: execute the accused? Original's all-or-none: execute every tied suspect?"""
    accused = [seat.phase["accused"]] if seat.phase.get("accused") else list(seat.phase.get("suspects") or ())
    if any(a in seat.allies or a == seat.me for a in accused):
        return "no"
    if seat.team != TOWN and accused:
        return "yes"
    s = seat.score()
    if any(s.get(a, 0.0) <= -50 for a in accused):
        return "no"  # one of them is known to be town
    sc = max((s.get(a, 0.0) for a in accused), default=0.0)
    if sc >= 0.5:
        return "yes"
    if sc <= -0.5:
        return "no"
    return "yes" if seat.rng("confirm").random() < 0.6 else "no"


def _team_target(seat: Seat) -> str | None:
    """The mafia's shared pick: a teammate's standing pick if legal, else one derived from
    what every living mafioso sees alike (public chat, ballots, reveals, the team list)."""
    targets = list(seat.private.get("targets") or ())
    if not targets:
        return None
    choice = seat.private.get("choice")
    if not seat.locks and choice in targets:
        return choice  # open picks: the team's current target (the last pick of any mafioso)
    picks: dict[str, int] = {}
    for who, t in (seat.private.get("teamChoices") or {}).items():
        if t in targets and who != seat.me:
            picks[t] = picks.get(t, 0) + 1
    if picks:
        return max(sorted(picks, key=lambda t: seat.seat_of.get(t, 0)), key=lambda t: picks[t])
    # the group as every member sees it alike: the living who are not targets (a werewolf
    # that joined a group is not in the others' allies, but it is never their target)
    team = sorted(pid for pid in seat.living() if pid not in targets)
    threat = {t: 0.0 for t in targets}
    for speaker, kind, target in seat.claims():
        if speaker in threat and target in team:
            threat[speaker] += 3.0 if kind == "sure" else 1.0
        if kind == "sure" and speaker in threat:
            threat[speaker] += 1.0  # sounds like the police
    for t in targets:
        rev = seat.players.get(t, {}).get("revealed") or {}
        if (seat.roles.get(rev.get("role")) or {}).get("armor"):
            threat[t] -= 5.0  # survives one attack (classic's soldier)
    order = sorted(targets, key=lambda t: seat.seat_of.get(t, 0))
    seat.rng("team", shared="team:" + ",".join(team)).shuffle(order)
    return max(order, key=lambda t: threat[t])


def _heal_target(seat: Seat, task: str) -> str | None:
    targets = list(seat.private.get("targets") or ())
    if not targets:
        return None
    r = seat.rng(task)
    if seat.me in targets and r.random() < 0.35:
        return seat.me
    s = seat.score()
    value = {t: -min(s.get(t, 0.0), 5.0) + r.random() for t in targets if t != seat.me}
    for speaker, kind, _ in seat.claims():
        if speaker in value and kind in ("sure", "trust"):
            value[speaker] += 1.5  # speaks like the police: the mafia's next target
    for t in value:
        rev = seat.players.get(t, {}).get("revealed") or {}
        if rev.get("team") == TOWN:
            value[t] += 1.0
    if not value:
        return seat.me if seat.me in targets else None
    return max(sorted(value), key=lambda t: value[t])


def _investigate_target(seat: Seat, task: str) -> str | None:
    done = {r.get("target") for r in seat.private.get("results") or () if r.get("kind") == task}
    cands = [t for t in seat.private.get("targets") or () if t not in done and t not in seat.allies]
    if not cands:
        return None
    s = seat.score()
    return max(sorted(cands), key=lambda t: s.get(t, 0.0))


def _peek_target(seat: Seat, task: str) -> str | None:
    done = {r.get("target") for r in seat.private.get("results") or () if r.get("kind") == task}
    cands = sorted(t for t in seat.private.get("targets") or () if t not in done)
    if not cands:
        return None
    return cands[seat.rng("peek").randrange(len(cands))]


def _probe_target(seat: Seat, task: str) -> str | None:
    done = {r.get("target") for r in seat.private.get("results") or () if r.get("kind") == task}
    cands = [t for t in seat.private.get("targets") or () if t not in done and t not in seat.allies]
    if not cands:
        return None
    # whoever talks like the police is the one worth checking
    loud = {speaker for speaker, kind, _ in seat.claims() if kind == "sure"}
    r = seat.rng("check:" + task)
    return max(sorted(cands), key=lambda t: (t in loud) + r.random())


def _solo_kill(seat: Seat) -> str | None:
    cands = [t for t in seat.private.get("targets") or () if t != seat.me]
    if not cands:
        return None
    s = seat.score()
    r = seat.rng("solo")
    return max(sorted(cands), key=lambda t: s.get(t, 0.0) + 2 * r.random())


def _arrest_target(seat: Seat) -> str | None:
    """An arrest removes a player: only someone the evidence clearly points at."""
    cands = [t for t in seat.private.get("targets") or () if t != seat.me and t not in seat.allies]
    s = seat.score()
    best = max(sorted(cands), key=lambda t: s.get(t, 0.0), default=None)
    return best if best is not None and s.get(best, 0.0) >= ARREST_AT else None


# How a bot picks a night target, by the task's ``aim`` (``tasks.Task.aim``, in view.rules.tasks)
_AIMS = {
    "teamKill": lambda seat, task: _team_target(seat),
    "protect": _heal_target,
    "suspect": _investigate_target,
    "peek": _peek_target,
    "probe": _probe_target,
    "kill": lambda seat, task: _solo_kill(seat),
    "remove": lambda seat, task: _arrest_target(seat),
}


def _night_action(seat: Seat, task: str) -> dict | None:
    """The night action for ``task``, or a skip (``sleep``) where the preset has one."""
    spec = seat.tasks.get(task) or {}
    pick = _AIMS.get(spec.get("aim"))
    t = pick(seat, task) if pick is not None else None
    if t is not None and t in (seat.private.get("targets") or ()):
        return {"type": task, "target": t}
    if not seat.locks:
        return None
    # a deliberate "nobody" keeps the role's other duties tonight; a skip would end them
    return {"type": task, "target": None} if spec.get("nullTarget") else {"type": SKIP}


def _intents(seat: Seat, lang: str) -> list[tuple[str, dict]]:
    """(window, action) for everything the bot wants this phase, in the order it would act.

    Driven by ``private.task`` (the engine's own word for what this seat may do now); the
    unseen discussion ``readyEarly`` (``rules.readyUnseen``) is the one action with no task.
    """
    out: list[tuple[str, dict]] = []
    if seat.me is None or seat.v.get("paused"):
        return out  # a paused game takes only chat; bots wait for the resume (re-plan then)
    kind = seat.kind
    task = seat.private.get("task") or "none"
    if kind == "ended":
        if seat.rng("gg").random() < 0.5:
            a = _say(seat, "day", "gg", "gg", lang)
            if a:
                out.append(("end", a))
        return out
    if not seat.alive:
        if task == "endTurn":  # original: an executed bot's last word (untimed games wait for it)
            out.append(("endTurn", {"type": "endTurn"}))
        return out
    if "day" not in seat.write:
        pass  # nothing to say where nobody may speak (a speech is the speaker's alone)
    elif kind == "greeting" or (kind in ("discussion", "speech") and seat.day <= 1 and not seat.deaths()):
        if seat.rng("greet").random() < 0.8:
            a = _say(seat, "day", "greet", "greet", lang)
            if a:
                out.append(("greet", a))
    elif kind in ("discussion", "speech"):
        out.extend(("talk", a) for a in _discussion_lines(seat, lang, seat.rng("talk")) if a)
    if seat.on_trial():
        a = _say(seat, "day", "notMe", "defense", lang)
        if a:
            out.append(("defense", a))
    if kind == "discussion" and task == "none" and seat.rules["readyUnseen"]:
        out.append(("readyEarly", {"type": "readyEarly"}))
    if task == "ready" and kind == "roleReveal":
        # the reveal's "ready" is "I have seen my card": the same action and window for every
        # role, so that neither says anything about the bot's card
        out.append(("seenRole", {"type": "seenRole"}))
    elif task == "ready":
        out.append(("ready", {"type": "readyEarly"}))
    elif task == "endTurn":
        out.append((_turn_window(seat, out, "endTurn"), {"type": "endTurn"}))
    elif task == "vote":
        t = _vote_target(seat)
        if t is None and not seat.rules["canAbstain"]:  # a missing ballot counts for the last suspect
            targets = list(seat.private.get("targets") or ())
            t = seat.hunch([x for x in targets if x not in seat.allies] or targets)
        out.append(("vote", {"type": "vote", "target": t or "abstain"}))
    elif task == "confirm":
        out.append(("confirm", {"type": "confirm", "choice": _confirm_choice(seat)}))
    elif task == "nominate":
        out.append((_turn_window(seat, out, "nominate"), {"type": "nominate", "target": _nominee(seat)}))
    elif task == "sleep":
        if seat.locks:  # everyone confirms the night; with open picks sleepers just wait
            out.append(("night", {"type": "sleep"}))
    elif kind == "night" and task not in ("none", "done"):
        a = _night_action(seat, task)
        if a is not None:
            spec = seat.tasks.get(task) or {}
            if spec.get("team") and a.get("target") and seat.rng("kill").random() < 0.5:
                channel = spec.get("channel") or seat.team
                line = _say(seat, channel, "kill", "kill", lang, a["target"])
                if line:
                    out.append(("nightTalk", line))
            out.append(("night", a))
            if seat.rules["dutiesInTurn"]:
                # a role may have several duties a night, shown one task at a time: wake
                # twice more (revise drops these once the night's work is done)
                out.append(("nightMore", a))
                out.append(("nightLast", a))
    if kind == "night":
        # every living bot wakes at the same night moments whatever its card (a wake with nothing
        # to do passes, and is spent like any other): when the room wakes and whether it writes
        # say nothing of who holds a night role, a team line or a second duty
        windows = ("nightTalk", "night", *(("nightMore", "nightLast") if seat.rules["dutiesInTurn"] else ()))
        have = {w for w, _ in out}
        out.extend((w, {"type": PASS}) for w in windows if w not in have)
    return out


def _turn_window(seat: Seat, planned: list[tuple[str, dict]], window: str) -> str:
    """A speech turn with no line to say ends early (``quickTurn``): the table does not wait
    10-15 s of a 20 s turn for a bot that stays silent. Whether a bot talks comes from the
    public evidence alone (``_discussion_lines``), so the early end says nothing of its card."""
    if seat.kind == "speech" and not any(a.get("type") == "chat" for _, a in planned):
        return "quickTurn"
    return window


def _nominee(seat: Seat) -> str | None:
    """Original speech: name the most suspicious player, or nobody without evidence."""
    cands = [t for t in seat.private.get("targets") or () if t != seat.me and t not in seat.allies]
    s = seat.score()
    best = max(sorted(cands), key=lambda t: s.get(t, 0.0), default=None)
    if best is not None and s.get(best, 0.0) >= 0.9:
        return best
    if cands and seat.rng("nominate").random() < 0.5:
        open_ = [t for t in cands if s.get(t, 0.0) > -0.5]
        return seat.hunch(open_ or cands)
    return None


def _discussion_lines(seat: Seat, lang: str, r: random.Random) -> list[dict | None]:
    """The day's talk. Whether a bot speaks, how often and what kind of line come from the
    public evidence alone (``Seat.public``: the view without the seat's card, team, allies or
    night results) by one rule for every team, so talk tells nothing about the speaker's card:
    a suspicion when the table's evidence points at someone, else now and then small talk that
    names nobody, and a denial when accused. Only whom a suspicion names is the seat's own (a
    mafioso never names a team mate). A town seat's own check results add their claims
    ("sure", "trust"): what a human checker says, and what says "checker" by its words alone.
    ``r`` draws the same numbers for every card (seeded by seat, phase and purpose)."""
    lines: list[dict | None] = []
    public = seat.public().score()
    living = sorted(t for t in seat.living() if t != seat.me)
    top = max(living, key=lambda t: public.get(t, 0.0), default=None)
    if top is not None and public.get(top, 0.0) >= SUSPECT_AT and r.random() < 0.7:
        lines.append(_say(seat, "day", "suspect", "suspect", lang, _suspect(seat, living)))
    elif r.random() < SMALL_TALK:
        lines.append(_say(seat, "day", "muse", "muse", lang))
    accused_me = any(t == seat.me and k != "trust" for _, k, t in seat.claims(seat.day))
    if accused_me and r.random() < 0.8:
        lines.append(_say(seat, "day", "notMe", "notMe", lang))
    if seat.team == TOWN:
        lines.extend(_check_claims(seat, lang, living))
    return lines


def _suspect(seat: Seat, living: list[str]) -> str | None:
    """Whom this seat names when it voices a suspicion: its own most suspected (never a team mate)."""
    s = seat.score()
    cands = [t for t in living if t not in seat.allies and s.get(t, 0.0) > -50]
    return max(cands, key=lambda t: s.get(t, 0.0), default=None)


def _check_claims(seat: Seat, lang: str, living: list[str]) -> list[dict | None]:
    """A checker's claims from its own night results: the mafioso it found, a player it cleared."""
    own: dict[str, int] = {}
    for x in seat.private.get("results") or ():
        v = verdict(x.get("result"), seat.roles)
        if v and x.get("target") in living:
            own[x["target"]] = v
    out: list[dict | None] = []
    found = [t for t in living if own.get(t) == 1]
    if found:
        s = seat.score()
        out.append(_say(seat, "day", "sure", "sure", lang, max(found, key=lambda t: s.get(t, 0.0))))
    vouched = {t for sp, k, t in seat.claims() if sp == seat.me and k == "trust"}
    fresh = [t for t in reversed(list(own)) if own[t] == -1 and t not in vouched]
    if fresh and seat.rng("claim").random() < 0.8:
        out.append(_say(seat, "day", "trust", "trust", lang, fresh[0]))
    return out


# --- the API ---------------------------------------------------------------------------------------
def _done(seat: Seat, action: dict) -> bool:
    """True when the view shows this action already in effect (so sending it is pointless)."""
    t = action["type"]
    if t == "chat":
        return seat.said_today(action)
    if seat.locks:
        return False  # a confirmed choice is final and the task says "done"
    if t == "confirm":
        return seat.private.get("choice") == action["choice"]
    if t == "vote" or ((seat.tasks.get(t) or {}).get("night") and action.get("target") is not None):
        return seat.private.get("choice") == action["target"]
    return False


def decide(view: dict, seed: int | str, now: float, lang: str = "en") -> list[dict]:
    """Everything the bot wants to do now (unpaced): game actions not yet in effect, and
    at most one chat line (if its rate limit allows at ``now``). ``[]``: nothing to do.
    Classic's discussion ``readyEarly`` is left to ``plan`` (the view does not show it)."""
    seat = Seat(view, seed)
    out: list[dict] = []
    talked = False
    last = seat.last_said()
    for window, a in _intents(seat, lang):
        if window in PLAN_ONLY or a["type"] == PASS or _done(seat, a):
            continue
        if a["type"] == "chat":
            if talked or (last is not None and now - last < MIN_INTERVAL):
                continue
            talked = True
        out.append(a)
    return out


def plan(
    view: dict,
    seed: int | str,
    phase_start: float,
    deadline: float | None = None,
    lang: str = "en",
) -> list[tuple[float, dict]]:
    """At a phase change: [(due time, action)] sorted by time, for this bot in this phase.

    Due times are spread inside [phase_start, deadline) by seeded generators, one per entry
    (``_pace``: by day the bot's own, at night one every bot of the room shares), so no
    entry's time depends on the bot's card (``deadline`` defaults to ``view.phase.endsAt``),
    chat lines at least ``CHAT_GAP`` s apart; a phase without a deadline spreads over a few
    seconds. The room's loop keeps these times (``loop.plan_room``; nothing announces them). Store the entries with the
    phase ``seq`` and drop them when the phase changes; apply each through ``revise``.
    """
    seat = Seat(view, seed)
    intents = [(w, a) for w, a in _intents(seat, lang) if not _done(seat, a)]
    if seat.kind == "speech":
        intents = _brisk_turn(intents)
    if not intents:
        return []
    if deadline is None:
        deadline = seat.phase.get("endsAt")
    if deadline is None:
        span = UNTIMED_SPAN
        latest = phase_start + span
    else:
        span = max(0.0, deadline - phase_start)
        latest = deadline - min(0.5, span / 4)
    timed: list[tuple[float, dict]] = []
    nth: dict[str, int] = {}
    for window, a in intents:
        lo, hi = WINDOWS[window]
        if window == "end":
            lo, hi = 0.2, 0.6
        at = phase_start + span * (lo + (hi - lo) * _pace(seat, window, nth).random())
        timed.append((min(at, latest), a))
    timed.sort(key=lambda x: x[0])
    out: list[tuple[float, dict]] = []
    last_chat = None
    for at, a in timed:
        if a["type"] == "chat":
            if last_chat is not None and at < last_chat + CHAT_GAP:
                at = last_chat + CHAT_GAP
            if at > latest:
                continue  # no room left in this phase for another line
            last_chat = at
        out.append((round(at, 3), a))
    out.sort(key=lambda x: x[0])
    return out


def _brisk_turn(intents: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """A speech turn's plan, brisk: at most ``TURN_LINES`` lines early in the turn, then the turn
    ends (``endTurn`` or the nomination, which ends it too) right after them. Every bot of every
    card paces alike; a silent turn keeps its ``quickTurn``."""
    out: list[tuple[str, dict]] = []
    lines = 0
    for window, a in intents:
        if a.get("type") == "chat":
            lines += 1
            if lines > TURN_LINES:
                continue
            window = "turnTalk"
        elif window in ("endTurn", "nominate"):
            window = "turnEnd"
        out.append((window, a))
    return out


def _pace(seat: Seat, window: str, nth: dict[str, int]) -> random.Random:
    """The generator of one entry's due time, keyed by its window and its place among the
    bot's entries of that window: an entry's time never depends on which other entries the
    bot has (a checker's extra claim moves none of its other lines). Night windows are drawn
    alike by every bot of the room: the night's work falls due at the same moments whoever
    holds a night role, so neither the night's end nor any bot's timing says who acts."""
    i = nth.get(window, 0)
    nth[window] = i + 1
    shared = "night" if window in NIGHT_WINDOWS else None
    return seat.rng(f"pace:{window}:{i}", shared=shared)


def revise(view: dict, seed: int | str, action: dict, now: float, lang: str = "en") -> dict | None:
    """A planned ``action`` falls due at ``now``: what to apply (re-decided from the current
    view, e.g. following a team mate's newer pick), or None when it is no longer wanted."""
    seat = Seat(view, seed)
    t = action.get("type")
    if view.get("paused") or t == PASS:
        return None
    if t == "readyEarly" and seat.private.get("task") != "ready":
        # the view does not show who is ready, so the plan's one press stands
        ok = seat.alive and seat.kind == "discussion" and seat.rules["readyUnseen"]
        return action if ok else None
    if t == "chat":
        last = seat.last_said()
        if action.get("channel") not in seat.write or seat.said_today(action):
            return None
        if last is not None and now - last < MIN_INTERVAL:
            return None
        if not seat.alive and seat.kind != "ended":
            return None
        return action
    night = {name for name, spec in seat.tasks.items() if spec.get("night")} | {SKIP}
    family = night if t in night else {t}
    for a in decide(view, seed, now, lang):
        if a["type"] in family:
            return a  # at night: whatever the role has left to do (duties in turn: several a night)
    return None


def next_due(entries: list[tuple[float, Any]]) -> float | None:
    """The earliest due time in a list of plan entries (the bot's next action; not the room's ``wakeAt``), or None."""
    return min((at for at, *_ in entries), default=None)
