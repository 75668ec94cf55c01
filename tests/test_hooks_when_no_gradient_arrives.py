"""What hooks and nodes see where no gradient arrives, as in PyTorch 2.13.

A custom Function's backward may return None for an input, and an output of ``split`` that
the loss does not use gets nothing. PyTorch's engine still runs the nodes on that path:
tensor hooks are called with None (and may not replace it), a built-in node gives None for
every input and its post-hooks see that, a custom Function's backward runs on zeros (or on
None after ``ctx.set_materialize_grads(False)``). The tensor hooks of one node run tensor
by tensor, in the order each tensor got its first hook.
"""

from __future__ import annotations

import pytest
from hook_fixtures import drop_second

import teachgrad as torch


def _shown(g):
    return None if g is None else g.tolist()


def _none_path_program(lib) -> list:
    """x -> h = x * 2 -> DropSecond(w, h): nothing flows back to h and x."""
    log = []
    x = lib.ones(2, requires_grad=True)
    w = lib.ones(2, requires_grad=True)
    x.register_hook(lambda g: log.append(("x hook", _shown(g))))
    h = x * 2
    h.register_hook(lambda g: log.append(("h hook", _shown(g))))
    h.retain_grad()
    h.grad_fn.register_prehook(lambda go: log.append(("pre", [_shown(g) for g in go])))
    h.grad_fn.register_hook(
        lambda gi, go: log.append(("post", [_shown(g) for g in gi], [_shown(g) for g in go])))
    drop_second(lib).apply(w, h).sum().backward()
    log.append(("grads", _shown(h.grad), _shown(x.grad), _shown(w.grad)))
    return log


def test_hooks_on_a_path_without_gradient_are_called_with_none():
    assert _none_path_program(torch) == [
        ("h hook", None),
        ("pre", [None]),
        ("post", [None, None], [None]),  # MulBackward0 of x * 2: edges to x and to the 2
        ("x hook", None),
        ("grads", None, None, [1.0, 1.0]),  # DropSecond hands w the incoming ones as is
    ]


def test_a_hook_may_not_replace_a_missing_gradient():
    x = torch.ones(4, requires_grad=True)
    a, b = (x * 1).split(2)
    b.register_hook(lambda g: torch.ones(2))
    with pytest.raises(RuntimeError, match="^can't replace a None gradient with a non-None "
                                           "value$"):
        a.sum().backward()


def _split_program(lib) -> list:
    """Hooks on both outputs of one split node, the first hook on the second output."""
    log = []
    x = lib.ones(4, requires_grad=True)
    a, b = (x * 1).split(2)
    b.register_hook(lambda g: log.append(("b", _shown(g))))
    a.register_hook(lambda g: log.append(("a1", _shown(g))) or g * 2)
    a.register_hook(lambda g: log.append(("a2", _shown(g))))
    b.register_hook(lambda g: log.append(("b2", _shown(g))))
    a.sum().backward()
    log.append(("x.grad", _shown(x.grad)))
    return log


def test_tensor_hooks_run_tensor_by_tensor_in_the_order_of_their_first_hook():
    assert _split_program(torch) == [
        ("b", None), ("b2", None),  # b got the node's first hook; it got no gradient
        ("a1", [1.0, 1.0]), ("a2", [2.0, 2.0]),
        ("x.grad", [2.0, 2.0, 0.0, 0.0]),
    ]


def _custom_downstream_program(lib, materialize: bool) -> list:
    """A custom identity Function below the path that gets no gradient."""
    log = []

    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(materialize)
            return a.clone()

        @staticmethod
        def backward(ctx, grad):
            log.append(("backward got", _shown(grad)))
            return grad

    x = lib.ones(2, requires_grad=True)
    w = lib.ones(2, requires_grad=True)
    drop_second(lib).apply(w, Identity.apply(x)).sum().backward()
    log.append(("x.grad", _shown(x.grad)))
    return log


def test_a_custom_backward_runs_on_zeros_where_nothing_arrived():
    assert _custom_downstream_program(torch, True) == [
        ("backward got", [0.0, 0.0]), ("x.grad", [0.0, 0.0])]
    assert _custom_downstream_program(torch, False) == [
        ("backward got", None), ("x.grad", None)]


@pytest.mark.torch
@pytest.mark.parametrize("program", [
    _none_path_program, _split_program,
    lambda lib: _custom_downstream_program(lib, True),
    lambda lib: _custom_downstream_program(lib, False),
], ids=["none_path", "split", "custom_materialized", "custom_not_materialized"])
def test_matches_pytorch(program):
    real = pytest.importorskip("torch")
    assert program(torch) == program(real)
