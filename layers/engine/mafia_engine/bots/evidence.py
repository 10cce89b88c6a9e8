"""The bots' evidence model: what one seat knows, read once from its own view.

``Seat`` never sees a state: only ``mafia_engine.view(state, seat)`` (and names the room
layer adds). Suspicion comes from public reveals and deaths, the seat's own night results,
day-chat phrases that claim something (``chat.PHRASES``: no prose is parsed), the players
free text names, and the public ballots; the preset's
public ``rules`` in the view say which deductions hold.
"""

from __future__ import annotations

import random
from typing import Any

from ..presets.base import Rules
from ..roles import TOWN
from . import phrases

# How much a line says about the player it names (positive: suspicion).
CLAIM_WEIGHT = {"sure": 2.0, "suspect": 1.0, "trust": -1.0}
MENTION_WEIGHT = 0.5  # a human line that names someone: a weak accusation
# Rules a view without ``rules`` (an older room layer) is read with.
DEFAULT_RULES = Rules().as_view()

# Events that publish who voted for whom (classic, city, original).
BALLOT_EVENTS = ("nomination", "voteResult", "trialVote")


VOTE_EVENTS = (*BALLOT_EVENTS, "confirm", "allOrNone")


# --- reading the view ---------------------------------------------------------------------------
def content(m: dict) -> tuple:
    """What a chat message or action says: its text, or its phrase with arguments and variant."""
    if m.get("phrase") is not None:
        return ("phrase", m["phrase"], tuple(sorted((m.get("args") or {}).items())), m.get("variant") or 0)
    return ("text", m.get("text"))


class Seat:
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
        self.rules: dict[str, Any] = {**DEFAULT_RULES, **(view.get("rules") or {})}
        # the preset's catalogue (view.rules): its roles by id and the tasks it hands out
        self.roles: dict[str, dict] = {r["id"]: r for r in self.rules.get("roles") or ()}
        self.tasks: dict[str, dict] = dict(self.rules.get("tasks") or {})
        self._score: dict[str, float] | None = None
        self._claims: list[tuple[str, str, str, int]] | None = None
        self._key_table: tuple[tuple[str, str], ...] | None = None

    def rng(self, purpose: str, shared: str | None = None) -> random.Random:
        """A generator for one purpose in this phase; ``shared`` replaces the bot id by a
        string every bot of a group sees alike (the group then draws the same numbers)."""
        who = shared if shared is not None else self.me
        return random.Random(f"{self.seed}|{who}|{self.seq}|{purpose}")

    def public(self) -> Seat:
        """The same seat read from the view's public part only: no role, team, allies, roles
        of others or night results (what any player at the table could work out). Rules that
        must not depend on the bot's card (whether and when it talks) read this seat."""
        v = dict(self.v)
        you = v.get("you") or {}
        v["you"] = {"id": you.get("id"), "role": None, "team": None, "alive": you.get("alive"), "allies": []}
        v["players"] = [{**p, "role": None} for p in v.get("players") or ()]
        v["private"] = None
        return Seat(v, self.seed)

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
        return list(phrases.mentions(text, self._keys()))

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
            phrase = m.get("phrase")
            if phrase is not None:  # a phrase says what it claims: no prose to parse
                target = (m.get("args") or {}).get("target")
                if target not in self.players:
                    continue
                found = [(phrase if phrase in phrases.CLAIM_INTENTS else "mention", target)]
            else:  # free text: the players it names
                found = [("mention", t) for t in self.mentions(m.get("text") or "")]
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
            if role and pid != self.me and pid not in self.allies and role in self.roles:
                out[pid] = -1 if self.roles[role]["team"] == TOWN else 1
        if self.rules["nightVictimNotMafia"]:
            # the mafia cannot target their own, so a night victim was not mafia (public)
            for e in self.v.get("events") or ():
                if e.get("kind") == "death" and e.get("by") == "mafia" and e.get("player") not in out:
                    out[e["player"]] = -1
        for r in self.private.get("results") or ():
            v = verdict(r.get("result"), self.roles)
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
    def locks(self) -> bool:
        """Choices are confirmed once and final; a night task is skipped with ``sleep``
        (else picks stay open until the timer and sleepers just wait)."""
        return self.rules["confirmLocks"]

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

    def said_today(self, line: dict) -> bool:
        """True when this seat said ``line`` (a chat action or message: its text or phrase) today."""
        said = content(line)
        return any(m.get("from") == self.me and m.get("day") == self.day and content(m) == said for m in self.chat)

    def last_said(self) -> float | None:
        ats = [m.get("at", 0.0) for m in self.chat if m.get("from") == self.me]
        return max(ats) if ats else None


def verdict(result: Any, roles: dict[str, dict]) -> int:
    """+1: the result shows an enemy of the town; -1: a townsman; 0: nothing either way.

    ``roles``: the catalogue (``Seat.roles``). A check's reading is good news when a town role
    reads so ("notMafia", "notCriminal"), bad when only other teams do ("mafia", "criminal");
    a result naming a role (a peek) tells that role's team."""
    if not isinstance(result, str):
        return 0
    good = {r["checkReads"] for r in roles.values() if r["team"] == TOWN}
    if result in good:
        return -1
    if any(r["checkReads"] == result for r in roles.values()):
        return 1
    if result in roles:
        return -1 if roles[result]["team"] == TOWN else 1
    return 0
