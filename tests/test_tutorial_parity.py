"""What PyTorch's tutorials print, teachgrad prints: fixes found by running tutorials and
doc pages (the autograd fundamentals, forward-mode AD, hooks, saving, schedulers ...)
under both libraries and comparing their output line by line.

Expectations are derived by hand or from the definition; where PyTorch is installed, the
same cases are also compared with it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import teachgrad as torch
from teachgrad._aten_random import FUSED_MULTIPLY_ADD


def _bits(values) -> list[int]:
    array = np.asarray(values)
    return array.view(np.int32 if array.dtype == np.float32 else np.int64).tolist()


# ---------------------------------------------------------------------------------------
# linspace and logspace: PyTorch's CPU arithmetic, to the last bit
# ---------------------------------------------------------------------------------------
def _linspace_by_definition(start: float, end: float, steps: int) -> np.ndarray:
    """float32 linspace from PyTorch's kernel: step = (end - start) / (steps - 1) in
    float32; the first half start + step·i, the second end - step·(steps-1-i), each
    rounded once (fused) or twice (product, then sum), as the build computes it."""
    first, last = np.float32(start), np.float32(end)
    step = np.float32((last - first) / np.float32(steps - 1))
    values = []
    for i in range(steps):
        origin, factor = (first, i) if i < steps // 2 else (last, -(steps - 1 - i))
        if FUSED_MULTIPLY_ADD:
            exact = Fraction(float(origin)) + Fraction(float(step)) * factor
            values.append(np.float32(float(exact)))  # (via float64: no tie in these cases)
        else:
            values.append(np.float32(origin + np.float32(step * np.float32(factor))))
    return np.array(values, dtype=np.float32)


@pytest.mark.parametrize("start, end, steps", [(0.0, 2 * math.pi, 25), (-3.0, 7.0, 29),
                                               (0.1, 0.9, 31), (-1.0, 1.0, 100)])
def test_linspace_is_pytorchs_to_the_last_bit(start, end, steps):
    # The autograd tutorial prints sin(linspace(0, 2π, 25)): NumPy's float64 linspace
    # rounded to float32 is one bit off at [7], and sin's near-zero values show it.
    got = torch.linspace(start, end, steps).numpy()
    assert _bits(got) == _bits(_linspace_by_definition(start, end, steps))
    assert got[0] == np.float32(start) and got[-1] == np.float32(end)  # both ends exact


def test_linspace_counts_down_from_the_end_in_its_second_half():
    # step = 1/3 is inexact, so 0 + 3·step and 1 - 0·step differ in where they round:
    # the last value is exactly `end`, the middle one comes from the end side.
    values = torch.linspace(0.0, 1.0, 4, dtype=torch.float64).tolist()
    step = 1.0 / 3.0
    assert values == [0.0, step, 1.0 - step, 1.0]


def test_linspace_special_sizes_and_dtypes():
    assert torch.linspace(2.0, 5.0, 1).tolist() == [2.0]  # one step: start, not end
    assert torch.linspace(0.0, 1.0, 0).shape == (0,)
    assert torch.linspace(0, 10, 4, dtype=torch.int64).tolist() == [0, 3, 6, 10]  # truncated
    assert torch.linspace(1.0, 3.0, 5, dtype=torch.float16).tolist() == [1.0, 1.5, 2.0, 2.5, 3.0]


def test_logspace_uses_the_c_librarys_pow():
    values = torch.logspace(0.0, 2.0, 5, dtype=torch.float64).tolist()
    expected = [math.pow(10.0, e) for e in (0.0, 0.5, 2.0 - 0.5 * 2, 2.0 - 0.5, 2.0)]
    assert values == expected
    assert torch.logspace(0.1, 1.0, 1, dtype=torch.float64).tolist() == [math.pow(10.0, 0.1)]
    assert torch.logspace(-2, 2, 5, base=-2.0).tolist() == [0.25, -0.5, 1.0, -2.0, 4.0]
    assert torch.logspace(0, 400, 3).tolist() == [1.0, math.inf, math.inf]


@pytest.mark.torch
def test_linspace_and_logspace_match_pytorch_bit_for_bit():
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for _ in range(200):
        steps = int(rng.integers(0, 400))
        start, end = (float(v) for v in rng.normal(size=2) * rng.choice([1, 10, 1000]))
        for name in ("float32", "float64", "int64", "float16"):
            mine = torch.linspace(start, end, steps, dtype=getattr(torch, name)).numpy()
            theirs = real.linspace(start, end, steps, dtype=getattr(real, name)).numpy()
            assert mine.tobytes() == theirs.tobytes(), (start, end, steps, name)
        for name in ("float32", "float64"):
            base = float(rng.choice([10.0, 2.0, math.e]))
            mine = torch.logspace(start / 100, end / 100, steps, base=base,
                                  dtype=getattr(torch, name)).numpy()
            theirs = real.logspace(start / 100, end / 100, steps, base=base,
                                   dtype=getattr(real, name)).numpy()
            assert mine.tobytes() == theirs.tobytes(), (start, end, steps, base, name)


# ---------------------------------------------------------------------------------------
# Forward-mode AD tutorial: gradcheck(check_forward_ad=True), ReLU's tangent, func.jvp
# ---------------------------------------------------------------------------------------
def _exp_function(jvp_factor: float):
    """A custom exp whose jvp multiplies the tangent by ``jvp_factor · exp(x)`` (1 is right)."""

    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = torch.exp(x)
            ctx.result = result
            return result

        @staticmethod
        def jvp(ctx, tangent):
            return tangent * ctx.result * jvp_factor

    return Exp


def test_gradcheck_checks_a_custom_jvp_with_forward_mode_only():
    x = torch.tensor([0.3, -1.2], dtype=torch.float64, requires_grad=True)
    only_forward = dict(check_forward_ad=True, check_backward_ad=False,
                        check_undefined_grad=False, check_batched_grad=False)
    # The tutorial's Function has a jvp and no backward: forward mode alone passes.
    assert torch.autograd.gradcheck(_exp_function(1.0).apply, (x,), **only_forward)
    wrong = _exp_function(2.0).apply
    assert torch.autograd.gradcheck(wrong, (x,), raise_exception=False, **only_forward) is False
    with pytest.raises(torch.autograd.GradcheckError) as caught:
        torch.autograd.gradcheck(wrong, (x,), **only_forward)
    message = str(caught.value)
    assert message.startswith("Jacobian computed with forward mode mismatch for output 0 "
                              "with respect to input 0,\nnumerical:tensor([[")
    assert "analytical:tensor([[" in message and "float64)" in message
    # ... and the backward check still runs by default, and needs a backward.
    with pytest.raises(NotImplementedError, match="implement either the backward or vjp"):
        torch.autograd.gradcheck(_exp_function(1.0).apply, (x,), check_forward_ad=True)


def test_gradcheck_needs_one_of_the_two_checks():
    x = torch.tensor([0.3], dtype=torch.float64, requires_grad=True)
    with pytest.raises(AssertionError, match="Expected at least one of check_forward_ad or "
                                             "check_backward_ad to be True"):
        torch.autograd.gradcheck(torch.sin, (x,), check_backward_ad=False)


def test_forward_mode_catches_a_wrong_jvp_of_a_function_with_a_right_backward():
    class Half(torch.autograd.Function):  # y = x / 2, jvp forgets the 1/2
        @staticmethod
        def forward(ctx, x):
            return x / 2

        @staticmethod
        def backward(ctx, grad):
            return grad / 2

        @staticmethod
        def jvp(ctx, tangent):
            return tangent

    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(Half.apply, (x,))
    assert not torch.autograd.gradcheck(Half.apply, (x,), check_forward_ad=True,
                                        raise_exception=False)


def test_relu_tangent_is_plus_zero_where_the_output_is_zero():
    # PyTorch's threshold_backward puts 0, not tangent·0: a negative tangent would give -0.
    import teachgrad.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        dual = fwAD.make_dual(torch.tensor([-1.0, 2.0, 0.0]), torch.tensor([-1.0, -3.0, -2.0]))
        tangent = fwAD.unpack_dual(torch.relu(dual)).tangent
    assert tangent.tolist() == [0.0, -3.0, 0.0]
    assert not np.signbit(tangent.numpy()[[0, 2]]).any()
    assert "-0." not in repr(tangent)


def test_func_jvp_returns_a_tracked_primal_output_as_an_alias():
    from teachgrad.func import jvp

    x = torch.tensor([0.5, 1.0], requires_grad=True)
    out, tangent = jvp(torch.sin, (x,), (torch.ones(2),))
    assert type(out.grad_fn).__name__ == "AliasBackward0"
    out.sum().backward()  # ... still leading back to x: d/dx Σ sin x = cos x
    assert np.allclose(x.grad.numpy(), np.cos([0.5, 1.0]))
    untracked, _ = jvp(torch.sin, (x.detach(),), (torch.ones(2),))
    assert untracked.grad_fn is None


# ---------------------------------------------------------------------------------------
# Saved-tensors-hooks tutorial and the autograd notes: "the attributes starting with _saved"
# ---------------------------------------------------------------------------------------
def test_a_nodes_saved_attributes_are_the_ones_listed_by_dir():
    a = torch.randn(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True)
    product = (a * b).grad_fn
    assert [n for n in dir(product) if n.startswith("_saved")] == ["_saved_other", "_saved_self"]
    assert [n for n in dir(a.exp().grad_fn) if n.startswith("_saved")] == ["_saved_result"]
    assert product._saved_self is a  # (the attributes themselves are unchanged)


# ---------------------------------------------------------------------------------------
# Tensors tutorial: type(x), out= dtypes
# ---------------------------------------------------------------------------------------
def test_type_of_a_tensor_prints_its_public_name():
    assert repr(type(torch.ones(1))) == "<class 'teachgrad.Tensor'>"
    assert repr(type(torch.nn.Parameter(torch.ones(1)))) == (
        "<class 'teachgrad.nn.parameter.Parameter'>")
    # (as torch: <class 'torch.Tensor'>, see test_as_torch; pickling is unchanged)
    import pickle

    assert pickle.loads(pickle.dumps(torch.ones(2))).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("call, message", [
    (lambda a, out: torch.matmul(a, a, out=out),
     "Expected out tensor to have dtype float, but got long int instead"),
    (lambda a, out: torch.mm(a, a, out=out),
     "Expected out tensor to have dtype float, but got long int instead"),
    (lambda a, out: torch.dot(a[0], a[0], out=out),
     "result dtype Long does not match input dtype Float"),
    (lambda a, out: torch.cat([a, a], out=out),
     "torch.cat(): input types can't be cast to the desired output type Long"),
    (lambda a, out: torch.where(a > 0, a, a, out=out),
     "Expected out type to be Float but got Long"),
    (lambda a, out: torch.clamp(a, 0, 1, out=out), "Found dtype Long but expected Float"),
    (lambda a, out: torch.add(a, a, out=out),
     "result type Float can't be cast to the desired output type Long"),
    (lambda a, out: torch.rand(2, dtype=torch.float32, out=out),
     "dtype Float does not match dtype of out parameter (Long)"),
])
def test_out_of_another_dtype_is_refused_in_pytorchs_words(call, message):
    with pytest.raises(RuntimeError) as caught:
        call(torch.ones(2, 2), torch.zeros(0, dtype=torch.int64))
    assert str(caught.value).split("\nHint:")[0] == message


def test_matmul_refuses_even_a_wider_float_out_but_add_casts_into_it():
    a = torch.ones(2, 2)
    with pytest.raises(RuntimeError, match="dtype float, but got double instead"):
        torch.matmul(a, a, out=torch.zeros(2, 2, dtype=torch.float64))
    out = torch.zeros(2, 2, dtype=torch.float64)
    assert torch.add(a, a, out=out) is out and out.tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_sum_into_an_integer_out_converts_the_input_first():
    # As sum(x, dtype=torch.int64): 0.6 → 0 before adding, so the sum is 0, not int(1.2).
    out = torch.zeros(0, dtype=torch.int64)
    torch.sum(torch.tensor([0.6, 0.6]), 0, out=out)
    assert out.tolist() == 0 and out.dtype == torch.int64
    out = torch.zeros(0, dtype=torch.int64)
    torch.cumprod(torch.tensor([1.6, 1.6]), 0, out=out)
    assert out.tolist() == [1, 1]


@pytest.mark.parametrize("name, message", [
    ("gpu", "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
            "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start "
            "of device string: gpu"),
    ("cuda:x", "Invalid device string: 'cuda:x'"),
    ("cpu1", "Invalid device string: 'cpu1'"),
    ("", "Device string must not be empty"),
])
def test_a_malformed_device_name_gets_pytorchs_parse_error_everywhere(name, message):
    # The tensors tutorial's "device='gpu'" mistake: PyTorch complains about the name
    # before it asks whether such a device exists.
    for attempt in (lambda: torch.device(name), lambda: torch.rand(2, device=name),
                    lambda: torch.ones(1).to(name)):
        with pytest.raises(RuntimeError) as caught:
            attempt()
        assert str(caught.value) == message
    with pytest.raises(RuntimeError, match="CPU only"):  # a real device, just not here
        torch.ones(1).to("cuda")


# ---------------------------------------------------------------------------------------
# Building-models tutorial: import torch.functional
# ---------------------------------------------------------------------------------------
def test_torch_functional_holds_the_namespace_functions():
    import teachgrad.functional as functional

    assert torch.functional is functional
    assert functional.einsum is torch.einsum and functional.split is torch.split
    for name in functional.__all__:
        assert getattr(functional, name) is getattr(torch, name)
    assert functional.norm(torch.tensor([3.0, 4.0])).item() == 5.0
    assert not hasattr(functional, "max_pool2d")  # that one is torch.nn.functional's


# ---------------------------------------------------------------------------------------
# Saving and loading (the recipes): a state dict without num_batches_tracked
# ---------------------------------------------------------------------------------------
def test_batchnorm_keeps_its_count_when_an_old_or_plain_state_dict_lacks_it():
    bn = torch.nn.BatchNorm1d(2)
    saved = bn.state_dict()
    assert saved._metadata[""] == {"version": 2}  # the format with num_batches_tracked
    del saved["num_batches_tracked"]
    with pytest.raises(RuntimeError, match='in state_dict: "num_batches_tracked"'):
        torch.nn.BatchNorm1d(2).load_state_dict(saved)  # format 2 says it should be there
    plain = {"weight": torch.ones(2), "bias": torch.zeros(2), "running_mean": torch.zeros(2),
             "running_var": torch.ones(2)}  # no format recorded: taken as an old one
    fresh = torch.nn.BatchNorm1d(2)
    fresh.num_batches_tracked.fill_(7)
    result = fresh.load_state_dict(plain)
    assert result.missing_keys == [] and fresh.num_batches_tracked.item() == 7
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
    keys = model.load_state_dict({"0.weight": torch.zeros(2, 2)}, strict=False).missing_keys
    assert "1.num_batches_tracked" not in keys and "1.running_var" in keys


def test_module_hook_registries_print_as_pytorchs():
    from collections import OrderedDict

    layer = torch.nn.Linear(2, 2)
    assert repr(layer._forward_hooks) == "OrderedDict()"  # (debugging code prints them)
    handle = layer.register_forward_hook(lambda m, i, o: None)
    assert type(layer._forward_hooks) is OrderedDict and list(layer._forward_hooks) == [handle.id]
    for name in ("_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
                 "_state_dict_hooks", "_load_state_dict_pre_hooks"):
        assert type(getattr(layer, name)) is OrderedDict


# ---------------------------------------------------------------------------------------
# torch.autograd.functional docs: jacobian/hessian with strategy="forward-mode"
# ---------------------------------------------------------------------------------------
def test_forward_mode_jacobian_needs_vectorize_and_returns_lists():
    from teachgrad.autograd.functional import hessian, jacobian

    def adder(x, y):
        return 2 * x.exp() + 3 * y

    x, y = torch.tensor([0.0, 1.0]), torch.tensor([2.0, 3.0])
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        jacobian(adder, (x, y), strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="`create_graph=True` and "):
        jacobian(adder, (x, y), strategy="forward-mode", vectorize=True, create_graph=True)
    with pytest.raises(RuntimeError, match="`strict=True` and "):
        jacobian(adder, (x, y), strategy="forward-mode", vectorize=True, strict=True)
    jac = jacobian(adder, (x, y), strategy="forward-mode", vectorize=True)
    assert type(jac) is list  # (reverse mode: a tuple)
    assert np.allclose(jac[0].numpy(), [[2.0, 0.0], [0.0, 2 * math.e]])  # d(2eˣ)/dx = 2eˣ
    assert jac[1].tolist() == [[3.0, 0.0], [0.0, 3.0]]
    assert type(jacobian(adder, (x, y), vectorize=True)) is tuple
    both = jacobian(lambda a, b: (a, b), (x, y), strategy="forward-mode", vectorize=True)
    assert type(both) is list and type(both[0]) is list
    one_input = jacobian(lambda a: (a, a), x, strategy="forward-mode", vectorize=True)
    assert type(one_input) is tuple
    h = hessian(lambda a, b: (a * b).sum(), (x, y), vectorize=True,
                outer_jacobian_strategy="forward-mode")
    assert type(h) is list and type(h[0]) is list
    assert h[0][1].tolist() == [[1.0, 0.0], [0.0, 1.0]] and h[0][0].tolist() == [[0.0, 0.0],
                                                                                   [0.0, 0.0]]
    with pytest.raises(NotImplementedError, match="forward-over-reverse Hessian"):
        hessian(lambda a: (a * a).sum(), x, outer_jacobian_strategy="forward-mode")


# ---------------------------------------------------------------------------------------
# The tensor-views notes: t.storage().data_ptr() tells views apart from copies
# ---------------------------------------------------------------------------------------
def test_views_share_their_storage_and_copies_do_not():
    t = torch.arange(6.0)
    view, copy = t.view(2, 3)[1:], t.clone()
    assert view.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
    assert copy.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()
    assert view.untyped_storage().nbytes() == 6 * 4  # the whole base, not the view's part
    torch.storage._warned_typed_storage = False  # (PyTorch warns once per process)
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        typed = view.storage()
    assert (typed.size(), typed.element_size(), typed.dtype) == (6, 4, torch.float32)
    assert typed.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and typed[4] == 4.0
    assert repr(typed).splitlines()[-1] == (
        "[teachgrad.storage.TypedStorage(dtype=teachgrad.float32, device=cpu) of size 6]")
    assert isinstance(typed, torch.TypedStorage)
    assert isinstance(t.untyped_storage(), torch.UntypedStorage)


# ---------------------------------------------------------------------------------------
# The leaf vs non-leaf tutorial: requires_grad_() on a computed tensor is a no-op
# ---------------------------------------------------------------------------------------
def test_requires_grad_on_a_computed_tensor():
    z = torch.ones(2, requires_grad=True) * 2
    assert z.requires_grad_(True) is z and z.requires_grad_() is z  # already requires grad
    assert type(z.grad_fn).__name__ == "MulBackward0"
    with pytest.raises(RuntimeError) as caught:  # setting the attribute is refused, though
        z.requires_grad = True
    assert str(caught.value) == "you can only change requires_grad flags of leaf variables."
    with pytest.raises(RuntimeError, match="leaf variables. If you want to use a computed "
                                           "variable in a subgraph"):
        z.requires_grad_(False)
    with pytest.raises(RuntimeError, match="use var_no_grad = var.detach\\(\\)."):
        z.requires_grad = False


# ---------------------------------------------------------------------------------------
# The WGAN-GP gradient penalty, as often written: autograd.grad(..., only_inputs=True)
# ---------------------------------------------------------------------------------------
def test_autograd_grad_takes_the_old_only_inputs_argument():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad((x ** 2).sum(), x, only_inputs=True, create_graph=True)
    assert g.tolist() == [2.0, 4.0]
    with pytest.warns(FutureWarning, match="only_inputs argument is deprecated"):
        torch.autograd.grad((x ** 2).sum(), x, None, None, False, False)  # (6th: only_inputs)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        torch.autograd.grad((x * 1).sum(), [x, torch.ones(1, requires_grad=True)], None, None,
                            False, True)  # allow_unused is the 7th argument, as PyTorch's


# ---------------------------------------------------------------------------------------
# torch.autograd docs: allow_mutation_on_saved_tensors, backward(inputs=...), and custom
# Functions / saved-tensor hooks inside torch.func transforms
# ---------------------------------------------------------------------------------------
def test_mutation_of_a_saved_tensor_is_allowed_inside_the_block():
    from teachgrad.autograd.graph import allow_mutation_on_saved_tensors

    with allow_mutation_on_saved_tensors() as ctx:
        a = torch.ones(2, 3, requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()  # b was saved by the power: backward must still see ones
        out.backward()
        assert a.grad.tolist() == [[2.0] * 3] * 2  # d(Σ b²)/da = 2b = 2
        c = a.clone()
        late = (c * c).sum()
        c.mul_(2)
    assert type(ctx).__name__ == "_AllowMutationOnSavedContext"
    with pytest.raises(RuntimeError, match="Trying to backward outside of the "
                                           "'allow_mutation_on_saved_tensors' context"):
        late.backward()
    with pytest.raises(RuntimeError, match="contexts cannot be nested"), \
            allow_mutation_on_saved_tensors(), allow_mutation_on_saved_tensors():
        pass
    b = torch.ones(2, requires_grad=True).clone()  # and outside it, the usual error
    out = (b ** 2).sum()
    b.sin_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


def test_backward_inputs_are_checked_as_pytorch_checks_them():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="^all inputs have to be Tensors or GradientEdges, "
                                           "but got str$"):
        (x * 2).sum().backward(inputs=["a", torch.ones(1)])  # types first
    with pytest.raises(RuntimeError, match="^can't retain_grad on Tensor that has "
                                           "requires_grad=False$"):
        (x * 2).sum().backward(inputs=[torch.ones(1)])
    with pytest.raises(RuntimeError, match="but got int"):
        torch.autograd.grad((x * 2).sum(), [x, 3])


class _OldStyleDouble(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class _NewStyleDouble(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x * 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def test_a_function_inside_torch_func_transforms_needs_setup_context():
    from teachgrad.func import grad, vmap

    x = torch.ones(2)
    assert _OldStyleDouble.apply(x).tolist() == [2.0, 2.0]  # fine outside a transform
    for transform in (lambda f: grad(lambda t: f(t).sum()), vmap):
        with pytest.raises(RuntimeError, match="it must override the setup_context "
                                               "staticmethod"):
            transform(_OldStyleDouble.apply)(x)
        transform(_NewStyleDouble.apply)(x)  # the setup_context form is accepted
    assert grad(lambda t: _NewStyleDouble.apply(t).sum())(x).tolist() == [2.0, 2.0]
    assert _OldStyleDouble.apply(x).tolist() == [2.0, 2.0]  # (the refusal did not stick)


def test_grad_vjp_and_jacrev_refuse_saved_tensor_hooks_inside():
    from teachgrad.autograd.graph import saved_tensors_hooks
    from teachgrad.func import grad, jacrev, jvp, vjp, vmap

    def with_hooks(t):
        with saved_tensors_hooks(lambda s: s, lambda s: s):
            return t.sin().sum()

    x = torch.ones(2)
    for call in (lambda: grad(with_hooks)(x), lambda: vjp(with_hooks, x),
                 lambda: jacrev(with_hooks)(x)):
        with pytest.raises(RuntimeError, match="don't yet support saved tensor hooks"):
            call()
    assert vmap(with_hooks)(torch.ones(2, 2)).shape == (2,)  # vmap and jvp allow them
    assert jvp(with_hooks, (x,), (x,))[1].item() == pytest.approx(2 * np.cos(1.0))
