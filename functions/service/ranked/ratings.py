"""Ranked play's ratings (docs/rules.md, "Ranked play"): OpenSkill's Plackett-Luce model, one
`rate` call per finished game for every side at once. Pure: no boto3, no clock, no randomness
of its own; the caller hands in the game's result, who held each seat for how long, and the
ratings read before the game, and stores what comes back.

Entities rated (each a `Rating`, keyed by a string):

- a person: their public handle (`people.handle`), one rating per season and language;
- a side's balance (`balance_entity`): each preset and table size's side is a pseudo-player on
  its own team, so a setup whose mafia wins more often carries that edge in the mafia team's
  strength: the town players who beat it gain more, those who lose to it lose less, and an
  unbalanced setup stops punishing its players (the edge is learnt game by game);
- a bot (`bot_entity`): one per preset (the bots' one kind), so beating bots is worth what
  the bots are worth.

A seat held by several (a substitute, or a bot that took it) puts each holder on the seat's
team with OpenSkill's weight set to the share of the game they held it. A person who left a
ranked game alive is rated as a loss whatever their side did: in the same `rate` call they are
on a losing side's team (in a draw, a team of their own ranked last), so a leave lifts nobody:
a losing side never "beats" its leavers.

Shown as players understand it (`standing`): points (1000 + 40 × the ordinal, mu − 3 sigma,
never below 0), a tier from them, and "placement" for the first `PLACEMENT_GAMES` games.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from openskill.models import PlackettLuce

MU = 25.0
SIGMA = MU / 3
PLACEMENT_GAMES = 5  # the first games of a season show "placement", not a tier
BASE_POINTS = 1000
POINTS_PER_ORDINAL = 40
# points from which a tier starts, lowest first
TIERS: tuple[tuple[str, int], ...] = (
    ("bronze", 0),
    ("silver", 1200),
    ("gold", 1450),
    ("platinum", 1700),
    ("diamond", 1950),
)
TIER_WORDS: Mapping[str, Mapping[str, str]] = {
    "en": {"placement": "Placement", "bronze": "Bronze", "silver": "Silver", "gold": "Gold",
           "platinum": "Platinum", "diamond": "Diamond"},
    "ru": {"placement": "Калибровка", "bronze": "Бронза", "silver": "Серебро", "gold": "Золото",
           "platinum": "Платина", "diamond": "Алмаз"},
    "ko": {"placement": "배치 고사", "bronze": "브론즈", "silver": "실버", "gold": "골드",
           "platinum": "플래티넘", "diamond": "다이아몬드"},
}  # fmt: skip
LEAVERS = "leavers"  # the team of those who left alive (always ranked last)

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


@dataclass(frozen=True)
class Rating:
    """One entity's rating: OpenSkill's mu and sigma, and the games and wins it counts."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    wins: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def as_dict(self) -> dict:
        return {
            "mu": round(self.mu, 6),
            "sigma": round(self.sigma, 6),
            "games": self.games,
            "wins": self.wins,
        }

    @staticmethod
    def of(data: Mapping | None) -> Rating:
        if not data:
            return Rating()
        return Rating(
            float(data["mu"]), float(data["sigma"]), int(data.get("games", 0)), int(data.get("wins", 0))
        )


@dataclass(frozen=True)
class Holder:
    """Who held a seat for part of the game: an entity key and its share (0..1]; `left`: a
    person who left the game alive from this seat (rated as a loss)."""

    entity: str
    share: float
    left: bool = False


def balance_entity(preset: str, size: int, side: str) -> str:
    return f"balance:{preset}:{size}:{side}"


def bot_entity(preset: str) -> str:
    return f"bot:{preset}"


def is_person(entity: str) -> bool:
    """Persons' keys are handles; the pseudo-players' and bots' keys name their kind."""
    return not entity.startswith(("balance:", "bot:"))


def season_of(now: float) -> str:
    """The season (a calendar month, UTC) that the epoch second `now` falls in: "2026-12"."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m")


def points(r: Rating) -> int:
    return max(0, round(BASE_POINTS + POINTS_PER_ORDINAL * r.ordinal))


def tier_of(pts: int) -> str:
    out = TIERS[0][0]
    for name, start in TIERS:
        if pts >= start:
            out = name
    return out


def standing(r: Rating) -> dict:
    """A rating as a player reads it: points, tier (or "placement" with the games left)."""
    pts = points(r)
    left = max(0, PLACEMENT_GAMES - r.games)
    return {
        "points": pts,
        "tier": "placement" if left else tier_of(pts),
        "placementLeft": left,
        "games": r.games,
    }


@dataclass(frozen=True)
class Rated:
    """What one game did: every entity's new rating, and each person's before and after."""

    ratings: dict[str, Rating]
    changes: dict[str, dict]  # person -> {"before", "after" (standings), "delta" (points), "won"}


def rate_game(
    result: Mapping,
    preset: str,
    holders: Mapping[str, list[Holder]],
    ratings: Mapping[str, Rating],
) -> Rated:
    """Rate one finished game. `result`: the engine's (players with `id`, `team`, `won`);
    `holders`: seat id -> who held it and for what share; `ratings`: the entities' ratings
    before the game (one missing: a new entity). One `rate` call: a team per side (its
    holders and its balance pseudo-player); the winners' sides rank first, a draw ranks every
    side alike. Those who left alive lose with a losing side's team whatever side they left
    (in a draw: a team of their own, ranked below every side): a team of leavers ranked last
    would hand the losing sides a "win" over it, and their points would rise for a loss."""
    players = list(result.get("players") or ())
    size = len(players)
    sides: dict[str, list[Holder]] = {}
    won_side: dict[str, bool] = {}
    leavers: list[Holder] = []
    for p in players:
        side = p["team"]
        sides.setdefault(side, [])
        won_side[side] = won_side.get(side, False) or bool(p.get("won"))
        for h in holders.get(p["id"], ()):
            if h.share <= 0:
                continue
            (leavers if h.left else sides[side]).append(h)
    order = sorted(sides)
    teams: list[list[Holder]] = [[*sides[s], Holder(balance_entity(preset, size, s), 1.0)] for s in order]
    ranks = [0 if won_side[s] else 1 for s in order]
    won = {h.entity: won_side[s] for s, team in zip(order, teams, strict=True) for h in team}
    losing = [i for i, s in enumerate(order) if not won_side[s]]
    if leavers and losing and len(losing) < len(order):
        teams[losing[0]][:0] = leavers  # they lose with a losing side, whatever side they left
    elif leavers:
        teams.append(leavers)  # a draw (or nobody won): a team of their own, below every side
        ranks.append(max(ranks) + 1)
    won.update({h.entity: False for h in leavers})
    before = {h.entity: ratings.get(h.entity) or Rating() for team in teams for h in team}
    out = _MODEL.rate(
        [
            [_MODEL.rating(mu=before[h.entity].mu, sigma=before[h.entity].sigma) for h in team]
            for team in teams
        ],
        ranks=ranks,
        weights=[[max(h.share, 0.01) for h in team] for team in teams],
    )
    # an entity on several seats (bots of one preset): the mean of its moves, the least sigma
    moves: dict[str, list[tuple[float, float]]] = {}
    for team, rated in zip(teams, out, strict=True):
        for h, r in zip(team, rated, strict=True):
            moves.setdefault(h.entity, []).append((r.mu - before[h.entity].mu, r.sigma))
    new: dict[str, Rating] = {}
    changes: dict[str, dict] = {}
    for entity, ms in moves.items():
        b = before[entity]
        n = Rating(
            b.mu + sum(m for m, _ in ms) / len(ms),
            min(s for _, s in ms),
            b.games + 1,
            b.wins + (1 if won[entity] else 0),
        )
        new[entity] = n
        if is_person(entity):
            sb, sa = standing(b), standing(n)
            changes[entity] = {
                "before": sb,
                "after": sa,
                "delta": sa["points"] - sb["points"],
                "won": won[entity],
            }
    return Rated(new, changes)


# ---------------------------------------------------------------- leaving a ranked game alive
COOLDOWN_WINDOW = 7 * 24 * 3600  # leaves counted: the last week
COOLDOWN_STEPS = (10 * 60, 30 * 60, 2 * 3600, 24 * 3600)  # the 1st, 2nd, 3rd, 4th-and-later leave's wait


def cooldown_until(leaves: list[tuple[float, bool]], now: float) -> float:
    """Until when (epoch seconds; <= now: no wait) a person whose ranked leaves in the
    window are `leaves` ((at, waived), any order) may not play ranked. Graded: the n-th
    counted leave of the week waits `COOLDOWN_STEPS[n-1]` from that leave; a leave whose seat a
    substitute or bot took at once is waived (it neither waits nor counts). A leave stamped a
    moment after `now` counts too: a room's writes keep their own strictly rising time (a few
    milliseconds ahead of the clock at most), and a leave is never in the future."""
    counted = sorted(at for at, waived in leaves if not waived and now - COOLDOWN_WINDOW < at)
    if not counted:
        return 0.0
    step = COOLDOWN_STEPS[min(len(counted), len(COOLDOWN_STEPS)) - 1]
    return counted[-1] + step


# ---------------------------------------------------------------- ranked quick play's band
BAND_START = 100  # a ranked lobby seats people within this many points of its table's mean...
BAND_PER_SECOND = 10  # ...widening this much each second it waits (a lobby starts within a minute)...
BAND_MAX = 1000  # ...up to this
RANKED_AFTER_CASUAL = 3  # ranked play opens after this many finished casual games (a smurf costs time)


def bucket_of(pts: int) -> int:
    """Ranked quick play's rating bucket (its forming lobbies: room/rest_ops.py `forming_code`):
    `BAND_START` points wide, a newcomer's points (`BASE_POINTS`) in the middle of bucket 0, so
    any two of a bucket are within a new lobby's band of each other's mean."""
    return (pts - BASE_POINTS + BAND_START // 2) // BAND_START


def band(waited: float) -> int:
    """The points either side of a ranked lobby's mean that it seats after `waited` seconds."""
    return int(min(BAND_MAX, BAND_START + BAND_PER_SECOND * max(0.0, waited)))
