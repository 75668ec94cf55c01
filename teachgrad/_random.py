"""Random tensors and seeding (``manual_seed``, ``rand``, ``randn``, ``randint`` ...).

teachgrad's generator is PyTorch's CPU generator, rebuilt with NumPy: the same Mersenne
Twister seeded the same way (teachgrad/_mt19937.py) and the same sampling arithmetic
(teachgrad/_aten_random.py). So after ``manual_seed(42)``, ``randn``, ``rand``,
``randint``, ``randperm``, ``normal`` and the in-place fills (``uniform_``, ``normal_``...)
give the numbers PyTorch (CPU) gives, and so do the weights of a freshly made
``nn.Linear``: a lesson can print them as PyTorch would.

Also PyTorch's: ``bernoulli``, ``multinomial``, ``poisson``, ``binomial``, the Gamma
family, dropout and RReLU. Not PyTorch's numbers: the few samplers still drawn with NumPy
from the same Mersenne Twister (``_rng``: e.g. the von Mises distribution and
``torch.testing.make_tensor``); they are reproducible with ``manual_seed`` all the same.

One difference on purpose: PyTorch seeds its default generator from the operating
system at start-up; teachgrad starts it at PyTorch's default seed, 67280421310721, so
that a program that never calls ``manual_seed`` still prints the same numbers each run.
"""

from __future__ import annotations

import math
import os

import numpy as np

from . import _aten_random as kernels
from . import _device, _package_name
from ._arguments import Signatures, is_int
from ._creation import (
    _FACTORY_KEYWORDS,
    _check_device,
    _finish,
    _float_dtype,
    _given,
    _shape,
    check_flag_overloaded,
    int_argument,
    missing_size,
)
from ._dtypes import dtype as DType
from ._dtypes import from_numpy_dtype, to_dtype
from ._layout import check_layout
from ._missing_arguments import REQUIRED, missing
from ._mt19937 import DEFAULT_SEED, MT19937Engine
from ._tensor import _CPP_TYPE_NAMES, Tensor, _make, python_type_name
from ._warn import warn_user
from .ops.layout import check_memory_format, memory_order, zeros_in_format
from .ops.op import Op
from .ops.pointwise import _check_shapes_broadcast
from .ops.select_grad import zero_grad_like

__all__ = [
    "manual_seed", "seed", "initial_seed", "rand", "randn", "randint", "randperm",
    "rand_like", "randn_like", "randint_like", "normal", "bernoulli", "multinomial",
    "Generator", "default_generator", "get_rng_state", "set_rng_state",
]


class Generator:
    """A source of random numbers: PyTorch's CPU generator (a Mersenne Twister, mt19937).

    Seeded alike, it gives PyTorch's numbers:

    >>> import teachgrad as torch
    >>> g = torch.Generator().manual_seed(0)
    >>> torch.rand(2, generator=g)
    tensor([0.4963, 0.7682])
    """

    def __init__(self, device: str = "cpu") -> None:
        _check_device(device)
        self._engine = MT19937Engine(DEFAULT_SEED)
        # The few samplers that are not PyTorch's algorithm draw with NumPy from the same
        # Mersenne Twister, so manual_seed makes them reproducible too.
        self._numpy = np.random.Generator(self._engine.bits)

    def __repr__(self) -> str:
        # PyTorch's Generator is a C++ class, torch._C.Generator: printed as such
        return f"<{_package_name.qualified('_C.Generator')} object at {id(self):#x}>"

    @property
    def device(self) -> _device.device:
        """``device(type='cpu')``: where this generator's numbers are made."""
        return _device.CPU

    def manual_seed(self, seed: int) -> Generator:
        """Restart the sequence from ``seed`` (any integer that fits in 64 bits)."""
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise RuntimeError(f"manual_seed expected a long, but got {python_type_name(seed)}"
                               "\nHint: a seed is an int, e.g. g.manual_seed(0).")
        seed = int(seed)
        if not -(2**63) <= seed < 2**64:
            raise ValueError(
                "Overflow when unpacking long long"
                "\nHint: a seed must fit in 64 bits (between -2**63 and 2**64 - 1)."
            )
        self._engine.seed(seed % 2**64)
        return self

    def seed(self) -> int:
        """Re-seed from fresh entropy and return the seed used."""
        new = int.from_bytes(os.urandom(8), "little") % 2**63
        self.manual_seed(new)
        return new

    def initial_seed(self) -> int:
        """The seed this generator started from."""
        return self._engine.initial_seed

    def get_state(self) -> Tensor:
        """The generator's state as a uint8 tensor of 5056 bytes, laid out as PyTorch's
        (``CPUGeneratorImplState``; see teachgrad/_mt19937.py), so states move between
        teachgrad and PyTorch. Hand it back to :meth:`set_state` to replay the numbers.
        """
        return _make(self._engine.get_state())

    def set_state(self, new_state: Tensor) -> Generator:
        """Go back to a state returned by :meth:`get_state` (or by PyTorch)."""
        if not isinstance(new_state, Tensor) or new_state._data.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        self._engine.set_state(new_state._data)
        return self


default_generator = Generator()


def get_rng_state() -> Tensor:
    """The default generator's state, as a uint8 tensor (see :meth:`Generator.get_state`).

    >>> import teachgrad as torch
    >>> state = torch.get_rng_state()
    >>> a = torch.rand(2)
    >>> _ = torch.set_rng_state(state)
    >>> bool((torch.rand(2) == a).all())
    True
    """
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator to a state from :func:`get_rng_state`."""
    default_generator.set_state(new_state)


def _rng(generator: Generator | None) -> np.random.Generator:
    """A NumPy generator drawing from ``generator``'s stream (for non-PyTorch samplers)."""
    return (generator or default_generator)._numpy


def _engine(generator: Generator | None) -> MT19937Engine:
    try:
        return (default_generator if generator is None else generator)._engine
    except AttributeError:  # (randn(2, generator=5): the caller's signatures say more)
        raise TypeError(f"argument 'generator' must be torch.Generator, not "
                        f"{python_type_name(generator)}") from None


def _random_int64(generator: Generator | None) -> int:
    """``torch.empty((), dtype=torch.int64).random_(generator=generator).item()``: how
    PyTorch's data loading draws seeds (a 64-bit draw modulo 2⁶³)."""
    return int(kernels.random_full_range(_engine(generator), 1, np.dtype(np.int64))[0])


def _uniform_values(generator: Generator | None, shape: tuple, low: float, high: float,
                    dtype: np.dtype) -> np.ndarray:
    """``empty(shape).uniform_(low, high)``'s values, as PyTorch draws them."""
    n = math.prod(shape)
    return kernels.uniform(_engine(generator), n, low, high, dtype).reshape(shape)


def _normal_values(generator: Generator | None, shape: tuple, mean: float, std: float,
                   dtype: np.dtype) -> np.ndarray:
    """``empty(shape).normal_(mean, std)``'s values, as PyTorch draws them."""
    n = math.prod(shape)
    return kernels.normal(_engine(generator), n, mean, std, dtype).reshape(shape)


def manual_seed(seed: int) -> Generator:
    """Seed the default generator: later random tensors are reproducible."""
    return default_generator.manual_seed(int(seed))  # (PyTorch's Python takes int(1.5))


def seed() -> int:
    """Seed the default generator non-deterministically."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator started from."""
    return default_generator.initial_seed()


def _sample_dtype(dtype, kernel: str) -> np.dtype:
    """The NumPy dtype to draw floats in (the default dtype if None); an integer or bool
    dtype is PyTorch's NotImplementedError, named after its sampling kernel."""
    d = _float_dtype(dtype)
    if d.kind != "f":
        name = from_numpy_dtype(d)._legacy.removesuffix("Tensor")
        raise NotImplementedError(
            f'"{kernel}" not implemented for \'{name}\'\nHint: random samples of this kind '
            "are floats: pass a floating-point dtype (e.g. dtype=torch.float32), or use "
            "torch.randint for integers."
        )
    return d


def rand(*size, generator: Generator | None = None, dtype: DType | None = None, device=None,
         layout=None, requires_grad: bool = False) -> Tensor:
    """Uniform samples from [0, 1): ``rand(2, 3)``."""
    if not size:  # (rand(()) is a 0-d tensor; rand() is an error)
        raise missing_size("rand", _given(generator=generator, dtype=dtype, device=device,
                                     layout=layout, requires_grad=requires_grad))
    check_layout("rand", layout)
    check_flag_overloaded("rand", size, requires_grad)
    _check_device(device)
    d = _sample_dtype(dtype, "check_uniform_bounds")
    return _finish(_uniform_values(generator, _shape(size, "rand"), 0.0, 1.0, d), requires_grad)


def randn(*size, generator: Generator | None = None, dtype: DType | None = None, device=None,
          layout=None, requires_grad: bool = False) -> Tensor:
    """Standard normal samples: ``randn(3, requires_grad=True)``."""
    if not size:  # (randn(()) is a 0-d tensor; randn() is an error)
        raise missing_size("randn", _given(generator=generator, dtype=dtype, device=device,
                                     layout=layout, requires_grad=requires_grad))
    check_layout("randn", layout)
    check_flag_overloaded("randn", size, requires_grad)
    _check_device(device)
    d = _sample_dtype(dtype, "normal_kernel_cpu")
    return _finish(_normal_values(generator, _shape(size, "randn"), 0.0, 1.0, d), requires_grad)


def _check_range(low: int, high: int) -> None:
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )


_RANDINT_KEYWORDS = "Tensor out = None, " + _FACTORY_KEYWORDS
_RANDINT = Signatures(
    "randint",
    f"(int high, tuple of ints size, *, torch.Generator generator, {_RANDINT_KEYWORDS})",
    f"(int high, tuple of ints size, *, {_RANDINT_KEYWORDS})",
    f"(int low, int high, tuple of ints size, *, torch.Generator generator, {_RANDINT_KEYWORDS})",
    f"(int low, int high, tuple of ints size, *, {_RANDINT_KEYWORDS})",
    hint="the bounds are ints: randint(0, 10, (3,)) draws from 0 .. 9.")


def randint(low=None, high=None, size=None, *, generator: Generator | None = None,
            dtype: DType | None = None, layout=None, device=None,
            requires_grad: bool = False) -> Tensor:
    """Random integers in ``[low, high)``: ``randint(0, 10, (3,))`` or ``randint(10, (3,))``."""
    check_layout("randint", layout)
    given = tuple(a for a in (low, high, size) if a is not None)  # (as PyTorch lists them)
    check_flag_overloaded("randint", given, requires_grad)
    _check_device(device)
    if not all(is_int(bound) for bound in given[:-1]):  # (randint(True, (2,)), 2.5 ...)
        _RANDINT.check(given)
    for bound in given[:-1]:  # (PyTorch's parser reads them as C++ long longs)
        if not -(2**63) <= int(bound) < 2**63:
            raise ValueError("Overflow when unpacking long long")
    if low is None:  # (randint(high=10, size=(3,)) is PyTorch's first signature)
        if high is None or size is None:  # (randint(), randint(size=(3,)) ...)
            _RANDINT.check((), _given(high=high, size=size, generator=generator, dtype=dtype,
                                      layout=layout, device=device,
                                      requires_grad=requires_grad))
        low = 0
    elif size is None:
        if high is None or not isinstance(high, (tuple, list)):  # (randint(5))
            _RANDINT.check(given, _given(generator=generator, dtype=dtype, layout=layout,
                                         device=device, requires_grad=requires_grad))
            raise TypeError("randint() missing required argument 'size'")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if not isinstance(size, (tuple, list)):  # (randint(0, 5, 2): the size is a tuple)
        _RANDINT.check(given, _given(generator=generator, dtype=dtype, layout=layout,
                                     device=device, requires_grad=requires_grad))
    d = to_dtype(dtype).numpy if dtype is not None else np.dtype(np.int64)
    shape = _shape((size,))
    low, high = int(low), int(high)
    _check_range(low, high)
    _check_bounds(low, high, d)
    data = kernels.random_from_to(_engine(generator), math.prod(shape), low, high, d)
    return _finish(data.reshape(shape), requires_grad)


# The floating dtypes hold every integer up to 2**digits: beyond it PyTorch warns.
_EXACT_DIGITS = {np.dtype(np.float16): (11, "c10::Half"), np.dtype(np.float32): (24, "float"),
                 np.dtype(np.float64): (53, "double")}


def _check_bounds(low: int, high: int, d: np.dtype) -> None:
    """PyTorch's checks of randint's ``[low, high)`` against the dtype drawn in: an integer
    dtype (or bool) must hold ``low`` and ``high - 1``; a floating one warns beyond the
    integers it holds exactly."""
    if d.kind in "iub":
        lowest, highest = (0, 1) if d.kind == "b" else (np.iinfo(d).min, np.iinfo(d).max)
        cpp = _CPP_TYPE_NAMES[d.name]
        for name, value in (("from", low), ("to - 1", high - 1)):
            if not lowest <= value <= highest:
                raise RuntimeError(
                    f"{name} is out of bounds for {cpp}\nHint: the values drawn must fit "
                    f"the dtype ({d.name}: {lowest} .. {highest}).")
    elif d in _EXACT_DIGITS:
        digits, cpp = _EXACT_DIGITS[d]
        for name, value in (("from", low), ("to - 1", high - 1)):
            if not -(2**digits) <= value <= 2**digits:
                warn_user(
                    f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                    f"limitations {cpp} can support discrete uniform distribution only within "
                    "this range. This warning will become an error in version 1.7 release, "
                    "please fix the code in advance", UserWarning)


def randperm(n: int, *, generator: Generator | None = None, dtype: DType | None = None, layout=None,
             device=None, requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0 .. n-1``."""
    check_layout("randperm", layout)
    check_flag_overloaded("randperm", (n,), requires_grad)
    n = int_argument("randperm", "n", 1, n)
    d = to_dtype(dtype).numpy if dtype is not None else np.dtype(np.int64)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    _check_permutation_dtype(n, d)
    return _finish(kernels.randperm(_engine(generator), int(n)).astype(d), requires_grad)


# The largest n whose permutation a floating dtype holds exactly, as PyTorch words it.
_PERMUTATION_LIMITS = {np.dtype(np.float16): (2049, "2049", "Half"),
                       np.dtype(np.float32): (2**24 + 1, "2^24+1", "Float"),
                       np.dtype(np.float64): (2**53 + 1, "2^53+1", "Double")}


def _check_permutation_dtype(n: int, d: np.dtype) -> None:
    """PyTorch's refusals of a dtype that cannot hold ``0 .. n-1`` (or is bool)."""
    if d.kind == "b":
        raise NotImplementedError('"randperm" not implemented for \'Bool\'')
    if d.kind in "iu" and n - 1 > np.iinfo(d).max:
        raise RuntimeError(f"value cannot be converted to type {d.name}_t without overflow")
    if d in _PERMUTATION_LIMITS and n > _PERMUTATION_LIMITS[d][0]:
        _, limit, name = _PERMUTATION_LIMITS[d]
        raise RuntimeError(f"n cannot be greater than {limit} for {name} type.")


def rand_like(input: Tensor, *, dtype: DType | None = None, requires_grad: bool = False,
              layout=None, device=None, memory_format=None) -> Tensor:
    """Uniform samples shaped (and laid out in memory) like ``input``."""
    check_layout("rand_like", layout)
    check_flag_overloaded("rand_like", (input,), requires_grad)
    # (the shape as one tuple: a 0-d input gives rand(()), a 0-d sample)
    samples = rand(tuple(input._data.shape), dtype=dtype or input.dtype,
                   requires_grad=requires_grad)
    return _laid_out_like(input, samples, memory_format, "rand_like")


def randn_like(input: Tensor, *, dtype: DType | None = None, requires_grad: bool = False,
               layout=None, device=None, memory_format=None) -> Tensor:
    """Normal samples shaped (and laid out in memory) like ``input``."""
    check_layout("randn_like", layout)
    check_flag_overloaded("randn_like", (input,), requires_grad)
    d = _sample_dtype(dtype or input.dtype, "normal_kernel_cpu")
    target = zeros_in_format(input._data, d, check_memory_format("randn_like", memory_format))
    if target.flags.c_contiguous:
        return randn(tuple(input._data.shape), dtype=dtype or input.dtype,
                     requires_grad=requires_grad)
    # PyTorch's 16-wide normal fill needs contiguous memory: otherwise one draw at a time
    values = kernels.normal(_engine(None), target.size, 0.0, 1.0, d, contiguous=False)
    return _finish(_placed(target, values), requires_grad)


def _laid_out_like(input: Tensor, samples: Tensor, memory_format, function: str) -> Tensor:
    """``samples`` (drawn in order) placed as PyTorch places them: its ``*_like`` output is
    laid out as ``memory_format`` says (by default as ``input``), and the draws fill that
    memory in order, so ``rand_like(x.t())`` puts them down the columns."""
    fmt = check_memory_format(function, memory_format)
    target = zeros_in_format(input._data, samples._data.dtype, fmt)
    if target.flags.c_contiguous:  # the usual case: row-major, as drawn
        return samples
    return _finish(_placed(target, samples._data), samples.requires_grad)


def _placed(target: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``target`` with ``values`` (in drawing order) written into its memory in order."""
    outermost_first = memory_order(target)[::-1]
    target.transpose(outermost_first)[...] = values.reshape(
        [target.shape[d] for d in outermost_first])
    return target


def randint_like(input: Tensor, low, high=None, *, dtype: DType | None = None, layout=None,
                 requires_grad: bool = False, device=None) -> Tensor:
    """Random integers shaped like ``input``."""
    check_layout("randint_like", layout)
    given = (input, low) if high is None else (input, low, high)  # (as PyTorch lists them)
    check_flag_overloaded("randint_like", given, requires_grad)
    if high is None:
        if isinstance(low, Tensor) and low._data.ndim != 0:  # (PyTorch's Tensor high form)
            raise RuntimeError("high must be a scalar tensor and on CPU")
        low, high = 0, low
    return randint(low, high, tuple(input._data.shape), dtype=dtype or input.dtype,
                   requires_grad=requires_grad)


_GENERATOR_OUT = "*, torch.Generator generator = None, Tensor out = None"
_NORMAL = Signatures(
    "normal",
    f"(Tensor mean, Tensor std, {_GENERATOR_OUT})",
    f"(Tensor mean, float std = 1, {_GENERATOR_OUT})",
    f"(float mean, Tensor std, {_GENERATOR_OUT})",
    f"(float mean, float std, tuple of ints size, {_GENERATOR_OUT}, {_FACTORY_KEYWORDS})",
    hint="with a tensor mean or std the samples take its shape and dtype (no size, dtype or "
         "requires_grad); with numbers, give the size: normal(0.0, 1.0, (2, 3)).")


def normal(mean=None, std=None, size=None, *, generator: Generator | None = None,
           dtype: DType | None = None, requires_grad: bool | None = None) -> Tensor:
    """Normal samples: ``normal(0.0, 1.0, (2, 3))``, or shaped like a tensor mean / std
    (``normal(means, 1.0)``)."""
    given = tuple(a for a in (mean, std, size) if a is not None)  # (as PyTorch lists them)
    keywords = {name: value for name, value in (("dtype", dtype),
                                                ("requires_grad", requires_grad))
                if value is not None}
    _NORMAL.check(given, keywords)  # (which of PyTorch's four forms this call is)
    if std is None:
        std = 1.0
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    _check_std(s)  # (PyTorch's first check, before the dtypes and the shapes)
    if isinstance(mean, Tensor):
        d = _sample_dtype(mean.dtype, "normal_kernel_cpu")
    elif isinstance(std, Tensor):
        d = _sample_dtype(std.dtype, "normal_kernel_cpu")
    else:
        d = _sample_dtype(dtype, "normal_kernel_cpu")
    if size is None:  # (PyTorch's message where the shapes do not broadcast, not NumPy's)
        _check_shapes_broadcast(np.shape(m), np.shape(s))
    shape = _shape((size,)) if size is not None else np.broadcast_shapes(np.shape(m), np.shape(s))
    values = _normal_overload(generator, mean, std, m, s, shape, d)
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        return NormalBackward3.apply(mean, std, values=values)
    if isinstance(mean, Tensor):
        return NormalBackward1.apply(mean, values=values)
    if isinstance(std, Tensor):
        return NormalBackward2.apply(std, values=values)
    return _finish(values, bool(requires_grad))


class NormalBackward1(Op):
    """``normal(mean_tensor, std)``: a draw, not a function of ``mean`` that autograd can
    follow. PyTorch records it with a zero gradient (``sample()`` against ``rsample()``,
    lesson 14: the reparameterised ``mean + std * eps`` is the one that differentiates)."""

    formula = "∂normal(μ, σ)/∂μ = 0 (recorded as a draw: write μ + σ·ε to differentiate)"

    @staticmethod
    def forward(ctx, *tensors, values):
        ctx.shapes = [t.shape for t in tensors]
        return values

    @staticmethod
    def backward(ctx, grad):
        zeros = tuple(np.zeros(shape, grad.dtype) for shape in ctx.shapes)
        return zeros if len(zeros) > 1 else zeros[0]


class NormalBackward2(NormalBackward1):
    """``normal(mean, std_tensor)``: zero gradient for ``std`` (see NormalBackward1)."""

    formula = "∂normal(μ, σ)/∂σ = 0 (recorded as a draw: write μ + σ·ε to differentiate)"


class NormalBackward3(NormalBackward1):
    """``normal(mean_tensor, std_tensor)``: zero gradients for both (see NormalBackward1)."""

    formula = "∂normal(μ, σ)/∂μ = 0    ∂normal(μ, σ)/∂σ = 0    (a draw)"


def _check_std(std) -> None:
    if isinstance(std, np.ndarray):
        if not (std >= 0).all():
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def _normal_overload(generator, mean, std, m, s, shape, d) -> np.ndarray:
    """ATen's steps for each ``normal`` overload: with tensors, standard draws are scaled
    and shifted afterwards (``output.normal_(0, std).add_(mean)`` for a number std,
    ``output.normal_(0, 1).mul_(std).add_(mean)`` for a tensor std), one rounding each."""
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        return _normal_values(generator, shape, float(mean), float(std), d)
    if isinstance(std, Tensor):
        data = _normal_values(generator, shape, 0.0, 1.0, d) * s.astype(d, copy=False)
    else:
        data = _normal_values(generator, shape, 0.0, float(std), d)
    return (data + np.asarray(m, dtype=d)).astype(d, copy=False)


class BernoulliBackward0(Op):
    """``bernoulli(probabilities)``: a draw is 0 or 1, so no small change in a probability
    changes it. PyTorch records the op with a zero gradient."""

    formula = "∂bernoulli(p)/∂p = 0 (a draw does not move when p moves a little)"

    @staticmethod
    def forward(ctx, probabilities, engine):
        return kernels.bernoulli(engine, probabilities).astype(probabilities.dtype)

    @staticmethod
    def backward(ctx, grad):
        return zero_grad_like(grad)


def _check_probabilities(p: np.ndarray) -> None:
    if not ((p >= 0) & (p <= 1)).all():  # (NaN fails both)
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false."
            "\nHint: bernoulli draws 1 with probability p: every p must be in [0, 1]."
        )


def bernoulli(input: Tensor, p: float | None = None, *,
              generator: Generator | None = None) -> Tensor:
    """1 with probability ``input`` (elementwise), else 0, in ``input``'s float dtype.

    With ``p`` (a number), every element is 1 with probability ``p`` instead.

    >>> import teachgrad as torch
    >>> torch.bernoulli(torch.tensor([0., 1.]))
    tensor([0., 1.])
    """
    data = input._data
    if p is not None and not 0 <= p <= 1:  # (checked first, as PyTorch; nan fails too)
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}"
                           "\nHint: p is a probability, e.g. torch.bernoulli(x, 0.5).")
    if p is not None:  # (draws of any dtype: 0/1, False/True for a bool input)
        from .ops.not_implemented import NotImplementedNode

        def draw(a: np.ndarray) -> np.ndarray:
            return kernels.bernoulli_scalar(_engine(generator), a.size, p).reshape(
                a.shape).astype(a.dtype)

        # PyTorch records a node without a derivative when input requires grad: a backward
        # through the draws fails, naming bernoulli (with a tensor of probabilities, it
        # has one: zero, BernoulliBackward0)
        return NotImplementedNode.apply(input, compute=draw, aten_name="bernoulli")
    if data.dtype.kind != "f":  # (probabilities must be floats)
        raise NotImplementedError(
            f"\"bernoulli_tensor_cpu_p_\" not implemented for "
            f"'{input.dtype._legacy.removesuffix('Tensor')}'"
        )
    _check_probabilities(data)
    return BernoulliBackward0.apply(input, engine=_engine(generator))


def multinomial(input: Tensor, num_samples: int = REQUIRED, replacement: bool = False, *,
                generator: Generator | None = None) -> Tensor:
    """Draw ``num_samples`` category indices from each row of weights ``input`` (int64).

    The weights need not sum to 1 (they are normalised). Without ``replacement`` a
    category is drawn at most once per row: the first draw by its weight, the next among
    the rest, and so on (categories of weight 0 come last, as in PyTorch).

    >>> import teachgrad as torch
    >>> torch.multinomial(torch.tensor([0., 0., 5.]), 2, replacement=True)
    tensor([2, 2])
    """
    if num_samples is REQUIRED:  # (x.multinomial(): PyTorch's words, see _missing_arguments)
        raise missing("multinomial", multinomial, input, num_samples)
    num_samples = int_argument("multinomial", "num_samples", 2, num_samples)
    data = input._data
    if data.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if data.dtype.kind != "f":
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{input.dtype._legacy.removesuffix('Tensor')}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = data.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    weights = np.atleast_2d(data)
    if not (np.isfinite(weights) & (weights >= 0)).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (weights.sum(axis=1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    engine, rows = _engine(generator), weights
    if replacement and num_samples > 1:
        draws = _multinomial_with_replacement(engine, rows, num_samples)
    else:
        # A race: category i finishes at time Exp(1) / wᵢ; the first num_samples to finish
        # are a draw without replacement with the weights (the exponential-race method;
        # PyTorch draws the exponentials in the weights' dtype and divides in it).
        waits = kernels.exponential(engine, rows.size, 1.0).astype(rows.dtype).reshape(rows.shape)
        with np.errstate(divide="ignore"):
            keys = rows / waits
        draws = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    out = draws.astype(np.int64)
    return _make(out if data.ndim == 2 else out[0])


def _multinomial_with_replacement(engine: MT19937Engine, rows: np.ndarray,
                                  num_samples: int) -> np.ndarray:
    """PyTorch's CPU kernel: per row, the running sum of the weights (in their dtype)
    divided by the total, then for each sample a 53-bit uniform ``u`` and the first
    category whose cumulative share is ``≥ u`` (a binary search)."""
    cumulative = np.cumsum(rows, axis=1, dtype=rows.dtype)
    cumulative /= cumulative[:, -1:]
    cumulative[:, -1] = 1
    uniforms = kernels.unit_float64(engine, rows.shape[0] * num_samples)
    uniforms = uniforms.reshape(rows.shape[0], num_samples)
    return np.stack([np.searchsorted(c.astype(np.float64), u, side="left")
                     for c, u in zip(cumulative, uniforms)])


Tensor.bernoulli = bernoulli
Tensor.multinomial = multinomial

# The in-place sampling methods (``w.uniform_(-1, 1)``, ``w.exponential_()``...) are in
# teachgrad/_sampling.py.
