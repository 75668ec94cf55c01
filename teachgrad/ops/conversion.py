"""Copies and dtype conversions: ``clone``, ``to``, ``float``, ``double``, ``long`` ...

A conversion to another floating dtype is differentiable (the gradient is converted
back); a conversion to an integer or bool dtype is not (PyTorch gives such results no
``grad_fn``).
"""

from __future__ import annotations

import numpy as np

from .. import _device, _dtypes
from .._arguments import Signatures
from .._creation import _check_device
from .._dtypes import complex_refused
from .._layout import check_layout
from .._missing_arguments import REQUIRED, missing, missing_message
from .._tensor import Tensor, _make, tensor_method
from .decompositions import _scalar_name
from .layout import (
    check_memory_format,
    contiguous_format,
    copy_in_format,
    copy_keeping_layout,
    is_in_format,
    preserve_format,
    zeros_keeping_layout,
)
from .layout import memory_format as _memory_format_type
from .op import Op
from .pointwise import _check_broadcast


class CloneBackward0(Op):
    inference_copies = True  # (see Op: empty_like(self).copy_(self) in PyTorch)
    formula = "clone: ∂a/∂a = 1"

    @staticmethod
    def forward(ctx, a, memory_format):
        return copy_in_format(a, memory_format)

    @staticmethod
    def backward(ctx, grad):
        return grad


class ToCopyBackward0(Op):
    inference_copies = True  # (see Op: empty_like(self).copy_(self) in PyTorch)
    formula = "dtype conversion: the gradient is converted back"

    @staticmethod
    def forward(ctx, a, dtype, memory_format=None):
        if memory_format is not None and memory_format is not preserve_format:
            return copy_in_format(a, memory_format).astype(dtype, copy=False)
        if not a.size:  # empty: NumPy's new array would have all-zero strides (row-major)
            return zeros_keeping_layout(a, dtype)
        if 0 in a.strides:  # expanded: NumPy's order 'K' would scramble the dims PyTorch keeps
            a = copy_keeping_layout(a)
        return a.astype(dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad  # the engine casts it to the input's dtype


@tensor_method()
def clone(input: Tensor, *, memory_format=None) -> Tensor:
    """A copy that stays in the graph (its gradient flows back to ``input``).

    The copy keeps ``input``'s memory layout (``stride()``) unless ``memory_format`` asks
    for another one (``teachgrad.contiguous_format``, ``teachgrad.channels_last``).
    """
    fmt = check_memory_format("clone", memory_format)
    fmt.order(input._data.ndim)  # channels_last on the wrong rank: PyTorch's error, now
    return CloneBackward0.apply(input, memory_format=fmt)


@tensor_method()
def to(input: Tensor, *args, **kwargs) -> Tensor:
    """Convert to another dtype (``x.to(teachgrad.float64)``) or memory layout; devices
    other than the CPU fail.

    Takes PyTorch's three forms: ``to(device=None, dtype=None, non_blocking=False,
    copy=False)``, ``to(dtype, non_blocking=False, copy=False)`` and ``to(other_tensor,
    non_blocking=False, copy=False)``, each with ``memory_format=``. Returns ``input``
    itself when nothing changes, as PyTorch does.

    >>> import teachgrad as torch
    >>> torch.tensor([1, 2]).to(torch.float32)
    tensor([1., 2.])
    """
    if len(args) == 1 and not kwargs and args[0].__class__ is _dtypes.dtype:  # the usual call
        target, copy, fmt = args[0], False, preserve_format
    else:
        bound = parse_to_arguments(args, kwargs)
        _check_device(bound.get("device"))
        target = bound["tensor"].dtype if "tensor" in bound else bound.get("dtype")
        copy = bound.get("copy", False)
        fmt = check_memory_format("to", kwargs.get("memory_format"))
        fmt.order(input._data.ndim)  # channels_last on the wrong rank: PyTorch's error
    dtype = input._data.dtype if target is None else target.numpy
    if not copy and dtype == input._data.dtype and (
            fmt is preserve_format or is_in_format(input._data, fmt)):
        return input
    return ToCopyBackward0.apply(input, dtype=dtype, memory_format=fmt)


_TO_SIGNATURES = Signatures(
    "to",
    "(torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)",
    "(torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)",
    "(Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)",
)


def _is_device(value) -> bool:
    return value is None or isinstance(value, (str, _device.device)) or (
        isinstance(value, int) and not isinstance(value, bool))


def _is_flag(value) -> bool:
    return isinstance(value, bool)


def _is_dtype(value) -> bool:
    if value is complex:
        raise complex_refused("to(complex)")
    return isinstance(value, _dtypes.dtype) or value in _PYTHON_TYPES


# PyTorch's parser takes Python's number types as dtypes: x.to(float) is float64.
_PYTHON_TYPES = {float: _dtypes.float64, int: _dtypes.int64, bool: _dtypes.bool}


# Each form of ``to``: its positional parameters in order, each with the test its value
# must pass, and whether it must be given (the others default to None/False).
_TO_FORMS = (
    (("device", _is_device, False), ("dtype", lambda v: v is None or _is_dtype(v), False),
     ("non_blocking", _is_flag, False), ("copy", _is_flag, False)),
    (("dtype", _is_dtype, True), ("non_blocking", _is_flag, False),
     ("copy", _is_flag, False)),
    (("tensor", lambda v: isinstance(v, Tensor), True), ("non_blocking", _is_flag, False),
     ("copy", _is_flag, False)),
)


def parse_to_arguments(args: tuple, kwargs: dict) -> dict:
    """The arguments of ``Tensor.to`` (and ``Module.to``) by name, in the first of its three
    forms they fit; PyTorch's "invalid combination" TypeError when they fit none.

    >>> import teachgrad as torch
    >>> sorted(parse_to_arguments(("cpu", torch.float64, True), {}))
    ['device', 'dtype', 'non_blocking']
    """
    memory_format = kwargs.get("memory_format")
    if memory_format is None or isinstance(memory_format, _memory_format_type):
        given = {k: v for k, v in kwargs.items() if k != "memory_format"}
        for form in _TO_FORMS:
            bound = _bind(form, args, given)
            if bound is not None:
                if bound.get("dtype") in _PYTHON_TYPES:
                    bound["dtype"] = _PYTHON_TYPES[bound["dtype"]]
                return bound
    raise TypeError(_TO_SIGNATURES._no_combination(args, kwargs))


def _bind(form: tuple, args: tuple, kwargs: dict) -> dict | None:
    """``args`` and ``kwargs`` bound to ``form``'s parameters, or None if they do not fit."""
    if len(args) > len(form):
        return None
    bound = {}
    for index, (name, fits, required) in enumerate(form):
        if index < len(args):
            if name in kwargs:
                return None
            value = args[index]
        elif name in kwargs:
            value = kwargs[name]
        elif required:
            return None
        else:
            continue
        if not fits(value):
            return None
        bound[name] = value
    names = {name for name, _, _ in form}
    return bound if all(k in names for k in kwargs) else None


def _converter(target: _dtypes.dtype, name: str):
    def convert(self: Tensor, memory_format=None) -> Tensor:
        return to(self, target)

    convert.__name__ = name
    convert.__doc__ = f"``self.to(teachgrad.{target.name})``."
    return convert


for _name, _target in [
    ("float", _dtypes.float32), ("double", _dtypes.float64), ("half", _dtypes.float16),
    ("long", _dtypes.int64), ("int", _dtypes.int32), ("short", _dtypes.int16),
    ("char", _dtypes.int8), ("byte", _dtypes.uint8), ("bool", _dtypes.bool),
]:
    setattr(Tensor, _name, _converter(_target, _name))


def _bfloat16(self: Tensor, memory_format=None) -> Tensor:
    """There is no bfloat16 here (NumPy has none): an ``AttributeError`` with a hint, as
    for ``torch.bfloat16`` itself."""
    raise AttributeError(
        "'Tensor' object has no attribute 'bfloat16'\nHint: NumPy, which teachgrad computes "
        "with, has no bfloat16; use x.half() (float16) or x.float() (float32).")


Tensor.bfloat16 = _bfloat16


@tensor_method()
def type_as(input: Tensor, other: Tensor = REQUIRED) -> Tensor:
    """``input`` converted to ``other``'s dtype."""
    if other is REQUIRED:  # (x.type_as(): PyTorch's words, see _missing_arguments)
        raise missing("type_as", type_as, input, other)
    return to(input, other.dtype)


@tensor_method()
def type(input: Tensor, dtype=None):  # noqa: A001 - PyTorch's name
    """Without argument: the legacy type name (``'torch.FloatTensor'``); else convert."""
    if dtype is None:
        return f"torch.{input.dtype._legacy}"
    from .._legacy_types import legacy_dtype, tensortype

    if isinstance(dtype, (str, tensortype)):  # x.type(torch.LongTensor), x.type('torch.LongTensor')
        dtype = legacy_dtype(dtype)
    return to(input, dtype)


@tensor_method()
def contiguous(input: Tensor, memory_format=None) -> Tensor:
    """``input`` itself when its memory is contiguous, else a contiguous copy.

    ``memory_format=teachgrad.channels_last`` asks for the channels-innermost layout.
    """
    fmt = check_memory_format("contiguous", memory_format or contiguous_format)
    if fmt.name == "preserve_format":
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if is_in_format(input._data, fmt):
        return input
    return clone(input, memory_format=fmt)


@tensor_method()
def is_contiguous(input: Tensor, memory_format=None) -> bool:
    """Whether the elements are laid out row by row without gaps (or as ``memory_format``
    says, e.g. ``teachgrad.channels_last``)."""
    fmt = check_memory_format("is_contiguous", memory_format or contiguous_format)
    return is_in_format(input._data, fmt)


@tensor_method()
def cpu(input: Tensor, memory_format=None) -> Tensor:
    """``input`` (teachgrad tensors always live on the CPU)."""
    return input


@tensor_method()
def cuda(input: Tensor, *args, **kwargs) -> Tensor:
    """There is no GPU: always a RuntimeError that says so."""
    raise RuntimeError(
        "teachgrad computes with NumPy on the CPU; there is no CUDA. Remove .cuda() / "
        ".to('cuda') (torch.cuda.is_available() is False)."
    )


def _dtype_or(dtype, input: Tensor, function: str):
    """The ``dtype`` given to ``input.<function>(...)`` (checked as PyTorch's parser checks
    it), else ``input``'s."""
    if dtype is None:
        return input.dtype
    from .._dtypes import to_dtype

    return to_dtype(dtype, function)


@tensor_method()
def new_tensor(input: Tensor, data=REQUIRED, *, dtype=None, device=None,
               requires_grad: bool = False) -> Tensor:
    """A new tensor from ``data`` with ``input``'s dtype by default."""
    if data is REQUIRED:  # (x.new_tensor(): PyTorch's words, see _missing_arguments)
        raise missing("new_tensor", new_tensor, input, data)
    from .._creation import tensor

    return tensor(data, dtype=_dtype_or(dtype, input, "new_tensor"),
                  device=device, requires_grad=requires_grad)


@tensor_method()
def new_zeros(input: Tensor, *size, dtype=None, layout=None, device=None,
              requires_grad: bool = False) -> Tensor:
    """Zeros of ``size`` with ``input``'s dtype."""
    if not size:  # (x.new_zeros(): PyTorch's words, not an empty shape)
        raise TypeError(missing_message("new_zeros", ["size"]))
    check_layout("new_zeros", layout)
    from .._creation import _shape, zeros

    _shape(size, "new_zeros")  # (errors name new_zeros)

    return zeros(*size, dtype=_dtype_or(dtype, input, "new_zeros"),
                 device=device, requires_grad=requires_grad)


@tensor_method()
def new_ones(input: Tensor, *size, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """Ones of ``size`` with ``input``'s dtype."""
    if not size:  # (x.new_ones(): PyTorch's words, not an empty shape)
        raise TypeError(missing_message("new_ones", ["size"]))
    check_layout("new_ones", layout)
    from .._creation import _shape, ones

    _shape(size, "new_ones")  # (errors name new_ones)

    return ones(*size, dtype=_dtype_or(dtype, input, "new_ones"),
                device=device, requires_grad=requires_grad)


@tensor_method()
def new_full(input: Tensor, size, fill_value, *, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """``fill_value`` everywhere, with ``input``'s dtype."""
    check_layout("new_full", layout)
    from .._creation import FULL_SIGNATURE, _number_argument, _shape, full

    _shape(size, "new_full", FULL_SIGNATURE)  # (errors name new_full)
    _number_argument("new_full", "fill_value", 2, fill_value)

    return full(size, fill_value, dtype=_dtype_or(dtype, input, "new_full"), device=device,
                requires_grad=requires_grad)


@tensor_method()
def new_empty(input: Tensor, *size, dtype=None, layout=None, device=None,
              requires_grad: bool = False) -> Tensor:
    """Like :meth:`new_zeros`."""
    if not size:  # (x.new_empty(): PyTorch's words, not an empty shape)
        raise TypeError(missing_message("new_empty", ["size"]))
    check_layout("new_empty", layout)
    from .._creation import _shape

    _shape(size, "new_empty")  # (errors name new_empty)
    return new_zeros(input, *size, dtype=_dtype_or(dtype, input, "new_empty"),
                     device=device, requires_grad=requires_grad)


@tensor_method()
def equal(input: Tensor, other: Tensor) -> bool:
    """True when both have the same shape and the same values."""
    return input._data.shape == other._data.shape and bool(np.all(input._data == other._data))


@tensor_method()
def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """True when all elements are close: ``|a - b| <= atol + rtol * |b|``."""
    _check_close_operands(input, other)
    return bool(np.allclose(input._data, _data(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


@tensor_method()
def isclose(input: Tensor, other, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """Elementwise closeness (a bool tensor)."""
    for name, value in (("rtol", rtol), ("atol", atol)):
        if isinstance(value, complex):  # (NumPy would compare with |1j| quietly)
            raise TypeError(f"isclose(): argument '{name}' must be float, not complex")
    _check_close_operands(input, other)
    return _make(np.asarray(np.isclose(input._data, _data(other), rtol=rtol, atol=atol,
                                   equal_nan=equal_nan)))


def _check_close_operands(input: Tensor, other) -> None:  # noqa: A002
    """PyTorch compares tensors of one dtype only (float32 with float64 is refused, not
    promoted), and of shapes that broadcast."""
    if isinstance(other, Tensor):
        if input._data.dtype != other._data.dtype:
            raise RuntimeError(
                f"{_scalar_name(input)} did not match {_scalar_name(other)}"
                "\nHint: convert one to the other's dtype first, e.g. "
                "torch.allclose(a, b.to(a.dtype)).")
        _check_broadcast(input, other)


def _data(x):
    return x._data if isinstance(x, Tensor) else x


__all__ = ["clone", "to", "type_as", "contiguous", "equal", "allclose", "isclose"]
