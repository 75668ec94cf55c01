"""Run a case recorded from PyTorch (fixtures/shape_index_cases.json) with teachgrad.

The generator, fixtures/make_shape_index_cases.py, documents the fields. Here the same
code runs with ``teachgrad`` bound to ``torch``, and everything PyTorch recorded is
compared: the value, dtype and shape; the grad_fn graph with its next_functions; views
and version counters; the gradients for a recorded upstream gradient; errors and
warnings (PyTorch's sentence, i.e. the message's first line).
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import teachgrad
from teachgrad.autograd.graph import AccumulateGrad

CASES = json.loads((Path(__file__).parent / "fixtures" / "shape_index_cases.json").read_text())


def cases(family: str) -> list:
    """The cases of one family, as pytest parameters named after the case."""
    return [pytest.param(c, id=c["name"]) for c in CASES if c["family"] == family]


def build_inputs(case: dict) -> list:
    return [
        teachgrad.tensor(
            np.asarray(spec["data"], dtype=spec["dtype"]).reshape(spec["shape"]),
            dtype=getattr(teachgrad, spec["dtype"]),
            requires_grad=spec["requires_grad"],
        )
        for spec in case["inputs"]
    ]


def graph_of(fn, inputs: list, seen: set):
    """The same nested description of a grad_fn that the generator records for PyTorch."""
    if fn is None:
        return None
    if isinstance(fn, AccumulateGrad):
        return ["AccumulateGrad", next(i for i, t in enumerate(inputs) if t is fn.variable)]
    if fn in seen:
        return ["seen", fn.name()]
    seen.add(fn)
    return [fn.name(), [[nr, graph_of(f, inputs, seen)] for f, nr in fn.next_functions]]


def _normalized(message: str) -> str:
    # teachgrad's messages name teachgrad where PyTorch names torch (teachgrad.DoubleTensor).
    return message.split("\n")[0].replace("torch.", "teachgrad.")


def _execute(case: dict, scope: dict):
    if "stmt" in case:
        exec(case["stmt"], scope)  # the fixture's own literal statements
        return scope["out"]
    return eval(case["expr"], scope)  # the fixture's own literal expression


def _first_user_warning(caught) -> str | None:
    for w in caught:
        if issubclass(w.category, UserWarning):
            return str(w.message)
    return None


def check_case(case: dict) -> None:
    """Run ``case`` with teachgrad and assert that it does what PyTorch did."""
    inputs = build_inputs(case)
    scope = dict(zip("abc", inputs), torch=teachgrad, np=np, math=math)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if "error" in case:
            with pytest.raises(Exception) as info:
                _execute(case, scope)
            assert type(info.value).__name__ == case["error"], str(info.value)
            assert _normalized(str(info.value)) == _normalized(case["message"])
            _check_warning(case, caught)
            return
        out = _execute(case, scope)
    _check_warning(case, caught)

    outs = list(out) if case["tuple"] else [out]
    assert isinstance(out, tuple) == case["tuple"]
    expect = {k: case[k] if case["tuple"] else [case[k]] for k in
              ("dtype", "shape", "value", "graph", "output_nr", "same_as_input", "is_view",
               "version")}
    assert len(outs) == len(expect["shape"])
    seen: set = set()
    for i, o in enumerate(outs):
        assert o.dtype.name == expect["dtype"][i]
        assert list(o.shape) == expect["shape"][i]
        np.testing.assert_allclose(
            np.asarray(o.detach().tolist(), dtype=float).reshape(o.shape),
            np.asarray(expect["value"][i], dtype=float).reshape(o.shape), rtol=1e-6,
        )
        assert graph_of(o.grad_fn, inputs, seen) == expect["graph"][i]
        if o.grad_fn is not None:
            assert o._output_nr == expect["output_nr"][i]
        same = next((k for k, t in enumerate(inputs) if t is o), None)
        assert same == expect["same_as_input"][i]
        assert (o._base is not None) == expect["is_view"][i]
        assert o._version == expect["version"][i]

    if "grads" in case or "grad_error" in case:
        _check_grads(case, inputs, outs)


def _check_warning(case: dict, caught) -> None:
    got = _first_user_warning(caught)
    if "warning" in case:
        assert got is not None and _normalized(got) == _normalized(case["warning"])
    else:
        assert got is None, got


def _check_grads(case: dict, inputs: list, outs: list) -> None:
    grad_outputs = case["grad_output"] if case["tuple"] else [case["grad_output"]]
    differentiable = [(o, g) for o, g in zip(outs, grad_outputs) if g is not None]
    assert all(o.requires_grad for o, _ in differentiable)
    wanted = [t for t in inputs if t.requires_grad]
    run = lambda: teachgrad.autograd.grad(  # noqa: E731
        [o for o, _ in differentiable], wanted,
        [teachgrad.tensor(np.asarray(g, dtype=o._data.dtype).reshape(o.shape), dtype=o.dtype)
         for o, g in differentiable],
        allow_unused=True,
    )
    if "grad_error" in case:
        with pytest.raises(RuntimeError) as info:
            run()
        assert _normalized(str(info.value)) == _normalized(case["grad_error"])
        return
    grads = iter(run())
    for t, expected in zip(inputs, case["grads"]):
        if not t.requires_grad:
            continue
        got = next(grads)
        if expected is None:
            assert got is None
        else:
            assert got is not None
            np.testing.assert_allclose(
                got.numpy(), np.asarray(expected).reshape(t.shape), rtol=1e-6, atol=1e-12
            )


__all__ = ["CASES", "cases", "check_case", "graph_of", "build_inputs", "math"]
