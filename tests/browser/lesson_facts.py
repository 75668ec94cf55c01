"""What lesson 1 (the computation graph) must show, derived by hand from its code.

The lesson builds ``y = x + 2; z = y * y * 3; z.retain_grad(); out = z.mean()`` with
``x = torch.ones(2, 2, requires_grad=True)``. Then ∂out/∂xᵢ = 6 (xᵢ + 2) / 4 = 4.5, and
the engine (PyTorch's order) runs Mean, z's Mul (the ·3), the Mul of y·y, y's Add, and
x's AccumulateGrad. The graph drawing and the stepper write a tensor's name above its
node when the lesson passes ``names=locals()``.
"""

from __future__ import annotations

import re
from pathlib import Path

LESSONS = Path(__file__).resolve().parents[2] / "notebooks"

LESSON = "01_the_computation_graph.ipynb"
KERNEL = "Python 3 (teachgrad)"
#: (tensor name written in the box, or None; autograd node) of each backward step
BACKWARD_ORDER = [
    (None, "MeanBackward0"), ("z", "MulBackward0"), (None, "MulBackward0"),
    ("y", "AddBackward0"), ("x", "AccumulateGrad"),
]
LAST = len(BACKWARD_ORDER)  # the stepper's frames: 0 (about to start) … LAST
GRAPH_NAMES = {"out", "z", "y", "x", "MeanBackward0", "MulBackward0", "AddBackward0",
               "AccumulateGrad"}
X_GRAD = "[[4.5000, 4.5000],\n [4.5000, 4.5000]]"  # as PyTorch prints it
#: the end of the last panel: x's gradient, from nothing to its final value
FINAL_PANEL = f"x.grad: None before → {' '.join(X_GRAD.split())} after"


def flat(text: str) -> str:
    """``text`` with every run of white space made one space (panels lay values out)."""
    return " ".join(text.split())


def node_of(box_text: str) -> tuple[str | None, str]:
    """A graph box's text → (tensor name, node).

    >>> node_of("z MulBackward0 [2, 2] grad all 0.25")
    ('z', 'MulBackward0')
    """
    found = re.match(r"(?:(\w+) )?(\w+Backward\d+|AccumulateGrad)\b", box_text)
    assert found, f"not a node box: {box_text!r}"
    return found.group(1), found.group(2)
