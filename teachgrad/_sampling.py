"""Random numbers written in place (``w.uniform_(-1, 1)``, ``x.exponential_()`` ...) and
the samplers ``binomial`` and ``poisson``.

An in-place fill overwrites the tensor's values with fresh draws. If the tensor is part of
a graph, PyTorch records the fill like any in-place op, with a node named after the
distribution (``UniformBackward0``, ``ExponentialBackward0``...) whose gradient is zero: the
new values do not depend on the old ones. Here every fill is one op of that kind, run
through the general in-place mechanism (:func:`teachgrad.ops.inplace.apply_inplace`).

The draws are PyTorch's: the same generator and the same arithmetic per distribution
(teachgrad/_aten_random.py), in the order PyTorch visits the elements (memory order).
``poisson`` and ``binomial`` are PyTorch's too (ATen's ``sample_poisson`` and
``sample_binomial``).
"""

from __future__ import annotations

import functools

import numpy as np

from . import _aten_random as kernels
from ._arguments import Signatures
from ._random import Generator, _check_probabilities, _engine
from ._tensor import Tensor
from .ops.inplace import apply_inplace
from .ops.op import Op
from .ops.pointwise import _check_broadcast
from .ops.select_grad import zero_grad_like

__all__ = ["binomial", "poisson"]


class _RandomFill(Op):
    """Overwrite a tensor with random draws: the gradient to the old values is zero."""

    formula = "a random fill: the new values do not depend on the old, ∂/∂a = 0"

    @staticmethod
    def forward(ctx, a, values):
        return np.asarray(values).astype(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        return zero_grad_like(grad)


def _fill_node(name: str, what: str) -> type:
    return type(name, (_RandomFill,), {"__slots__": (), "__module__": __name__,
                                       "__doc__": f"The ``grad_fn`` of ``{what}``."})


UniformBackward0 = _fill_node("UniformBackward0", "uniform_")
NormalBackward0 = _fill_node("NormalBackward0", "normal_")
RandomBackward0 = _fill_node("RandomBackward0", "random_(from, to)")
RandomBackward1 = _fill_node("RandomBackward1", "random_(to)")
RandomBackward2 = _fill_node("RandomBackward2", "random_()")
BernoulliBackward1 = _fill_node("BernoulliBackward1", "bernoulli_(p) with a tensor p")
BernoulliBackward2 = _fill_node("BernoulliBackward2", "bernoulli_(p) with a number p")
ExponentialBackward0 = _fill_node("ExponentialBackward0", "exponential_")
CauchyBackward0 = _fill_node("CauchyBackward0", "cauchy_")
LogNormalBackward0 = _fill_node("LogNormalBackward0", "log_normal_")
GeometricBackward0 = _fill_node("GeometricBackward0", "geometric_")


def _fill(self: Tensor, node: type, values: np.ndarray) -> Tensor:
    """Write ``values`` into ``self`` in place, recorded as ``node`` when autograd follows."""
    return apply_inplace(self, lambda source: node.apply(source, values=values))


def _in_memory_order(array: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """Lay values drawn one after another into ``array``'s shape in the order PyTorch
    fills a tensor: its memory order (the same as row-major for a contiguous tensor, but
    column by column for a transposed one)."""
    if array.flags.c_contiguous or array.ndim < 2:
        return flat.reshape(array.shape)
    order = sorted(range(array.ndim), key=lambda d: -abs(array.strides[d]))
    return flat.reshape([array.shape[d] for d in order]).transpose(np.argsort(order))


def _draw(self: Tensor, sample, *args) -> np.ndarray:
    """``sample(engine, n, *args)`` for every element of ``self``, laid out in its shape."""
    generator = args[-1]
    flat = sample(_engine(generator), self._data.size, *args[:-1])
    return _in_memory_order(self._data, np.asarray(flat))


def _need_float(self: Tensor, distribution: str, cpp: bool = False) -> None:
    if self._data.dtype.kind != "f":
        name = self.dtype._legacy.removesuffix("Tensor")
        if cpp:  # (PyTorch's message spells the type as C++ does here)
            name = {"Long": "long int", "Int": "int", "Short": "short int", "Char": "signed char",
                    "Byte": "unsigned char", "Bool": "bool"}[name]
        raise RuntimeError(
            f"{distribution} distribution is a continuous probability distribution. dtype must "
            f"be a floating point but you specified {name}"
        )


def _need_floating_kernel(self: Tensor, kernel: str) -> None:
    """PyTorch has no uniform or normal kernel for integer tensors (NumPy's samples would
    be silently truncated)."""
    if self._data.dtype.kind != "f":
        name = self.dtype._legacy.removesuffix("Tensor")
        raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


def uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, *,
             generator: Generator | None = None) -> Tensor:
    """Fill with samples from the uniform distribution on ``[from_, to)``."""
    _need_floating_kernel(self, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={from_:g} > to={to:g}")
    values = _draw(self, kernels.uniform, from_, to, self._data.dtype, generator)
    return _fill(self, UniformBackward0, values)


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *,
            generator: Generator | None = None) -> Tensor:
    """Fill with samples from the normal distribution N(mean, std²)."""
    _need_floating_kernel(self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    contiguous = self._data.flags.c_contiguous
    values = _draw(self, kernels.normal, mean, std, self._data.dtype, contiguous, generator)
    return _fill(self, NormalBackward0, values)


def bernoulli_(self: Tensor, p=0.5, *, generator: Generator | None = None) -> Tensor:
    """Fill with 1 (probability ``p``, a number or a tensor that broadcasts) or 0."""
    if isinstance(p, Tensor):
        _check_probabilities(p._data)
        probabilities = np.broadcast_to(p._data, self._data.shape)
        values = _draw(self, lambda engine, n: kernels.bernoulli(engine, probabilities).ravel(),
                       generator)
        return _fill(self, BernoulliBackward1, values)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    values = _draw(self, kernels.bernoulli_scalar, p, generator)
    return _fill(self, BernoulliBackward2, values)


def random_(self: Tensor, from_: int | None = None, to: int | None = None, *,
            generator: Generator | None = None) -> Tensor:
    """Fill with random integers in ``[from_, to)`` (``random_(to)`` means ``[0, to)``;
    ``random_()``: ``[0, 2^mantissa]`` for floats, the type's range for integers)."""
    if from_ is None:
        values = _draw(self, kernels.random_full_range, self._data.dtype, generator)
        return _fill(self, RandomBackward2, values)
    node, low, high = (RandomBackward1, 0, from_) if to is None else (RandomBackward0, from_, to)
    low, high = int(low), int(high)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    return _fill(self, node, _draw(self, kernels.random_from_to, low, high, np.int64, generator))


def exponential_(self: Tensor, lambd: float = 1.0, *,
                 generator: Generator | None = None) -> Tensor:
    """Fill with samples of the exponential distribution with rate ``lambd`` (mean 1/λ)."""
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    _need_float(self, "Exponential")
    return _fill(self, ExponentialBackward0, _draw(self, kernels.exponential, lambd, generator))


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *,
            generator: Generator | None = None) -> Tensor:
    """Fill with samples of the Cauchy distribution: ``median + sigma · tan(π(u − ½))``."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    _need_float(self, "Cauchy", cpp=True)
    draws = _draw(self, kernels.cauchy, median, sigma, generator)
    return _fill(self, CauchyBackward0, draws)


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *,
                generator: Generator | None = None) -> Tensor:
    """Fill with ``exp(N(mean, std²))`` samples (``mean`` and ``std`` are the logarithm's)."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if self._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"log_normal_cpu\" not implemented for '{self.dtype._legacy.removesuffix('Tensor')}'"
        )
    return _fill(self, LogNormalBackward0, _draw(self, kernels.log_normal, mean, std, generator))


def geometric_(self: Tensor, p: float, *, generator: Generator | None = None) -> Tensor:
    """Fill with the number of trials up to the first success, each succeeding with
    probability ``p`` (values 1, 2, 3 ...)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    return _fill(self, GeometricBackward0, _draw(self, kernels.geometric, p, generator))


# PyTorch's signatures of the fills, for its TypeError when an argument has the wrong type
# (``w.uniform_('a')``: "uniform_(): argument 'from' (position 1) must be float, not str")
# rather than Python's words from inside, or a silent fill (``w.uniform_(np.array([0.]))``).
_GEN = "*, torch.Generator generator = None"
_SIGNATURES = {
    "uniform_": (f"(float from = 0, float to = 1, {_GEN})",),
    "normal_": (f"(float mean = 0, float std = 1, {_GEN})",),
    "bernoulli_": (f"(Tensor p, {_GEN})", f"(float p = 0.5, {_GEN})"),
    "random_": (f"({_GEN})", f"(int from, int to, {_GEN})", f"(int to, {_GEN})"),
    "exponential_": (f"(float lambd = 1, {_GEN})",),
    "cauchy_": (f"(float median = 0, float sigma = 1, {_GEN})",),
    "log_normal_": (f"(float mean = 1, float std = 2, {_GEN})",),
    "geometric_": (f"(float p, {_GEN})",),
}


def _number(value):
    """A number PyTorch's parser took (a NumPy scalar, a 0-d tensor) as a Python one."""
    if isinstance(value, Tensor) and value._data.ndim == 0 and value._data.dtype.kind in "iu":
        return int(value._data)
    if isinstance(value, (Tensor, np.number, np.bool_)):
        return value._data.item() if isinstance(value, Tensor) else value.item()
    return value


def _types_checked(method):
    """``method`` refusing wrong argument types as PyTorch's parser does. A call with plain
    ints and floats (every correct call in practice) pays one type test per argument."""
    signatures = Signatures(method.__name__, *_SIGNATURES[method.__name__])
    plain = (int,) if method is random_ else (float, int)  # (random_ takes ints only)

    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        values = args + tuple(v for k, v in kwargs.items() if k != "generator")
        if values and all(type(v) in plain for v in values):
            return method(self, *args, **kwargs)
        named = {"from" if k == "from_" else k: v for k, v in kwargs.items()}
        signatures.check(args, named)  # (teachgrad also takes from_=, Python's spelling)
        if method is not bernoulli_:  # (its p may be a tensor of probabilities)
            args = tuple(map(_number, args))
            kwargs = {k: _number(v) if k != "generator" else v for k, v in kwargs.items()}
        return method(self, *args, **kwargs)

    return checked


for _method in (uniform_, normal_, bernoulli_, random_, exponential_, cauchy_, log_normal_,
                geometric_):
    _method = _types_checked(_method)
    _method.__qualname__ = f"Tensor.{_method.__name__}"
    setattr(Tensor, _method.__name__, _method)
del _method


# ----------------------------------------------------------------------------------------
# binomial, poisson
# ----------------------------------------------------------------------------------------
class PoissonBackward0(Op):
    """``poisson(rates)``: a count does not move when the rate moves a little."""

    formula = "∂poisson(λ)/∂λ = 0 (a draw does not move when λ moves a little)"

    @staticmethod
    def forward(ctx, rates, engine):
        return kernels.poisson(engine, rates).astype(rates.dtype)

    @staticmethod
    def backward(ctx, grad):
        return zero_grad_like(grad)


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """A Poisson-distributed count for each rate in ``input`` (in ``input``'s dtype).

    >>> import teachgrad as torch
    >>> torch.poisson(torch.zeros(3))
    tensor([0., 0., 0.])
    """
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"poisson_cpu\" not implemented for '{input.dtype._legacy.removesuffix('Tensor')}'"
        )
    if (input._data < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return PoissonBackward0.apply(input, engine=_engine(generator))


class BinomialNotImplemented(Op):
    """The ``grad_fn`` of ``binomial``: PyTorch records one without a derivative."""

    formula = "binomial has no derivative in PyTorch (a count is piecewise constant)"

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, count, prob, engine):
        return kernels.binomial(engine, count, prob).astype(count.dtype)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::binomial is not implemented")


BinomialNotImplemented.__name__ = BinomialNotImplemented.__qualname__ = "NotImplemented"


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """The number of successes in ``count`` trials that each succeed with probability
    ``prob`` (elementwise; float tensors).

    >>> import teachgrad as torch
    >>> torch.binomial(torch.tensor([5., 5.]), torch.tensor([0., 1.]))
    tensor([0., 5.])
    """
    for name, t in (("count", count), ("prob", prob)):
        if t._data.dtype.kind != "f":
            raise ValueError(
                f"binomial only supports floating-point dtypes for {name}, got: "
                f"{t.dtype._legacy.removesuffix('Tensor')}"
            )
    if prob._data.dtype != count._data.dtype:  # (PyTorch's kernel takes one dtype)
        raise RuntimeError(
            f"Found dtype {prob.dtype._legacy.removesuffix('Tensor')} but expected "
            f"{count.dtype._legacy.removesuffix('Tensor')}"
            "\nHint: give count and prob the same dtype, e.g. prob.to(count.dtype).")
    _check_broadcast(count, prob)
    return BinomialNotImplemented.apply(count, prob, engine=_engine(generator))


