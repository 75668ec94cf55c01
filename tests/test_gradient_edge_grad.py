"""``torch.autograd.grad`` / ``backward`` with GradientEdges (from
``torch.autograd.graph.get_gradient_edge``) as inputs and as outputs, and ``inputs`` given
as a dict, as PyTorch 2.13 allows.

The gradients are derived by hand: ``y = 3x``, ``z = sum(y²)`` at ``x = (1, 1)`` gives
``dz/dy = 2y = 6`` and ``dz/dx = 18``; the torch-marked test runs the same programs with
PyTorch and compares.
"""

from __future__ import annotations

import pytest

import teachgrad


def _graph(lib):
    x = lib.ones(2, requires_grad=True)
    y = x * 3
    z = (y * y).sum()
    return x, y, z


def _edge(lib, t):
    return lib.autograd.graph.get_gradient_edge(t)


def _values(result):
    if isinstance(result, dict):
        return {k: v.tolist() for k, v in result.items()}
    return [None if r is None else r.tolist() for r in result]


PROGRAMS = {
    "edge_as_input": lambda lib, x, y, z: lib.autograd.grad(z, _edge(lib, y)),
    "leaf_edge_as_input": lambda lib, x, y, z: lib.autograd.grad(z, _edge(lib, x)),
    "edge_as_output": lambda lib, x, y, z: lib.autograd.grad(_edge(lib, y), x, lib.ones(2)),
    "scalar_edge_as_output": lambda lib, x, y, z: lib.autograd.grad(_edge(lib, z), x),
    "edges_both_sides": lambda lib, x, y, z: lib.autograd.grad(
        [_edge(lib, z)], [_edge(lib, y), x]),
    "dict_inputs": lambda lib, x, y, z: lib.autograd.grad(z, {"y": _edge(lib, y), "x": x}),
    "edge_of_one_output_of_several": lambda lib, x, y, z: lib.autograd.grad(
        (y.split(1)[1] * 5).sum(), _edge(lib, y)),
    "batched": lambda lib, x, y, z: lib.autograd.grad(
        _edge(lib, y), x, lib.tensor([[1.0, 0.0], [0.0, 2.0]]), is_grads_batched=True),
    "create_graph": lambda lib, x, y, z: [
        g.requires_grad for g in lib.autograd.grad(z, _edge(lib, y), create_graph=True)],
}

ERRORS = {
    "non_scalar_edge_output": lambda lib, x, y, z: lib.autograd.grad(_edge(lib, y), x),
    "edge_output_shape": lambda lib, x, y, z: lib.autograd.grad(_edge(lib, y), x,
                                                                lib.ones(3)),
    "materialize_unused_edge": lambda lib, x, y, z: lib.autograd.grad(
        z, [_edge(lib, lib.ones(2, requires_grad=True))], materialize_grads=True),
    "materialize_and_not_allow_unused": lambda lib, x, y, z: lib.autograd.grad(
        z, x, materialize_grads=True, allow_unused=False),
    "empty_inputs": lambda lib, x, y, z: lib.autograd.grad(z, []),
}


def _run(lib, program):
    x, y, z = _graph(lib)
    result = program(lib, x, y, z)
    if result and isinstance(result[0] if not isinstance(result, dict) else None, bool):
        return result
    return _values(result)


def _error(lib, program):
    x, y, z = _graph(lib)
    with pytest.raises((RuntimeError, ValueError)) as caught:
        program(lib, x, y, z)
    return type(caught.value).__name__, str(caught.value).split("\nHint:")[0].replace(
        "teachgrad.Size", "torch.Size")


@pytest.mark.parametrize("name", PROGRAMS)
def test_gradient_edges_as_pytorch(name):
    real = pytest.importorskip("torch")
    assert _run(teachgrad, PROGRAMS[name]) == _run(real, PROGRAMS[name])


@pytest.mark.parametrize("name", ERRORS)
def test_gradient_edge_errors_as_pytorch(name):
    real = pytest.importorskip("torch")
    assert _error(teachgrad, ERRORS[name]) == _error(real, ERRORS[name])


def test_the_gradients_by_hand():
    assert _run(teachgrad, PROGRAMS["edge_as_input"]) == [[6.0, 6.0]]
    assert _run(teachgrad, PROGRAMS["leaf_edge_as_input"]) == [[18.0, 18.0]]
    assert _run(teachgrad, PROGRAMS["edge_as_output"]) == [[3.0, 3.0]]  # d(3x)/dx . ones
    assert _run(teachgrad, PROGRAMS["scalar_edge_as_output"]) == [[18.0, 18.0]]
    assert _run(teachgrad, PROGRAMS["edges_both_sides"]) == [[6.0, 6.0], [18.0, 18.0]]
    assert _run(teachgrad, PROGRAMS["dict_inputs"]) == {"y": [6.0, 6.0], "x": [18.0, 18.0]}
    # y.split(1)[1] * 5 summed: only y[1] gets 5
    assert _run(teachgrad, PROGRAMS["edge_of_one_output_of_several"]) == [[0.0, 5.0]]
    assert _run(teachgrad, PROGRAMS["batched"]) == [[[3.0, 0.0], [0.0, 6.0]]]


def test_backward_with_edges():
    x, y, z = _graph(teachgrad)
    teachgrad.autograd.backward(_edge(teachgrad, y), teachgrad.ones(2),
                                inputs=[_edge(teachgrad, x)])
    assert x.grad.tolist() == [3.0, 3.0]
    x, y, z = _graph(teachgrad)
    teachgrad.autograd.backward(z, inputs=[_edge(teachgrad, y), x])
    assert x.grad.tolist() == [18.0, 18.0]  # (an edge has no tensor to give a .grad to)
    assert y.grad is None


def test_an_edge_is_not_unpacked_as_a_tuple():
    x, y, z = _graph(teachgrad)
    edge = _edge(teachgrad, y)
    (g,) = teachgrad.autograd.grad(z, edge)  # (a GradientEdge is a named tuple)
    assert g.tolist() == [6.0, 6.0]
    with pytest.raises(TypeError, match="must be a dict, not"):
        from collections import OrderedDict

        teachgrad.autograd.grad(z, OrderedDict(x=x))
