"""A ``grad_fn`` hook's (or pre-hook's) result is checked as PyTorch's ``check_result``.

It must be a tuple with one entry per gradient; each entry ``None`` or a tensor shaped and
typed like the gradient it replaces, and a ``None`` gradient cannot be replaced. (A node's
hooks see the gradients fitted to its inputs, so the bias of ``x + bias`` gets shape (3,);
a hook that returned the broadcast (2, 3) shape was silently summed before.) Messages
quoted from PyTorch 2.13.
"""

from __future__ import annotations

import pytest

import teachgrad as torch


def _bias_sum():
    x = torch.ones(2, 3, requires_grad=True)
    b = torch.ones(3, requires_grad=True)
    return x, b, x + b


def test_post_hook_may_not_change_a_gradients_size():
    x, b, y = _bias_sum()
    y.grad_fn.register_hook(lambda gi, go: (gi[0], torch.ones(2, 3)))
    with pytest.raises(RuntimeError, match="^hook '<lambda>' has changed the size of value"):
        y.sum().backward()
    assert b.grad is None and x.grad is None


def test_post_hook_may_not_change_a_gradients_dtype():
    x, b, y = _bias_sum()
    y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[1].double()))
    with pytest.raises(RuntimeError, match=r"^hook '<lambda>' has changed the type of value "
                                           r"\(was \w+\.FloatTensor got \w+\.DoubleTensor\)"):
        y.sum().backward()


def test_post_hook_may_not_fill_a_none_gradient():
    x = torch.ones(2, requires_grad=True)
    y = x * torch.ones(2)  # the constant's slot gets None
    y.grad_fn.register_hook(lambda gi, go: (gi[0], torch.ones(2)))
    with pytest.raises(RuntimeError, match="^can't replace a None gradient with a non-None "
                                           "value$"):
        y.sum().backward()


@pytest.mark.parametrize("result, shown", [(lambda g: [g, None], "list"),
                                           (lambda g: g, "Tensor")])
def test_post_hook_must_return_a_tuple(result, shown):
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: result(gi[0]))
    with pytest.raises(TypeError, match=rf"^expected tuple, but hook returned '{shown}'"):
        y.sum().backward()


def test_post_hook_replacement_of_the_right_shape_is_used():
    x, b, y = _bias_sum()
    y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[1] * 2))
    y.sum().backward()
    assert b.grad.tolist() == [4.0, 4.0, 4.0] and x.grad.tolist() == [[1.0] * 3] * 2


def test_pre_hook_results_are_checked_too():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: (torch.ones(3),))
    with pytest.raises(RuntimeError, match="^hook '<lambda>' has changed the size of value"):
        y.sum().backward()
    y = x * 2
    y.grad_fn.register_prehook(lambda go: (go[0].double(),))
    with pytest.raises(RuntimeError, match="has changed the type of value"):
        y.sum().backward()
    first, _ = x.split(1)
    first.grad_fn.register_prehook(lambda go: (go[0], torch.ones(1)))
    with pytest.raises(RuntimeError, match="^can't replace a None gradient"):
        first.sum().backward()


@pytest.mark.torch
def test_same_as_pytorch():
    real = pytest.importorskip("torch")
    cases = [
        "y = x * b; y.grad_fn.register_hook(lambda gi, go: (gi[0], lib.ones(2, 3)))",
        "y = x * b; y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[1].double()))",
        "y = x * 2; y.grad_fn.register_hook(lambda gi, go: [gi[0], None])",
        "y = x * 2; y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))",
        "y = x * 2; y.grad_fn.register_prehook(lambda go: (go[0][:1],))",
        "y = x * b; y.grad_fn.register_hook(lambda gi, go: (None, gi[1] * 3))",
    ]
    for case in cases:
        outcomes = []
        for lib in (real, torch):
            scope = {"lib": lib, "x": lib.ones(2, 3, requires_grad=True),
                     "b": lib.ones(3, requires_grad=True)}
            try:
                exec(case, scope)
                scope["y"].sum().backward()
                outcomes.append(("ok", scope["b"].grad is None or scope["b"].grad.tolist()))
            except (RuntimeError, TypeError) as error:
                first = str(error).split("\n")[0].replace("torch.", "").replace("teachgrad.", "")
                outcomes.append((type(error).__name__, first))
        assert outcomes[1] == outcomes[0], case
