"""Hooks for every module: ``torch.nn.modules.module.register_module_*``.

PyTorch runs them before each module's own hooks of the same kind: the forward pre-hooks
and forward hooks, the full backward pre-hooks and hooks, and the registration hooks
(buffer, parameter, sub-module) that may replace what is registered. The gradients the
backward hooks see are derived by hand here (``y = x Wᵀ + b`` summed: grad_output is ones,
grad_input is ``ones @ W``); the torch-marked tests run the same programs with PyTorch and
compare the logs.

Global hooks stay until removed, so every test removes its own (the ``registered`` fixture)
and forgets which kind of backward hook was chosen.
"""

from __future__ import annotations

import warnings

import pytest
from hook_fixtures import known_linear

import teachgrad as torch
from teachgrad.nn.modules import module as module_mod


def _reset(lib) -> None:
    lib.nn.modules.module._global_is_full_backward_hook = None


@pytest.fixture
def registered():
    """A list to put handles in; they are removed after the test, in teachgrad and torch."""
    handles: list = []
    yield handles
    for handle in handles:
        handle.remove()
    _reset(torch)
    try:
        import torch as real
    except ImportError:
        return
    _reset(real)




def _name(module) -> str:
    return type(module).__name__


def _grads(grads) -> list:
    return [None if g is None else g.tolist() for g in grads]


def _order_program(lib, handles: list) -> tuple[list, list]:
    """Global and per-module hooks of every kind on Sequential(Linear, ReLU)."""
    M = lib.nn.modules.module
    log: list = []
    layer = known_linear(lib)
    model = lib.nn.Sequential(layer, lib.nn.ReLU())
    handles += [
        M.register_module_forward_pre_hook(lambda m, a: log.append(("all pre", _name(m)))),
        M.register_module_forward_hook(lambda m, a, o: log.append(("all forward", _name(m)))),
        M.register_module_full_backward_pre_hook(
            lambda m, go: log.append(("all backward pre", _name(m), _grads(go)))),
        M.register_module_full_backward_hook(
            lambda m, gi, go: log.append(("all backward", _name(m), _grads(gi)))),
        layer.register_forward_pre_hook(lambda m, a: log.append(("pre", _name(m)))),
        layer.register_forward_hook(lambda m, a, o: log.append(("forward", _name(m)))),
        layer.register_full_backward_pre_hook(lambda m, go: log.append(("backward pre",))),
        layer.register_full_backward_hook(lambda m, gi, go: log.append(("backward",))),
    ]
    x = lib.ones(1, 2, requires_grad=True)
    y = model(x)
    forward, log[:] = log[:], []
    y.sum().backward()
    return forward, log


def test_hooks_for_every_module_run_before_each_modules_own(registered):
    forward, backward = _order_program(torch, registered)
    assert forward == [
        ("all pre", "Sequential"),
        ("all pre", "Linear"), ("pre", "Linear"), ("all forward", "Linear"), ("forward", "Linear"),
        ("all pre", "ReLU"), ("all forward", "ReLU"),
        ("all forward", "Sequential"),
    ]
    # x W^T = [3, 7, 11] > 0, so ReLU passes ones; grad_input of Linear is ones(1, 3) @ W
    ones, through_w = [[1.0, 1.0, 1.0]], [[9.0, 12.0]]
    assert backward == [
        ("all backward pre", "Sequential", [ones]),
        ("all backward pre", "ReLU", [ones]),
        ("all backward", "ReLU", [ones]),
        ("all backward pre", "Linear", [ones]),
        ("backward pre",),
        ("all backward", "Linear", [through_w]),
        ("backward",),
        ("all backward", "Sequential", [through_w]),
    ]


def test_removed_hooks_are_not_called_and_calls_take_the_fast_path_again(registered):
    M = module_mod
    log = []
    handle = M.register_module_forward_hook(lambda m, a, o: log.append(_name(m)))
    layer = torch.nn.Identity()
    layer(torch.ones(1))
    assert log == ["Identity"] and M._global_call_hooks_on
    handle.remove()
    handle.remove()  # twice is harmless
    layer(torch.ones(1))
    assert log == ["Identity"]
    assert not M._global_call_hooks_on  # the first call that found none cleared the flag


def test_what_the_hooks_may_return(registered):
    M = module_mod
    registered.append(M.register_module_forward_pre_hook(lambda m, args: args[0] * 2))
    registered.append(M.register_module_forward_hook(lambda m, args, out: out + 1))
    assert torch.nn.Identity()(torch.tensor([3.0])).tolist() == [7.0]  # 3 * 2 + 1
    registered.append(M.register_module_full_backward_pre_hook(
        lambda m, go: (go[0] * 10,)))
    x = torch.ones(1, 2, requires_grad=True)
    known_linear(torch)(x).sum().backward()
    # the input was doubled by the pre-hook, the gradient scaled by 10: (ones @ W) * 10 * 2
    assert x.grad.tolist() == [[180.0, 240.0]]


def test_global_forward_hooks_with_kwargs(registered):
    class Scale(torch.nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    seen = []
    M = module_mod
    registered.append(M.register_module_forward_hook(
        lambda m, args, kwargs, out: seen.append((kwargs, out.tolist())), with_kwargs=True))
    registered.append(M.register_module_forward_pre_hook(
        lambda m, args: seen.append(("pre gets no kwargs", len(args)))))
    Scale()(torch.tensor([2.0]), factor=3.0)
    assert seen == [("pre gets no kwargs", 1), ({"factor": 3.0}, [6.0])]


def _always_call_program(lib, handles: list) -> tuple[list, list, str]:
    """A pre-hook raises: the always_call forward hooks still run (output None)."""
    M = lib.nn.modules.module
    log = []
    layer = lib.nn.Identity()

    def failing(module, args):
        raise ValueError("pre-hook failed")

    handles += [
        M.register_module_forward_hook(lambda m, a, o: log.append(("all", o)), always_call=True),
        # PyTorch calls a global always_call hook without kwargs on this path even when it
        # was registered with_kwargs: it fails (missing argument) and only warns
        M.register_module_forward_hook(lambda m, a, k, o: log.append(("all kw", o)),
                                       always_call=True, with_kwargs=True),
        M.register_module_forward_hook(lambda m, a, o: log.append(("never", o))),
        layer.register_forward_hook(lambda m, a, o: log.append(("own", o)), always_call=True),
        layer.register_forward_pre_hook(failing),
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError) as error:
            layer(lib.ones(1))
    return log, [str(w.message).split(":")[0] for w in caught], str(error.value)


def test_always_call_hooks_run_when_the_call_raises(registered):
    log, warned, error = _always_call_program(torch, registered)
    assert error == "pre-hook failed"
    assert log == [("all", None), ("own", None)]
    assert warned == ["global module forward hook with ``always_call=True`` raised an "
                      "exception that was silenced as another error was raised in forward"]


def test_full_and_old_style_global_backward_hooks_do_not_mix(registered):
    M = module_mod
    registered.append(M.register_module_full_backward_hook(lambda m, gi, go: None))
    with pytest.raises(RuntimeError, match=r"^Cannot use both regular backward hooks and full "
                                           r"backward hooks as a global Module hook\. Please "
                                           r"use only one of them\.$"):
        M.register_module_backward_hook(lambda m, gi, go: None)


def test_old_style_global_backward_hook_sees_the_last_nodes_gradients(registered):
    seen = []
    registered.append(module_mod.register_module_backward_hook(
        lambda m, gi, go: seen.append((_name(m), _grads(go)))))
    x = torch.ones(1, 2, requires_grad=True)
    with pytest.warns(FutureWarning):  # as PyTorch: Linear is more than one node's worth
        y = torch.nn.Sequential(known_linear(torch))(x)
    y.sum().backward()
    assert ("Linear", [[[1.0, 1.0, 1.0]]]) in seen


def _registration_program(lib, handles: list) -> tuple[list, list]:
    M = lib.nn.modules.module
    log = []
    handles += [
        M.register_module_buffer_registration_hook(
            lambda m, n, b: log.append(
                ("buffer", _name(m), n, None if b is None else list(b.shape)))),
        M.register_module_parameter_registration_hook(
            lambda m, n, p: log.append(("parameter", _name(m), n))),
        M.register_module_module_registration_hook(
            lambda m, n, s: log.append(("module", _name(m), n, _name(s)))),
    ]
    model = lib.nn.Sequential(lib.nn.Linear(1, 1, bias=False), lib.nn.BatchNorm1d(2))
    model.extra = lib.nn.ReLU()
    model.extra = None
    model.register_buffer("nothing", None)
    model.p = lib.nn.Parameter(lib.ones(1))
    model.register_parameter("q", None)  # None: the parameter hooks are not called
    # a hook may replace what is registered
    handles.append(M.register_module_buffer_registration_hook(
        lambda m, n, b: None if b is None else lib.zeros(3)))
    module = lib.nn.Module()
    module.register_buffer("b", lib.ones(1))
    return log, module.b.tolist()


def test_registration_hooks_see_and_may_replace_what_is_registered(registered):
    log, replaced = _registration_program(torch, registered)
    assert log == [
        ("parameter", "Linear", "weight"),  # (bias=False registers None: no hook call)
        ("parameter", "BatchNorm1d", "weight"), ("parameter", "BatchNorm1d", "bias"),
        ("buffer", "BatchNorm1d", "running_mean", [2]),
        ("buffer", "BatchNorm1d", "running_var", [2]),
        ("buffer", "BatchNorm1d", "num_batches_tracked", []),
        ("module", "Sequential", "0", "Linear"), ("module", "Sequential", "1", "BatchNorm1d"),
        ("module", "Sequential", "extra", "ReLU"), ("module", "Sequential", "extra", "NoneType"),
        ("buffer", "Sequential", "nothing", None),
        ("parameter", "Sequential", "p"),
        ("buffer", "Module", "b", [1]),
    ]
    assert replaced == [0.0, 0.0, 0.0]


@pytest.mark.torch
@pytest.mark.parametrize("program", [_order_program, _always_call_program,
                                     _registration_program])
def test_matches_pytorch(program, registered):
    real = pytest.importorskip("torch")
    assert program(torch, registered) == program(real, registered)
