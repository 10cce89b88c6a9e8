"""An operator's tools for persons (passkey sign-in: docs/architecture.md, "Identity"):
`python -m ops.persons show ID | ban ID | unban ID`.

A ban holds across every passkey and device of the person: sign-in refuses each of their
passkeys, and a session they hold is refused at a join (`banned`: docs/rules.md, "Ranked
play"). The id comes from a report in a ranked room (`python -m ops.reports show REPORT`).
Against AWS: `TABLE_NAME=<stack output TableName> python -m ops.persons ban ID`; against the
offline stack: `--local http://127.0.0.1:8000`. One GetItem (show) or one UpdateItem (ban).
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from ops.reports import _store, _when, use_local_stack

COMMANDS = ("show", "ban", "unban")
ID_SHAPE = re.compile(r"-[A-Za-z0-9_-]{21}")  # a person id that begins with "-" (token_urlsafe)


def _ids_as_operands(argv: list[str]) -> list[str]:
    """A person id may begin with "-" (one in 64 does): after its command it is the operand,
    never an option (argparse would read `-hg5…` as -h), so a "--" goes before it."""
    out: list[str] = []
    for i, arg in enumerate(argv):
        if i and argv[i - 1] in COMMANDS and ID_SHAPE.fullmatch(arg):
            out.append("--")
        out.append(arg)
    return out


def main(argv: list[str] | None = None, out=None, store=None) -> int:
    out = out or sys.stdout
    p = argparse.ArgumentParser(prog="python -m ops.persons", description="Show, ban or unban a person.")
    p.add_argument("--local", metavar="URL", help="an offline stack (python -m local) instead of AWS")
    sub = p.add_subparsers(dest="command", required=True)
    for name, text in zip(COMMANDS, ("a person's record", "ban a person", "lift a ban"), strict=True):
        sub.add_parser(name, help=text).add_argument("id")
    args = p.parse_args(_ids_as_operands(sys.argv[1:] if argv is None else argv))
    if args.local:
        use_local_stack(args.local)
    from service.identity import persons, sessions

    if not sessions.PERSON_PATTERN.fullmatch(args.id):
        out.write("not a person id (22 characters of A-Z a-z 0-9 _ -)\n")
        return 2
    store = store or _store()
    if args.command == "show":
        person = store.person(args.id)
        if person is None:
            out.write(f"no person {args.id}\n")
            return 1
        out.write(json.dumps({**person, "createdAt": _when(person["created"])}) + "\n")
        return 0
    if not persons.ban(store, args.id, args.command == "ban"):
        out.write(f"no person {args.id}\n")
        return 1
    out.write(f"{args.command}ned {args.id}\n" if args.command == "ban" else f"unbanned {args.id}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
