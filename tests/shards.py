"""A tier as several processes (`make test`: `<TIER>_SHARD=1/2` and `2/2`, each beside the other
parts, so one long tier does not run alone at the end on one of the two cores): whole files per
shard (their module fixtures stay in one process), balanced by the seconds each file took.
A stale figure only unbalances the shards: every file still runs in exactly one of them
(tests/unit/test_browser_shards.py)."""

from __future__ import annotations

import os


def parse(spec: str, var: str) -> tuple[int, int]:
    """"k/n" -> (k, n), 1 <= k <= n; `var` names the setting in the error."""
    k, _, n = spec.partition("/")
    try:
        shard, count = int(k), int(n)
    except ValueError:
        raise ValueError(f"{var} must be k/n (like 1/2), not {spec!r}") from None
    if not 1 <= shard <= count:
        raise ValueError(f"{var} {spec!r}: k must be 1..n")
    return shard, count


def assign(tests_per_file: dict[str, int], count: int, seconds: dict[str, float], per_test: float) -> dict[str, int]:
    """Each file's shard (1..count): the heaviest file first, each to the lightest shard; a file
    not in `seconds` weighs `per_test` seconds a test."""
    weight = {f: seconds.get(f, per_test * n) for f, n in tests_per_file.items()}
    load = [0.0] * count
    out: dict[str, int] = {}
    for f in sorted(weight, key=lambda f: (-weight[f], f)):
        i = min(range(count), key=lambda i: (load[i], i))
        load[i] += weight[f]
        out[f] = i + 1
    return out


def select(config, items: list, var: str, seconds: dict[str, float], per_test: float) -> None:
    """pytest_collection_modifyitems for a tier: with `var`=k/n in the environment, only the
    files of shard k stay (the others are reported deselected)."""
    spec = os.environ.get(var)
    if not spec:
        return
    shard, count = parse(spec, var)
    files: dict[str, int] = {}
    for item in items:
        files[item.path.stem] = files.get(item.path.stem, 0) + 1
    mine = assign(files, count, seconds, per_test)
    config.hook.pytest_deselected(items=[item for item in items if mine[item.path.stem] != shard])
    items[:] = [item for item in items if mine[item.path.stem] == shard]
