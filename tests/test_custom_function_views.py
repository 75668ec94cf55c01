"""A custom Function's output that is a view of an input (or the input returned as is) may
not be changed in place, as in PyTorch (CreationMeta::IN_CUSTOM_FUNCTION): autograd would
rewrite its history around the Function's own backward. Nor may it be used once its base
changed in place. A module with full backward hooks hands out such outputs (its
BackwardHookFunction returns its inputs as is), so ``nn.ReLU(inplace=True)`` after it is
refused, where teachgrad used to skip the hooks silently. Messages quoted from PyTorch 2.13.
"""

from __future__ import annotations

import pytest

import teachgrad as torch

TAIL = ("This view was created inside a custom Function (or because an input was returned "
        "as-is) and the autograd logic to handle view+inplace would override the custom "
        "backward associated with the custom Function, leading to incorrect gradients. This "
        "behavior is forbidden. You can fix this by cloning the output of the custom "
        "Function.")


class Same(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


class Flat(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view(-1)

    @staticmethod
    def backward(ctx, grad):
        return grad.view(2, 2)


def _history():
    a = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    return a, a * 1


@pytest.mark.parametrize("make, name, first", [(lambda b: Same.apply(b), "Same", 1.0),
                                               (lambda b: Flat.apply(b.view(2, 2)), "Flat", 1.0),
                                               (lambda b: Same.apply(b)[1:], "Slice", 0.0)])
def test_changing_it_in_place_is_refused_and_changes_nothing(make, name, first):
    a, b = _history()
    y = make(b)
    version = b._version
    with pytest.raises(RuntimeError) as caught:
        y.mul_(2)
    assert str(caught.value).startswith(
        f"Output 0 of {name} is a view and is being modified inplace. {TAIL}\n")
    assert b.tolist() == [1.0, 2.0, 3.0, 4.0] and b._version == version
    y.sum().backward()  # still usable out of place, through the Function's backward
    assert a.grad.tolist() == [first, 1.0, 1.0, 1.0]  # (the slice leaves out element 0)


def test_using_it_after_its_base_changed_is_refused():
    _, b = _history()
    y = Same.apply(b)
    b.add_(1)
    with pytest.raises(RuntimeError, match=r"^Output 0 of Same is a view and its base or "
                                           r"another view of its base has been modified "
                                           r"inplace\. This view was created inside a "
                                           r"custom Function"):
        y * 2


def test_outputs_not_marked_are_free():
    class Dirty(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class NotDifferentiable(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_non_differentiable(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    a, b = _history()
    y = Dirty.apply(b)
    y.add_(1)  # an in-place Function's output is the input itself: fine
    y.sum().backward()
    assert a.grad.tolist() == [2.0] * 4
    _, b = _history()
    z = NotDifferentiable.apply(b)
    z.add_(1)  # no gradient flows through it: nothing to override
    assert b.tolist() == [2.0, 3.0, 4.0, 5.0]


def test_inplace_relu_after_a_module_with_full_backward_hooks():
    lin = torch.nn.Linear(2, 2)
    calls = []
    lin.register_full_backward_hook(lambda *args: calls.append(args))
    model = torch.nn.Sequential(lin, torch.nn.ReLU(inplace=True))
    with pytest.raises(RuntimeError, match="^Output 0 of BackwardHookFunction is a view and "
                                           "is being modified inplace"):
        model(torch.ones(1, 2, requires_grad=True))
    model = torch.nn.Sequential(lin, torch.nn.ReLU())  # out of place: the hook runs
    model(torch.ones(1, 2, requires_grad=True)).sum().backward()
    assert len(calls) == 1


@pytest.mark.torch
@pytest.mark.parametrize("code", [
    "y = F.apply(b); y.add_(1)",
    "y = F.apply(b); y[:1].add_(1)",
    "y = F.apply(b); b.add_(1); y * 2",
    "y = F.apply(b); y.clone().add_(1)",
    "y = F.apply(b.view(2, 2)); y.t_()",
])
def test_same_as_pytorch(code):
    real = pytest.importorskip("torch")
    outcomes = []
    for lib in (real, torch):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad

        a = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        scope = {"F": F, "b": a * 1}
        try:
            exec(code, scope)
            outcomes.append("ok")
        except RuntimeError as error:
            outcomes.append(str(error).split("\n")[0])
    assert outcomes[1] == outcomes[0]


def test_a_function_with_several_differentiable_outputs_gets_the_multiple_views_error():
    # PyTorch: a view among several differentiable outputs gets MULTI_OUTPUT_NODE's message
    # (a module with two tensor inputs under full backward hooks is such a Function)
    class Pair(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, c):
            return x * 2, c

        @staticmethod
        def backward(ctx, grad, grad_c):
            return grad * 2, grad_c

    a, b = _history()
    _, same = Pair.apply(a, b)
    with pytest.raises(RuntimeError, match=r"^Output 1 of Pair is a view and is being "
                                           r"modified inplace\. This view is the output of a "
                                           r"function that returns multiple views\."):
        same.add_(1)
    assert b.tolist() == [1.0, 2.0, 3.0, 4.0]
