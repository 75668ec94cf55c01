"""The ``*_copy`` functions: ``select_copy``, ``transpose_copy``, ``view_copy`` ...

PyTorch has a copying twin of each view op (for backends that cannot alias memory): the
same values as the view, in new memory, and ``grad_fn`` named after the view's with
``_copy`` added (``SelectBackward0_copy``). One mechanism makes them all here: run the view
op, copy its result, and give the copy the view's node under the ``_copy`` name (a
subclass: same backward and formula, but not a view). ``detach_copy`` is the exception
PyTorch makes: its result still requires grad, with a ``NotImplemented`` node.

>>> import teachgrad as torch
>>> x = torch.arange(6.).view(2, 3).requires_grad_()
>>> y = torch.select_copy(x, 0, 1)
>>> y, y._base is None
(tensor([3., 4., 5.], grad_fn=<SelectBackward0_copy>), True)
"""

from __future__ import annotations

import numpy as np

from .._input_check import refuse_non_tensor_input
from .._tensor import Tensor, _make
from . import shape, strided
from .layout import contiguous_format
from .not_implemented import NotImplementedNode
from .op import Op

__all__ = [
    "alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy",
    "permute_copy", "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy",
    "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy", "unfold_copy",
    "unsqueeze_copy", "view_copy",
]

#: view op class -> its ``_copy`` twin (made once; diagonal's exists already for ``diag``)
_COPY_TWINS: dict[type, type] = {shape.DiagonalBackward0: shape.DiagonalBackward0_copy}


def copy_twin(cls: type) -> type:
    """``cls`` under PyTorch's ``_copy`` name: a subclass that is not a view."""
    twin = _COPY_TWINS.get(cls)
    if twin is None:
        namespace = {"is_view": False, "__module__": cls.__module__,
                     "__doc__": f"``{cls.__name__}`` whose result was copied (``*_copy``)."}
        twin = _COPY_TWINS[cls] = type(cls.__name__ + "_copy", (cls,), namespace)
    return twin


def as_copy(view: Tensor, source: Tensor) -> Tensor:
    """``view``'s values in new memory; its node (if the view op recorded one) renamed."""
    # The copy is row-major, whatever the view's strides (as PyTorch's *_copy kernels
    # write it): t_copy(x).view(-1) works.
    if view is source:  # nothing was viewed: an ordinary copy (CloneBackward0)
        return view.clone(memory_format=contiguous_format)
    out = _make(_contiguous_copy(view._data))
    fn = view._grad_fn
    if fn is None or not isinstance(fn, Op):
        return out
    # Only a node this view op just made is renamed (split's pieces share one: the first
    # piece renames it, the others find it renamed already).
    if type(fn).is_view:
        fn.__class__ = copy_twin(type(fn))
    if type(fn) in _COPY_TWINS.values():
        out._requires_grad, out._grad_fn, out._output_nr = True, fn, view._output_nr
    return out


def _copying(view_op, name: str, doc: str):
    def copying(input: Tensor, *args, **kwargs) -> Tensor | tuple:  # noqa: A002
        result = view_op(input, *args, **kwargs)
        if isinstance(result, (tuple, list)):
            return type(result)(as_copy(piece, input) for piece in result)
        return as_copy(result, input)

    copying.__name__ = copying.__qualname__ = name
    copying.__doc__ = doc
    return copying


def _alias(input: Tensor) -> Tensor:
    return shape.AliasBackward0.apply(input)


def _slice(input: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
           step: int = 1) -> Tensor:
    """``input[start:end:step]`` along ``dim`` (Python's clamping of start and end)."""
    if input._data.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = shape._wrap_dim(dim, input._data.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    first, stop, _ = slice(start, end).indices(input._data.shape[d])
    return shape.SliceBackward0.apply(input, dim=d, start=first, stop=max(first, stop),
                                      step=int(step))


def _expand(input: Tensor, size, *, implicit: bool = False) -> Tensor:  # noqa: A002
    """``expand``; ``implicit`` is accepted and ignored, as in PyTorch's eager mode."""
    return shape.expand(input, *size) if isinstance(size, (tuple, list)) else shape.expand(
        input, size)


def _split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    return shape.split(input, list(split_sizes), dim)


alias_copy = _copying(_alias, "alias_copy", "A copy of ``input`` (``AliasBackward0_copy``).")
as_strided_copy = _copying(strided.as_strided, "as_strided_copy",
                           "``as_strided(input, size, stride, storage_offset)``, copied.")
diagonal_copy = _copying(shape.diagonal, "diagonal_copy", "``diagonal``, copied.")
expand_copy = _copying(_expand, "expand_copy", "``expand(input, size)``, copied.")
permute_copy = _copying(shape.permute, "permute_copy", "``permute(input, dims)``, copied.")
select_copy = _copying(shape.select, "select_copy", "``select(input, dim, index)``, copied.")
slice_copy = _copying(_slice, "slice_copy",
                      "``input[start:end:step]`` along ``dim``, copied (``SliceBackward0_copy``).")
split_copy = _copying(shape.split, "split_copy", "``split(input, split_size, dim)``, copied.")
split_with_sizes_copy = _copying(_split_with_sizes, "split_with_sizes_copy",
                                 "``split(input, split_sizes, dim)``, copied.")
squeeze_copy = _copying(shape.squeeze, "squeeze_copy", "``squeeze``, copied.")
t_copy = _copying(shape.t, "t_copy", "``t(input)``, copied.")
transpose_copy = _copying(shape.transpose, "transpose_copy", "``transpose``, copied.")
unbind_copy = _copying(shape.unbind, "unbind_copy", "``unbind(input, dim)``, copied.")
unfold_copy = _copying(shape.unfold, "unfold_copy", "``unfold(input, dimension, size, step)``, "
                       "copied.")
unsqueeze_copy = _copying(shape.unsqueeze, "unsqueeze_copy", "``unsqueeze``, copied.")
def _view(input: Tensor, *size, **keywords) -> Tensor:  # noqa: A002
    """``view``, with view_copy's keywords: ``size=`` or ``dtype=`` alone."""
    if not size and len(keywords) == 1 and next(iter(keywords)) in ("size", "dtype"):
        return shape.view(input, *keywords.values())
    return shape.view(input, *size, **keywords)


view_copy = _copying(_view, "view_copy", "``view(input, size)`` (or a dtype), copied.")


def detach_copy(input: Tensor) -> Tensor:  # noqa: A002
    """``input.detach()`` in new memory. As in PyTorch, the result of a tensor that requires
    grad still requires grad, under a ``NotImplemented`` node: a backward through it fails."""
    refuse_non_tensor_input("detach_copy", (input,), {})
    return NotImplementedNode.apply(input, compute=_contiguous_copy, aten_name="detach_copy")


def _contiguous_copy(a: np.ndarray) -> np.ndarray:
    """``a``'s values in new, row-major memory."""
    return np.array(a, copy=True, order="C")

