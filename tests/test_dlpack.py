"""DLPack: teachgrad's memory handed to other libraries and theirs taken, without copies.

NumPy speaks DLPack, so the protocol is tested against it always; against the real
PyTorch (the reason a learner wants it) when installed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import teachgrad
from teachgrad.utils.dlpack import DLDeviceType, from_dlpack, to_dlpack


def test_numpy_reads_a_tensors_memory_in_place():
    t = teachgrad.arange(6.0).reshape(2, 3).t()  # (a transposed view: strides travel too)
    a = np.from_dlpack(t)
    assert a.shape == (3, 2) and a.strides == (4, 12)
    a[0, 1] = -1.0
    assert t[0, 1].item() == -1.0


def test_a_tensor_over_numpys_memory_shares_it():
    a = np.arange(4, dtype=np.int64)
    t = teachgrad.from_dlpack(a)
    assert t.dtype == teachgrad.int64 and t.tolist() == [0, 1, 2, 3]
    t.add_(10)
    assert a.tolist() == [10, 11, 12, 13]


def test_copy_true_gives_memory_of_its_own():
    a = np.ones(3, dtype=np.float32)
    t = teachgrad.from_dlpack(a, copy=True)
    t.add_(1)
    assert a.tolist() == [1.0, 1.0, 1.0] and t.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("values", [np.float64(2.5), np.zeros((0, 3), np.float32),
                                    np.array([True, False])],
                         ids=["0-d", "empty", "bool"])
def test_shapes_and_dtypes_cross_unchanged(values):
    t = teachgrad.from_dlpack(np.asarray(values))
    back = np.from_dlpack(t)
    assert back.shape == np.shape(values) and back.dtype == np.asarray(values).dtype
    np.testing.assert_array_equal(back, values)


def test_a_tensor_that_requires_grad_is_not_exported():
    with pytest.raises(BufferError, match=r"^Can't export tensors that require gradient, "
                                          r"use tensor\.detach\(\)$"):
        np.from_dlpack(teachgrad.ones(2, requires_grad=True))
    assert np.from_dlpack(teachgrad.ones(2, requires_grad=True).detach()).tolist() == [1, 1]


def test_a_bare_capsule_is_read_only_and_says_why():
    t = teachgrad.ones(2)
    with pytest.warns(UserWarning, match="bare DLPack capsule"):
        shared = from_dlpack(to_dlpack(t))
    t.add_(1)  # (the memory is shared: teachgrad sees the change)
    assert shared.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="read-only"):
        shared.add_(1)


def test_a_read_only_array_warns():
    a = np.ones(2)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="The tensor given to from_dlpack is read-only"):
        teachgrad.from_dlpack(a)


def test_what_is_not_dlpack_gets_pytorchs_error_and_a_hint():
    with pytest.raises(RuntimeError, match=r"(?s)^from_dlpack received an invalid capsule.*"
                                           r"Hint: .*this is list"):
        teachgrad.from_dlpack([1.0, 2.0])


def test_complex_memory_is_refused():
    with pytest.raises(RuntimeError, match="no complex dtypes"):
        teachgrad.from_dlpack(np.ones(2, np.complex64))


def test_the_device_is_the_cpu():
    assert teachgrad.ones(1).__dlpack_device__() == (DLDeviceType.kDLCPU, 0) == (1, 0)
    with pytest.raises(RuntimeError, match="CPU only"):
        teachgrad.from_dlpack(np.ones(1), device="cuda")


# --- with the real PyTorch ------------------------------------------------------------------

@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def test_pytorch_and_teachgrad_share_memory_both_ways(torch):
    t = teachgrad.arange(4.0)
    theirs = torch.from_dlpack(t)
    theirs[0] = -5.0
    assert t.tolist() == [-5.0, 1.0, 2.0, 3.0]
    real = torch.arange(6.0).reshape(2, 3).t()
    mine = teachgrad.from_dlpack(real)
    assert mine.stride() == real.stride() == (1, 3)
    mine.mul_(2)
    assert real.tolist() == [[0.0, 6.0], [2.0, 8.0], [4.0, 10.0]]


def test_pytorchs_tensor_constructor_reads_a_teachgrad_tensor(torch):
    # (before teachgrad had __dlpack__, PyTorch read it as a sequence and failed on len())
    assert torch.tensor(teachgrad.tensor([[1.0, 2.0]])).tolist() == [[1.0, 2.0]]


def test_the_same_errors_as_pytorch(torch):
    for producer in (torch.ones(2, requires_grad=True), teachgrad.ones(2, requires_grad=True)):
        for consumer in (torch.from_dlpack, teachgrad.from_dlpack):
            with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
                consumer(producer)
    assert teachgrad.ones(1).__dlpack_device__() == torch.ones(1).__dlpack_device__()


def test_bfloat16_is_refused_with_a_hint(torch):
    with pytest.raises(RuntimeError, match=r"(?s)Unsupported dtype.*Hint: .*t\.float\(\)"):
        teachgrad.from_dlpack(torch.ones(2, dtype=torch.bfloat16))


def test_a_pytorch_capsule_is_read(torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the bare capsule's read-only warning, tested above)
        t = teachgrad.from_dlpack(torch.utils.dlpack.to_dlpack(torch.arange(3)))
    assert t.dtype == teachgrad.int64 and t.tolist() == [0, 1, 2]


def test_the_legacy_capsule_round_trip_from_the_top_level():
    # PyTorch still has torch.to_dlpack beside torch.utils.dlpack's (old code calls it).
    assert teachgrad.to_dlpack is teachgrad.utils.dlpack.to_dlpack
    x = teachgrad.tensor([1.0, 2.0, 3.0])
    y = teachgrad.from_dlpack(teachgrad.to_dlpack(x))
    assert np.shares_memory(x.numpy(), y.numpy())  # the capsule hands over the memory
    x[0] = 10.0
    assert y.tolist() == [10.0, 2.0, 3.0]
