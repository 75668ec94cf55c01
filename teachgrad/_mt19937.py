"""PyTorch's CPU random engine in NumPy: a Mersenne Twister (mt19937) with PyTorch's
seeding, its 32- and 64-bit draws, the cached normal sample, and its state bytes.

PyTorch's ``CPUGeneratorImpl`` is a standard mt19937 seeded with ``init_genrand(seed)``
(the seed's low 32 bits; the full 64-bit seed is only remembered for ``initial_seed``).
NumPy's ``np.random.MT19937`` is the same algorithm with the same 624-word state, so
teachgrad hands the state to it and lets NumPy's C loop produce the raw 32-bit words:
``random_raw(n)`` returns exactly the next ``n`` numbers PyTorch's ``random()`` returns.

``random64()`` is two draws, the first one the high half (ATen's
``make64BitsFrom32Bits(random1, random2)``).

The state tensor (``torch.get_rng_state()``) is ATen's ``CPUGeneratorImplState`` struct,
5056 bytes, little-endian with C alignment::

    offset  field
         0  uint64  the_initial_seed
         8  int32   left        (draws left before the next twist, plus one)
        12  int32   seeded      (1)
        16  uint64  next        (index of the next state word to temper)
        24  uint64  state[624]  (each 32-bit word stored in 64 bits)
      5016  double  normal_x, normal_y, normal_rho   (normal_y: the cached normal sample)
      5040  int32   normal_is_valid                  (+ 4 padding bytes)
      5048  float   next_float_normal_sample
      5052  bool    is_next_float_normal_sample_valid (+ 3 padding bytes)

so a state saved by PyTorch loads here and the other way round.
"""

from __future__ import annotations

import numpy as np

DEFAULT_SEED = 67280421310721  # PyTorch's default_rng_seed_val
STATE_SIZE = 5056  # sizeof(CPUGeneratorImplState)
_N = 624  # words of state

_NO_CACHE = None


def _seeded_key(seed: int) -> np.ndarray:
    """The 624 state words of ``init_genrand(seed & 0xffffffff)`` (Matsumoto and
    Nishimura's seeding, which both PyTorch and the C++ standard library use)."""
    key = [0] * _N
    word = seed & 0xFFFFFFFF
    key[0] = word
    for j in range(1, _N):
        word = (1812433253 * (word ^ (word >> 30)) + j) & 0xFFFFFFFF
        key[j] = word
    return np.array(key, dtype=np.uint32)


class MT19937Engine:
    """mt19937 with PyTorch's seeding, and the generator's cached normal sample.

    >>> engine = MT19937Engine(0)
    >>> [int(w) for w in engine.random(2)]  # std::mt19937(0)'s first two numbers
    [2357136044, 2546248239]
    """

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self.bits = np.random.MT19937(0)
        self.seed(seed)

    def seed(self, seed: int) -> None:
        """Restart from ``seed`` (a uint64), forgetting any cached normal sample."""
        self.initial_seed = int(seed) & 0xFFFFFFFFFFFFFFFF
        self._fresh_key = _seeded_key(self.initial_seed)
        # pos 624: the first draw twists the whole state first, as PyTorch's left == 1 does.
        self.bits.state = {"bit_generator": "MT19937",
                           "state": {"key": self._fresh_key.copy(), "pos": _N}}
        self.next_double_normal: float | None = _NO_CACHE
        self.next_float_normal: float | None = _NO_CACHE

    # -- draws ------------------------------------------------------------------------
    def random(self, n: int) -> np.ndarray:
        """The next ``n`` 32-bit numbers (``CPUGeneratorImpl::random()``), as uint64."""
        return self.bits.random_raw(n)

    def random64(self, n: int) -> np.ndarray:
        """The next ``n`` 64-bit numbers (``random64()``: two draws, high half first)."""
        words = self.bits.random_raw(2 * n)
        return (words[0::2] << np.uint64(32)) | words[1::2]

    # -- state bytes ------------------------------------------------------------------
    def get_state(self) -> np.ndarray:
        """The state as PyTorch's 5056 bytes (see the module docstring)."""
        state = self.bits.state["state"]
        key, pos = state["key"], int(state["pos"])
        if pos == _N:  # about to twist: PyTorch says left = 1 (next = 0 right after seeding)
            left, nxt = 1, 0 if np.array_equal(key, self._fresh_key) else _N
        else:
            left, nxt = _N + 1 - pos, pos
        raw = np.zeros(STATE_SIZE, dtype=np.uint8)
        header = np.array([self.initial_seed], dtype="<u8").view(np.uint8)
        raw[0:8] = header
        raw[8:16] = np.array([left, 1], dtype="<i4").view(np.uint8)
        raw[16:24] = np.array([nxt], dtype="<u8").view(np.uint8)
        raw[24:5016] = key.astype("<u8").view(np.uint8)
        if self.next_double_normal is not None:
            raw[5024:5032] = np.array([self.next_double_normal], dtype="<f8").view(np.uint8)
            raw[5040:5044] = np.array([1], dtype="<i4").view(np.uint8)
        if self.next_float_normal is not None:
            raw[5048:5052] = np.array([self.next_float_normal], dtype="<f4").view(np.uint8)
            raw[5052] = 1
        return raw

    def set_state(self, raw: np.ndarray) -> None:
        """Load 5056 state bytes (from :meth:`get_state` or from PyTorch)."""
        if raw.ndim != 1 or raw.size != STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input "
                f"RNG state size to be {raw.size}"
                "\nHint: pass a state returned by torch.get_rng_state() (or "
                "Generator.get_state()), unchanged."
            )
        raw = np.ascontiguousarray(raw, dtype=np.uint8)
        seed = int(raw[0:8].view("<u8")[0])
        left, seeded = (int(v) for v in raw[8:16].view("<i4"))
        nxt = int(raw[16:24].view("<u8")[0]) & 0xFFFFFFFF
        if not (seeded and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        key = raw[24:5016].view("<u8").astype(np.uint32)  # (PyTorch copies the low halves)
        self.initial_seed = seed
        self._fresh_key = _seeded_key(seed)
        self.bits.state = {"bit_generator": "MT19937",
                           "state": {"key": key, "pos": _N if left == 1 else nxt}}
        normal_valid = int(raw[5040:5044].view("<i4")[0])
        self.next_double_normal = float(raw[5024:5032].view("<f8")[0]) if normal_valid else None
        self.next_float_normal = float(raw[5048:5052].view("<f4")[0]) if raw[5052] else None
