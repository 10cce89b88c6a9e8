"""The one launcher of the offline stack for tests and benches (`local.process`): the e2e
tier (tests/e2e/stackproc.py), the browser tier (tests/browser/stack.py) and the benches
start `python -m local` through it, on a scaled or a manual clock."""

from __future__ import annotations

from local.process import StackProcess, free_port, start_stack

__all__ = ["StackProcess", "free_port", "start_stack"]
