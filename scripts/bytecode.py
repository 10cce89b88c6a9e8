"""Compile every module under a Lambda artifact directory to bytecode, as the runtime would.

Used by the root Makefile's `build-<LogicalId>` targets (`sam build`). The .pyc files are
unchecked-hash: Python loads them without comparing the source's date (a zip upload may not
keep it) or hashing the source. Each records the path its module has on Lambda (`ddir`:
/var/task/... for a function, /opt/python/... for the layer), not the build folder's, so a
traceback names the file Lambda has (with its source line: the .py ships beside the .pyc), and
two builds of one commit in different folders write byte-identical files (nothing is
republished by a deploy from another checkout; tests/functions/test_deploy_artifacts.py).
Lambda runs python3.11, whose bytecode only Python 3.11 writes; another Python leaves the
artifact as source (correct, just a slower cold start) and says so.

First it drops the console scripts `pip install --target` wrote to `bin/` (jmespath's `jp.py`):
their shebang names the build folder's Python, which would make two builds differ, and Lambda
never runs them; their lines in the packages' RECORD go too.

    python scripts/bytecode.py DIR [RUNTIME_DIR]   # RUNTIME_DIR: where DIR is on Lambda (/var/task)
"""

from __future__ import annotations

import compileall
import py_compile
import shutil
import sys
from pathlib import Path

LAMBDA_PYTHON = (3, 11)  # template.yaml: Runtime python3.11
TASK_ROOT = "/var/task"  # a function's package on Lambda; a layer's python/ is /opt/python


def drop_console_scripts(directory: Path) -> None:
    scripts = directory / "bin"
    if not scripts.is_dir():
        return
    shutil.rmtree(scripts)
    for record in directory.glob("*.dist-info/RECORD"):
        lines = record.read_text(encoding="utf-8").splitlines(keepends=True)
        kept = [line for line in lines if not line.startswith("../../bin/")]
        if kept != lines:
            record.write_text("".join(kept), encoding="utf-8")


def main(directory: str, runtime_dir: str = TASK_ROOT) -> int:
    drop_console_scripts(Path(directory))
    if sys.version_info[:2] != LAMBDA_PYTHON:
        print(
            f"bytecode.py: Python {sys.version_info[0]}.{sys.version_info[1]} is not the Lambda runtime's "
            f"{LAMBDA_PYTHON[0]}.{LAMBDA_PYTHON[1]}: {directory} ships as source",
            file=sys.stderr,
        )
        return 0
    ok = compileall.compile_dir(
        directory,
        ddir=runtime_dir,
        quiet=1,
        force=True,
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
