"""teachgrad in Jupyter: see every tensor's autograd state and every backward pass.

* ``%load_ext teachgrad`` shows each displayed tensor as a table of its autograd state,
  a model as its structure beside its parameters and their gradients' norms, and an
  optimizer as its parameter groups and state (see :mod:`teachgrad.notebook.extension`
  and :mod:`teachgrad.notebook.module_view`; ``%teachgrad plain`` switches back).
* :func:`inspect` puts several tensors side by side: ``inspect(x, y, z)``.
* :func:`draw` draws the graph ``backward()`` will walk: ``draw(out, names=locals())``.
* :func:`step_backward` runs ``backward()`` step by step, with the chain rule of each step:
  ``step_backward(out, names=locals())`` instead of ``out.backward()``;
  :func:`step_forward` replays how the graph was built, op by op.
* :func:`evaluation_trace` runs a function in forward mode and tabulates every
  intermediate value with its tangent.
* ``python -m teachgrad.notebook install-kernel`` installs the "Python 3 (teachgrad)"
  Jupyter kernel, which loads the extension at start.

Importing this package is cheap: each public name is looked up in its submodule only the
first time it is used, so ``import teachgrad.notebook`` does not import IPython, graphviz
or ipywidgets.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Public name -> the submodule (of this package) that defines it.
# To export something new, add one line here.
_EXPORTS: dict[str, str] = {
    "inspect": "inspector",
    "Inspection": "inspector",
    "install_kernel_spec": "kernelspec",
    "draw": "graph",
    "Drawing": "graph",
    "step_backward": "stepper",
    "Stepper": "stepper",
    "step_forward": "forward",
    "ForwardReplay": "forward",
    "evaluation_trace": "forward_trace", "EvaluationTrace": "forward_trace",
    "line_plot": "plot", "scatter_plot": "plot",
    "check": "exercises",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # for editors and type checkers; at run time __getattr__ does the work
    from .forward import ForwardReplay, step_forward  # noqa: F401
    from .forward_trace import EvaluationTrace, evaluation_trace  # noqa: F401
    from .graph import Drawing, draw  # noqa: F401
    from .inspector import Inspection, inspect  # noqa: F401
    from .kernelspec import install_kernel_spec  # noqa: F401
    from .stepper import Stepper, step_backward  # noqa: F401


def __getattr__(name: str) -> Any:
    """Import the submodule that defines ``name`` on first use (PEP 562)."""
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module_name}", __name__), name)
    globals()[name] = value  # cache it: later lookups do not come back here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
