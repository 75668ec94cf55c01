"""``torch.compiler``: the switches around ``torch.compile``, for code that uses them.

PyTorch's compiler turns a model into fused machine code; teachgrad runs Python and NumPy
as written, and its ``torch.compile`` returns the model unchanged. Code written for the
compiler still asks it questions or marks functions for it::

    @torch.compiler.disable          # run this one eagerly
    def log_stats(x): ...

    if not torch.compiler.is_compiling():
        print(loss.item())           # a graph break under the compiler

Here nothing is ever compiled: the questions answer False and the marks give the function
back as it is, so the code runs the way it runs eagerly in PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._torch_functions import compile  # noqa: A004 - torch.compiler.compile is torch.compile

__all__ = [
    "compile", "disable", "allow_in_graph", "assume_constant_result", "reset",
    "is_compiling", "is_dynamo_compiling", "is_exporting", "cudagraph_mark_step_begin",
]


def is_compiling() -> bool:
    """False: teachgrad never compiles, so no code runs while being compiled."""
    return False


def is_dynamo_compiling() -> bool:
    """False: teachgrad has no TorchDynamo tracing code."""
    return False


def is_exporting() -> bool:
    """False: teachgrad has no exporter (``torch.export``)."""
    return False


def disable(fn: Callable | None = None, recursive: bool = True, *,
            reason: str | None = None) -> Callable:
    """Keep ``fn`` out of compilation: it runs eagerly, as everything does here.

    As a decorator with arguments (``@torch.compiler.disable(recursive=False)``) it gives
    a decorator; either way the function comes back unchanged.
    """
    if fn is None:
        return lambda function: function
    return fn


def allow_in_graph(fn: Any) -> Any:
    """Let the compiler put ``fn`` in its graph without tracing into it: ``fn`` unchanged
    (a list or tuple of functions too)."""
    return fn


def assume_constant_result(fn: Callable) -> Callable:
    """Tell the compiler ``fn``'s result never changes: ``fn`` unchanged."""
    return fn


def reset() -> None:
    """Forget compiled code: there is none."""


def cudagraph_mark_step_begin() -> None:
    """Mark a new training step for CUDA graphs (``mode="reduce-overhead"``): nothing to
    mark without a GPU."""
