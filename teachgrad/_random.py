"""Random tensors and seeding (``manual_seed``, ``rand``, ``randn``, ``randint`` ...).

teachgrad draws from one NumPy generator. ``manual_seed(42)`` makes every later draw
reproducible, which is what lessons need; the numbers differ from PyTorch's (its
generator is a different algorithm), so lessons never print raw random values as facts.
"""

from __future__ import annotations

import numpy as np

from ._creation import _check_device, _finish, _float_dtype, _shape
from ._dtypes import dtype as DType
from ._dtypes import to_dtype
from ._tensor import Tensor

__all__ = [
    "manual_seed", "seed", "initial_seed", "rand", "randn", "randint", "randperm",
    "rand_like", "randn_like", "randint_like", "normal", "bernoulli", "multinomial",
    "Generator", "default_generator",
]


class Generator:
    """A source of random numbers (wraps ``numpy.random.Generator``).

    >>> import teachgrad as torch
    >>> g = torch.Generator().manual_seed(0)
    >>> torch.rand(2, generator=g).shape
    teachgrad.Size([2])
    """

    def __init__(self, device: str = "cpu") -> None:
        self._seed = 67280421310721  # PyTorch's default initial seed
        self._numpy = np.random.default_rng(self._seed)

    def manual_seed(self, seed: int) -> Generator:
        """Restart the sequence from ``seed``."""
        self._seed = int(seed)
        self._numpy = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Re-seed from fresh entropy and return the seed used."""
        new = int(np.random.SeedSequence().entropy % (2**63))
        self.manual_seed(new)
        return new

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> dict:
        return self._numpy.bit_generator.state

    def set_state(self, state: dict) -> None:
        self._numpy.bit_generator.state = state


default_generator = Generator()


def _rng(generator: Generator | None) -> np.random.Generator:
    return (generator or default_generator)._numpy


def manual_seed(seed: int) -> Generator:
    """Seed the default generator: later random tensors are reproducible."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator non-deterministically."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator started from."""
    return default_generator.initial_seed()


def rand(*size, generator: Generator | None = None, dtype: DType | None = None, device=None,
         requires_grad: bool = False) -> Tensor:
    """Uniform samples from [0, 1): ``rand(2, 3)``."""
    _check_device(device)
    d = _float_dtype(dtype)
    return _finish(_rng(generator).random(_shape(size)).astype(d), requires_grad)


def randn(*size, generator: Generator | None = None, dtype: DType | None = None, device=None,
          requires_grad: bool = False) -> Tensor:
    """Standard normal samples: ``randn(3, requires_grad=True)``."""
    _check_device(device)
    d = _float_dtype(dtype)
    return _finish(_rng(generator).standard_normal(_shape(size)).astype(d), requires_grad)


def randint(low, high=None, size=None, *, generator: Generator | None = None,
            dtype: DType | None = None, device=None, requires_grad: bool = False) -> Tensor:
    """Random integers in ``[low, high)``: ``randint(0, 10, (3,))`` or ``randint(10, (3,))``."""
    _check_device(device)
    if size is None:
        if high is None or not isinstance(high, (tuple, list)):
            raise TypeError("randint() missing required argument 'size'")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    d = to_dtype(dtype).numpy if dtype is not None else np.dtype(np.int64)
    data = _rng(generator).integers(low, high, size=_shape((size,))).astype(d)
    return _finish(data, requires_grad)


def randperm(n: int, *, generator: Generator | None = None, dtype: DType | None = None,
             device=None, requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0 .. n-1``."""
    d = to_dtype(dtype).numpy if dtype is not None else np.dtype(np.int64)
    return _finish(_rng(generator).permutation(n).astype(d), requires_grad)


def rand_like(input: Tensor, *, dtype: DType | None = None, requires_grad: bool = False,
              device=None, memory_format=None) -> Tensor:
    """Uniform samples shaped like ``input``."""
    return rand(*input._data.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randn_like(input: Tensor, *, dtype: DType | None = None, requires_grad: bool = False,
               device=None, memory_format=None) -> Tensor:
    """Normal samples shaped like ``input``."""
    return randn(*input._data.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randint_like(input: Tensor, low, high=None, *, dtype: DType | None = None,
                 requires_grad: bool = False, device=None) -> Tensor:
    """Random integers shaped like ``input``."""
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(input._data.shape), dtype=dtype or input.dtype,
                   requires_grad=requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator: Generator | None = None,
           dtype: DType | None = None, requires_grad: bool = False) -> Tensor:
    """Normal samples with the given mean and std (numbers or tensors)."""
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    shape = _shape((size,)) if size is not None else np.broadcast_shapes(np.shape(m), np.shape(s))
    if isinstance(mean, Tensor):
        d = mean._data.dtype
    elif isinstance(std, Tensor):
        d = std._data.dtype
    else:
        d = _float_dtype(dtype)
    data = _rng(generator).normal(m, s, size=shape).astype(d)
    return _finish(data, requires_grad)


def bernoulli(input: Tensor, p: float | None = None, *,
              generator: Generator | None = None) -> Tensor:
    """1 with probability ``input`` (or ``p``), else 0; same dtype as ``input``."""
    probs = input._data if p is None else np.full(input._data.shape, p)
    draws = _rng(generator).random(input._data.shape) < probs
    return _finish(draws.astype(input._data.dtype), False)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> Tensor:
    """Sample indices with probabilities proportional to the rows of ``input``."""
    rng = _rng(generator)
    probs = np.atleast_2d(input._data.astype(np.float64))
    rows = [
        rng.choice(probs.shape[1], size=num_samples, replace=replacement, p=row / row.sum())
        for row in probs
    ]
    out = np.array(rows, dtype=np.int64)
    return _finish(out if input._data.ndim == 2 else out[0], False)


# ----------------------------------------------------------------------------------------
# In-place sampling methods: ``w.uniform_(-1, 1)``, ``w.normal_(0, 0.1)`` (as in PyTorch,
# they overwrite the tensor's values; nn.init uses them under no_grad).
# ----------------------------------------------------------------------------------------
def _fill_with(self: Tensor, values: np.ndarray) -> Tensor:
    from .ops.inplace import write_into

    self._check_inplace()
    write_into(self, _finish(values.astype(self._data.dtype), False))
    return self


def _uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, *,
              generator: Generator | None = None) -> Tensor:
    """Fill with samples from the uniform distribution on ``[from_, to)``."""
    return _fill_with(self, _rng(generator).uniform(from_, to, self._data.shape))


def _normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *,
             generator: Generator | None = None) -> Tensor:
    """Fill with samples from the normal distribution N(mean, std²)."""
    return _fill_with(self, _rng(generator).normal(mean, std, self._data.shape))


def _bernoulli_(self: Tensor, p: float = 0.5, *, generator: Generator | None = None) -> Tensor:
    """Fill with 1 (probability ``p``) or 0."""
    return _fill_with(self, _rng(generator).random(self._data.shape) < p)


def _random_(self: Tensor, from_: int = 0, to: int | None = None, *,
             generator: Generator | None = None) -> Tensor:
    """Fill with random integers in ``[from_, to)`` (``random_(to)`` means ``[0, to)``)."""
    if to is None:
        from_, to = 0, from_
    return _fill_with(self, _rng(generator).integers(from_, to, self._data.shape))


Tensor.uniform_ = _uniform_
Tensor.normal_ = _normal_
Tensor.bernoulli_ = _bernoulli_
Tensor.random_ = _random_
