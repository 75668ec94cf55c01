"""Making tensors: ``tensor``, ``zeros``, ``ones``, ``arange``, ``rand`` and friends.

All of them return leaves (``grad_fn is None``); pass ``requires_grad=True`` to make a
leaf whose gradient ``backward()`` should compute.
"""

from __future__ import annotations

import functools
import math
import numbers
import operator
from collections.abc import Sequence

import numpy as np

from . import _device, _dtypes
from ._arguments import Signatures, is_int, is_number
from ._aten_random import _mul_add
from ._dtypes import complex_refused, get_default_dtype, to_dtype
from ._dtypes import dtype as DType
from ._layout import check_layout
from ._tensor import Tensor, _make, python_type_name
from ._warn import warn_user
from .autograd.inference import set_requires_grad
from .ops.fill_value import check_fill_value, check_real_value
from .ops.layout import check_memory_format, zeros_in_format

__all__ = [
    "tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "full", "empty", "eye",
    "arange", "linspace", "logspace", "zeros_like", "ones_like", "full_like", "empty_like",
    "scalar_tensor", "tril_indices", "triu_indices", "empty_strided",
]


def _finish(data: np.ndarray, requires_grad: bool) -> Tensor:
    if requires_grad and data.dtype.kind != "f":
        raise RuntimeError(
            "Only Tensors of floating point and complex dtype can require gradients"
            f"\nHint: the data is {data.dtype.name}; write floats (1.0, not 1) or pass "
            "dtype=torch.float32."
        )
    t = _make(data, bool(requires_grad))  # (None, the default of some, is False)
    if requires_grad and type(t._vc) is not list:  # made in inference_mode: see
        set_requires_grad(t, True)  # inference.InferenceRequiringGrad
    return t


def _check_flag(function: str, requires_grad) -> None:
    """PyTorch's argument parser takes a bool for ``requires_grad``, not 1 (None is the
    default, except for ``tensor()``)."""
    if type(requires_grad) is not bool and not (requires_grad is None and function != "tensor"):
        raise TypeError(
            f"{function}(): argument 'requires_grad' must be bool, not "
            f"{python_type_name(requires_grad)}\nHint: write requires_grad=True (or False)."
        )


def check_flag_overloaded(function: str, positional: tuple, requires_grad) -> None:
    """:func:`_check_flag` for the factories PyTorch has several signatures of (randn,
    arange, eye ...): its parser then says no signature matched. (The message lists the
    positional arguments and ``requires_grad``; PyTorch also lists any other keywords
    given, and then its signatures.)"""
    if type(requires_grad) is not bool and requires_grad is not None:
        signatures = _OVERLOADS.get(function)
        if signatures is not None:  # (PyTorch's whole message, signatures listed)
            signatures.check(positional, {"requires_grad": requires_grad})
        got = [python_type_name(a) for a in positional] + [
            f"requires_grad={python_type_name(requires_grad)}"]
        raise TypeError(
            f"{function}() received an invalid combination of arguments - got "
            f"({', '.join(got)}), but expected one of:\nHint: (PyTorch lists its signatures "
            f"of {function}() here) requires_grad must be a bool: write requires_grad=True "
            "(or False)."
        )


_FACTORY_KEYWORDS = ("torch.dtype dtype = None, torch.layout layout = None, "
                     "torch.device device = None, bool pin_memory = False, "
                     "bool requires_grad = False")
_ARANGE_SIGNATURES = (
    f"(Number end, *, Tensor out = None, {_FACTORY_KEYWORDS})",
    f"(Number start, Number end, *, {_FACTORY_KEYWORDS})",
    f"(Number start, Number end, Number step = 1, *, Tensor out = None, {_FACTORY_KEYWORDS})",
)
_ARANGE = Signatures(
    "arange", *_ARANGE_SIGNATURES,
    hint="pass plain numbers, e.g. value.item(): a tensor that needs a gradient cannot take "
         "part in the graph from here.")
_SIZE_THEN = "(tuple of ints size, *, {}Tensor out = None, " + _FACTORY_KEYWORDS + ")"
_HINT_FLAG = "requires_grad must be a bool: write requires_grad=True (or False)."
# (the factories whose signatures are listed in full when requires_grad is not a bool)
_OVERLOADS = {
    "arange": Signatures("arange", *_ARANGE_SIGNATURES, hint=_HINT_FLAG),
    **{name: Signatures(name, _SIZE_THEN.format("torch.Generator generator, "),
                        _SIZE_THEN.format(""), hint=_HINT_FLAG) for name in ("rand", "randn")},
    "eye": Signatures("eye", f"(int n, *, Tensor out = None, {_FACTORY_KEYWORDS})",
                      f"(int n, int m, *, Tensor out = None, {_FACTORY_KEYWORDS})",
                      hint=_HINT_FLAG),
}


_SIZE_HINT = ("give the shape: {0}(2, 3) or {0}((2, 3)); {0}(()) is a 0-d tensor (one "
              "number).")


def missing_size(function: str, keywords: dict) -> TypeError:
    """PyTorch's TypeError for a factory called without a size (``zeros()``, ``randn()``):
    its ``size`` has no default. ``keywords`` are the keyword arguments given (not left at
    their defaults): with one, rand/randn's second signature is the one that fits, and
    PyTorch says what is missing; with none, it lists the signatures."""
    signatures = _OVERLOADS.get(function)
    if signatures is not None:
        message = str(signatures.error((), keywords)).split("\nHint: ")[0]
    else:
        message = f'{function}() missing 1 required positional arguments: "size"'
    return TypeError(message.rstrip("\n") + "\nHint: " + _SIZE_HINT.format(function))


def _given(**keywords) -> dict:
    """The keyword arguments not left at their defaults (``None``; ``False`` for the
    flags), as PyTorch's messages count them."""
    return {name: value for name, value in keywords.items()
            if value is not None and value is not False}


def int_argument(function: str, name: str, position: int, value) -> int:
    """``value`` as an ``int`` argument, or PyTorch's TypeError (a bool is not one, nor a
    float: ``randperm(True)``, ``randperm(2.0)``)."""
    if not is_int(value):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be int, "
                        f"not {python_type_name(value)}")
    return int(value)


def _is_number_tensor(value) -> bool:
    """Does PyTorch's argument parser take ``value`` where it wants a ``Number``? A tensor
    only when it is 0-d and needs no gradient (read with ``.item()``, outside the graph)."""
    return not isinstance(value, Tensor) or (
        value._data.ndim == 0 and not value._requires_grad)


def _number_argument(function: str, name: str, position: int, value):
    """``value`` as a ``Number`` argument, or PyTorch's TypeError for a tensor it refuses
    (or for a string, a list ...)."""
    if not isinstance(value, (numbers.Number, np.generic, Tensor)):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be Number, "
                        f"not {python_type_name(value)}")
    if not _is_number_tensor(value):
        raise TypeError(
            f"{function}(): argument '{name}' (position {position}) must be Number, not Tensor"
            "\nHint: pass a plain number, e.g. value.item() (a tensor that needs a gradient "
            "cannot take part in the graph from here)."
        )
    return value


def _check_device(device) -> None:
    if isinstance(device, str):
        _device.device(device)  # a malformed name ('gpu') gets PyTorch's parse error first
    if device is not None and str(device) not in ("cpu", "cpu:0"):
        raise RuntimeError(
            f"teachgrad runs on the CPU only (with NumPy); got device={device!r}"
        )


def _infer_numpy(data, dtype: DType | None = None) -> np.ndarray:
    """Turn Python data into an array with PyTorch's dtype inference.

    Python floats become ``dtype`` when one is asked for (else the default dtype) straight
    from their double values: going through float32 first would round ``0.1`` and turn
    ``1e-50`` into 0 even with ``dtype=float64``.
    """
    if isinstance(data, Tensor):
        return data._data.copy()
    if isinstance(data, (np.ndarray, np.generic)):
        _dtypes.from_numpy_dtype(data.dtype)  # (refuses what teachgrad has not, in PyTorch's words)
        return np.array(data)  # NumPy data keeps its dtype (float64 stays float64)
    tensor_dtypes: list = []
    number_types: set = set()
    data = _unwrap_tensors(data, dtype, tensor_dtypes, number_types)
    try:
        array = np.array(data)
    except ValueError:
        _raise_ragged(data)
        raise
    if dtype is not None and array.dtype.kind in "if" and to_dtype(dtype).numpy.kind in "iu":
        _check_numbers_fit(array, to_dtype(dtype).numpy)  # (before NumPy wraps them around)
    if array.dtype == object:
        _raise_ragged(data)
        if _all_ints(data):  # ints beyond int64 (NumPy keeps them as Python objects)
            return _big_ints(data, dtype)
        raise RuntimeError(f"Could not infer dtype of {_unsupported_type_name(data)}")
    if array.dtype.kind == "u":  # ints from 2**63 to 2**64 - 1: NumPy made them uint64
        return _big_ints(data, dtype)
    if tensor_dtypes and dtype is None:
        promoted = _promoted_leaf_dtype(tensor_dtypes, number_types)
        return array.astype(promoted.numpy, copy=False)
    if array.dtype.kind == "f":
        target = get_default_dtype() if dtype is None else to_dtype(dtype)
        return array.astype(target.numpy, copy=False)
    if array.dtype.kind in "iu":
        return array.astype(np.int64, copy=False)
    if array.dtype.kind == "b":
        return array
    if array.dtype.kind == "c":
        raise complex_refused(f"the number {_complex_in(data)!r}")
    if array.dtype.kind in "US":
        # PyTorch reads the shape down the first elements: a string there is a sequence one
        # dimension too many; a string met later is a value it cannot store.
        first = data
        while isinstance(first, (list, tuple)) and first:
            first = first[0]
        if array.ndim and isinstance(first, str):
            raise ValueError("too many dimensions 'str'")
        raise TypeError("new(): invalid data type 'str'")
    raise RuntimeError(f"Could not infer dtype of {_unsupported_type_name(data)}")


def _all_ints(data) -> bool:
    if isinstance(data, (list, tuple)):
        return all(_all_ints(item) for item in data)
    return isinstance(data, int) and not isinstance(data, bool)


def _big_ints(data, dtype: DType | None) -> np.ndarray:
    """Python ints too big for int64: a floating dtype takes them (rounded), as PyTorch's;
    otherwise PyTorch's error (NumPy would wrap them around to negative numbers)."""
    if dtype is not None and to_dtype(dtype).is_floating_point:
        return np.array(data, dtype=np.float64)
    raise ValueError(
        "Overflow when unpacking long long"
        "\nHint: int64, teachgrad's integer type, holds numbers up to 2**63 - 1; give a "
        "floating dtype (dtype=torch.float64) for larger ones."
    )


def _complex_in(data):
    """The first complex number in nested lists (what PyTorch would make complex)."""
    if isinstance(data, (list, tuple)):
        for item in data:
            found = _complex_in(item)
            if found is not None:
                return found
        return None
    return data if isinstance(data, (complex, np.complexfloating)) else None


def _unsupported_type_name(data) -> str:
    """The type of the first element that is not a number (PyTorch names it, not the list)."""
    if isinstance(data, (list, tuple)):
        for item in data:
            if not isinstance(item, (int, float, complex, np.generic)):
                return _unsupported_type_name(item)
    return type(data).__name__


def _unwrap_tensors(data, dtype: DType | None, tensor_dtypes: list, number_types: set):
    """Lists may hold tensors (``tensor([a, b])``): each is one number, as in PyTorch.

    PyTorch converts each with ``float(t)`` (or ``operator.index(t)`` for an integer
    dtype), so a tensor of several elements is refused, a float tensor cannot fill an
    integer tensor, and one that requires grad gets float's warning. Their dtypes go
    go into ``tensor_dtypes`` (and the types of the plain numbers into ``number_types``)
    for the result's dtype.
    """
    if isinstance(data, Tensor):
        if dtype is not None and not to_dtype(dtype).is_floating_point \
                and data.dtype.is_floating_point:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        data._check_python_scalar()
        tensor_dtypes.append(data.dtype)
        return data._data.reshape(())[()]
    if isinstance(data, (list, tuple)):
        return [_unwrap_tensors(d, dtype, tensor_dtypes, number_types) for d in data]
    number_types.add(type(data))
    return data


def list_of_tensors_values(source, dtype: DType) -> np.ndarray | None:
    """``torch.Tensor([a, b])``, ``FloatTensor([a, b])``: the values of a list of tensors.

    None when ``source`` is not a list holding tensors (the legacy constructors then
    convert it themselves). Each tensor is one number, converted as ``torch.tensor`` does.
    """
    if not isinstance(source, (list, tuple)) or not _holds_tensor(source):
        return None
    return _infer_numpy(source, dtype).astype(dtype.numpy, copy=False)


def _holds_tensor(data) -> bool:
    if isinstance(data, Tensor):
        return True
    return isinstance(data, (list, tuple)) and any(_holds_tensor(d) for d in data)


def _promoted_leaf_dtype(tensor_dtypes: list, number_types: set) -> DType:
    """The dtype of ``tensor([...])`` mixing tensors and numbers: all of them promoted.

    A Python float counts as the default dtype, an int as int64: ``tensor([f64, 1.5])``
    is float64, ``tensor([f16, 1.0])`` float32, ``tensor([int32, 1])`` int64.
    """
    python_dtypes = {bool: _dtypes.bool, int: _dtypes.int64, float: get_default_dtype()}
    result = tensor_dtypes[0]
    for leaf in tensor_dtypes[1:]:
        result = _dtypes.promote_types(result, leaf)
    for kind in number_types:
        if kind in python_dtypes:
            result = _dtypes.promote_types(result, python_dtypes[kind])
    return result


def _raise_ragged(data, dim: int = 0) -> None:
    """PyTorch's message for nested lists of uneven length."""
    if not isinstance(data, (list, tuple)) or not data:
        return
    lengths = [len(d) if isinstance(d, (list, tuple)) else None for d in data]
    first = lengths[0]
    for n in lengths[1:]:
        if n != first:
            raise ValueError(
                f"expected sequence of length {first} at dim {dim + 1} (got {n})"
            )
    for d in data:
        _raise_ragged(d, dim + 1)


def tensor(data, *, dtype: DType | None = None, device=None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """Create a tensor from data (a number, nested lists, a NumPy array), always copying.

    Python floats give ``float32`` (the default dtype), ints ``int64``, bools ``bool``.

    >>> import teachgrad as torch
    >>> torch.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> torch.tensor(1.0, requires_grad=True)
    tensor(1., requires_grad=True)
    """
    _check_flag("tensor", requires_grad)
    _check_device(device)
    if isinstance(data, Tensor):
        warn_user(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than torch.tensor(sourceTensor).",
            UserWarning,
        )
    try:
        array = _infer_numpy(data, dtype)
    except TypeError:
        _check_dtype(dtype, "tensor")  # (a dtype PyTorch's parser refuses, named so)
        raise
    if dtype is not None:
        array = array.astype(to_dtype(dtype, "tensor").numpy, copy=False)
    if not array.flags.c_contiguous:
        array = np.array(array, order="C")
    return _finish(array, requires_grad)


def _check_numbers_fit(array: np.ndarray, target: np.dtype) -> None:
    """PyTorch's refusal of Python numbers an integer dtype cannot hold (``tensor([300],
    dtype=torch.uint8)``: NumPy would wrap 300 around to 44). As C++'s overflow check: a
    float must lie within the dtype's range; an int may be negative down to -max for an
    unsigned dtype (-1 is 255 for uint8, as PyTorch's cast makes it)."""
    if not array.size or array.dtype.kind not in "iuf" or (
            array.dtype.kind != "f" and target == np.int64):
        return
    info = np.iinfo(target)
    lowest = -int(info.max) if target.kind == "u" and array.dtype.kind != "f" else info.min
    if np.isnan(array).any() or array.min() < lowest or array.max() > info.max:
        raise RuntimeError(
            f"value cannot be converted to type {target.name} without overflow\nHint: "
            f"{target.name} holds {info.min} .. {info.max}; give a wider dtype or no dtype.")


def scalar_tensor(value, *, dtype: DType | None = None, layout=None, device=None,
                  requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding ``value`` (float32 by default)."""
    if isinstance(value, Tensor) and (value.dim() or value.requires_grad):
        # PyTorch's parser takes a tensor for a Number only when it is 0-d and outside
        # autograd (its value is read, a graph would be lost)
        raise TypeError("scalar_tensor(): argument 's' (position 1) must be Number, not Tensor"
                        "\nHint: pass a number, e.g. t.item() (t.detach().item() if it "
                        "requires grad).")
    _check_flag("scalar_tensor", requires_grad)
    check_layout("scalar_tensor", layout)
    d = to_dtype(dtype, "scalar_tensor") if dtype is not None else get_default_dtype()
    value = check_fill_value(value, d.numpy)
    return _finish(np.array(value, dtype=d.numpy), requires_grad)


def as_tensor(data, dtype: DType | None = None, device=None) -> Tensor:
    """Like :func:`tensor`, but shares memory with a NumPy array or tensor when it can."""
    _check_device(device)
    if isinstance(data, Tensor):
        if dtype is None or to_dtype(dtype, "as_tensor") is data.dtype:
            return data
        return data.to(dtype)
    if isinstance(data, np.ndarray):
        _dtypes.from_numpy_dtype(data.dtype)  # PyTorch's error for unsupported dtypes
        if dtype is not None:
            data = data.astype(to_dtype(dtype, "as_tensor").numpy, copy=False)
        _warn_if_read_only(data)
        return _make(data)
    try:
        return tensor(data, dtype=dtype)
    except TypeError:
        _check_dtype(dtype, "as_tensor")  # (named as the function called)
        raise


def _check_dtype(dtype, function: str) -> None:
    """In an error branch: raise PyTorch's TypeError, naming ``function``, if ``dtype`` is
    none of torch's (the error raised inside may have been about it, named otherwise)."""
    if dtype is not None:
        to_dtype(dtype, function)


def asarray(obj, *, dtype: DType | None = None, device=None, copy: bool | None = None,
            requires_grad: bool | None = None) -> Tensor:
    """``obj`` (a tensor, NumPy array, number or nested list) as a tensor, sharing memory
    with it when it can.

    ``copy=True`` always copies; ``copy=False`` refuses (``ValueError``) where sharing is
    impossible (another dtype, a Python list). ``requires_grad=None`` keeps ``obj``'s;
    ``False`` detaches; ``True`` makes the result require grad (a leaf ``obj`` itself).

    >>> import teachgrad as torch
    >>> a = torch.tensor([1, 2, 3])
    >>> torch.asarray(a) is a, torch.asarray(a, copy=True) is a
    (True, False)
    """
    _check_flag("asarray", requires_grad)
    _check_device(device)
    wanted = to_dtype(dtype, "asarray") if dtype is not None else None
    if copy is False:
        _check_aliasable(obj, wanted)
    if isinstance(obj, Tensor):
        result = obj if wanted is None or wanted is obj.dtype else obj.to(wanted)
        if copy and result is obj:
            result = obj.clone()
    elif copy and isinstance(obj, np.ndarray):
        result = tensor(obj, dtype=dtype)
    else:
        result = as_tensor(obj, dtype)
    if requires_grad is False and result.requires_grad:
        result = result.detach()
    elif requires_grad and not result.requires_grad:
        result.requires_grad_()
    return result


def _check_aliasable(obj, wanted: DType | None) -> None:
    """PyTorch's ``ValueError`` for ``asarray(..., copy=False)`` when memory can't be shared."""
    if isinstance(obj, Tensor):
        have = obj.dtype
    elif isinstance(obj, np.ndarray):
        have = _dtypes.from_numpy_dtype(obj.dtype)
    else:
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    if wanted is not None and wanted is not have:
        raise ValueError(
            f"can't alias tensor with dtype '{have._legacy.removesuffix('Tensor')}' into "
            f"dtype '{wanted._legacy.removesuffix('Tensor')}'."
        )


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array`` (changes to one show in the other)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtypes.from_numpy_dtype(array.dtype)
    _warn_if_read_only(array)
    return _make(array)


def _warn_if_read_only(array: np.ndarray) -> None:
    """PyTorch's warning for a NumPy array that is not writable, with what teachgrad does."""
    if not array.flags.writeable:
        warn_user(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. teachgrad refuses to change this tensor in place (PyTorch would write "
            "into the array anyway). You may want to copy the array to protect its data or "
            "make it writable before converting it to a tensor.", UserWarning)


@functools.cache
def _size_signature(function: str, signature: str) -> Signatures:
    return Signatures(function, signature)


def _shape(size, function: str = "zeros", signature: str | None = None) -> tuple:
    """Accept ``zeros(2, 3)``, ``zeros((2, 3))`` and ``zeros([2, 3])``: ``size`` is the
    positional arguments of ``function``.

    With a ``signature`` (``full(size, fill_value)``), ``size`` is one argument, which must
    be a tuple or a list. A size that is not ints gets PyTorch's TypeError.
    """
    if signature is None:
        items = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    else:
        items = size if isinstance(size, (tuple, list)) else None
    try:
        shape = tuple(map(operator.index, items))  # (an int: 2.5 is not a size)
        if shape and items[0].__class__ is bool:  # (PyTorch looks at the first only)
            raise TypeError
    except TypeError:  # (None, or an element that is not an int)
        given = size if signature is None else (size,)
        _size_signature(function, signature or "(tuple of ints size)").check(given)
        raise
    for s in shape:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )
    return shape


def _float_dtype(dtype) -> np.dtype:
    return (to_dtype(dtype) if dtype is not None else get_default_dtype()).numpy


def zeros(*size, dtype: DType | None = None, layout=None, device=None, requires_grad: bool = False,
          out=None) -> Tensor:
    """A tensor of zeros: ``zeros(2, 3)``."""
    if not size:  # (zeros(()) is a 0-d tensor; zeros() is an error)
        raise missing_size("zeros", _given(dtype=dtype, layout=layout, device=device,
                                     requires_grad=requires_grad, out=out))
    _check_flag("zeros", requires_grad)
    check_layout("zeros", layout)
    _check_device(device)
    try:
        shape = _shape(size, "zeros")
    except RuntimeError:  # (a negative size: PyTorch 2.13's zeros words it so)
        raise RuntimeError("zeros: Dimension size must be non-negative.") from None
    return _finish(np.zeros(shape, _float_dtype(dtype)), requires_grad)


def ones(*size, dtype: DType | None = None, layout=None, device=None, requires_grad: bool = False,
         out=None) -> Tensor:
    """A tensor of ones: ``ones(2, 2, requires_grad=True)``."""
    if not size:  # (ones(()) is a 0-d tensor; ones() is an error)
        raise missing_size("ones", _given(dtype=dtype, layout=layout, device=device,
                                     requires_grad=requires_grad, out=out))
    _check_flag("ones", requires_grad)
    check_layout("ones", layout)
    _check_device(device)
    return _finish(np.ones(_shape(size, "ones"), _float_dtype(dtype)), requires_grad)


def empty(*size, dtype: DType | None = None, layout=None, device=None, requires_grad: bool = False,
          memory_format=None) -> Tensor:
    """An "uninitialised" tensor (zero-filled here, so notebooks stay reproducible)."""
    if not size:  # (empty(()) is a 0-d tensor; empty() is an error)
        raise missing_size("empty", _given(dtype=dtype, layout=layout, device=device,
                                       requires_grad=requires_grad,
                                       memory_format=memory_format))
    _check_flag("empty", requires_grad)
    check_layout("empty", layout)
    _shape(size, "empty")  # (errors name empty)
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def empty_strided(size, stride, *, dtype: DType | None = None, layout=None, device=None,
                  requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """An "uninitialised" (zero-filled) tensor laid out in memory with these strides.

    ``stride`` counts elements: ``empty_strided((2, 3), (1, 2))`` is a 2×3 tensor stored
    column by column, as ``empty(3, 2).t()`` would be.

    >>> import teachgrad as torch
    >>> torch.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    _check_flag("empty_strided", requires_grad)
    check_layout("empty_strided", layout)
    from .ops.strided import strided_window

    _check_device(device)
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality "
                           f"of strides ({len(stride)})")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    d = to_dtype(dtype, "empty_strided").numpy if dtype is not None else get_default_dtype().numpy
    needed = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    return _finish(strided_window(np.zeros(needed, d), size, stride, 0), requires_grad)


FULL_SIGNATURE = "(tuple of ints size, Number fill_value)"


def full(size, fill_value, *, dtype: DType | None = None, layout=None, device=None,
         requires_grad: bool = False) -> Tensor:
    """A tensor filled with ``fill_value`` (its dtype follows the value, as PyTorch)."""
    _check_flag("full", requires_grad)
    check_layout("full", layout)
    _check_device(device)
    _number_argument("full", "fill_value", 2, fill_value)
    if isinstance(fill_value, (Tensor, np.generic)):  # a 0-d tensor or a NumPy scalar
        fill_value = fill_value.item()
    if not isinstance(fill_value, numbers.Number):
        raise TypeError(
            "full(): argument 'fill_value' (position 2) must be Number, not "
            f"{type(fill_value).__name__}"
        )
    if dtype is None:
        if isinstance(fill_value, complex):  # PyTorch's result would be complex
            raise complex_refused(f"the fill value {fill_value!r}")
        if isinstance(fill_value, bool):
            d = np.dtype(np.bool_)
        elif isinstance(fill_value, int):
            d = np.dtype(np.int64)
        else:
            d = get_default_dtype().numpy
    else:
        d = to_dtype(dtype).numpy
    fill_value = check_fill_value(fill_value, d)
    return _finish(np.full(_shape(size, "full", FULL_SIGNATURE), fill_value, d), requires_grad)


def eye(n: int, m: int | None = None, *, dtype: DType | None = None, layout=None, device=None,
        requires_grad: bool = False) -> Tensor:
    """The identity matrix (n x m)."""
    check_layout("eye", layout)
    check_flag_overloaded("eye", (n,) if m is None else (n, m), requires_grad)
    _check_device(device)
    if m is None:
        int_argument("eye", "n", 1, n)
    elif not (is_int(n) and is_int(m)):
        _OVERLOADS["eye"].check((n, m))
    for name, size in (("n", n), ("m", m)):
        if size is not None and size < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {size}")
    return _finish(np.eye(n, m, dtype=_float_dtype(dtype)), requires_grad)


def arange(start, end=None, step=1, *, dtype: DType | None = None, layout=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """Evenly spaced values in ``[start, end)``: ``arange(5)``, ``arange(0, 1, 0.25)``.

    Integer arguments give int64, any float gives the default float dtype.
    """
    check_layout("arange", layout)
    given = (start,) if end is None else (start, end) if step == 1 else (start, end, step)
    check_flag_overloaded("arange", given, requires_grad)
    _check_device(device)
    if end is None:
        _number_argument("arange", "end", 1, start)
        start, end = 0, start
    elif not all(map(is_number, (start, end, step))):
        _ARANGE.check(given)
    # a 0-d tensor counts as its number: an integer one keeps the result int64
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    for v in values:  # (PyTorch reads each as a double first)
        check_real_value(v, np.dtype(np.float64))
    if dtype is not None:
        d = to_dtype(dtype).numpy
    elif all(isinstance(v, (int, np.integer)) for v in values):
        d = np.dtype(np.int64)
    else:
        d = get_default_dtype().numpy
    start, step, n = _range(*values, d)
    # Computed in float64 then cast, like PyTorch, so arange(0, 1, 0.1) has 10 elements.
    data = (start + step * np.arange(n, dtype=np.float64)).astype(d)
    return _finish(data, requires_grad)


def _range(start, end, step, d: np.dtype) -> tuple:
    """``(start, step, number of values)`` of ``arange(start, end, step)`` of dtype ``d``,
    after PyTorch's checks, in its order: an empty or backwards range is an error, not an
    empty tensor. An integer range starts and steps by whole numbers (truncated, as C++
    converts them)."""
    if d == np.bool_:
        raise NotImplementedError('"arange_cpu" not implemented for \'Bool\'')
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError(
            "upper bound and lower bound inconsistent with step sign\nHint: to count down, "
            "give a negative step: torch.arange(5, 0, -1).")
    if d == np.int64:  # (PyTorch counts an int64 range in int64s)
        start, end, step = int(start), int(end), int(step)
        if step == 0:  # (arange(0, 1, 0.5, dtype=torch.long))
            raise ValueError("step must be nonzero")
    n = math.ceil((end - start) / step)
    if n > np.iinfo(np.int64).max:
        raise RuntimeError("invalid size, possible overflow?")
    if d.kind in "iu":  # (the other integer dtypes count in doubles, step by whole steps)
        start, step = int(start), int(step)
    return start, step, n


def linspace(start, end, steps: int, *, dtype: DType | None = None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    check_layout("linspace", layout)
    check_flag_overloaded("linspace", (start, end, steps), requires_grad)
    _check_device(device)
    _check_steps("linspace", (start, end, steps))
    _check_real_ends("linspace", start, end, dtype)
    return _finish(_even_steps(start, end, steps, _float_dtype(dtype)), requires_grad)


def _check_steps(name: str, given: tuple) -> None:
    """PyTorch's refusals of linspace's (logspace's) ``steps``: an int (not 2.5, not True:
    its parser lists the signatures), not negative."""
    steps = given[2]
    if not is_int(steps):
        from ._function_signatures import refusal  # (it imports this module's neighbours)

        raise refusal(name, given)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")


def _check_real_ends(name: str, start, end, dtype) -> None:
    """A complex end would make PyTorch's result complex: teachgrad refuses it."""
    for value in (start, end):
        if isinstance(value, Tensor):
            value = value._data
        if isinstance(value, (complex, np.complexfloating)) or (
                isinstance(value, np.ndarray) and value.dtype.kind == "c"):
            if dtype is None:
                raise complex_refused(f"the end point {value!r}")
            inferred = "double" if get_default_dtype().numpy == np.float64 else "float"
            raise RuntimeError(
                f"torch.{name}(): inferred dtype c10::complex<{inferred}> can't be safely "
                f"cast to passed dtype {to_dtype(dtype)._legacy.removesuffix('Tensor')}"
            )


def _even_steps(start, end, steps: int, dtype: np.dtype) -> np.ndarray:
    """``linspace``'s values as PyTorch's CPU kernel computes them, to the last bit.

    The first half counts up from ``start`` (``start + step·i``), the second half counts
    down from ``end`` (``end - step·(steps-1-i)``), so both ends come out exact. Float32
    and float64 do the arithmetic in their own precision, with the multiply-add fused as
    PyTorch's compiled kernel fuses it (NumPy's ``linspace`` works in float64 and differs
    in the last bit, e.g. at ``linspace(0, 2π, 25)[7]``); float16 rounds after each
    operation (c10::Half's arithmetic); integer dtypes step in float64 and truncate.
    """
    if dtype == np.float16:
        return _half_steps(start, end, steps)
    work = dtype if dtype in (np.float32, np.float64) else np.dtype(np.float64)
    first, last = work.type(start), work.type(end)
    if dtype.kind in "iub":  # PyTorch converts an integer dtype's ends before stepping
        first, last = work.type(dtype.type(start)), work.type(dtype.type(end))
    if steps == 1:
        return np.full(1, first, work).astype(dtype)
    step = (last - first) / work.type(steps - 1)
    index = np.arange(steps)
    from_start = _mul_add(index.astype(work), step, first)
    from_end = _mul_add((steps - 1 - index).astype(work), -step, last)
    return np.where(index < steps // 2, from_start, from_end).astype(dtype)


def _half_steps(start, end, steps: int) -> np.ndarray:
    """float16 ``linspace``: each operation computed in float32 and rounded to float16."""
    half, single = np.float16, np.float32
    first, last = half(start), half(end)
    if steps <= 1:
        return np.full(steps, first, half)
    step = half(single(half(single(last) - single(first))) / single(half(steps - 1)))
    index = np.arange(steps)

    def counted(origin, sign, count):  # origin ± half(step · half(count)), rounded twice
        offset = (single(step) * count.astype(half).astype(single)).astype(half)
        return (single(origin) + sign * offset.astype(single)).astype(half)

    from_start = counted(first, 1, index)
    from_end = counted(last, -1, steps - 1 - index)
    return np.where(index < steps // 2, from_start, from_end)


def logspace(start, end, steps: int, base: float = 10.0, *, dtype: DType | None = None, layout=None,
             device=None, requires_grad: bool = False) -> Tensor:
    """``base ** linspace(start, end, steps)``."""
    check_layout("logspace", layout)
    given = (start, end, steps) if base == 10.0 else (start, end, steps, base)
    check_flag_overloaded("logspace", given, requires_grad)
    _check_device(device)
    _check_steps("logspace", given)
    _check_real_ends("logspace", start, end, dtype)
    return _finish(_powers_of_even_steps(start, end, steps, base, _float_dtype(dtype)),
                   requires_grad)


def _powers_of_even_steps(start, end, steps: int, base, dtype: np.dtype) -> np.ndarray:
    """``logspace``'s values as PyTorch's CPU code computes them: the exponents step in
    float64 from the ends converted to ``dtype`` (up from ``start`` in the first half,
    down from ``end`` in the second), and the C library's ``pow`` raises ``base`` to
    them (NumPy's ``power`` differs from it in the last bit of float64)."""
    base = float(base)
    if steps == 1:
        return np.array([math.pow(base, float(start))]).astype(dtype)
    first, last = dtype.type(start), dtype.type(end)
    with np.errstate(over="ignore"):  # an integer dtype's difference wraps, as in C++
        step = float(last - first) / (steps - 1) if steps > 1 else 0.0
    exponents = [float(first) + step * i if i < steps // 2
                 else float(last) - step * (steps - 1 - i) for i in range(steps)]
    with np.errstate(over="ignore", invalid="ignore"):
        return np.array([_pow(base, e) for e in exponents], dtype=np.float64).astype(dtype)


def _pow(base: float, exponent: float) -> float:
    """The C library's ``pow`` (``math.pow``), with its inf and nan instead of Python's
    OverflowError and ValueError."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan


def _like_dtype(t: Tensor, dtype, function: str | None = None) -> np.dtype:
    return to_dtype(dtype, function).numpy if dtype is not None else t._data.dtype


def _zeros_like(function: str, input: Tensor, dtype, memory_format) -> np.ndarray:
    """Zeros shaped like ``input`` in ``dtype`` (default ``input``'s), laid out in memory as
    ``memory_format`` says: by default (``preserve_format``) as ``input``'s clone would be,
    so ``zeros_like(x.t())`` is transposed too, as in PyTorch."""
    fmt = check_memory_format(function, memory_format)
    return zeros_in_format(input._data, _like_dtype(input, dtype, function), fmt)


def zeros_like(input: Tensor, *, dtype: DType | None = None, layout=None, device=None,
               requires_grad: bool = False, memory_format=None) -> Tensor:
    """Zeros with the shape (and dtype) of ``input``."""
    _check_flag("zeros_like", requires_grad)
    check_layout("zeros_like", layout)
    return _finish(_zeros_like("zeros_like", input, dtype, memory_format), requires_grad)


def ones_like(input: Tensor, *, dtype: DType | None = None, layout=None, device=None,
              requires_grad: bool = False, memory_format=None) -> Tensor:
    """Ones with the shape (and dtype) of ``input``: the usual ``gradient`` for backward."""
    _check_flag("ones_like", requires_grad)
    check_layout("ones_like", layout)
    data = _zeros_like("ones_like", input, dtype, memory_format)
    data[...] = 1
    return _finish(data, requires_grad)


def empty_like(input: Tensor, *, dtype: DType | None = None, layout=None, device=None,
               requires_grad: bool = False, memory_format=None) -> Tensor:
    """Like :func:`zeros_like` (teachgrad never hands out uninitialised memory)."""
    _check_flag("empty_like", requires_grad)
    check_layout("empty_like", layout)
    return _finish(_zeros_like("empty_like", input, dtype, memory_format), requires_grad)


def full_like(input: Tensor, fill_value, *, dtype: DType | None = None, layout=None, device=None,
              requires_grad: bool = False, memory_format=None) -> Tensor:
    """``fill_value`` everywhere, with the shape (and dtype) of ``input``."""
    _check_flag("full_like", requires_grad)
    check_layout("full_like", layout)
    _number_argument("full_like", "fill_value", 2, fill_value)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    wanted = to_dtype(dtype, "full_like") if dtype is not None else input.dtype
    fill_value = check_fill_value(fill_value, wanted.numpy)
    data = _zeros_like("full_like", input, wanted, memory_format)
    data[...] = fill_value
    return _finish(data, requires_grad)


def _sizes(size: Sequence) -> tuple:
    return _shape(size)


def _triangle_indices(which: str, row: int, col: int, offset: int, dtype, device) -> Tensor:
    _check_device(device)
    for name, size in (("row", row), ("col", col)):
        if size < 0:
            raise RuntimeError(f"{name} must be non-negative, got{size}")  # (PyTorch's spacing)
    d = np.dtype(np.int64) if dtype is None else to_dtype(dtype, which).numpy
    if d.kind not in "iu":
        name = to_dtype(dtype)._legacy.removesuffix("Tensor")
        raise NotImplementedError(f"\"{which}\" not implemented for '{name}'")
    pick = np.tril_indices if which == "tril_indices" else np.triu_indices
    rows, cols = pick(row, offset, col)
    return _make(np.stack([rows, cols]).astype(d).reshape(2, -1))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: DType | None = None, layout=None,
                 device=None) -> Tensor:
    """The (row, column) indices of the lower triangle of a ``row × col`` matrix, as a
    ``2 × N`` tensor, in row-major order (``offset`` moves the diagonal up).

    >>> import teachgrad as torch
    >>> torch.tril_indices(3, 3)
    tensor([[0, 1, 1, 2, 2, 2],
            [0, 0, 1, 0, 1, 2]])
    """
    check_layout("tril_indices", layout)
    return _triangle_indices("tril_indices", row, col, offset, dtype, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: DType | None = None, layout=None,
                 device=None) -> Tensor:
    """The indices of the upper triangle of a ``row × col`` matrix (see :func:`tril_indices`)."""
    check_layout("triu_indices", layout)
    return _triangle_indices("triu_indices", row, col, offset, dtype, device)
