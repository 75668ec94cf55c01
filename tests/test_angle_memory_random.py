"""``angle`` for real tensors, the storage questions (``is_sparse``, ``is_pinned()`` ...),
``frombuffer``, ``empty_permuted``, ``new_empty_strided``, ``torch.random.fork_rng`` and
the hints for PyTorch's parts teachgrad does not have.

Expectations are written by hand (π on the negative half-line, byte arithmetic, strides
counted from the layout); with PyTorch installed (``torch`` marker) values, strides,
grad_fn names and errors are compared with it too.
"""

from __future__ import annotations

import array
import math
import subprocess
import sys

import numpy as np
import pytest

import teachgrad
from tests.parity import raises_as_torch


# ----------------------------------------------------------------------------------------
# angle
# ----------------------------------------------------------------------------------------
def test_angle_is_pi_on_the_negative_half_line_and_nan_stays_nan():
    x = teachgrad.tensor([-2.0, -0.0, 0.0, 3.0, -math.inf, math.inf, math.nan])
    y = teachgrad.angle(x)
    expected = [math.pi, 0, 0, 0, math.pi, 0]
    assert y.dtype is teachgrad.float32
    np.testing.assert_allclose(y.numpy()[:6], np.float32(expected))
    assert math.isnan(y[6].item())
    assert x.angle().tolist()[:6] == y.tolist()[:6]


def test_angle_of_integers_and_bools_is_the_default_float_dtype():
    assert teachgrad.angle(teachgrad.tensor([-1, 0, 2])).dtype is teachgrad.float32
    assert teachgrad.angle(teachgrad.tensor([True, False])).tolist() == [0.0, 0.0]
    half = teachgrad.angle(teachgrad.tensor([-1.0], dtype=teachgrad.float16))
    assert half.dtype is teachgrad.float16 and half.item() == float(np.float16(np.pi))


def test_angle_gradient_is_zero_and_in_place_changes_are_caught():
    x = teachgrad.tensor([-1.0, 2.0], requires_grad=True)
    y = x.angle()
    assert type(y.grad_fn).__name__ == "AngleBackward0"
    assert y.grad_fn._saved_self is x
    (g,) = teachgrad.autograd.grad(y.sum(), x, create_graph=True)
    assert g.tolist() == [0.0, 0.0] and not g.requires_grad
    with teachgrad.no_grad():
        x.mul_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_angle_takes_out():
    out = teachgrad.empty(2)
    assert teachgrad.angle(teachgrad.tensor([1.0, -1.0]), out=out) is out
    np.testing.assert_allclose(out.numpy(), [0, np.pi], rtol=1e-7)


@pytest.mark.torch
def test_angle_matches_torch():
    torch = pytest.importorskip("torch")
    values = [-2.0, -0.0, 0.0, 3.0, -math.inf, math.inf, math.nan]
    for dtype in ("float32", "float64", "int64"):
        data = np.array(values if dtype != "int64" else [-2, 0, 3], dtype)
        theirs = torch.angle(torch.tensor(data))
        ours = teachgrad.angle(teachgrad.tensor(data))
        assert str(theirs.dtype).split(".")[1] == str(ours.dtype).split(".")[1]
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


# ----------------------------------------------------------------------------------------
# Where and how a tensor is stored
# ----------------------------------------------------------------------------------------
QUESTIONS = ("is_meta", "is_sparse", "is_sparse_csr", "is_quantized", "is_nested",
             "is_mkldnn", "is_xpu", "is_mps", "is_ipu", "is_vulkan", "is_xla", "is_maia",
             "is_mtia")


@pytest.mark.parametrize("name", QUESTIONS)
def test_storage_questions_are_answered_false(name):
    assert getattr(teachgrad.ones(2), name) is False


def test_pinned_and_shared_memory():
    x = teachgrad.ones(2)
    assert x.is_pinned() is False and x.is_shared() is False
    with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
        x.pin_memory()


@pytest.mark.torch
def test_storage_questions_match_torch():
    torch = pytest.importorskip("torch")
    for name in QUESTIONS:
        assert getattr(torch.ones(2), name) == getattr(teachgrad.ones(2), name), name
    assert torch.ones(2).is_pinned() == teachgrad.ones(2).is_pinned()
    raises_as_torch(lambda T: T.ones(2).pin_memory())


# ----------------------------------------------------------------------------------------
# frombuffer
# ----------------------------------------------------------------------------------------
def test_frombuffer_reads_little_endian_bytes_and_shares_memory():
    data = bytearray([1, 2, 3, 4, 5, 6])
    x = teachgrad.frombuffer(data, dtype=teachgrad.int16)
    assert x.dtype is teachgrad.int16
    assert x.tolist() == [1 + 2 * 256, 3 + 4 * 256, 5 + 6 * 256]  # (a little-endian machine)
    data[0] = 9
    assert x[0].item() == 9 + 2 * 256  # the tensor sees the buffer's change
    x[2] = 0
    assert data[4] == data[5] == 0  # and the buffer sees the tensor's


def test_frombuffer_count_and_offset():
    values = array.array("f", [1.0, 2.0, 3.0])
    x = teachgrad.frombuffer(values, dtype=teachgrad.float32, count=2, offset=4)
    assert x.tolist() == [2.0, 3.0]
    y = teachgrad.frombuffer(array.array("d", [1, 2]), dtype=teachgrad.float64,
                             requires_grad=True)
    assert y.requires_grad and y.is_leaf


def test_frombuffer_copies_a_read_only_buffer_and_says_so():
    with pytest.warns(UserWarning, match="teachgrad copies it"):
        x = teachgrad.frombuffer(b"abc", dtype=teachgrad.uint8)
    x.add_(1)  # a copy: writable, and bytes stay bytes
    assert x.tolist() == [98, 99, 100]


FROMBUFFER_ERRORS = [
    lambda T: T.frombuffer(bytearray(6), dtype=T.int32),
    lambda T: T.frombuffer(bytearray(6), dtype=T.int32, count=2),
    lambda T: T.frombuffer(bytearray(6), dtype=T.int8, offset=6),
    lambda T: T.frombuffer(bytearray(6), dtype=T.int8, offset=-1),
    lambda T: T.frombuffer(bytearray(), dtype=T.int8),
    lambda T: T.frombuffer(bytearray(6), dtype=T.int8, count=0),
    lambda T: T.frombuffer([1, 2], dtype=T.uint8),
    lambda T: T.frombuffer(bytearray(6)),
    lambda T: T.frombuffer(memoryview(bytearray(6))[::2], dtype=T.uint8),
]


@pytest.mark.parametrize("case", FROMBUFFER_ERRORS)
def test_frombuffer_errors(case):
    with pytest.raises((ValueError, TypeError, RuntimeError)):
        case(teachgrad)


@pytest.mark.torch
@pytest.mark.parametrize("case", FROMBUFFER_ERRORS)
def test_frombuffer_errors_match_torch(case):
    raises_as_torch(case)


@pytest.mark.torch
def test_frombuffer_values_match_torch():
    torch = pytest.importorskip("torch")
    raw = bytes(range(1, 17))
    for name in ("uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"):
        theirs = torch.frombuffer(bytearray(raw), dtype=getattr(torch, name))
        ours = teachgrad.frombuffer(bytearray(raw), dtype=getattr(teachgrad, name))
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


# ----------------------------------------------------------------------------------------
# empty_permuted, new_empty_strided
# ----------------------------------------------------------------------------------------
def test_empty_permuted_lays_dimensions_out_in_the_given_order():
    # (2, 3, 4) stored as (2, 4, 3): dim 1 innermost (stride 1), dim 2 next (stride 3)
    x = teachgrad.empty_permuted((2, 3, 4), (0, 2, 1))
    assert x.shape == (2, 3, 4) and x.stride() == (12, 1, 3)
    nhwc = teachgrad.empty_permuted((5, 3, 4, 6), (0, 2, 3, 1))  # channels last
    assert nhwc.stride() == (72, 1, 18, 3)
    assert nhwc.is_contiguous(memory_format=teachgrad.channels_last)
    assert teachgrad.empty_permuted((2, 3), (1, 0), dtype=teachgrad.int64).dtype is teachgrad.int64
    assert teachgrad.empty_permuted((2, 3), (1, 0), requires_grad=True).requires_grad


@pytest.mark.parametrize(("layout", "message"), [
    ((0, 2), "does not match the length of the physical_layout"),
    ((0, 2, 2), "Duplicate dim not allowed"),
    ((0, 2, 3), "Dimension out of range"),
    ((0, 2, -1), "Dimension out of range"),
])
def test_empty_permuted_errors(layout, message):
    with pytest.raises(RuntimeError, match=message):
        teachgrad.empty_permuted((2, 3, 4), layout)


@pytest.mark.torch
@pytest.mark.parametrize("layout", [(0, 2, 1), (2, 1, 0), (0, 2), (0, 2, 2), (0, 2, 3),
                                    (1, 0, 2)])
def test_empty_permuted_matches_torch(layout):
    torch = pytest.importorskip("torch")
    try:
        theirs = torch.empty_permuted((2, 3, 4), layout)
    except RuntimeError:
        raises_as_torch(lambda T: T.empty_permuted((2, 3, 4), layout))
        return
    assert teachgrad.empty_permuted((2, 3, 4), layout).stride() == theirs.stride()


def test_new_empty_strided_takes_the_dtype_of_its_tensor():
    x = teachgrad.zeros(2, dtype=teachgrad.int32).new_empty_strided((2, 3), (1, 2))
    assert x.dtype is teachgrad.int32 and x.stride() == (1, 2) and x.shape == (2, 3)
    y = teachgrad.zeros(2).new_empty_strided((2, 3), (3, 1), requires_grad=True)
    assert y.requires_grad and y.dtype is teachgrad.float32
    with pytest.raises(RuntimeError, match="dimensionality of sizes"):
        teachgrad.zeros(2).new_empty_strided((2, 3), (3,))


# ----------------------------------------------------------------------------------------
# torch.random
# ----------------------------------------------------------------------------------------
def test_fork_rng_puts_the_state_back():
    teachgrad.manual_seed(0)
    with teachgrad.random.fork_rng():
        inside = teachgrad.rand(3)
    after = teachgrad.rand(3)
    assert after.tolist() == inside.tolist()  # as if the block had drawn nothing
    with teachgrad.random.fork_rng(enabled=False):
        not_forked = teachgrad.rand(3)
    assert not_forked.tolist() != after.tolist()


def test_fork_rng_puts_the_state_back_after_an_error():
    teachgrad.manual_seed(1)
    expected = teachgrad.rand(2)
    teachgrad.manual_seed(1)
    with pytest.raises(KeyError), teachgrad.random.fork_rng():
        teachgrad.rand(5)
        raise KeyError("inside")
    assert teachgrad.rand(2).tolist() == expected.tolist()


def test_torch_random_has_pytorchs_functions():
    for name in ("set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed",
                 "fork_rng"):
        assert callable(getattr(teachgrad.random, name))
    assert teachgrad.random.manual_seed(5).initial_seed() == 5 == teachgrad.initial_seed()


@pytest.mark.torch
def test_fork_rng_draws_match_torch():
    torch = pytest.importorskip("torch")
    results = []
    for T in (torch, teachgrad):
        T.manual_seed(7)
        with T.random.fork_rng():
            T.rand(4)
        results.append(T.rand(3).numpy())
    np.testing.assert_array_equal(results[0], results[1])


# ----------------------------------------------------------------------------------------
# PyTorch's parts teachgrad does not have
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["jit", "bfloat16", "sparse", "hub"])
def test_missing_parts_say_what_they_are_for(name):
    with pytest.raises(AttributeError, match=f"has no attribute '{name}'\nHint: ") as info:
        getattr(teachgrad, name)
    assert "teachgrad" in str(info.value).split("Hint: ")[1]


@pytest.mark.parametrize("name", ["hub", "bfloat16", "complex64"])
def test_a_hint_is_not_followed_by_pythons_guess(name):
    # Python prints "Did you mean: 'sub'?" after torch.hub's error when it can guess a
    # near name; after a hint that says what the part is for, the guess misleads. (The
    # interpreter's own printer adds it, so the error is printed by a Python of its own.)
    printed = subprocess.run([sys.executable, "-c", f"import teachgrad; teachgrad.{name}"],
                             capture_output=True, text=True).stderr
    assert f"has no attribute '{name}'\nHint: " in printed
    assert "Did you mean" not in printed


def test_other_missing_names_get_pythons_plain_error():
    with pytest.raises(AttributeError) as info:
        teachgrad.no_such_thing  # noqa: B018
    assert str(info.value) == "module 'teachgrad' has no attribute 'no_such_thing'"


# ----------------------------------------------------------------------------------------
# A NumPy array that is not writable
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", ["from_numpy", "as_tensor", "asarray"])
def test_a_read_only_array_is_shared_with_a_warning_and_not_changed_in_place(make):
    array_ = np.arange(3.0)
    array_.flags.writeable = False
    with pytest.warns(UserWarning, match="The given NumPy array is not writable"):
        x = getattr(teachgrad, make)(array_)
    assert np.shares_memory(x.numpy(), array_)
    for change in (lambda: x.add_(1), lambda: x.__setitem__(0, 5.0), lambda: x.zero_()):
        with pytest.raises(RuntimeError, match="NumPy array that is not writable") as info:
            change()
        assert "clone()" in str(info.value)
    assert array_.tolist() == [0.0, 1.0, 2.0]  # untouched, and no half-made change
    assert x._version == 0
    y = x.clone().add_(1)  # what the message says to do
    assert y.tolist() == [1.0, 2.0, 3.0]


def test_an_expanded_tensor_still_gets_pytorchs_overlap_error():
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        teachgrad.zeros(1, 3).expand(2, 3).add_(1)


def test_tensor_copies_a_read_only_array_silently():
    array_ = np.arange(3.0)
    array_.flags.writeable = False
    x = teachgrad.tensor(array_)
    assert x.add_(1).tolist() == [1.0, 2.0, 3.0]


# ----------------------------------------------------------------------------------------
# pin_memory=
# ----------------------------------------------------------------------------------------
def _factory_calls(T):
    """Each factory that takes pin_memory=, as a function of that argument."""
    x = T.zeros(2)
    calls = {
        "tensor": lambda p: T.tensor([1.0], pin_memory=p),
        "scalar_tensor": lambda p: T.scalar_tensor(1.0, pin_memory=p),
        "full": lambda p: T.full((2,), 1.0, pin_memory=p),
        "linspace": lambda p: T.linspace(0, 1, 3, pin_memory=p),
        "logspace": lambda p: T.logspace(0, 1, 3, pin_memory=p),
        "empty_strided": lambda p: T.empty_strided((2,), (1,), pin_memory=p),
        "empty_permuted": lambda p: T.empty_permuted((2,), (0,), pin_memory=p),
        "randint": lambda p: T.randint(3, (2,), pin_memory=p),
        "normal": lambda p: T.normal(0.0, 1.0, (2,), pin_memory=p),
        "full_like": lambda p: T.full_like(x, 1.0, pin_memory=p),
        "randint_like": lambda p: T.randint_like(x, 3, pin_memory=p),
        "tril_indices": lambda p: T.tril_indices(3, 3, pin_memory=p),
        "triu_indices": lambda p: T.triu_indices(3, 3, pin_memory=p),
        "new_full": lambda p: x.new_full((2,), 1.0, pin_memory=p),
        "new_empty_strided": lambda p: x.new_empty_strided((2,), (1,), pin_memory=p),
    }
    for name in ("zeros", "ones", "empty", "eye", "arange", "rand", "randn", "randperm",
                 "hann_window", "kaiser_window"):
        calls[name] = lambda p, name=name: getattr(T, name)(2, pin_memory=p)
    for name in ("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"):
        calls[name] = lambda p, name=name: getattr(T, name)(x, pin_memory=p)
    for name in ("new_zeros", "new_ones", "new_empty"):
        calls[name] = lambda p, name=name: getattr(x, name)(2, pin_memory=p)
    return calls


@pytest.mark.parametrize("name", sorted(_factory_calls(teachgrad)))
def test_every_factory_takes_pin_memory_false_and_refuses_true(name):
    call = _factory_calls(teachgrad)[name]
    made = call(False)
    assert isinstance(made, teachgrad.Tensor)
    assert call(None).shape == made.shape
    with pytest.raises(RuntimeError, match="pin_memory=True requires a CUDA or other "):
        call(True)
    with pytest.raises(TypeError, match="pin_memory"):
        call(1)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(_factory_calls(teachgrad)))
def test_pin_memory_matches_torch(name):
    torch = pytest.importorskip("torch")
    assert _factory_calls(torch)[name](False).shape == _factory_calls(teachgrad)[name](False).shape
    raises_as_torch(lambda T: _factory_calls(T)[name](True))
    with pytest.raises(TypeError):
        _factory_calls(torch)[name](1)


def test_functions_without_pin_memory_still_refuse_it():
    # (as_tensor, from_numpy and the samplers take no pin_memory in PyTorch either)
    with pytest.raises(TypeError, match="unexpected keyword argument 'pin_memory'"):
        teachgrad.as_tensor([1.0], pin_memory=False)


# ----------------------------------------------------------------------------------------
# dim_order
# ----------------------------------------------------------------------------------------
def test_dim_order_lists_dims_outermost_first():
    x = teachgrad.empty(2, 3, 5, 7)
    assert x.dim_order() == (0, 1, 2, 3)
    assert x.transpose(1, 2).dim_order() == (0, 2, 1, 3)
    assert x.permute(3, 0, 2, 1).dim_order() == (1, 3, 2, 0)
    assert x.contiguous(memory_format=teachgrad.channels_last).dim_order() == (0, 2, 3, 1)
    assert teachgrad.empty_permuted((2, 3, 4), (2, 0, 1)).dim_order() == (2, 0, 1)
    assert teachgrad.tensor(1.0).dim_order() == ()


def test_dim_order_ambiguity_check():
    single = teachgrad.empty(1, 2, 3, 4)  # the size-1 dim could go anywhere
    assert single.dim_order() == (0, 1, 2, 3)
    with pytest.raises(RuntimeError, match="does not have unique dim order"):
        single.dim_order(ambiguity_check=True)
    # ... but of the two formats only the row-major one describes it
    assert single.dim_order(
        ambiguity_check=[teachgrad.contiguous_format, teachgrad.channels_last]) == (0, 1, 2, 3)
    assert teachgrad.empty(2, 3).dim_order(ambiguity_check=True) == (0, 1)
    with pytest.raises(TypeError, match="must be a bool or a list of memory formats"):
        single.dim_order(ambiguity_check="ILLEGAL")
    with pytest.raises(TypeError, match="must be a bool or a list of memory formats"):
        single.dim_order(ambiguity_check=[1])


@pytest.mark.torch
def test_dim_order_matches_torch_on_permuted_sliced_and_expanded_tensors():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    checks = (False, True, ["contiguous_format"], ["contiguous_format", "channels_last"],
              ["channels_last"])
    for _ in range(400):
        ndim = int(rng.integers(1, 6))
        shape = tuple(int(n) for n in rng.choice([1, 1, 2, 3, 4], ndim))  # (not empty:
        perm = tuple(int(d) for d in rng.permutation(ndim))  # PyTorch's strides of an empty
        steps = tuple(int(s) for s in rng.choice([1, 1, 2], ndim))  # tensor differ)
        expanded = int(rng.integers(ndim)) if rng.random() < 0.3 else None
        for check in checks:
            results = []
            for T in (torch, teachgrad):
                x = T.zeros(shape)
                if expanded is not None and shape[expanded] == 1:
                    x = x.expand(*shape[:expanded], 3, *shape[expanded + 1:])
                x = x.permute(*perm)[tuple(slice(None, None, s) for s in steps)]
                given = check if isinstance(check, bool) else [getattr(T, f) for f in check]
                try:
                    results.append(x.dim_order(ambiguity_check=given))
                except RuntimeError as error:
                    results.append(str(error))
            assert results[0] == results[1], (shape, perm, steps, expanded, check)
