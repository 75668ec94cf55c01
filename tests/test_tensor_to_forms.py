"""``Tensor.to``'s three forms, as PyTorch's argument parser reads them (shared with
``Module.to``): ``to(device, dtype, non_blocking, copy)``, ``to(dtype, non_blocking,
copy)`` and ``to(tensor, non_blocking, copy)``, each with ``memory_format=``."""

from __future__ import annotations

import pytest

import teachgrad as torch


@pytest.mark.parametrize("call, dtype", [
    (lambda x: x.to("cpu", torch.float64, True), torch.float64),     # non_blocking by position
    (lambda x: x.to(torch.float64, True, True), torch.float64),      # ... and copy
    (lambda x: x.to(float), torch.float64),                          # Python's types are dtypes
    (lambda x: x.to(int), torch.int64),
    (lambda x: x.to(dtype=bool), torch.bool),
    (lambda x: x.to("cpu", float), torch.float64),
    (lambda x: x.to(torch.ones(1, dtype=torch.int32)), torch.int32),
    (lambda x: x.to(device="cpu", dtype=torch.float16), torch.float16),
])
def test_the_forms_convert(call, dtype):
    assert call(torch.ones(2)).dtype == dtype


@pytest.mark.parametrize("call", [
    lambda x: x.to("cpu", "cpu"), lambda x: x.to(torch.float64, torch.float64),
    lambda x: x.to(x, torch.float64), lambda x: x.to(torch.float64, foo=1),
    lambda x: x.to(memory_format=3),
])
def test_arguments_that_fit_no_form_get_pytorchs_type_error(call):
    with pytest.raises(TypeError, match=r"^to\(\) received an invalid combination of "
                                        r"arguments - got \("):
        call(torch.ones(2))


def test_nothing_to_do_returns_the_tensor_itself():
    x = torch.ones(1, 2, 2, 2)
    assert x.to() is x and x.to(None, None) is x and x.to("cpu") is x
    assert x.to(torch.float32) is x and x.to(memory_format=torch.preserve_format) is x
    assert x.to(copy=True) is not x


def test_memory_format_lays_the_copy_out():
    leaf = torch.arange(8.0, requires_grad=True)
    x = leaf.reshape(1, 2, 2, 2)
    y = x.to(memory_format=torch.channels_last)
    assert y.stride() == (8, 1, 4, 2) and y.tolist() == x.tolist()  # NHWC: channels innermost
    assert type(y.grad_fn).__name__ == "ToCopyBackward0"
    assert y.to(memory_format=torch.channels_last) is y  # already laid out so
    z = x.to(torch.float64, memory_format=torch.channels_last)
    assert z.dtype == torch.float64 and z.stride() == (8, 1, 4, 2)
    z.sum().backward()
    assert leaf.grad.tolist() == [1.0] * 8  # (the float64 gradient, converted back)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last"):
        torch.ones(2).to(memory_format=torch.channels_last)


def test_complex_and_other_devices_are_refused():
    with pytest.raises(RuntimeError, match="no complex dtypes"):
        torch.ones(2).to(complex)
    with pytest.raises(RuntimeError, match="CPU only"):
        torch.ones(2).to(0)


@pytest.mark.torch
def test_the_same_as_pytorch():
    real = pytest.importorskip("torch")
    calls = ["x.to('cpu', T.float64, True)", "x.to(T.float64, True, True)", "x.to(float)",
             "x.to(dtype=int)", "x.to(memory_format=T.channels_last)",
             "x.to(T.float16, memory_format=T.channels_last)", "x.to('cpu', 'cpu')",
             "x.to(T.float64, T.float64)", "x.to(x, T.float64)"]
    for call in calls:
        results = []
        for lib in (torch, real):
            x = lib.arange(8.0).reshape(1, 2, 2, 2)
            try:
                y = eval(call, {"x": x, "T": lib})
                results.append((str(y.dtype).split(".")[-1], y.stride(), y.tolist()))
            except TypeError as error:
                results.append(str(error).split(" - got ")[1].split(",")[0])
        assert results[0] == results[1], call
