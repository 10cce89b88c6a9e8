"""What one stack update may change of the room table: the update path's table rule
(docs/operations.md, "Upgrades with games in flight").

CloudFormation updates a DynamoDB table in place only within what DynamoDB allows of one
`UpdateTable`: one global secondary index created or deleted per update (a template that adds
two fails on a real table, after the functions may already have changed), an index's keys or
projection never changed in place (a delete and a create: two updates), and the table's own
key schema or local indexes never changed at all (that replaces the table: every room is
lost). moto applies all of these at once, so the rehearsal's stack cannot see it; this reads
the two templates' table definitions (`local.template.table_definition`) and says what a
real update would refuse or destroy. A release's definition is kept as
tests/unit/golden_tables/<release>.json (tests/unit/test_table_update.py checks this
template against the previous release's).

    python -m ops.table_update tests/unit/golden_tables/b208b0a.json [template.yaml]  # exit 1: a line per problem
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from local import template as tpl


def _indexes(definition: dict, kind: str) -> dict[str, dict]:
    return {ix["IndexName"]: ix for ix in definition.get(kind) or []}


def problems(before: dict, after: dict) -> list[str]:
    """What updating a table defined as `before` to `after` (table_definition outputs) in one
    stack update would fail at or destroy; empty when the update is one DynamoDB allows."""
    out: list[str] = []
    if before["KeySchema"] != after["KeySchema"]:
        out.append("the table's key schema changes: CloudFormation replaces the table (every room is lost)")
    if _indexes(before, "LocalSecondaryIndexes") != _indexes(after, "LocalSecondaryIndexes"):
        out.append("the local secondary indexes change: they are fixed at creation (the table is replaced)")
    old, new = _indexes(before, "GlobalSecondaryIndexes"), _indexes(after, "GlobalSecondaryIndexes")
    created, deleted = sorted(set(new) - set(old)), sorted(set(old) - set(new))
    if len(created) + len(deleted) > 1:
        out.append(
            f"{len(created) + len(deleted)} global secondary indexes created or deleted in one update "
            f"(created {created}, deleted {deleted}): DynamoDB takes one per update, ship them one release each"
        )
    for name in sorted(set(old) & set(new)):
        for part in ("KeySchema", "Projection"):
            if old[name].get(part) != new[name].get(part):
                out.append(
                    f"index {name}: its {part} changes in place, which takes a delete and a create "
                    "(two updates, under a new name)"
                )
    return out


def main(argv: list[str]) -> int:
    before = json.loads(Path(argv[0]).read_text())
    after = tpl.table_definition(tpl.load(argv[1]) if len(argv) > 1 else tpl.load())
    found = problems(before, after)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
