"""The warnings PyTorch gives for a statement, asked of a fresh interpreter.

PyTorch warns about many deprecations once per process (``TORCH_WARN_ONCE``): whether a
test sees the warning would depend on which test ran first. A new interpreter sees it.
"""

from __future__ import annotations

import ast
import subprocess
import sys


def torch_warnings(statements: str) -> list[str]:
    """The messages of the warnings ``statements`` (``T`` is torch) give in a new process,
    without PyTorch's "(Triggered internally at ...)" suffix."""
    script = ("import warnings, torch as T\n"
              "with warnings.catch_warnings(record=True) as caught:\n"
              "    warnings.simplefilter('always')\n"
              f"    {statements}\n"
              "print(repr([str(w.message).split(' (Triggered internally')[0] for w in caught]))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.strip()
    return ast.literal_eval(out)  # the list of strings printed by repr() above
