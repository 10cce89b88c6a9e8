"""`make test` splits the browser and handler tiers into processes (tests/shards.py): every file runs
in exactly one shard, whole, and the shards come out near equal."""

from __future__ import annotations

import pytest

from tests.browser import shards


def test_every_browser_file_runs_in_exactly_one_shard_and_the_shards_are_balanced():
    files = {name: 3 for name in shards.SECONDS} | {"test_new_file": 4}
    out = shards.assign(files, 2)
    assert set(out) == set(files) and set(out.values()) == {1, 2}
    load = {k: sum(shards.SECONDS.get(f, shards.DEFAULT_PER_TEST * n) for f, n in files.items() if out[f] == k)
            for k in (1, 2)}
    assert abs(load[1] - load[2]) <= max(shards.SECONDS.values()), load
    assert shards.assign(files, 1) == dict.fromkeys(files, 1)


@pytest.mark.parametrize("spec", ["2", "0/2", "3/2", "a/b"])
def test_a_malformed_shard_is_refused_with_its_form(spec):
    with pytest.raises(ValueError, match="BROWSER_SHARD"):
        shards.parse(spec)


def test_every_handler_file_runs_in_exactly_one_shard_and_the_shards_are_balanced():
    from tests.functions import shards as handler_shards
    from tests.shards import assign

    files = {name: 20 for name in handler_shards.SECONDS} | {"test_new_file": 7}
    out = assign(files, 2, handler_shards.SECONDS, handler_shards.DEFAULT_PER_TEST)
    assert set(out) == set(files) and set(out.values()) == {1, 2}
    weight = {f: handler_shards.SECONDS.get(f, handler_shards.DEFAULT_PER_TEST * n) for f, n in files.items()}
    load = {k: sum(w for f, w in weight.items() if out[f] == k) for k in (1, 2)}
    assert abs(load[1] - load[2]) <= max(weight.values()), load


@pytest.mark.parametrize("spec", ["2", "0/2", "3/2", "a/b"])
def test_a_malformed_handler_shard_is_refused_with_its_form(spec):
    from tests.shards import parse

    with pytest.raises(ValueError, match="HANDLERS_SHARD"):
        parse(spec, "HANDLERS_SHARD")
