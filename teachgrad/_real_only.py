"""Questions PyTorch code asks about complex numbers and devices, answered for teachgrad's
tensors, which are always real and always on the CPU.

A real number is its own conjugate, so ``x.conj()``, ``x.resolve_conj()`` and ``x.real``
are ``x`` itself (as in PyTorch, for real tensors), ``x.mH`` (the conjugate transpose) is
``x.mT``, ``x.imag`` is an error, and ``x.angle()`` is π for a negative number and 0
otherwise. ``x.get_device()`` is -1: the CPU; ``x.is_sparse``, ``x.is_meta``,
``x.is_pinned()`` and the other questions about where and how a tensor is stored are False.

Also here: the few Tensor methods that are other functions under a second name
(``x.hardshrink``, ``x.prelu``, ``x.split_with_sizes``), ``nonzero_static`` and ``set_``.
"""

from __future__ import annotations

import numpy as np

from ._input_check import refuse_non_tensor_input
from ._missing_arguments import REQUIRED, missing, missing_message
from ._tensor import Tensor, _make
from ._warn import warn_user
from .ops.op import Op

__all__ = ["is_complex", "is_conj", "is_neg", "conj", "conj_physical", "resolve_conj",
           "resolve_neg", "real", "imag", "angle", "adjoint", "nonzero_static",
           "split_with_sizes"]


def is_complex(input: Tensor) -> bool:
    """False: teachgrad has no complex dtypes."""
    refuse_non_tensor_input("is_complex", (input,), {})  # (a list would come back as it is)
    return False


def is_conj(input: Tensor) -> bool:
    """False: a real tensor is never a lazily conjugated view."""
    refuse_non_tensor_input("is_conj", (input,), {})  # (a list would come back as it is)
    return False


def is_neg(input: Tensor) -> bool:
    """False: a real tensor is never a lazily negated view."""
    refuse_non_tensor_input("is_neg", (input,), {})  # (a list would come back as it is)
    return False


def conj(input: Tensor) -> Tensor:
    """The complex conjugate: ``input`` itself for a real tensor."""
    refuse_non_tensor_input("conj", (input,), {})  # (a list would come back as it is)
    return input


conj_physical = resolve_conj = resolve_neg = conj


def real(input: Tensor) -> Tensor:
    """The real part: ``input`` itself for a real tensor."""
    refuse_non_tensor_input("real", (input,), {})  # (a list would come back as it is)
    return input


def imag(input: Tensor) -> Tensor:
    """The imaginary part: an error for real tensors, as in PyTorch."""
    refuse_non_tensor_input("imag", (input,), {})
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


class AngleBackward0(Op):
    """The angle of a real number in the complex plane: π on the negative half-line, else 0."""

    # PyTorch's formula is written for complex numbers and reads the input; for real ones
    # it is 0, but the input is still saved, so changing it in place makes backward refuse.
    saved_names = ("self",)  # grad_fn._saved_self
    formula = "∂angle(a)/∂a = 0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        # (-0. is not negative: its angle is 0, as PyTorch's; a nan stays nan)
        return np.where(a < 0, np.asarray(np.pi, a.dtype), np.where(a == a, 0, a)).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        from .ops.select_grad import zero_grad_like

        ctx.saved_tensors  # noqa: B018 - read for its check: the input was not changed
        return zero_grad_like(grad)


def angle(input: Tensor) -> Tensor:
    """The angle of each element in the complex plane: π for a negative number, 0 for the
    others (a nan stays nan). Integers give the default float dtype; the gradient is 0.

    >>> import teachgrad as torch
    >>> torch.angle(torch.tensor([-2., 0., 3.]))
    tensor([3.1416, 0.0000, 0.0000])
    """
    from .ops.pointwise import _unary

    return _unary(AngleBackward0, input)


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dimensions (``mT`` for real tensors)."""
    if input._data.ndim == 0:  # (deprecated there: the tensor itself, with a warning)
        warn_user("adjoint() is deprecated on 0-D tensors. Consider using x.conj().",
                  UserWarning)
        return input
    if input._data.ndim < 2:
        raise RuntimeError(
            "tensor.adjoint() is only supported on matrices or batches of matrices. Got "
            f"{input._data.ndim}-D tensor."
        )
    return input.mT


def _m_h(self: Tensor) -> Tensor:
    if self._data.ndim == 0:  # (deprecated there: the tensor itself, with a warning)
        warn_user("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().",
                  UserWarning)
        return self
    if self._data.ndim < 2:
        raise RuntimeError(
            "tensor.mH is only supported on matrices or batches of matrices. Got "
            f"{self._data.ndim}-D tensor."
        )
    return self.mT


def _h(self: Tensor) -> Tensor:
    if self._data.ndim == 0:
        warn_user("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
                      UserWarning)
        return self
    if self._data.ndim != 2:
        raise RuntimeError(
            "tensor.H is only supported on matrices (2-D tensors). Got "
            f"{self._data.ndim}-D tensor."
            + (" For batches of matrices, consider using tensor.mH" if self._data.ndim > 2
               else "")
        )
    return self.transpose(0, 1)  # (PyTorch records TransposeBackward0 here, not TBackward0)


def nonzero_static(input: Tensor, *, size: int = REQUIRED, fill_value: int = -1) -> Tensor:
    """``nonzero()`` padded with ``fill_value`` (or cut) to exactly ``size`` rows: a shape
    known in advance.

    >>> import teachgrad as torch
    >>> torch.tensor([1, 0, 2]).nonzero_static(size=3)
    tensor([[ 0],
            [ 2],
            [-1]])
    """
    if size is REQUIRED:  # (PyTorch's parser words it as a positional one)
        raise TypeError(missing_message("nonzero_static", ["size"]))
    if not isinstance(size, int) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = np.argwhere(input._data)[:size]
    out = np.full((size, input._data.ndim), fill_value, dtype=np.int64)
    out[: len(found)] = found
    return _make(out)


def split_with_sizes(input: Tensor, split_sizes=REQUIRED, dim: int = 0) -> tuple:
    """``split`` into pieces of the given sizes."""
    if split_sizes is REQUIRED:  # (x.split_with_sizes(): PyTorch's words, see _missing_arguments)
        raise missing("split_with_sizes", split_with_sizes, input, split_sizes)
    return input.split(list(split_sizes), dim)


def set_(self: Tensor, source: Tensor | None = None) -> Tensor:
    """Make ``self`` hold ``source``'s values (its memory, shape and dtype), in place;
    ``set_()`` alone makes it empty."""
    self._check_inplace()
    self._data = source._data if source is not None else np.zeros((0,), self._data.dtype)
    self._vc[0] += 1
    return self


class ConjPhysicalBackward1(Op):
    """``x.conj_physical_()``: nothing changes in a real tensor, but PyTorch records the
    in-place op (its gradient passes through unchanged)."""

    formula = "conj of a real number: ∂/∂a = 1"

    @staticmethod
    def forward(ctx, a):
        return a.copy()

    @staticmethod
    def backward(ctx, grad):
        return grad


def _conj_physical_(self: Tensor) -> Tensor:
    """In-place complex conjugate: the values stay (they are real); recorded as PyTorch does."""
    from .ops.inplace import apply_inplace

    return apply_inplace(self, ConjPhysicalBackward1.apply)


def _hardshrink(self: Tensor, lambd: float = 0.5) -> Tensor:
    """``F.hardshrink(self, lambd)``."""
    from .nn.functional import hardshrink

    return hardshrink(self, lambd)


def _prelu(self: Tensor, weight: Tensor = REQUIRED) -> Tensor:
    """``F.prelu(self, weight)``."""
    if weight is REQUIRED:  # (x.prelu(): PyTorch's words, see _missing_arguments)
        raise missing("prelu", _prelu, self, weight)
    from .nn.functional import prelu

    return prelu(self, weight)


def _is_pinned(self: Tensor) -> bool:
    """False: there is no accelerator to pin memory for (teachgrad computes on the CPU)."""
    return False


def _pin_memory(self: Tensor, device=None) -> Tensor:
    """An error, as PyTorch's on a machine without an accelerator."""
    raise RuntimeError(
        "Cannot access accelerator device when none is available.\nHint: pinned memory "
        "speeds up copies to a GPU; teachgrad computes on the CPU with NumPy, so leave "
        "pin_memory() out."
    )


def _is_shared(self: Tensor) -> bool:
    """False: a tensor's memory is this process's own (no torch.multiprocessing here)."""
    return False


# Where and how a tensor is stored: teachgrad's tensors are dense, strided NumPy arrays
# in this process's memory, so every one of PyTorch's questions about it is answered False.
_STORAGE_QUESTIONS = ("is_meta", "is_sparse", "is_sparse_csr", "is_quantized", "is_nested",
                      "is_mkldnn", "is_xpu", "is_mps", "is_ipu", "is_vulkan", "is_xla",
                      "is_maia", "is_mtia")
for _name in _STORAGE_QUESTIONS:
    setattr(Tensor, _name, property(
        lambda self: False,
        doc=f"``{_name}``: False (teachgrad's tensors are dense NumPy arrays on the CPU)."))
Tensor.is_pinned = _is_pinned
Tensor.pin_memory = _pin_memory
Tensor.is_shared = _is_shared

for _name in ("is_complex", "is_conj", "is_neg", "conj", "conj_physical", "resolve_conj",
              "resolve_neg", "angle", "adjoint", "nonzero_static", "split_with_sizes"):
    setattr(Tensor, _name, globals()[_name])
del _name
Tensor.conj_physical_ = _conj_physical_
Tensor.real = property(real, doc="The real part: the tensor itself (teachgrad is real).")
Tensor.imag = property(imag, doc="The imaginary part: an error for real tensors.")
Tensor.mH = property(_m_h, doc="The conjugate transpose of the last two dims (``mT``).")
Tensor.H = property(_h, doc="The conjugate transpose of a matrix (its transpose here).")
Tensor.get_device = lambda self: -1
Tensor.get_device.__doc__ = "-1: the tensor is on the CPU (PyTorch's answer for CPU tensors)."
Tensor.set_ = set_
Tensor.hardshrink = _hardshrink
Tensor.prelu = _prelu
