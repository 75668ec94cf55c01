"""Module hooks beyond the plain forward ones: ``register_full_backward_hook``,
``register_full_backward_pre_hook``, and forward hooks ``with_kwargs`` / ``prepend``.

The gradients a hook sees are derived by hand here (for ``y = x Wᵀ + b`` summed:
grad_output is ones, grad_input is ``ones @ W``); the torch-marked tests run the same
programs with PyTorch and compare what the hooks saw.
"""

from __future__ import annotations

import warnings

import pytest
from hook_fixtures import known_linear

import teachgrad as torch
from teachgrad import nn


def test_full_backward_hook_sees_the_gradients_of_inputs_and_outputs():
    layer, seen = known_linear(torch), []
    layer.register_full_backward_hook(
        lambda m, gi, go: seen.append((m, [g.tolist() for g in gi], [g.tolist() for g in go])))
    x = torch.ones(1, 2, requires_grad=True)
    out = layer(x)
    assert type(out.grad_fn).__name__ == "BackwardHookFunctionBackward"  # as PyTorch
    out.sum().backward()
    module, grad_input, grad_output = seen[0]
    assert module is layer
    assert grad_output == [[[1.0, 1.0, 1.0]]]
    assert grad_input == [[[9.0, 12.0]]]  # ones(1, 3) @ W
    assert x.grad.tolist() == [[9.0, 12.0]]


def test_hooks_may_replace_grad_input_and_grad_output():
    layer = known_linear(torch)
    handle = layer.register_full_backward_hook(lambda m, gi, go: tuple(2 * g for g in gi))
    x = torch.ones(1, 2, requires_grad=True)
    layer(x).sum().backward()
    assert x.grad.tolist() == [[18.0, 24.0]]
    handle.remove()
    layer.register_full_backward_pre_hook(lambda m, go: (3 * go[0],))
    x.grad = None
    layer.weight.grad = None
    layer(x).sum().backward()
    assert x.grad.tolist() == [[27.0, 36.0]]
    assert layer.weight.grad.tolist() == [[3.0, 3.0]] * 3  # the parameters see it too


def test_pre_hooks_run_before_hooks_and_layers_run_last_to_first():
    order = []
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    for i, layer in enumerate(model):
        layer.register_full_backward_hook(lambda *a, i=i: order.append(f"hook {i}"))
        layer.register_full_backward_pre_hook(lambda *a, i=i: order.append(f"pre {i}"))
    model(torch.ones(1, 2, requires_grad=True)).sum().backward()
    assert order == ["pre 1", "hook 1", "pre 0", "hook 0"]


def test_non_tensor_arguments_and_unused_outputs_are_none():
    # (the unused output's None: the node's post-hook sees None where no gradient came)
    class Two(nn.Module):
        def forward(self, a, k, b):
            return a * k + b, a - b

    seen = []
    two = Two()
    two.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go)))
    a = torch.ones(2, requires_grad=True)
    first, _ = two(a, 3.0, torch.ones(2))
    first.sum().backward()
    grad_input, grad_output = seen[0]
    assert grad_input[0].tolist() == [3.0, 3.0] and grad_input[1] is None
    # b does not require grad: PyTorch 2.13 still hands zeros there (its identity node
    # passes on the zeros it was given for a non-differentiable output)
    assert grad_input[2].tolist() == [0.0, 0.0]
    assert grad_output[0].tolist() == [1.0, 1.0] and grad_output[1] is None


def test_no_input_requiring_grad_fires_at_the_outputs_with_a_warning():
    layer, seen = known_linear(torch), []
    layer.register_full_backward_hook(lambda m, gi, go: seen.append(gi))
    out = layer(torch.ones(1, 2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out.sum().backward()  # the warning names this line
    assert seen == [(None,)]
    assert str(caught[0].message).startswith(
        "Full backward hook is firing when gradients are computed with respect to module "
        "outputs since no inputs require gradients.")
    assert caught[0].filename == __file__


def test_backward_hook_errors():
    layer = known_linear(torch)
    layer.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="^Backward hook returned an invalid number of "
                                           "grad_input, got 2, but expected 1"):
        layer(torch.ones(1, 2, requires_grad=True)).sum().backward()
    layer = known_linear(torch)
    layer.register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))
    with pytest.raises(RuntimeError, match="^Backward pre hook returned an invalid number "
                                           "of grad_output, got 2, but expected 1"):
        layer(torch.ones(1, 2, requires_grad=True)).sum().backward()


def test_prepend_and_no_grad():
    order = []
    layer = known_linear(torch)
    layer.register_full_backward_hook(lambda *a: order.append("registered first"))
    layer.register_full_backward_hook(lambda *a: order.append("prepended"), prepend=True)
    layer(torch.ones(1, 2, requires_grad=True)).sum().backward()
    assert order == ["prepended", "registered first"]
    with torch.no_grad():
        assert layer(torch.ones(1, 2)).grad_fn is None


def test_forward_hooks_with_kwargs_and_prepend():
    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    m, seen = Scale(), []
    m.register_forward_hook(lambda mod, args, kwargs, out: seen.append(kwargs),
                            with_kwargs=True)
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"factor": 10.0}),
                                with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: seen.append("plain"))
    m.register_forward_hook(lambda mod, args, out: seen.append("prepended"), prepend=True)
    assert m(torch.ones(1), factor=2.0).tolist() == [10.0]
    assert seen == ["prepended", {"factor": 10.0}, "plain"]
    bad = Scale()
    bad.register_forward_pre_hook(lambda mod, args, kwargs: args, with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"^forward pre-hook must return None or a tuple "
                                           r"of \(new_args, new_kwargs\), but got"):
        bad(torch.ones(1))


def _hook_trace(lib):
    """What hooks on a two-layer net see during one backward, as plain lists."""
    lib.manual_seed(0)
    trace = []
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.linspace(-1.0, 1.0, p.numel()).reshape(p.shape) * (i + 1))

    def describe(gs):
        return [None if g is None else [round(v, 5) for v in g.flatten().tolist()] for g in gs]

    for i, layer in enumerate(model):
        layer.register_full_backward_pre_hook(
            lambda m, go, i=i: trace.append(("pre", i, describe(go))))
        layer.register_full_backward_hook(
            lambda m, gi, go, i=i: trace.append(("hook", i, describe(gi), describe(go))))
    x = lib.linspace(-1.0, 1.0, 6).reshape(2, 3).requires_grad_()
    out = model(x)
    trace.append(type(out.grad_fn).__name__)
    (out ** 2).sum().backward()
    trace.append(describe([x.grad]))
    return trace


def _same_trace(mine, theirs) -> bool:
    """Equal traces: the same entries, numbers within float32's rounding (PyTorch's and
    NumPy's matrix kernels round differently on different processors)."""
    if isinstance(mine, (list, tuple)) and isinstance(theirs, (list, tuple)):
        return len(mine) == len(theirs) and all(map(_same_trace, mine, theirs))
    if isinstance(mine, float) and isinstance(theirs, float):
        return abs(mine - theirs) <= 1e-5 * max(1.0, abs(theirs))
    return mine == theirs


@pytest.mark.torch
def test_backward_hooks_see_what_pytorchs_see():
    real = pytest.importorskip("torch")
    mine, theirs = _hook_trace(torch), _hook_trace(real)
    assert _same_trace(mine, theirs), (mine, theirs)
    assert not _same_trace(mine, theirs[:-1])  # (the comparison can fail)


# ------------------------------------------------------- register_backward_hook (the old one)
def _shapes(grads):
    return [None if g is None else tuple(g.shape) for g in grads]


def test_old_backward_hook_sees_the_output_nodes_gradients():
    seen = []
    layer = nn.Linear(3, 2)
    layer.register_backward_hook(lambda m, gi, go: seen.append((_shapes(gi), _shapes(go))))
    x = torch.ones(4, 3, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = layer(x)
    # addmm(bias, x, weight.t()): its node's inputs, bias's gradient already summed to (2,)
    assert type(out.grad_fn).__name__ == "AddmmBackward0"
    out.sum().backward()
    assert seen == [([(2,), (4, 3), (3, 2)], [(4, 2)])]
    # its inputs are not the module's inputs (weight.t() is another node): PyTorch warns
    assert caught[0].category is FutureWarning
    assert str(caught[0].message).startswith(
        "Using a non-full backward hook when the forward contains multiple autograd Nodes is "
        "deprecated and will be removed in future versions.")


def test_old_hook_may_replace_the_gradients():
    relu = nn.ReLU()
    relu.register_backward_hook(lambda m, gi, go: (gi[0] * 0,))
    x = torch.ones(3, requires_grad=True)
    with pytest.warns(FutureWarning, match="non-full backward hook"):  # as PyTorch's
        out = relu(x)
    out.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_one_kind_of_backward_hook_per_module():
    message = ("^Cannot use both regular backward hooks and full backward hooks on a single "
               "Module. Please use only one of them.$")
    old = nn.Linear(1, 1)
    old.register_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match=message):
        old.register_full_backward_hook(lambda *a: None)
    full = nn.Linear(1, 1)
    full.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match=message):
        full.register_backward_hook(lambda *a: None)


def test_node_hooks_see_broadcasting_undone():
    # PyTorch's AddBackward0 hands the (2,) bias a (2,) gradient; its hook sees that shape
    a = torch.ones(4, 2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    y = a + b
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append([g.tolist() for g in gi]))
    y.sum().backward()
    assert seen == [[[[1.0, 1.0]] * 4, [4.0, 4.0]]]
    assert b.grad.tolist() == [4.0, 4.0]


def _old_hook_trace(lib):
    trace = []
    for layer in (lib.nn.Linear(3, 2), lib.nn.Linear(3, 2, bias=False), lib.nn.Tanh(),
                  lib.nn.Conv2d(3, 2, 1), lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.ReLU())):
        layer.register_backward_hook(lambda m, gi, go: trace.append(
            (type(m).__name__, _shapes(gi), _shapes(go))))
        x = lib.ones(4, 3, 1, 1) if isinstance(layer, lib.nn.Conv2d) else lib.ones(4, 3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layer(x.requires_grad_()).sum().backward()
        trace.append([str(w.message) for w in caught])
    return trace


@pytest.mark.torch
def test_old_backward_hooks_as_pytorchs():
    real = pytest.importorskip("torch")
    assert _old_hook_trace(torch) == _old_hook_trace(real)


def test_forward_hook_always_call_runs_when_forward_raises():
    # PyTorch 2.13: hooks registered with always_call=True run (with output None) when
    # forward raises, the others don't; an error of such a hook then is only a warning
    # (PyTorch's wording) and forward's error is the one raised.
    class Failing(torch.nn.Module):
        def forward(self, a):
            raise ValueError("bad")

    module, seen = Failing(), []
    module.register_forward_hook(lambda m, args, out: seen.append(("plain", out)))
    module.register_forward_hook(lambda m, args, out: seen.append(("always", out)),
                                 always_call=True)
    module.register_forward_hook(lambda m, args, kwargs, out: seen.append(("kw", kwargs)),
                                 always_call=True, with_kwargs=True)

    def broken(m, args, out):
        raise KeyError("k")

    module.register_forward_hook(broken, always_call=True)
    warning = (r"^module forward hook with ``always_call=True`` raised an exception that was "
               r"silenced as another error was raised in forward: 'k'")
    with pytest.warns(UserWarning, match=warning), pytest.raises(ValueError, match="^bad$"):
        module(torch.ones(1))
    assert seen == [("always", None), ("kw", {})]


def test_forward_hook_always_call_runs_once_when_a_hook_raises():
    seen = []
    module = torch.nn.Identity()
    module.register_forward_hook(lambda m, args, out: seen.append("always"), always_call=True)

    def broken(m, args, out):
        raise KeyError("k")

    module.register_forward_hook(broken)
    with pytest.raises(KeyError):
        module(torch.ones(1))
    assert seen == ["always"]  # it ran before the broken hook, and not again
    module2 = torch.nn.Identity()
    module2.register_forward_hook(broken)
    module2.register_forward_hook(lambda m, args, out: seen.append("after"), always_call=True)
    with pytest.raises(KeyError):
        module2(torch.ones(1))
    assert seen == ["always", "after"]  # not reached normally: run after the error
