"""Run small autograd programs with PyTorch or teachgrad and describe what happened.

Shared by the fixture generators (run with real ``torch``) and the tests (run with
teachgrad), so both sides execute and describe a program the same way. A program is
Python code in which ``torch`` is the library under test; it stores what should be
compared in the dict ``out`` (``out["x.grad"] = x.grad``). Running it gives a JSON-able
description: every value of ``out`` (tensors as values, dtype, requires_grad and the
grad_fn name), the exception the program raised (type and message) and its warnings.

``trace(roots, action)`` is available to programs: it numbers the nodes of the graph
behind ``roots`` (breadth-first along ``next_functions``, so the numbers mean the same
in both libraries when the graphs have the same structure), runs ``action()`` and
returns the nodes in the order the engine executed them, as ``"number:name"``. With
PyTorch the order is recorded by a pre-hook on every node; with teachgrad by the
engine's own observer (``engine.observe``), which is what the notebook stepper shows.
"""

from __future__ import annotations

import re
import warnings

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_CPP_SOURCE = re.compile(r" \(Triggered internally at [^)]*\.\)")


def number_nodes(roots) -> list:
    """The graph's nodes, breadth-first from the roots' grad_fns along next_functions."""
    order, queue = [], [r.grad_fn for r in roots]
    while queue:
        node = queue.pop(0)
        if node is None or any(node is seen for seen in order):
            continue
        order.append(node)
        queue.extend(fn for fn, _ in node.next_functions)
    return order


def _labeller(roots):
    """``label(node)``: ``"3:MulBackward0"``, the node's number in number_nodes(roots)."""
    nodes = number_nodes(roots)

    def label(node) -> str:
        for i, n in enumerate(nodes):
            if n is node:
                return f"{i}:{n.name()}"
        return f"?:{node.name()}"

    return label


def make_trace(torch):
    """``trace(roots, action)`` for the library ``torch`` (see the module docstring)."""
    if torch.__name__ == "torch":

        def trace(roots, action):
            roots = list(roots) if isinstance(roots, (list, tuple)) else [roots]
            label = _labeller(roots)
            executed = []
            handles = [
                node.register_prehook(lambda grads, node=node: executed.append(label(node)))
                for node in number_nodes(roots)
            ]
            try:
                action()
            finally:
                for handle in handles:
                    handle.remove()
            return executed

        return trace

    from teachgrad.autograd import engine

    def trace(roots, action):
        roots = list(roots) if isinstance(roots, (list, tuple)) else [roots]
        label = _labeller(roots)
        executed = []

        def record(step) -> None:
            # autograd.grad: teachgrad also reports the node where a wanted gradient was
            # only captured (Step.captured; nothing ran there). PyTorch runs nothing
            # there, so such steps are not part of the execution order compared here.
            if not (step.captured and step.grads_out == () and step.grad_after is None):
                executed.append(label(step.node))

        with engine.observe(record):
            action()
        return executed

    return trace


def clean(text: str) -> str:
    """Remove what differs between runs, machines and module names, not between libraries."""
    text = _CPP_SOURCE.sub("", text)
    return _ADDRESS.sub("0x…", text).replace("teachgrad.", "torch.")


def describe(value, torch):
    """A JSON-able description of a value a program stored in ``out``."""
    if isinstance(value, torch.Tensor):
        return {
            "tensor": value.detach().tolist(),
            "dtype": str(value.dtype).split(".")[-1],
            "requires_grad": value.requires_grad,
            "grad_fn": None if value.grad_fn is None else value.grad_fn.name(),
        }
    if isinstance(value, (list, tuple)):
        return [describe(v, torch) for v in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return clean(value) if isinstance(value, str) else value
    return clean(repr(value))


def run_program(code: str, torch) -> dict:
    """Run ``code`` with ``torch`` bound to the library; describe ``out``, error, warnings."""
    import numpy as np

    # "import torch" inside a program would bring in real PyTorch whatever ``torch`` is
    # bound to here, and the comparison could not fail.
    assert not re.search(r"^\s*(import|from) torch", code, re.M), "use the bound name torch"
    out: dict = {}
    namespace = {"torch": torch, "np": np, "out": out, "trace": make_trace(torch)}
    result: dict = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(code, namespace)
        except Exception as error:  # noqa: BLE001 - the program's error is data here
            result["error"] = type(error).__name__
            result["message"] = clean(str(error))
    result["out"] = {key: describe(value, torch) for key, value in out.items()}
    result["warnings"] = [
        f"{w.category.__name__}: {clean(str(w.message))}" for w in caught
        if not issubclass(w.category, DeprecationWarning)
    ]
    return result


def close(got, want, tolerance: float = 1e-5) -> bool:
    """Equal descriptions, floats compared with a relative and absolute tolerance."""
    if isinstance(want, dict) and isinstance(got, dict):
        return got.keys() == want.keys() and all(close(got[k], want[k], tolerance) for k in want)
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(close(g, w, tolerance) for g, w in zip(got, want))
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        if want != want:  # nan
            return got != got
        return abs(got - want) <= tolerance * (1 + abs(want))
    return got == want and type(got) is type(want)


def same_message(got: str, want: str) -> bool:
    """PyTorch's message, optionally followed by ONE teachgrad line starting "Hint: "."""
    if not got.startswith(want):
        return False
    rest = got[len(want):]
    return rest == "" or (rest.startswith("\nHint: ") and "\n" not in rest[1:])


# What Python says when a method, function or operator does not exist (yet).
_MISSING = (
    "'Tensor' object has no attribute", "module 'torch' has no attribute",
    "'Tensor' object is not subscriptable", "'Tensor' object does not support item assignment",
)


def check_against_pytorch(case: dict, teachgrad) -> None:
    """Run ``case["code"]`` with teachgrad and assert it did what PyTorch did (see above).

    A method or function that teachgrad does not have yet (another op family still being
    written) skips the case instead of failing it.
    """
    import pytest

    got = run_program(case["code"], teachgrad)
    if got.get("error") != case.get("error") and got.get("message", "").startswith(_MISSING):
        pytest.skip(f"not implemented yet: {got['message']}")
    if "error" in case:
        assert got.get("error") == case["error"], (
            f"expected {case['error']}: {case['message']}\ngot {got.get('error')}: "
            f"{got.get('message')}"
        )
        assert same_message(got["message"], case["message"]), (
            f"\n got: {got['message']!r}\nwant: {case['message']!r}"
        )
    else:
        assert "error" not in got, f"unexpected {got['error']}: {got['message']}"
    for key, want in case["out"].items():
        assert key in got["out"], f"the program did not reach out[{key!r}]"
        assert close(got["out"][key], want), f"out[{key!r}]:\n got: {got['out'][key]}\nwant: {want}"
    assert got["out"].keys() == case["out"].keys()
    assert len(got["warnings"]) == len(case["warnings"]), got["warnings"]
    for mine, theirs in zip(got["warnings"], case["warnings"]):
        assert same_message(mine, theirs), f"\n got: {mine!r}\nwant: {theirs!r}"
