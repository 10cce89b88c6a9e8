"""The update path's table rule (ops/table_update.py): one stack update changes at most one
global secondary index and never the table's keys. tests/unit/golden_tables/<release>.json is
a release's table as its template defined it (`local.template.table_definition`, TTL aside)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from local import template as tpl
from ops import table_update

TABLES = Path(__file__).resolve().parent / "golden_tables"
PREVIOUS = "b208b0a"  # the release a deploy of this one updates
BEFORE_PUBLIC = "928ca1b"  # main before the public rooms' two indexes were merged (85e4855)


def table(release: str) -> dict:
    return json.loads((TABLES / f"{release}.json").read_text())


def current() -> dict:
    return {k: v for k, v in tpl.table_definition(tpl.load()).items() if k != "_ttl"}


def test_updating_the_previous_release_changes_what_one_update_may():
    assert table_update.problems(table(PREVIOUS), current()) == []


def test_the_update_that_added_both_public_indexes_would_fail_on_a_real_table():
    """85e4855 added PublicByLang and PublicByPreset at once: a real table refuses that."""
    (found,) = table_update.problems(table(BEFORE_PUBLIC), table(PREVIOUS))
    assert found.startswith("2 global secondary indexes created") and "PublicByPreset" in found


def test_one_index_per_update_passes_and_a_change_in_place_does_not():
    before, after = table(BEFORE_PUBLIC), table(PREVIOUS)
    one = copy.deepcopy(after)
    one["GlobalSecondaryIndexes"] = one["GlobalSecondaryIndexes"][:1]
    assert table_update.problems(before, one) == []
    assert table_update.problems(one, after) == []
    moved = copy.deepcopy(after)
    moved["GlobalSecondaryIndexes"][0]["Projection"] = {"ProjectionType": "ALL"}
    (found,) = table_update.problems(after, moved)
    assert "changes in place" in found and "Projection" in found


def test_a_new_table_key_or_local_index_would_replace_the_table():
    after = copy.deepcopy(table(PREVIOUS))
    after["KeySchema"] = [{"AttributeName": "pk", "KeyType": "HASH"}]
    after["LocalSecondaryIndexes"] = [{"IndexName": "L", "KeySchema": [], "Projection": {}}]
    found = table_update.problems(table(PREVIOUS), after)
    assert len(found) == 2 and "every room is lost" in found[0] and "replaced" in found[1]


def test_the_command_exits_1_with_a_line_per_problem(capsys):
    assert table_update.main([str(TABLES / f"{PREVIOUS}.json")]) == 0
    assert capsys.readouterr().out == ""
    assert table_update.main([str(TABLES / f"{BEFORE_PUBLIC}.json")]) == 1
    assert capsys.readouterr().out.startswith("2 global secondary indexes created")
