"""More in-place methods: shape changes (``t_``, ``transpose_``, ``squeeze_``, ``resize_``),
comparisons and logic (``lt_``, ``eq_``, ``logical_not_``), ``tril_``/``triu_`` and
``fill_diagonal_``.

Two kinds of in-place change live here.

* **New values, same shape** (``x.lt_(0)``, ``x.tril_()``): the general mechanism of
  :mod:`teachgrad.ops.inplace` (compute out of place, write back, bump the version).
* **Same values, new shape** (``x.t_()``, ``x.unsqueeze_(0)``): nothing is written; the
  tensor becomes a different *view* of its own memory. Its history gains the view op,
  under PyTorch's in-place name (``TBackward1``, ``UnsqueezeBackward1``...), and its
  version still goes up, as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from .._missing_arguments import REQUIRED, missing, missing_arguments_error, missing_message
from .._tensor import Tensor, _make
from ..autograd import graph, inference
from ..autograd.dual_state import state as _dual
from ..autograd.grad_mode import state as _grad_state
from . import pointwise, shape
from .inplace import inplace_method, inplace_twin, write_into
from .op import Op
from .select_grad import zero_grad_like

__all__: list[str] = []


# ----------------------------------------------------------------------------------------
# Same values, new shape
# ----------------------------------------------------------------------------------------
def _alias(self: Tensor) -> Tensor:
    """A second handle on ``self`` (same memory, history, version counter, base and
    forward-AD tangent)."""
    alias = _make(self._data, self._requires_grad, self._grad_fn)
    alias._output_nr, alias._vc, alias._base = self._output_nr, self._vc, self._base
    if self._extra is not None and "tangent" in self._extra:
        alias._extras()["tangent"] = self._extra["tangent"]
    return alias


def reshape_in_place(self: Tensor, view_op, *args) -> Tensor:
    """Make ``self`` the view ``view_op(self, *args)`` of its own memory (``t_``...)."""
    self._check_inplace()
    result = view_op(_alias(self), *args)
    fn = result._grad_fn
    self._data = result._data
    self._vc[0] += 1
    if result._extra is not None and "tangent" in result._extra:
        # Forward AD: the tangent takes the same new shape (the view op made it).
        self._extras()["tangent"] = result._extra["tangent"]
    if fn is not None:
        fn.__class__ = inplace_twin(type(fn))
        fn.view_version = self._vc[0]  # (if self is a view: it is not stale, it is new)
        self._grad_fn, self._output_nr, self._requires_grad = fn, result._output_nr, True
    return self


def _shape_method(view_op, name: str):
    def method(self: Tensor, *args) -> Tensor:
        try:  # (free until something is raised)
            return reshape_in_place(self, view_op, *args)
        except TypeError:  # (x.transpose_(): PyTorch's words, naming transpose_)
            error = missing_arguments_error(name, view_op, (self, *args), {})
            if error is None:
                raise
        raise error

    method.__name__, method.__qualname__ = name, f"Tensor.{name}"
    method.__doc__ = (f"In-place version of ``{view_op.__name__}``: ``self`` becomes that view "
                      "of its own memory, and is returned.")
    return method


def _t(input: Tensor) -> Tensor:
    if input._data.ndim > 2:
        raise RuntimeError(
            f"t_() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D"
        )
    return shape.t(input)


_t.__name__ = "t"
Tensor.t_ = _shape_method(_t, "t_")
Tensor.transpose_ = _shape_method(shape.transpose, "transpose_")
Tensor.swapaxes_ = _shape_method(shape.transpose, "swapaxes_")
Tensor.swapdims_ = _shape_method(shape.transpose, "swapdims_")
Tensor.squeeze_ = _shape_method(shape.squeeze, "squeeze_")
Tensor.unsqueeze_ = _shape_method(shape.unsqueeze, "unsqueeze_")


def _resize_shape(sizes: tuple) -> tuple:
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    sizes = tuple(int(s) for s in sizes)
    if any(s < 0 for s in sizes):
        raise RuntimeError("numel: integer multiplication overflow")  # (PyTorch's words)
    return sizes


def resize_(self: Tensor, *sizes, memory_format=None) -> Tensor:
    """Give ``self`` a new shape (any number of elements), keeping its first values.

    PyTorch keeps the storage and leaves new elements uninitialised; here a shrink is a
    view of the old memory, and a growth copies the old values into new memory, with
    zeros after them (so views taken before a growth no longer share it).

    >>> import teachgrad as torch
    >>> torch.arange(6.).resize_(2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    """
    if not sizes:  # (x.resize_(): PyTorch's words, not an empty shape)
        raise TypeError(missing_message("resize_", ["size"]))
    if self._requires_grad:  # PyTorch refuses even under no_grad: the graph can't follow
        raise RuntimeError("cannot resize variables that require grad")
    new_shape = _resize_shape(sizes)
    data = self._data
    if type(self._vc) is not list:  # an inference tensor: only a no-op resize is allowed
        if new_shape == data.shape:
            return self
        inference.check_inplace(self)
    count = int(np.prod(new_shape))
    if count <= data.size and data.flags.c_contiguous:
        self._data = data.reshape(-1)[:count].reshape(new_shape)
    else:
        grown = np.zeros(count, data.dtype)
        kept = min(count, data.size)
        grown[:kept] = data.reshape(-1)[:kept]
        self._data = grown.reshape(new_shape)
    self._vc[0] += 1
    return self


def resize_as_(self: Tensor, the_template: Tensor = REQUIRED, memory_format=None) -> Tensor:
    """``self.resize_(the_template.shape)``."""
    if the_template is REQUIRED:  # (x.resize_as_(): PyTorch's words, see _missing_arguments)
        raise missing("resize_as_", resize_as_, self, the_template)
    return resize_(self, tuple(the_template._data.shape))


Tensor.resize_ = resize_
Tensor.resize_as_ = resize_as_


# ----------------------------------------------------------------------------------------
# Comparisons in place: ``x.lt_(y)`` writes 1/0 in x's own dtype
# ----------------------------------------------------------------------------------------
class _CompareInPlace(Op):
    """``self.lt_(other)`` and friends: ``self`` becomes ``self < other`` as numbers."""

    formula = "a comparison is flat almost everywhere: ∂/∂a = 0, ∂/∂b = 0"
    compare = staticmethod(np.less)

    @classmethod
    def forward(cls, ctx, a, other):
        return cls.compare(a, other).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        zero = zero_grad_like(grad)
        return (zero, zero) if len(ctx.next_functions) == 2 else zero


def _compare_ops(stem: str, compare) -> tuple[type, type]:
    """PyTorch's two nodes: ``<stem>Backward0`` (other is a number), ``...1`` (a tensor)."""
    return tuple(
        type(f"{stem}Backward{k}", (_CompareInPlace,), {
            "__slots__": (), "compare": staticmethod(compare), "__module__": __name__,
            "__doc__": f"``self.{stem.lower()}_(other)`` with ``other`` a "
                       f"{'number' if k == 0 else 'tensor'}: zero gradients.",
        })
        for k in (0, 1)
    )


def _comparison_method(name: str, stem: str, compare, out_of_place):
    scalar_op, tensor_op = _compare_ops(stem, compare)

    def op(self: Tensor, other) -> Tensor:
        if isinstance(other, Tensor):
            out_of_place(self, other)  # PyTorch's broadcasting and dtype errors
            return tensor_op.apply(self, other)
        return scalar_op.apply(self, other=other)

    op.__name__ = name[:-1]
    return op, (scalar_op, tensor_op)


_COMPARISONS = {
    "lt": ("Lt", np.less, pointwise.lt, ("less_",)),
    "le": ("Le", np.less_equal, pointwise.le, ("less_equal_",)),
    "gt": ("Gt", np.greater, pointwise.gt, ("greater_",)),
    "ge": ("Ge", np.greater_equal, pointwise.ge, ("greater_equal_",)),
    "eq": ("Eq", np.equal, pointwise.eq, ()),
    "ne": ("Ne", np.not_equal, pointwise.ne, ("not_equal_",)),
}
COMPARISON_NODES: dict[str, tuple[type, type]] = {}
for _stem_name, (_stem, _compare, _out, _aliases) in _COMPARISONS.items():
    _op, COMPARISON_NODES[_stem_name] = _comparison_method(
        _stem_name + "_", _stem, _compare, _out)
    for _name in (_stem_name + "_", *_aliases):  # (each names itself in its messages)
        setattr(Tensor, _name, inplace_method(_op, _name))


# ----------------------------------------------------------------------------------------
# Logic in place: PyTorch records nothing for these (the tensor keeps its history)
# ----------------------------------------------------------------------------------------
def _logical_method(op, name: str):
    def method(self: Tensor, *others) -> Tensor:
        # (no _check_inplace: nothing is recorded, so PyTorch allows it on a leaf that
        # requires grad and on a piece of split as well; not on an inference tensor)
        if type(self._vc) is not list:
            inference.check_inplace(self)
        plain = [o.detach() if isinstance(o, Tensor) else o for o in others]
        try:  # (free until something is raised)
            write_into(self, op(self.detach(), *plain))
        except TypeError:  # (x.logical_and_(): PyTorch's words, naming logical_and_)
            error = missing_arguments_error(name, op, (self, *others), {})
            if error is None:
                raise
            raise error from None
        return self

    method.__name__, method.__qualname__ = name, f"Tensor.{name}"
    method.__doc__ = (
        f"In-place ``{op.__name__}``: ``self`` becomes 1 (True) or 0 (False) in its dtype. "
        "As in PyTorch, autograd does not record it (the history stays as it was)."
    )
    return method


for _op in (pointwise.logical_and, pointwise.logical_or, pointwise.logical_xor,
            pointwise.logical_not):
    setattr(Tensor, _op.__name__ + "_", _logical_method(_op, _op.__name__ + "_"))


# ----------------------------------------------------------------------------------------
# tril_, triu_, fill_diagonal_
# ----------------------------------------------------------------------------------------
Tensor.tril_ = inplace_method(shape.tril, "tril_")
Tensor.triu_ = inplace_method(shape.triu, "triu_")


def _diagonal_array(data: np.ndarray, wrap: bool) -> np.ndarray:
    """A NumPy view of the main diagonal of ``data`` (every dim equal, or a 2-D matrix).

    With ``wrap``, a tall matrix's diagonal starts again every ``columns + 1`` rows, read
    through the flat memory as ``numpy.fill_diagonal(wrap=True)`` does.
    """
    if data.ndim == 2 and wrap and data.shape[0] > data.shape[1] + 1 and data.flags.c_contiguous:
        step = data.shape[1] + 1
        count = (data.size + step - 1) // step
        return np.lib.stride_tricks.as_strided(data, (count,), (step * data.itemsize,))
    length = min(data.shape)
    return np.lib.stride_tricks.as_strided(data, (length,), (sum(data.strides),))


def fill_diagonal_(self: Tensor, fill_value=REQUIRED, wrap: bool = False) -> Tensor:
    """Write ``fill_value`` on the main diagonal, in place (``wrap``: again every
    ``columns + 1`` rows of a tall matrix).

    >>> import teachgrad as torch
    >>> torch.zeros(2, 3).fill_diagonal_(5.)
    tensor([[5., 0., 0.],
            [0., 5., 0.]])
    """
    if fill_value is REQUIRED:  # (x.fill_diagonal_(): PyTorch's words, see _missing_arguments)
        raise missing("fill_diagonal_", fill_diagonal_, self, fill_value)
    data = self._data
    if data.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if data.ndim > 2 and len(set(data.shape)) > 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    from .inplace import refresh_view

    # The diagonal as a view tensor of self: filling it is a write through a view, so
    # self's history gets PyTorch's CopySlices node.
    diagonal = _make(_diagonal_array(data, wrap))
    diagonal._vc = self._vc
    diagonal._base = self._base if self._base is not None else self
    if _grad_state.enabled and (self._requires_grad or self._base is not None
                                and graph.gained_history(self)):
        # (PyTorch fills a diagonal view of self: taking it rebuilds the history that a
        # view self gains when its base is changed in place, so self is no leaf then)
        self.grad_fn  # noqa: B018 - read for that rebuild
        self._check_inplace()
        refresh_view(diagonal)
    if _dual.level is not None:  # forward AD: the diagonal's tangent is a view of self's
        _give_diagonal_tangent(diagonal, self, wrap)
    diagonal.fill_(fill_value)
    if self._base is not None and diagonal._base._grad_fn is not None and self._requires_grad:
        refresh_view(self)  # self is a view itself: read its new history from the base
    return self


def _give_diagonal_tangent(diagonal: Tensor, self: Tensor, wrap: bool) -> None:
    """``diagonal`` is made by hand, not by a view op, so it would look for its tangent in
    the root base only (a dual tensor is a view of the tensor it was made from, whose
    tangent is its own): give it the diagonal of ``self``'s tangent, as a view of it."""
    from ..autograd import forward_ad

    tangent = forward_ad.tangent_of(self)
    if tangent is None:
        return
    view = _make(_diagonal_array(tangent._data, wrap))
    view._vc = tangent._vc
    view._base = tangent._base if tangent._base is not None else tangent
    forward_ad._set_tangent(diagonal, view)


Tensor.fill_diagonal_ = fill_diagonal_

# Other methods whose in-place twins PyTorch has
Tensor.floor_divide = pointwise.floor_divide
del _name, _op, _stem_name, _stem, _compare, _out, _aliases
