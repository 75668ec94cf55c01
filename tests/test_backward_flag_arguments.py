"""``retain_graph``, ``create_graph`` and ``allow_unused`` are booleans.

PyTorch reads them through Python's integer protocol: True/False, 0/1 and None pass, and a
string or a float is a TypeError ("'str' object cannot be interpreted as an integer").
teachgrad took any value and used its truth: ``retain_graph="no"`` kept the graph.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad

BAD = [("retain_graph", "yes", "str"), ("create_graph", "x", "str"),
       ("retain_graph", 1.5, "float"), ("create_graph", [True], "list")]


def _run(lib, call: str, name: str, value):
    x = lib.ones(2, requires_grad=True)
    out = (x * 2).sum()
    if call == "backward":
        out.backward(**{name: value})
    else:
        lib.autograd.grad(out, x, **{name: value})
    return x


@pytest.mark.parametrize("call", ["backward", "grad"])
@pytest.mark.parametrize("name, value, type_name", BAD)
def test_a_flag_that_is_no_bool_is_refused_before_anything_runs(call, name, value, type_name):
    x = teachgrad.ones(2, requires_grad=True)
    out = (x * 2).sum()
    with pytest.raises(TypeError) as caught:
        if call == "backward":
            out.backward(**{name: value})
        else:
            teachgrad.autograd.grad(out, x, **{name: value})
    message = str(caught.value)
    assert message.startswith(f"'{type_name}' object cannot be interpreted as an integer")
    assert f"Hint: {name} takes True or False" in message
    assert x.grad is None  # nothing was written
    out.backward()  # and the graph is still there: nothing ran
    assert x.grad.tolist() == [2.0, 2.0]


def test_allow_unused_is_checked_too():
    x, y = (teachgrad.ones(2, requires_grad=True) for _ in range(2))
    with pytest.raises(TypeError, match="allow_unused takes True or False"):
        teachgrad.autograd.grad((x * 2).sum(), [x, y], allow_unused="yes")


@pytest.mark.parametrize("value, kept", [(1, True), (0, False), (np.True_, True), (None, False)])
def test_integers_and_numpy_bools_count_as_their_truth(value, kept):
    x = teachgrad.ones(2, requires_grad=True)
    out = (x * 3).sum()
    out.backward(retain_graph=value)
    if kept:
        out.backward()  # a second pass works only on a kept graph
        assert x.grad.tolist() == [6.0, 6.0]
    else:
        with pytest.raises(RuntimeError, match="Trying to backward through the graph"):
            out.backward()


@pytest.mark.torch
@pytest.mark.parametrize("call", ["backward", "grad"])
@pytest.mark.parametrize("name, value, type_name", BAD)
def test_pytorch_refuses_the_same_values_with_the_same_words(call, name, value, type_name):
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError) as theirs:
        _run(torch, call, name, value)
    with pytest.raises(TypeError) as ours:
        _run(teachgrad, call, name, value)
    assert str(ours.value).split("\nHint:")[0] == str(theirs.value)
