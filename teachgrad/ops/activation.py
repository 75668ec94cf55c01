"""softmax and log_softmax: turn scores into (log-)probabilities along one dimension.

``softmax(a)ᵢ = exp(aᵢ) / Σⱼ exp(aⱼ)``. Both are computed after subtracting the maximum
(which does not change the result), so scores such as ±1000 do not overflow ``exp``.

Their backward formulas use the saved *output* ``s``, which makes them short:

* softmax:      ``grad_in = s · (grad − Σ grad·s)``
* log_softmax:  ``grad_in = grad − exp(s) · Σ grad``

The other activations of ``nn.functional`` (gelu, elu, leaky_relu ...) are in
:mod:`teachgrad.nn.activation_ops`; relu, sigmoid and tanh are pointwise ops.
"""

from __future__ import annotations

import numpy as np

from .._arguments import checks_types
from .._tensor import Tensor, _wrap_dim, tensor_method
from .layout import row_major
from .op import Op
from .recorded_backward import RecordedBackward
from .saved_values import given, keep_given


def _shifted(a: np.ndarray, dim) -> np.ndarray:
    """``a`` minus its maximum along ``dim``: the largest score becomes 0, exp cannot overflow.

    A row holding +inf (or only -inf) has no finite peak: ``inf - inf`` makes it NaN, which
    is PyTorch's result for such rows, so only NumPy's warning about it is silenced.
    """
    # (the ufuncs' reduce: a.max() and .all() would first run a Python frame in NumPy)
    peak = np.maximum.reduce(a, axis=dim, keepdims=True)
    if np.logical_and.reduce(np.isfinite(peak), axis=None):
        return a - peak
    with np.errstate(invalid="ignore"):
        return a - peak


def _dim_as_saved(node: Op) -> int:
    """``grad_fn._saved_dim``: the dimension, counted from 0 (a 0-d input has dim 0).

    (A negative ``dim`` is shown as PyTorch shows it, as given and read as an unsigned
    number: ``softmax(-1)`` gives 18446744073709551615; see saved_values.)
    """
    return 0 if node.dim is None else node.dim


class SoftmaxBackward0(Op):
    formula = "∂sᵢ/∂aⱼ = sᵢ·(δᵢⱼ − sⱼ):  grad_in = s·(grad − Σ grad·s)"

    saved_names = ("result",)  # grad_fn._saved_...
    saved_attributes = {"dim": given("dim", _dim_as_saved)}
    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        if a.size == 0:
            out = a.copy()
        else:
            e = np.exp(_shifted(a, dim))
            out = row_major(e / e.sum(axis=dim, keepdims=True))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if type(grad) is not Tensor:  # a plain backward: arrays
            return out * (grad - np.sum(grad * out, axis=ctx.dim, keepdims=True))
        return SoftmaxBackwardDataBackward0.record(ctx, grad, out)  # create_graph


class SoftmaxBackwardDataBackward0(RecordedBackward):
    formula = ("softmax's backward s·(g − Σ g·s):  ∂/∂g = s·(ḡ − Σ ḡ·s)    "
               "∂/∂s = ḡ·(g − Σ g·s) − g·Σ ḡ·s")

    @staticmethod
    def backward(ctx, gg):
        grad, out = ctx.saved_tensors
        dim = ctx.node.dim
        gg_dot_s = np.sum(gg * out, axis=dim, keepdims=True)
        return (out * (gg - gg_dot_s),
                gg * (grad - np.sum(grad * out, axis=dim, keepdims=True)) - grad * gg_dot_s)


class LogSoftmaxBackward0(Op):
    formula = "∂(log sᵢ)/∂aⱼ = δᵢⱼ − sⱼ:  grad_in = grad − exp(log s)·Σ grad"

    saved_names = ("result",)  # grad_fn._saved_...
    saved_attributes = {"dim": given("dim", _dim_as_saved)}
    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        if a.size == 0:
            out = a.copy()
        else:
            # The sum is at least 1 (the peak's exp(0)) or NaN: its log never warns.
            shifted = _shifted(a, dim)
            total = np.add.reduce(np.exp(shifted), axis=dim, keepdims=True)
            out = row_major(shifted - np.log(total))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        if type(grad) is not Tensor:  # a plain backward: arrays
            return grad - np.exp(out) * np.add.reduce(grad, axis=ctx.dim, keepdims=True)
        return LogSoftmaxBackwardDataBackward0.record(ctx, grad, out)  # create_graph


class LogSoftmaxBackwardDataBackward0(RecordedBackward):
    formula = ("log_softmax's backward g − eʸ·Σ g:  ∂/∂g = ḡ − Σ ḡ·eʸ    "
               "∂/∂y = −ḡ·eʸ·Σ g")

    @staticmethod
    def backward(ctx, gg):
        grad, out = ctx.saved_tensors
        dim = ctx.node.dim
        probs = np.exp(out)
        return (gg - np.sum(gg * probs, axis=dim, keepdims=True),
                -gg * probs * np.sum(grad, axis=dim, keepdims=True))


def _softmax_like(op: type[Op], kernel: str, input: Tensor, dim, dtype) -> Tensor:
    if type(dim) is not int:  # (the usual case costs one check)
        if isinstance(dim, np.integer):  # a NumPy integer is an int to PyTorch
            dim = int(dim)
        elif not isinstance(dim, int):
            raise TypeError(f"{kernel}(): argument 'dim' must be int, not {type(dim).__name__}")
    if dtype is not None:
        input = input.to(dtype)  # PyTorch converts first (a ToCopyBackward0 in the graph)
    ndim = input._data.ndim
    d = _wrap_dim(dim, ndim)
    if input._data.dtype.kind != "f":
        where = "_lastdim" if d == ndim - 1 or ndim == 0 else ""
        raise NotImplementedError(
            f'"{kernel}{where}_kernel_impl" not implemented for '
            f"'{input.dtype._legacy.removesuffix('Tensor')}'"
            f"\nHint: {kernel} needs floating-point scores: x.float().{kernel}({dim}), or "
            f"pass dtype=torch.float32."
        )
    out = op.apply(input, dim=d if ndim else None)
    if dim < 0:  # (grad_fn._saved_dim shows it as given: see saved_values)
        keep_given(out, op, dim=dim)
    return out


@tensor_method()
@checks_types("softmax", "(int dim, torch.dtype dtype = None)")
def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """``exp(input) / sum(exp(input))`` along ``dim``: positive values that sum to 1.

    ``dtype`` converts the input first (e.g. to compute in float64).

    >>> import teachgrad as torch
    >>> torch.tensor([1000., 1000.]).softmax(0)
    tensor([0.5000, 0.5000])
    """
    return _softmax_like(SoftmaxBackward0, "softmax", input, dim, dtype)


@tensor_method()
@checks_types("log_softmax", "(int dim, torch.dtype dtype = None)")
def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """``log(softmax(input, dim))``, computed directly (accurate for very negative scores).

    >>> import teachgrad as torch
    >>> torch.tensor([0., -1000.]).log_softmax(0)
    tensor([    0., -1000.])
    """
    return _softmax_like(LogSoftmaxBackward0, "log_softmax", input, dim, dtype)


__all__ = ["softmax", "log_softmax"]
