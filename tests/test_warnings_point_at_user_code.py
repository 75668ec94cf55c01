"""A warning from teachgrad is shown at the user's line, however deep it was raised.

Python prints a warning with the file and line it is attributed to; a learner should see
their own cell line, not a line of teachgrad's source (``teachgrad._warn.warn_user``).
Each case reaches a warning through a different path (a function, a method, a module's
``__call__``, the engine) and checks the line the warning names.
"""

from __future__ import annotations

import inspect
import warnings

import pytest

import teachgrad as torch
import teachgrad.nn.functional as F


def _implicit_softmax_function(x):
    return F.softmax(x)


def _implicit_log_softmax_function(x):
    return F.log_softmax(x)


def _implicit_softmax_module(x):
    return torch.nn.Softmax()(x)


def _implicit_softmin_module(x):
    return torch.nn.Softmin()(x)


def _backward_creating_a_graph(x):
    (x * x).sum().backward(create_graph=True)


def _autograd_backward_creating_a_graph(x):
    torch.autograd.backward((x * x).sum(), create_graph=True)


def _grad_of_a_non_leaf(x):
    return (x * 2).grad


def _tensor_from_a_tensor(x):
    return torch.tensor(x)


def _legacy_loss_reduction(x):
    return F.mse_loss(x, x.detach(), size_average=True)


CASES = [
    _implicit_softmax_function,
    _implicit_log_softmax_function,
    _implicit_softmax_module,
    _implicit_softmin_module,
    _backward_creating_a_graph,
    _autograd_backward_creating_a_graph,
    _grad_of_a_non_leaf,
    _tensor_from_a_tensor,
    _legacy_loss_reduction,
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.__name__.strip("_"))
def test_the_warning_names_the_line_that_caused_it(case):
    x = torch.ones(2, 3, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        case(x)
    assert caught, "no warning was raised"
    body_line = inspect.getsourcelines(case)[1] + 1  # the one line of the case's body
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, body_line)] * len(caught)


class _MySoftmax(torch.nn.Softmax):
    """A user's subclass: its own line is user code, and the warning stops there."""

    def forward(self, input):
        return super().forward(input)


def test_a_users_subclass_is_user_code():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _MySoftmax()(torch.ones(2))
    line = inspect.getsourcelines(_MySoftmax.forward)[1] + 1
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, line)]
