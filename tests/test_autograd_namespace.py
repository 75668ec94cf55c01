"""teachgrad.autograd's lazy names stay what they are, whatever is looked up first.

``autograd/gradcheck.py`` defines the function ``gradcheck``: importing that submodule
binds the package attribute ``gradcheck`` to the module, which must not hide the function.
Each case runs in a fresh interpreter, since the order of first lookups is the point.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

PROGRAM = """
import teachgrad as torch
x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
f = lambda t: t ** 3
for name in {order!r}:
    assert getattr(torch.autograd, name)(f, (x,)) is True, name
print("ok")
"""


@pytest.mark.parametrize(
    "order",
    [
        ("gradcheck", "gradcheck"),
        ("gradgradcheck", "gradcheck", "gradgradcheck", "gradcheck"),
    ],
)
def test_gradcheck_stays_a_function(order):
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM.format(order=order)], capture_output=True, text=True
    )
    assert result.stdout.strip() == "ok", result.stderr
