"""Tensor attributes, methods and operators behave as PyTorch's.

Programs in fixtures/program_cases.json, group "tensor" (generated with real PyTorch by
fixtures/make_program_cases.py), run here with teachgrad; plus single rules below.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import programs
import pytest

import teachgrad

CASES = json.loads((Path(__file__).parent / "fixtures" / "program_cases.json").read_text())


@pytest.mark.parametrize("name", sorted(CASES["tensor"]))
def test_same_as_pytorch(name):
    programs.check_against_pytorch(CASES["tensor"][name], teachgrad)


# ----------------------------------------------------------------------------------------
# Single rules
# ----------------------------------------------------------------------------------------
def test_zero_dim_tensor_formats_as_its_number():
    """f"{x}" of a 0-d tensor is the Python number (seed lesson 000 prints "data: 1.0")."""
    assert f"{teachgrad.tensor(1.0)}" == "1.0"
    assert f"{teachgrad.tensor(3)}" == "3"
    assert f"{teachgrad.tensor(2.5):.2f}" == "2.50"
    assert f"{teachgrad.tensor([1.0, 2.0])}" == "tensor([1., 2.])"
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        f"{teachgrad.tensor([1.0, 2.0]):.2f}"


def test_grad_fn_repr_and_name():
    x = teachgrad.tensor([1.0], requires_grad=True)
    y = x * 2
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-f]+>", repr(y.grad_fn))
    assert y.grad_fn.name() == "MulBackward0"
    accumulate = y.grad_fn.next_functions[0][0]
    assert accumulate.name() == "torch::autograd::AccumulateGrad"
    assert accumulate.variable is x
    assert y.grad_fn.next_functions[1] == (None, 0)  # the constant 2


def test_version_counter_is_shared_with_views_and_detached_tensors():
    t = teachgrad.zeros(2, 3)
    view, detached = t.t(), t.detach()
    t.add_(1)
    assert t._version == view._version == detached._version == 1
    detached.mul_(2)
    assert t._version == 2
    assert t.tolist() == [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]


def test_size_and_shape():
    t = teachgrad.ones(2, 3)
    assert t.shape == (2, 3) and t.size() == (2, 3) and t.size(-1) == 3
    assert repr(t.shape) == "teachgrad.Size([2, 3])"
    assert t.shape.numel() == 6


@pytest.mark.parametrize("convert", [float, int])
def test_python_number_of_a_many_element_tensor_is_a_value_error(convert):
    # PyTorch: float(t) / int(t) raise ValueError; t.item() raises RuntimeError.
    with pytest.raises(ValueError, match="^only one element tensors can be converted to Python "
                                         "scalars"):
        convert(teachgrad.tensor([1.0, 2.0]))


def test_size_of_a_dimension_a_0d_tensor_lacks_is_refused_in_pytorchs_words():
    # PyTorch 2.13: torch.tensor(3.).size(0) -> IndexError "Dimension specified as 0 but tensor
    # has no dimensions" for any dim (0 and -1 wrap for a 0-d tensor's reductions, not its size).
    scalar = teachgrad.tensor(3.0)
    for dim in (0, -1, 1):
        with pytest.raises(IndexError, match=f"^Dimension specified as {dim} but tensor has no "
                                             "dimensions$"):
            scalar.size(dim)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of "
                                         r"\[-2, 1\], but got 2\)$"):
        teachgrad.ones(2, 3).size(2)


def test_slices_and_sums_of_a_size_are_sizes():
    # PyTorch: x.shape[1:] is torch.Size([3, 4]) (so .numel() works on it), and so are
    # shape + (1,), (1,) + shape and shape * 2.
    shape = teachgrad.ones(2, 3, 4).shape
    assert shape[1:].numel() == 12
    for derived in (shape[1:], shape + (1,), (1,) + shape, shape * 2):
        assert isinstance(derived, teachgrad.Size), derived

def test_float_of_a_tensor_that_requires_grad_warns_once(monkeypatch):
    # PyTorch 2.13: TORCH_WARN_ONCE in Tensor.__float__ (int(), .item() and bool() are silent)
    import teachgrad._tensor as tensor_module

    monkeypatch.setitem(tensor_module._float_warning, "given", False)
    x = teachgrad.tensor(1.5, requires_grad=True)
    with pytest.warns(UserWarning, match="^Converting a tensor with requires_grad=True to a "
                                         "scalar may lead to unexpected behavior.") as record:
        assert float(x) == 1.5
        assert float(x) == 1.5
        assert int(x) == 1 and x.item() == 1.5
    assert len(record) == 1
    assert record[0].filename == __file__  # points at the line that called float()


_SCALAR_WARNING = "^Converting a tensor with requires_grad=True to a scalar may lead"


@pytest.mark.parametrize("make", [
    lambda a, b: teachgrad.tensor([a, b]),
    lambda a, b: teachgrad.tensor([[a, 1.0], [2.0, b]]),
    lambda a, b: teachgrad.as_tensor((a, b)),
    lambda a, b: teachgrad.Tensor([a, b]),
    lambda a, b: teachgrad.FloatTensor([a, b]),
    lambda a, b: complex(a),
])
def test_numbers_taken_from_tensors_that_require_grad_warn_once(monkeypatch, make):
    # PyTorch 2.13 converts each tensor in torch.tensor([a, b]) with float(t): the same
    # once-per-process warning, and only once however many elements require grad.
    import teachgrad._tensor as tensor_module

    monkeypatch.setitem(tensor_module._float_warning, "given", False)
    a = teachgrad.tensor(1.0, requires_grad=True)
    b = teachgrad.tensor(2.0, requires_grad=True)
    with pytest.warns(UserWarning, match=_SCALAR_WARNING) as record:
        make(a, b)
        make(a, b)
    assert len(record) == 1 and record[0].filename == __file__


def test_tensor_of_tensors_is_silent_without_grad_or_under_no_grad(monkeypatch, recwarn):
    import teachgrad._tensor as tensor_module

    monkeypatch.setitem(tensor_module._float_warning, "given", False)
    a = teachgrad.tensor(1.0, requires_grad=True)
    assert teachgrad.tensor([a.detach(), teachgrad.tensor(2.0)]).tolist() == [1.0, 2.0]
    with teachgrad.no_grad():
        assert teachgrad.tensor([a, a]).tolist() == [1.0, 1.0]
    assert int(a) == 1 and a.item() == 1.0
    assert not recwarn.list


def test_tensor_of_tensors_takes_each_as_one_number():
    # PyTorch 2.13: a one-element tensor is one number (tensor([ones(1), ones(1)]) has
    # shape (2,)); the dtype promotes the tensors' dtypes with the plain numbers'.
    one = teachgrad.ones(1)
    assert teachgrad.tensor([one, one]).shape == (2,)
    assert teachgrad.tensor([[one], [one]]).shape == (2, 1)
    f64 = teachgrad.tensor(1.5, dtype=teachgrad.float64)
    assert teachgrad.tensor([f64, 1.5]).dtype is teachgrad.float64
    assert teachgrad.tensor([teachgrad.tensor(3), 1.5]).dtype is teachgrad.float32
    int32 = teachgrad.tensor(2, dtype=teachgrad.int32)
    assert teachgrad.tensor([int32, int32]).dtype is teachgrad.int32
    assert teachgrad.tensor([int32, 1]).dtype is teachgrad.int64
    half = teachgrad.tensor(1.0, dtype=teachgrad.float16)
    assert teachgrad.tensor([half, 1.0]).dtype is teachgrad.float32
    with pytest.raises(ValueError, match="^only one element tensors can be converted"):
        teachgrad.tensor([teachgrad.ones(2), teachgrad.ones(2)])
    with pytest.raises(TypeError, match="^only integer tensors of a single element can be "
                                        "converted to an index$"):
        teachgrad.tensor([teachgrad.tensor(1.5)], dtype=teachgrad.long)
