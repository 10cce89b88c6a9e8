"""Bots: a pure policy that plays one seat from that seat's view alone.

A bot sees exactly what a human in its seat sees: the input is ``mafia_engine.view(state,
bot_id)`` (the room layer may add names), never the state. Randomness comes from a local
``random.Random`` seeded with a string built from the room's bot seed, the bot's id, the
phase ``seq`` and a purpose, so a decision is a function of (view, seed) and nothing else.

The API (what the room layer calls)::

    plan(view, seed, phase_start, deadline=None, lang="en") -> list[tuple[float, dict]]
        At a phase change: every action the bot means to take in this phase, each with a
        due time spread inside the phase (human pace; always before the deadline).
    revise(view, seed, action, now, lang="en") -> dict | None
        When a planned action falls due: the action to apply now, re-decided from the
        current view (a teammate's pick, a chat that closed...), or None to drop it.
    decide(view, seed, now, lang="en") -> list[dict]
        Everything the bot wants to do right now, unpaced (tests, benchmarks): at most one
        chat line (each line once a day, within the rate limit) and the game actions not yet
        in effect. Once applied, the same call returns no game action (original: or the
        role's next night duty, shown one task at a time). Never classic's discussion
        ``readyEarly`` (the view does not show who is ready; ``plan`` schedules it once).
    next_due(entries) -> float | None
        The earliest due time of plan entries.

The room layer's loop over those, as pure functions of (state, stored plan)::

    plan_room(state, bot_ids, seed, now, lang="en") -> {"seq", "due": [[at, bot, action]]}
        At a phase change (after any apply that changed ``phase_seq``): store it in the room.
    drain(state, stored, now, bot_ids, seed, lang="en") -> (state, stored, applied, dropped)
        Whenever the room is touched: apply the due entries (revised, at their own times),
        re-planning at phase changes. Then apply the request's own action / the timeout.
    wake_at(stored) -> float | None
        The first due time: the view's ``room.wakeAt``.

What to do comes from ``private.task`` (the engine's word for what this seat may do now:
vote, confirm, ready, sleep, endTurn, nominate, mafiaTarget, investigate, heal, ...), so a
preset's new phases need no change here as long as they speak through tasks. While the game
is paused (``view.paused``) a bot plans nothing; re-plan the phase when it resumes.

Actions come without ``player`` (the caller adds the bot's id). ``seed`` is the room's bot
seed, the same for every bot of the room: mafia bots derive their team target from it and
from what every mafioso sees, so they agree without talking. In the lobby a bot is always
ready: that is the room layer's job, not this module's.

Behaviour: mafia never target team mates and agree; police investigate players they have
not checked and act on what they learn (accuse a found mafioso, trust a cleared player);
doctors protect themselves or a likely target within ``private.targets``; votes and confirm
ballots follow public evidence (revealed teams, accusations in chat, past ballots) and fall
back to a shared "hunch" only when there is none; chat lines are short, in the room's
language, only in writable channels, and say nothing a careful human of that role would not.
"""

from __future__ import annotations

import functools
import random
import re
from typing import Any

from .chat import MIN_INTERVAL, check_text
from .errors import InvalidAction
from .roles import ROLES, TOWN

LANGS = ("en", "ko", "ru")
CHAT_GAP = 1.2  # seconds between two planned lines of one bot (the engine allows 0.7 s)

# Short public lines, per language. {p} is a player's name (or id when the view has no names).
LINES: dict[str, dict[str, tuple[str, ...]]] = {
    "greet": {
        "en": ("Hi all!", "Hello everyone", "Hi! Good luck."),
        "ko": ("안녕하세요!", "다들 반가워요", "잘 부탁해요!"),
        "ru": ("Всем привет!", "Привет всем", "Удачи всем!"),
    },
    "suspect": {
        "en": ("I suspect {p}.", "{p} looks suspicious to me."),
        "ko": ("{p} 님이 수상해요.", "저는 {p} 님을 의심해요."),
        "ru": ("Я подозреваю {p}.", "{p} какой-то подозрительный."),
    },
    "sure": {
        "en": ("{p} is mafia, I'm sure.",),
        "ko": ("{p} 님은 마피아예요. 확실해요.",),
        "ru": ("{p} — мафия, я уверен.",),
    },
    "trust": {
        "en": ("I trust {p}.",),
        "ko": ("{p} 님은 믿을 수 있어요.",),
        "ru": ("Я доверяю {p}.",),
    },
    "notMe": {
        "en": ("I'm not mafia!", "It's not me, I promise."),
        "ko": ("저 마피아 아니에요!", "저는 아니에요, 정말이에요."),
        "ru": ("Я не мафия!", "Это не я, честно."),
    },
    "kill": {
        "en": ("Let's take {p} tonight.",),
        "ko": ("오늘 밤은 {p} 님으로 해요.",),
        "ru": ("Сегодня берём {p}.",),
    },
    "gg": {
        "en": ("Good game!",),
        "ko": ("수고하셨습니다!",),
        "ru": ("Хорошая игра!",),
    },
}

# How much a line says about the player it names (positive: suspicion).
CLAIM_WEIGHT = {"sure": 2.0, "suspect": 1.0, "trust": -1.0}
MENTION_WEIGHT = 0.5  # a human line that names someone: a weak accusation

# When each kind of action falls due, as fractions of the phase's length.
WINDOWS: dict[str, tuple[float, float]] = {
    "greet": (0.05, 0.6),
    "talk": (0.08, 0.5),
    "readyEarly": (0.55, 0.9),
    "ready": (0.3, 0.85),
    "endTurn": (0.45, 0.85),
    "nominate": (0.35, 0.8),
    "vote": (0.25, 0.8),
    "confirm": (0.2, 0.75),
    "night": (0.15, 0.7),
    "nightTalk": (0.05, 0.4),
    "nightMore": (0.72, 0.8),
    "nightLast": (0.82, 0.9),
    "defense": (0.1, 0.5),
    "end": (0.0, 0.0),
}
# Windows only ``plan`` uses: classic's readyEarly (not visible in the view) and the
# original night's later wake-ups (``revise`` turns them into the role's next duty).
PLAN_ONLY = frozenset({"readyEarly", "nightMore", "nightLast"})
UNTIMED_SPAN = 6.0  # seconds a plan spreads over in a phase without a deadline (ended)


def _claim_pattern() -> tuple[re.Pattern[str], dict[str, str]]:
    """One regex for every claim template of every language: group ``c<i>`` holds the name."""
    alts = []
    kinds = {}
    i = 0
    for kind in CLAIM_WEIGHT:
        for lang_lines in LINES[kind].values():
            for t in lang_lines:
                group = f"c{i}"
                kinds[group] = kind
                alts.append(re.escape(t).replace(re.escape("{p}"), f"(?P<{group}>.+?)"))
                i += 1
    return re.compile("|".join(f"(?:{a})" for a in alts), re.IGNORECASE), kinds


_CLAIM_RE, _CLAIM_KIND = _claim_pattern()


@functools.lru_cache(maxsize=4096)
def _claim_of(text: str) -> tuple[str, str] | None:
    """(kind, the name as written) if ``text`` is one of the bots' claim lines."""
    m = _CLAIM_RE.fullmatch(text.strip())
    if m is None or m.lastgroup is None:
        return None
    return _CLAIM_KIND[m.lastgroup], m.group(m.lastgroup)


@functools.lru_cache(maxsize=64)
def _mention_re(keys: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    alts = "|".join(re.escape(k) for k, _ in sorted(keys, key=lambda kv: len(kv[0]), reverse=True))
    return re.compile(r"(?<![0-9a-z_])(?:" + alts + r")(?![0-9a-z_])")


@functools.lru_cache(maxsize=8192)
def _mentions(text: str, keys: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """The players ``text`` names (ids or names in ``keys``), in order, each once."""
    table = dict(keys)
    out: list[str] = []
    for k in _mention_re(keys).findall(text.lower()):
        pid = table[k]
        if pid not in out:
            out.append(pid)
    return tuple(out)


# Events that publish who voted for whom (classic, city, original).
BALLOT_EVENTS = ("nomination", "voteResult", "trialVote")
VOTE_EVENTS = (*BALLOT_EVENTS, "confirm", "allOrNone")


# --- reading the view ---------------------------------------------------------------------------
class _Seat:
    """What one bot knows, read once from its view."""

    def __init__(self, view: dict, seed: int | str) -> None:
        self.v = view
        self.seed = seed
        you = view.get("you") or {}
        self.me: str | None = you.get("id")
        self.team: str = you.get("team") or TOWN
        self.alive: bool = bool(you.get("alive"))
        self.phase: dict = view.get("phase") or {}
        self.kind: str = self.phase.get("kind", "lobby")
        self.seq = self.phase.get("seq", 0)
        self.day: int = view.get("day") or 0
        self.players: dict[str, dict] = {p["id"]: p for p in view.get("players") or ()}
        self.seat_of = {pid: p.get("seat", 0) for pid, p in self.players.items()}
        self.private: dict = view.get("private") or {}
        self.allies = {a["id"] for a in you.get("allies") or ()}
        self.options: dict = view.get("options") or {}
        self.write = set((view.get("channels") or {}).get("write") or ())
        self.chat: list[dict] = view.get("chat") or []
        self._score: dict[str, float] | None = None
        self._claims: list[tuple[str, str, str, int]] | None = None
        self._key_table: tuple[tuple[str, str], ...] | None = None

    def rng(self, purpose: str, shared: str | None = None) -> random.Random:
        """A generator for one purpose in this phase; ``shared`` replaces the bot id by a
        string every bot of a group sees alike (the group then draws the same numbers)."""
        who = shared if shared is not None else self.me
        return random.Random(f"{self.seed}|{who}|{self.seq}|{purpose}")

    def name(self, pid: str) -> str:
        return self.players.get(pid, {}).get("name") or pid

    def living(self) -> list[str]:
        return [pid for pid, p in self.players.items() if p.get("alive")]

    def _keys(self) -> tuple[tuple[str, str], ...]:
        """(lower-case id or name, player id) for every player: what a line may call them."""
        if self._key_table is None:
            keys: dict[str, str] = {}
            for pid, p in self.players.items():
                keys[pid.lower()] = pid
                if p.get("name"):
                    keys.setdefault(str(p["name"]).lower(), pid)
            self._key_table = tuple(keys.items())
        return self._key_table

    def resolve(self, text: str) -> str | None:
        """The player a claim names, by id or by name."""
        return dict(self._keys()).get(text.strip().lower())

    def mentions(self, text: str) -> list[str]:
        """Players a line names (by id or name), in order of first mention."""
        return list(_mentions(text, self._keys()))

    def claims(self, day: int | None = None) -> list[tuple[str, str, str]]:
        """(speaker, kind, target) for each day-chat line that names a player; kind is a
        key of CLAIM_WEIGHT or "mention". Lines of one speaker about one target count once a day."""
        if self._claims is None:
            self._claims = self._read_claims()
        if day is None:
            return [c[:3] for c in self._claims]
        return [c[:3] for c in self._claims if c[3] == day]

    def _read_claims(self) -> list[tuple[str, str, str, int]]:
        seen = set()
        out = []
        for m in self.chat:
            speaker = m.get("from")
            if m.get("channel") != "day" or speaker is None:
                continue
            text = m.get("text", "")
            found = None
            claim = _claim_of(text)
            if claim is not None:
                target = self.resolve(claim[1])
                if target is not None:
                    found = [(claim[0], target)]
            if found is None:
                found = [("mention", t) for t in self.mentions(text)]
            for kind, target in found:
                key = (speaker, target, m.get("day"), kind)
                if target == speaker or key in seen:
                    continue
                seen.add(key)
                out.append((speaker, kind, target, m.get("day")))
        return out

    def verdicts(self) -> dict[str, int]:
        """+1 known enemy of the town, -1 known town, from public reveals and deaths, own
        results and roles shown to everyone (team mates are not counted: see ``allies``)."""
        out: dict[str, int] = {}
        for pid, p in self.players.items():
            rev = p.get("revealed") or {}
            if rev.get("team"):
                out[pid] = -1 if rev["team"] == TOWN else 1
            role = p.get("role")
            if role and pid != self.me and pid not in self.allies and role in ROLES:
                out[pid] = -1 if ROLES[role].team == TOWN else 1
        if self.preset in ("classic", "city"):
            # the mafia cannot target their own, so a night victim was not mafia (public)
            for e in self.v.get("events") or ():
                if e.get("kind") == "death" and e.get("by") == "mafia" and e.get("player") not in out:
                    out[e["player"]] = -1
        for r in self.private.get("results") or ():
            v = _verdict(r.get("result"))
            if v:
                out[r["target"]] = v
        return out

    def score(self) -> dict[str, float]:
        """Suspicion of every other player (higher: more likely an enemy), from this view only."""
        if self._score is not None:
            return self._score
        verd = self.verdicts()
        s = {pid: 0.0 for pid in self.players if pid != self.me}
        for pid, v in verd.items():
            if pid in s:
                s[pid] += 100.0 * v
        for pid in self.allies:
            if pid in s:
                s[pid] = -1000.0
        for speaker, kind, target in self.claims():
            w = CLAIM_WEIGHT.get(kind, MENTION_WEIGHT)
            sv = verd.get(speaker, 0)
            if speaker in self.allies:
                w *= 2  # a team mate's lead is worth following
            elif sv > 0:  # a known enemy's word counts backwards
                w = -w
            elif sv < 0:
                w *= 2
            if target in s and target not in self.allies:
                s[target] += w
            if target == self.me and w > 0 and speaker in s and speaker not in self.allies:
                s[speaker] += 1.0  # they accuse me, and I know better
        for speaker, kind, target in self.claims():
            # a claim the reveals proved right or wrong says who the speaker is
            tv = verd.get(target, 0)
            if speaker in s and speaker not in self.allies and tv and kind in CLAIM_WEIGHT:
                s[speaker] += CLAIM_WEIGHT[kind] * tv * (1.5 if kind == "sure" else 0.5)
        for e in self.v.get("events") or ():
            if e.get("kind") not in BALLOT_EVENTS or not e.get("ballots"):
                continue
            ballots = e["ballots"]
            proven = {t for t in ballots.values() if verd.get(t, 0) > 0}
            for voter, target in ballots.items():
                if voter not in s or voter in self.allies:
                    continue
                if target == "abstain":
                    if e.get("tally"):
                        s[voter] += 0.4  # sat out a vote the others took part in
                    continue
                tv = verd.get(target, 0)
                if target == self.me and self.team == TOWN:
                    s[voter] += 1.0
                elif tv:
                    s[voter] -= 1.5 * tv  # voted for a proven mafioso (-) or a proven townsman (+)
                if proven and target not in proven:
                    s[voter] += 0.75  # looked away from a mafioso the table was already voting for
        for nom in self.phase.get("nominations") or ():
            # original: today's nominations so far are public accusations
            by, target = nom.get("by"), nom.get("target")
            if target in s and target not in self.allies and by != target:
                s[target] += 1.0
            if target == self.me and by in s and by not in self.allies:
                s[by] += 1.0
        votes = self.v.get("votes") or {}
        if votes.get("day") == self.day:
            for target, n in ((votes.get("nomination") or {}).get("tally") or {}).items():
                if target in s and target not in self.allies:
                    s[target] += 0.5 * n
        noise = self.rng("noise")
        for pid in sorted(s):
            s[pid] += noise.random() * 0.3
        self._score = s
        return s

    def hunch(self, candidates: list[str]) -> str | None:
        """With no evidence: a shared pick (every bot draws the same order from public data),
        so a table of bots does not split its votes at random."""
        order = sorted(self.players, key=lambda pid: self.seat_of[pid])
        self.rng("hunch", shared=f"day{self.day}").shuffle(order)
        for pid in order:
            if pid in candidates:
                return pid
        return None

    @property
    def preset(self) -> str:
        return self.v.get("preset") or "classic"

    @property
    def can_skip(self) -> bool:
        """City and original take an explicit ``sleep`` to skip a night task; classic just waits."""
        return self.preset != "classic"

    def deaths(self) -> bool:
        return any(e.get("kind") == "death" for e in self.v.get("events") or ())

    def on_trial(self) -> bool:
        """Am I the one defending myself now (classic defense, city revote defense)?"""
        if self.kind != "defense":
            return False
        return self.phase.get("accused") == self.me or self.me in (self.phase.get("suspects") or ())

    def stalled(self) -> int:
        """How many days in a row, up to today, voted without executing anyone."""
        days: set[int] = set()
        for e in reversed(self.v.get("events") or ()):
            kind = e.get("kind")
            if kind == "death" and e.get("by") == "vote":
                break
            if kind in VOTE_EVENTS:
                days.add(e.get("day"))
        return len(days)

    def said_today(self, text: str) -> bool:
        return any(
            m.get("from") == self.me and m.get("day") == self.day and m.get("text") == text for m in self.chat
        )

    def last_said(self) -> float | None:
        ats = [m.get("at", 0.0) for m in self.chat if m.get("from") == self.me]
        return max(ats) if ats else None


def _verdict(result: Any) -> int:
    if result in ("mafia", "criminal"):
        return 1
    if result in ("notMafia", "notCriminal"):
        return -1
    if isinstance(result, str) and result in ROLES:
        return -1 if ROLES[result].team == TOWN else 1
    return 0


# --- what the bot wants this phase ---------------------------------------------------------------
def _line(seat: _Seat, kind: str, purpose: str, p: str | None = None, lang: str = "en") -> str | None:
    """One line of ``kind`` in ``lang`` naming ``p``; the id instead of a name the chat filter
    refuses; None if even that is refused."""
    lang = lang if lang in LANGS else "en"
    options = LINES[kind][lang]
    template = options[seat.rng("line:" + purpose).randrange(len(options))]
    names = [seat.name(p), p] if p is not None else [None]
    for who in names:
        text = template.replace("{p}", who) if who is not None else template
        try:
            return check_text(text, bool(seat.options.get("kidSafeChat", True)))
        except InvalidAction:
            continue
    return None


def _say(seat: _Seat, channel: str, kind: str, purpose: str, lang: str, p: str | None = None) -> dict | None:
    if channel not in seat.write:
        return None
    text = _line(seat, kind, purpose, p, lang)
    if not text:
        return None
    return {"type": "chat", "channel": channel, "text": text}


def _vote_target(seat: _Seat) -> str | None:
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


def _confirm_choice(seat: _Seat) -> str:
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


def _team_target(seat: _Seat) -> str | None:
    """The mafia's shared pick: a teammate's standing pick if legal, else one derived from
    what every living mafioso sees alike (public chat, ballots, reveals, the team list)."""
    targets = list(seat.private.get("targets") or ())
    if not targets:
        return None
    choice = seat.private.get("choice")
    if seat.preset == "classic" and choice in targets:
        return choice  # classic: the team's current target (the last pick of any mafioso)
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
        if rev.get("role") == "soldier":
            threat[t] -= 5.0  # survives one attack
    order = sorted(targets, key=lambda t: seat.seat_of.get(t, 0))
    seat.rng("team", shared="team:" + ",".join(team)).shuffle(order)
    return max(order, key=lambda t: threat[t])


def _heal_target(seat: _Seat) -> str | None:
    targets = list(seat.private.get("targets") or ())
    if not targets:
        return None
    r = seat.rng("heal")
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


def _investigate_target(seat: _Seat) -> str | None:
    done = {r.get("target") for r in seat.private.get("results") or () if r.get("kind") == "investigate"}
    cands = [t for t in seat.private.get("targets") or () if t not in done and t not in seat.allies]
    if not cands:
        return None
    s = seat.score()
    return max(sorted(cands), key=lambda t: s.get(t, 0.0))


def _peek_target(seat: _Seat) -> str | None:
    done = {r.get("target") for r in seat.private.get("results") or () if r.get("kind") == "mediumPeek"}
    cands = sorted(t for t in seat.private.get("targets") or () if t not in done)
    if not cands:
        return None
    return cands[seat.rng("peek").randrange(len(cands))]


ARREST_AT = 3.0  # an arrest removes a player: more than the table's talk, a found mafioso

# Night tasks that learn something about the target: pick someone not checked yet.
CHECK_TASKS = frozenset({"investigate", "godfatherCheck", "ninjaCheck", "lawyerPeek", "mediumPeek"})
TEAM_KILLS = frozenset({"mafiaTarget", "yakuzaTarget"})  # one target agreed by a team
NIGHT_TARGETED = CHECK_TASKS | TEAM_KILLS | {"heal", "madmanKill", "arrest"}
NIGHT_FAMILY = NIGHT_TARGETED | {"sleep"}
NULL_TARGET = TEAM_KILLS | {"madmanKill", "arrest"}  # "nobody" is a choice, not a skip


def _check_target(seat: _Seat, task: str) -> str | None:
    if task == "mediumPeek":
        return _peek_target(seat)
    if task == "investigate":
        return _investigate_target(seat)
    done = {r.get("target") for r in seat.private.get("results") or () if r.get("kind") == task}
    cands = [t for t in seat.private.get("targets") or () if t not in done and t not in seat.allies]
    if not cands:
        return None
    # whoever talks like the police is the one worth checking
    loud = {speaker for speaker, kind, _ in seat.claims() if kind == "sure"}
    r = seat.rng("check:" + task)
    return max(sorted(cands), key=lambda t: (t in loud) + r.random())


def _solo_kill(seat: _Seat) -> str | None:
    cands = [t for t in seat.private.get("targets") or () if t != seat.me]
    if not cands:
        return None
    s = seat.score()
    r = seat.rng("solo")
    return max(sorted(cands), key=lambda t: s.get(t, 0.0) + 2 * r.random())


def _arrest_target(seat: _Seat) -> str | None:
    """An arrest removes a player: only someone the evidence clearly points at."""
    cands = [t for t in seat.private.get("targets") or () if t != seat.me and t not in seat.allies]
    s = seat.score()
    best = max(sorted(cands), key=lambda t: s.get(t, 0.0), default=None)
    return best if best is not None and s.get(best, 0.0) >= ARREST_AT else None


def _night_action(seat: _Seat, task: str) -> dict | None:
    """The night action for ``task``, or a skip (``sleep``) where the preset has one."""
    if task in TEAM_KILLS:
        t = _team_target(seat)
    elif task == "heal":
        t = _heal_target(seat)
    elif task in CHECK_TASKS:
        t = _check_target(seat, task)
    elif task == "madmanKill":
        t = _solo_kill(seat)
    elif task == "arrest":
        t = _arrest_target(seat)
    else:
        t = None
    if t is not None and t in (seat.private.get("targets") or ()):
        return {"type": task, "target": t}
    if not seat.can_skip:
        return None
    # a deliberate "nobody" keeps the role's other duties tonight; a skip would end them
    return {"type": task, "target": None} if task in NULL_TARGET else {"type": "sleep"}


def _intents(seat: _Seat, lang: str) -> list[tuple[str, dict]]:
    """(window, action) for everything the bot wants this phase, in the order it would act.

    Driven by ``private.task`` (the engine's own word for what this seat may do now); the
    classic discussion's ``readyEarly`` is the one action with no task (window "readyEarly").
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
    if kind == "discussion" and task == "none" and seat.preset == "classic":
        out.append(("readyEarly", {"type": "readyEarly"}))
    if task == "ready":
        out.append(("ready", {"type": "readyEarly"}))
    elif task == "endTurn":
        out.append(("endTurn", {"type": "endTurn"}))
    elif task == "vote":
        t = _vote_target(seat)
        if t is None and seat.preset == "original":  # an abstention counts for the last suspect
            targets = list(seat.private.get("targets") or ())
            t = seat.hunch([x for x in targets if x not in seat.allies] or targets)
        out.append(("vote", {"type": "vote", "target": t or "abstain"}))
    elif task == "confirm":
        out.append(("confirm", {"type": "confirm", "choice": _confirm_choice(seat)}))
    elif task == "nominate":
        out.append(("nominate", {"type": "nominate", "target": _nominee(seat)}))
    elif task == "sleep":
        if seat.can_skip:  # city/original: everyone confirms; classic sleepers just wait
            out.append(("night", {"type": "sleep"}))
    elif kind == "night" and task not in ("none", "done"):
        a = _night_action(seat, task)
        if a is not None:
            if task in TEAM_KILLS and a.get("target") and seat.rng("kill").random() < 0.5:
                channel = "mafia" if task == "mafiaTarget" else "yakuza"
                line = _say(seat, channel, "kill", "kill", lang, a["target"])
                if line:
                    out.append(("nightTalk", line))
            out.append(("night", a))
            if seat.preset == "original":
                # a role may have several duties a night, shown one task at a time: wake
                # twice more (revise drops these once the night's work is done)
                out.append(("nightMore", a))
                out.append(("nightLast", a))
    return out


def _nominee(seat: _Seat) -> str | None:
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


def _discussion_lines(seat: _Seat, lang: str, r: random.Random) -> list[dict | None]:
    lines: list[dict | None] = []
    s = seat.score()
    living = [t for t in seat.living() if t != seat.me]
    verd = seat.verdicts()
    if seat.team == TOWN:
        found = [t for t in living if verd.get(t) == 1 and t not in seat.allies]
        cleared = [t for t in living if verd.get(t) == -1 and t not in seat.allies]
        # claim only what one's own results (or a public reveal) show
        if found:
            t = max(found, key=lambda t: s.get(t, 0.0))
            lines.append(_say(seat, "day", "sure", "sure", lang, t))
        elif living:
            t = max(sorted(living), key=lambda t: s.get(t, 0.0))
            if s.get(t, 0.0) >= 0.9 and r.random() < 0.7:
                lines.append(_say(seat, "day", "suspect", "suspect", lang, t))
        vouched = {t for sp, k, t in seat.claims() if sp == seat.me and k == "trust"}
        own = [x.get("target") for x in seat.private.get("results") or ()]
        fresh = [t for t in reversed(own) if t in cleared and t not in vouched]
        if fresh and r.random() < 0.8:
            lines.append(_say(seat, "day", "trust", "trust", lang, fresh[0]))
    else:
        others = sorted(t for t in living if t not in seat.allies)
        if others and r.random() < 0.45:
            t = max(others, key=lambda t: s.get(t, 0.0))
            lines.append(_say(seat, "day", "suspect", "suspect", lang, t))
    accused_me = any(t == seat.me and k != "trust" for _, k, t in seat.claims(seat.day))
    if accused_me and r.random() < 0.8:
        lines.append(_say(seat, "day", "notMe", "notMe", lang))
    return lines


# --- the API ---------------------------------------------------------------------------------------
def _done(seat: _Seat, action: dict) -> bool:
    """True when the view shows this action already in effect (so sending it is pointless)."""
    t = action["type"]
    if t == "chat":
        return seat.said_today(action["text"])
    if seat.preset != "classic":
        return False  # city/original: a confirmed choice is final and the task says "done"
    if t == "confirm":
        return seat.private.get("choice") == action["choice"]
    if t == "vote" or (t in NIGHT_TARGETED and action.get("target") is not None):
        return seat.private.get("choice") == action["target"]
    return False


def decide(view: dict, seed: int | str, now: float, lang: str = "en") -> list[dict]:
    """Everything the bot wants to do now (unpaced): game actions not yet in effect, and
    at most one chat line (if its rate limit allows at ``now``). ``[]``: nothing to do.
    Classic's discussion ``readyEarly`` is left to ``plan`` (the view does not show it)."""
    seat = _Seat(view, seed)
    out: list[dict] = []
    talked = False
    last = seat.last_said()
    for window, a in _intents(seat, lang):
        if window in PLAN_ONLY or _done(seat, a):
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

    Due times are spread inside [phase_start, deadline) by the bot's own seeded generator
    (``deadline`` defaults to ``view.phase.endsAt``), chat lines at least ``CHAT_GAP`` s
    apart; a phase without a deadline spreads over a few seconds. Store the entries with the
    phase ``seq`` and drop them when the phase changes; apply each through ``revise``.
    """
    seat = _Seat(view, seed)
    intents = [(w, a) for w, a in _intents(seat, lang) if not _done(seat, a)]
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
    r = seat.rng("pace")
    timed: list[tuple[float, dict]] = []
    for window, a in intents:
        lo, hi = WINDOWS[window]
        if window == "end":
            lo, hi = 0.2, 0.6
        at = phase_start + span * (lo + (hi - lo) * r.random())
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


def revise(view: dict, seed: int | str, action: dict, now: float, lang: str = "en") -> dict | None:
    """A planned ``action`` falls due at ``now``: what to apply (re-decided from the current
    view, e.g. following a team mate's newer pick), or None when it is no longer wanted."""
    seat = _Seat(view, seed)
    t = action.get("type")
    if view.get("paused"):
        return None
    if t == "readyEarly" and seat.private.get("task") != "ready":
        # classic: the view does not show who is ready, so the plan's one press stands
        ok = seat.alive and seat.kind == "discussion" and seat.preset == "classic"
        return action if ok else None
    if t == "chat":
        last = seat.last_said()
        if action.get("channel") not in seat.write or seat.said_today(action.get("text")):
            return None
        if last is not None and now - last < MIN_INTERVAL:
            return None
        if not seat.alive and seat.kind != "ended":
            return None
        return action
    family = NIGHT_FAMILY if t in NIGHT_FAMILY else {t}
    for a in decide(view, seed, now, lang):
        if a["type"] in family:
            return a  # at night: whatever the role has left to do (original: several duties)
    return None


def next_due(entries: list[tuple[float, Any]]) -> float | None:
    """The earliest due time in a list of plan entries (the room's ``wakeAt``), or None."""
    return min((at for at, *_ in entries), default=None)


# --- the room layer's loop, as pure functions over (state, stored plan) ---------------------------
def plan_room(state: dict, bot_ids: list[str], seed: int | str, now: float, lang: str = "en") -> dict:
    """The stored plan of every bot for the current phase: ``{"seq", "due": [[at, bot, action]]}``
    (JSON-ready, sorted by ``at``; ties keep seat order). Call it at every phase change."""
    from . import deadline, view

    due = []
    for pid in bot_ids:
        for at, a in plan(view(state, pid), seed, now, deadline(state), lang):
            due.append([at, pid, a])
    due.sort(key=lambda e: e[0])
    return {"seq": state["seq"], "due": due}


def wake_at(stored: dict | None) -> float | None:
    """When the first stored bot action falls due (``room.wakeAt``), or None."""
    if not stored or not stored.get("due"):
        return None
    return stored["due"][0][0]


def drain(
    state: dict,
    stored: dict | None,
    now: float,
    bot_ids: list[str],
    seed: int | str,
    lang: str = "en",
) -> tuple[dict, dict, list[tuple[float, str, dict]], list[tuple[float, str, dict, str]]]:
    """Apply every stored bot action due at ``now`` or before, in due order, each revised
    from the bot's current view and applied at its own due time; re-plan at each phase change
    (a stored plan of another phase is replaced by a fresh one from ``now``).

    Returns (state, stored plan, applied [(at, bot, action)], dropped [(at, bot, action, code)]);
    ``dropped`` holds refusals, which the tests keep at zero. Never applies ``phaseTimeout``:
    the caller does that after draining, then calls ``plan_room``.
    """
    from . import apply, view

    if stored is None or stored.get("seq") != state["seq"]:
        stored = plan_room(state, bot_ids, seed, now, lang)
    applied: list[tuple[float, str, dict]] = []
    dropped: list[tuple[float, str, dict, str]] = []
    due = list(stored["due"])
    while due and due[0][0] <= now:
        at, pid, planned = due.pop(0)
        if state["phase"]["kind"] == "ended" and planned.get("type") != "chat":
            continue
        a = revise(view(state, pid), seed, planned, at, lang)
        if a is None:
            continue
        seq = state["seq"]
        try:
            state = apply(state, {**a, "player": pid}, at)
        except InvalidAction as e:
            dropped.append((at, pid, a, e.code))
            continue
        applied.append((at, pid, a))
        if state["seq"] != seq:  # this action moved the game on: plan the new phase from here
            due = plan_room(state, bot_ids, seed, at, lang)["due"]
    return state, {"seq": state["seq"], "due": due}, applied, dropped
