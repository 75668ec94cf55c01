"""PyTorch's CPU sampling kernels, written with NumPy arrays: the same raw draws, in the
same order, through the same arithmetic, so that ``manual_seed(0); randn(3)`` gives
PyTorch's numbers.

Where ATen loops over elements one by one, the loop becomes array operations on a
block of raw 32-bit draws taken at once (``engine.random(n)``), which is what makes it
fast enough in Python. The sources followed (PyTorch's ``aten/src/ATen``):

* ``core/TransformationHelper.h``: raw bits to a number (uniform, exponential, ...).
* ``core/DistributionsHelper.h``: which draws a distribution takes (32 or 64 bits) and
  the one-at-a-time Box–Muller ``normal_distribution<double>`` with its cached sample.
* ``native/cpu/DistributionTemplates.h``: the kernels, e.g. ``normal_fill`` (16 normals
  from 16 uniforms at once, used for contiguous tensors of 16 or more elements).
* ``native/TensorFactories.cpp``: ``randperm``.

Two things about the machine matter, because PyTorch's compiled code differs:

* fused multiply-add: built for AVX2/AVX-512 (and ARM), the compiler fuses ``x * a + b``
  into one rounding. Matters for ``uniform_(a, b)`` and ``normal_(mean, std)``.
* float32 ``normal_fill`` on x86 with AVX2 (also on AVX-512 machines, which PyTorch
  sends to its AVX2 kernel) computes log, sin and cos with the polynomial
  approximations of ``avx_mathfun.h``; elsewhere with the C library's ``logf``, ``sinf``,
  ``cosf``. Both are reproduced here (the first exactly, the second to the last bit in
  almost all cases).

teachgrad detects the machine as PyTorch would, and honours PyTorch's own override, the
environment variable ``ATEN_CPU_CAPABILITY`` (``default``, ``avx2``, ``avx512``).
"""

from __future__ import annotations

import math
import os

import numpy as np

from ._mt19937 import MT19937Engine

_F32 = np.float32
_F64 = np.float64


# ----------------------------------------------------------------------------------------
# What PyTorch's compiled kernels look like on this machine
# ----------------------------------------------------------------------------------------
def _cpu_capability() -> str:
    """``default``, ``avx2`` or ``avx512`` on x86 (as ``torch.backends.cpu``), else ``arm``."""
    machine = os.uname().machine if hasattr(os, "uname") else os.environ.get(
        "PROCESSOR_ARCHITECTURE", "AMD64")  # (Windows has no uname)
    if machine.lower() not in ("x86_64", "amd64", "i386", "i686", "x86"):
        return "arm"
    chosen = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if chosen in ("default", "avx2", "avx512"):
        return chosen
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # pragma: no cover (NumPy 1.x)
        from numpy.core._multiarray_umath import __cpu_features__ as features
    if features.get("AVX512_SKX"):
        return "avx512"
    if features.get("AVX2") and features.get("FMA3"):
        return "avx2"
    return "default"


CAPABILITY = _cpu_capability()
FUSED_MULTIPLY_ADD = CAPABILITY != "default"
AVX2_NORMAL_FILL = CAPABILITY in ("avx2", "avx512")


# ----------------------------------------------------------------------------------------
# Arithmetic helpers: one rounding for a*b + c, the C library's functions
# ----------------------------------------------------------------------------------------
def _fma32(a, b, c) -> np.ndarray:
    """float32 ``a*b + c`` rounded once (the product is exact in float64)."""
    return (np.asarray(a, _F64) * np.asarray(b, _F64) + np.asarray(c, _F64)).astype(_F32)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    big = a * 134217729.0  # 2**27 + 1 (Veltkamp's split into two 26-bit halves)
    high = big - (big - a)
    return high, a - high


def _fma64(a, b, c) -> np.ndarray:
    """float64 ``a*b + c`` rounded once (error-free product and sum; Dekker, Knuth)."""
    a, b, c = (np.asarray(v, _F64) for v in (a, b, c))
    product = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    product_error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    total = product + c
    virtual = total - product
    sum_error = (product - (total - virtual)) + (c - virtual)
    with np.errstate(invalid="ignore"):
        fused = total + (sum_error + product_error)
    return np.where(np.isfinite(fused), fused, product + c)


def _mul_add(x: np.ndarray, a, b) -> np.ndarray:
    """``x * a + b`` in ``x``'s precision, fused as PyTorch's compiled code fuses it."""
    if a == 1 and b == 0:
        return x
    if not FUSED_MULTIPLY_ADD:
        return x * x.dtype.type(a) + x.dtype.type(b)
    if x.dtype == _F32:
        return _fma32(x, _F32(a), _F32(b))
    return _fma64(x, a, b)


def _exact_fma(a: float, b: float, c: float) -> float:
    """One-rounding ``a*b + c`` for single numbers (exactly, with fractions)."""
    from fractions import Fraction  # (imported when needed: it costs ~10 ms)

    if not all(math.isfinite(v) for v in (a, b, c)):
        return a * b + c
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _libm(function, values: np.ndarray) -> np.ndarray:
    """Apply a ``math`` function (the C library's, as PyTorch's scalar code calls it)
    element by element: NumPy's own log and log1p differ from it in the last bit."""
    flat = np.ravel(values).tolist()
    return np.fromiter(map(function, flat), _F64, len(flat)).reshape(np.shape(values))


def _safe_log(x: float) -> float:
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


# ----------------------------------------------------------------------------------------
# Uniform numbers (uniform_real_distribution)
# ----------------------------------------------------------------------------------------
def unit_float32(engine: MT19937Engine, n: int) -> np.ndarray:
    """``n`` float32 in [0, 1): the low 24 bits of a 32-bit draw, times 2⁻²⁴."""
    low_bits = engine.random(n).astype(np.uint32) & np.uint32(0xFFFFFF)
    return low_bits.view(np.int32).astype(_F32) * _F32(2.0**-24)  # (int32 converts fastest)


def unit_float64(engine: MT19937Engine, n: int) -> np.ndarray:
    """``n`` float64 in [0, 1): the low 53 bits of a 64-bit draw, times 2⁻⁵³."""
    low_bits = engine.random64(n) & np.uint64(2**53 - 1)
    return low_bits.view(np.int64).astype(_F64) * 2.0**-53  # (int64 converts fastest)


def uniform(engine: MT19937Engine, n: int, low: float, high: float,
            dtype: np.dtype) -> np.ndarray:
    """``uniform_(low, high)`` on ``n`` elements of ``dtype`` (``uniform_kernel``).

    float64 draws 64 bits per number, every other float type 32 (computing in float32).
    A value that rounds up to ``high`` in ``dtype`` becomes ``low``, as in PyTorch.
    """
    dtype = np.dtype(dtype)
    if dtype == _F64:
        values = _mul_add(unit_float64(engine, n), high - low, low)
    else:
        span = _F32(high) - _F32(low)  # (the kernel's `to - from`, in float32)
        values = _mul_add(unit_float32(engine, n), span, _F32(low)).astype(dtype)
    values[values == dtype.type(high)] = dtype.type(low)
    return values


# ----------------------------------------------------------------------------------------
# Normal numbers
# ----------------------------------------------------------------------------------------
def _box_muller_pairs(engine: MT19937Engine, pairs: int) -> list[float]:
    """``normal_distribution<double>``'s fresh samples: for each pair of uniforms
    (u1, u2), ``r·cos θ`` then ``r·sin θ`` with ``r = √(−2 log(1 − u2))``, ``θ = 2π u1``."""
    u = unit_float64(engine, 2 * pairs).tolist()
    out = []
    for u1, u2 in zip(u[0::2], u[1::2]):
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        out += [radius * math.cos(theta), radius * math.sin(theta)]
    return out


def normal_one_at_a_time(engine: MT19937Engine, n: int, mean: float = 0.0,
                         std: float = 1.0) -> np.ndarray:
    """``n`` draws of ``normal_distribution<double>(mean, std)`` in float64.

    Box–Muller makes two samples from two uniforms; the generator keeps the second (the
    sine one) and hands it out next time, even to a later call. ``manual_seed`` drops it.
    """
    samples = []
    if n and engine.next_double_normal is not None:
        samples.append(engine.next_double_normal)
        engine.next_double_normal = None
    fresh = _box_muller_pairs(engine, (n - len(samples) + 1) // 2)
    samples += fresh
    if len(samples) > n:  # an odd number still needed: keep the last sine for later
        engine.next_double_normal = samples.pop()
    if std == 1 and mean == 0:
        return np.array(samples, dtype=_F64)
    if FUSED_MULTIPLY_ADD:
        return np.array([_exact_fma(s, std, mean) for s in samples], dtype=_F64)
    return np.array(samples, dtype=_F64) * std + mean


def _horner32(x: np.ndarray, coefficients: tuple) -> np.ndarray:
    """The float32 polynomial ``((c0·x + c1)·x + c2)·x + ...``, each step one fused
    multiply-add (as GCC compiles the intrinsics' mul-then-add for AVX2)."""
    x64 = x.astype(_F64)
    y = np.full(x.shape, _F32(coefficients[0]))
    for coefficient in coefficients[1:]:
        y = (y.astype(_F64) * x64 + _F64(_F32(coefficient))).astype(_F32)
    return y


def _all_ones_where(mask: np.ndarray) -> np.ndarray:
    """The SIMD way to keep or drop lanes: 32 one-bits where ``mask`` is true, else 0
    (bitwise selection is exact and, unlike np.where on a random mask, fast)."""
    return np.negative(mask.astype(np.int32)).view(np.uint32)


def _select(mask: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a`` where ``mask`` is true, else ``b`` (float32, bit by bit)."""
    keep = _all_ones_where(mask)
    return ((a.view(np.uint32) & keep) | (b.view(np.uint32) & ~keep)).view(_F32)


def _flip_sign(mask: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``-x`` where ``mask`` is true, else ``x`` (the sign bit xor-ed, as the SIMD code does)."""
    return (x.view(np.uint32) ^ (mask.astype(np.uint32) << np.uint32(31))).view(_F32)


def _log256_ps(x: np.ndarray) -> np.ndarray:
    """avx_mathfun's ``log256_ps`` (Cephes' logf) on float32 in (0, 1], step by step,
    with the multiply-adds GCC fuses when it compiles the intrinsics for AVX2."""
    bits = x.view(np.uint32)
    exponent = (bits >> np.uint32(23)).astype(np.int32) - 0x7F
    x = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(_F32)  # mantissa in [0.5, 1)
    e = exponent.astype(_F32) + _F32(1)
    small = x < _F32(0.707106781186547524)
    kept = (x.view(np.uint32) & _all_ones_where(small)).view(_F32)
    x = (x - _F32(1)) + kept  # (x < √½: use 2x − 1 and e − 1)
    e = e - small.astype(_F32)
    z = x * x
    y = _horner32(x, (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
                      1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
                      3.3333331174e-1))
    y = y * x
    y = _fma32(y, z, e * _F32(-2.12194440e-4))
    y = y - z * _F32(0.5)
    return _fma32(e, _F32(0.693359375), x + y)


def _sincos256_ps(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """avx_mathfun's ``sincos256_ps`` (Cephes' sinf and cosf) on float32 angles ≥ 0."""
    octant = ((x * _F32(1.27323954473516)).astype(np.int32) + 1) & ~1  # (j + 1) & ~1
    y = octant.astype(_F32)
    for step in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8):
        x = _fma32(y, _F32(step), x)  # x − y·π/4 in three exact-ish pieces
    flip_sin = (octant & 4) != 0
    flip_cos = (~(octant - 2) & 4) != 0
    sine_polynomial = (octant & 2) == 0
    z = x * x
    cos_part = _horner32(z, (2.443315711809948e-005, -1.388731625493765e-003,
                             4.166664568298827e-002))
    cos_part = _fma32(cos_part * z, z, -(z * _F32(0.5))) + _F32(1)
    sin_part = _horner32(z, (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1))
    sin_part = _fma32(sin_part * z, x, x)
    sine = _select(sine_polynomial, sin_part, cos_part)
    cosine = _select(sine_polynomial, cos_part, sin_part)
    return _flip_sign(flip_sin, sine), _flip_sign(flip_cos, cosine)


def _normal_fill_16_avx2(blocks: np.ndarray, mean: float, std: float) -> np.ndarray:
    """``NormalFill16<float>`` for AVX2: rows of 16 uniforms become 16 normals."""
    u1 = _F32(1) - blocks[:, :8]
    u2 = np.ascontiguousarray(blocks[:, 8:])
    radius = np.sqrt(_F32(-2) * _log256_ps(u1))
    sine, cosine = _sincos256_ps(_F32(2.0 * math.pi) * u2)
    normals = np.concatenate([radius * cosine, radius * sine], axis=1)
    if std == 1 and mean == 0:
        return normals
    return _fma32(normals, _F32(std), _F32(mean))


def _normal_fill_16_scalar(blocks: np.ndarray, mean: float, std: float) -> np.ndarray:
    """``NormalFill16``'s plain C++ loop, in the blocks' precision (float32 or float64)."""
    kind = blocks.dtype.type
    u1 = kind(1) - blocks[:, :8]
    u2 = blocks[:, 8:]
    if kind is _F32:  # logf, cosf, sinf: the float64 value rounded (almost always the same)
        radius = np.sqrt(_F32(-2) * np.log(u1.astype(_F64)).astype(_F32))
        theta = (2.0 * math.pi * u2.astype(_F64)).astype(_F32).astype(_F64)
        cosine, sine = np.cos(theta).astype(_F32), np.sin(theta).astype(_F32)
    else:
        radius = np.sqrt(-2.0 * _libm(math.log, u1))
        theta = 2.0 * math.pi * u2
        cosine, sine = np.cos(theta), np.sin(theta)
    normals = np.concatenate([radius * cosine, radius * sine], axis=1)
    if std == 1 and mean == 0:
        return normals
    if kind is _F32:
        return _fma32(normals, _F32(std), _F32(mean))
    return _fma64(normals, std, mean)


_ROWS_AT_ONCE = 4096


def normal_fill(engine: MT19937Engine, n: int, mean: float, std: float,
                dtype: np.dtype) -> np.ndarray:
    """``normal_fill``: ``n ≥ 16`` uniforms, turned into normals 16 at a time; when ``n``
    is not a multiple of 16, 16 fresh uniforms remake the last 16 values.

    float32 and float64 draw all ``n`` uniforms first (the ones past the last whole block
    are thrown away); float16 draws only the whole blocks' (it works block by block)."""
    dtype = np.dtype(dtype)
    double = dtype == _F64
    draw = unit_float64 if double else unit_float32
    fill = _normal_fill_16_scalar if double or not AVX2_NORMAL_FILL else _normal_fill_16_avx2
    whole = n // 16 * 16
    blocks = draw(engine, n if dtype in (_F32, _F64) else whole)[:whole].reshape(-1, 16)
    out = np.empty(n, dtype=_F64 if double else _F32)
    rows = out[:blocks.size].reshape(-1, 16)
    for start in range(0, len(blocks), _ROWS_AT_ONCE):  # (small pieces stay in the cache)
        chunk = slice(start, start + _ROWS_AT_ONCE)
        rows[chunk] = fill(blocks[chunk], mean, std)
    if n % 16:
        out[n - 16:] = fill(draw(engine, 16).reshape(1, 16), mean, std).reshape(-1)
    return out.astype(dtype, copy=False)


def normal(engine: MT19937Engine, n: int, mean: float, std: float, dtype: np.dtype,
           contiguous: bool = True) -> np.ndarray:
    """``normal_(mean, std)`` on ``n`` elements (``normal_kernel``): the 16-wide fill for
    a contiguous tensor of at least 16 elements, else one Box–Muller draw at a time."""
    if n >= 16 and contiguous:
        return normal_fill(engine, n, mean, std, dtype)
    return normal_one_at_a_time(engine, n, mean, std).astype(dtype)


# ----------------------------------------------------------------------------------------
# Integers
# ----------------------------------------------------------------------------------------
def random_from_to(engine: MT19937Engine, n: int, low: int, high: int,
                   dtype: np.dtype) -> np.ndarray:
    """``random_(low, high)`` / ``randint``: ``draw % (high − low) + low``, the draw 64 bits
    wide when the range is 2²⁸ or more, else 32 bits (``uniform_int_from_to_distribution``)."""
    span = high - low
    if span < 2**28:  # (32-bit arithmetic is faster, and exact here)
        offsets = engine.random(n).astype(np.uint32) % np.uint32(span)
        return (offsets.astype(np.int64) + low).astype(dtype, copy=False)
    shifted = engine.random64(n) % np.uint64(span) + np.uint64(low % 2**64)  # (wraps as in C++)
    return shifted.view(np.int64).astype(dtype, copy=False)


def random_full_range(engine: MT19937Engine, n: int, dtype: np.dtype) -> np.ndarray:
    """``random_()``: ``[0, 2^mantissa]`` for floats, ``[0, max]`` for integers, 0/1 for
    bool (``uniform_int_distribution``; 64-bit draws for int64 and float64 only)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return (engine.random(n) & np.uint64(1)).astype(bool)
    if dtype.kind == "f":
        modulus = 2 ** (np.finfo(dtype).nmant + 1) + 1
    else:
        modulus = int(np.iinfo(dtype).max) + 1
    draws = engine.random64(n) if dtype.itemsize == 8 else engine.random(n)
    return (draws % np.uint64(modulus)).astype(dtype)


def randperm(engine: MT19937Engine, n: int) -> np.ndarray:
    """``randperm(n)``: swap element ``i`` with element ``i + random() % (n − i)``, for
    ``i = 0 .. n−2`` (a Fisher–Yates shuffle of ``0 .. n−1``; one 32-bit draw per step)."""
    if n < 2:
        return np.arange(n, dtype=np.int64)
    steps = (engine.random(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
    perm = list(range(n))
    for i, offset in enumerate(steps):
        j = i + offset
        perm[i], perm[j] = perm[j], perm[i]
    return np.array(perm, dtype=np.int64)


# ----------------------------------------------------------------------------------------
# Other distributions: each element from 64-bit uniforms in float64, then cast
# ----------------------------------------------------------------------------------------
def exponential(engine: MT19937Engine, n: int, rate: float) -> np.ndarray:
    """``exponential_(λ)``: ``−1/λ · log(1 − u)``."""
    return (-1.0 / rate) * _libm(math.log1p, -unit_float64(engine, n))


def cauchy(engine: MT19937Engine, n: int, median: float, sigma: float) -> np.ndarray:
    """``cauchy_(median, σ)``: ``median + σ · tan(π (u − ½))``."""
    tangents = _libm(math.tan, math.pi * (unit_float64(engine, n) - 0.5))
    if FUSED_MULTIPLY_ADD:
        return _fma64(tangents, sigma, median)
    return median + sigma * tangents


def log_normal(engine: MT19937Engine, n: int, mean: float, std: float) -> np.ndarray:
    """``log_normal_(mean, std)``: ``exp`` of one-at-a-time normal draws."""
    return _libm(math.exp, normal_one_at_a_time(engine, n, mean, std))


def geometric(engine: MT19937Engine, n: int, p: float) -> np.ndarray:
    """``geometric_(p)``: ``⌈log u / log(1 − p)⌉``."""
    return np.ceil(_libm(_safe_log, unit_float64(engine, n)) / math.log1p(-p))


def bernoulli(engine: MT19937Engine, probabilities: np.ndarray) -> np.ndarray:
    """``bernoulli`` with a tensor of probabilities: ``u < p`` per element, ``u`` a 32-bit
    float uniform (53-bit when the probabilities are float64). True/False array."""
    p = np.ravel(probabilities)
    if p.dtype == _F64:
        return (unit_float64(engine, p.size) < p).reshape(np.shape(probabilities))
    return (unit_float32(engine, p.size) < p.astype(_F32)).reshape(np.shape(probabilities))


def bernoulli_scalar(engine: MT19937Engine, n: int, p: float) -> np.ndarray:
    """``bernoulli_(p)`` with a number ``p``: a 53-bit uniform below ``p`` per element
    (also dropout's mask). PyTorch once drew these from Intel MKL on x86; 2.13 uses this
    plain kernel (checked on an Intel CPU with an MKL build)."""
    return unit_float64(engine, n) < p


def _fused(a: float, b: float, c: float) -> float:
    """``a*b + c`` as ATen's generic files (Distributions.cpp: poisson, gamma) compute it:
    built for the baseline CPU, with no fused multiply-add on x86, fused on ARM."""
    return _exact_fma(a, b, c) if CAPABILITY == "arm" else a * b + c


def _poisson_one(engine: MT19937Engine, rate: float) -> int:
    """ATen's ``sample_poisson`` (after NumPy's): multiply uniforms until the product
    drops to ``e^−λ`` for a small rate; Hörmann's transformed rejection (PTRS) from 10 up."""
    if rate == 0:
        return 0
    if rate < 10:
        limit, count, product = math.exp(-rate), 0, 1.0
        while True:
            product *= float(unit_float64(engine, 1)[0])
            if product <= limit:
                return count
            count += 1
    root, log_rate = math.sqrt(rate), math.log(rate)
    b = _fused(2.53, root, 0.931)
    a = _fused(0.02483, b, -0.059)
    inverse_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)
    while True:
        u, v = (float(x) for x in unit_float64(engine, 2))
        u -= 0.5
        u_s = 0.5 - abs(u)
        k = math.floor(_fused(2 * a / u_s + b, u, rate) + 0.43)
        if u_s >= 0.07 and v <= v_r:
            return k
        if k < 0 or (u_s < 0.013 and v > u_s):
            continue
        accept = _fused(k, log_rate, -rate) - math.lgamma(k + 1.0)
        if (_safe_log(v) + math.log(inverse_alpha) - math.log(a / (u_s * u_s) + b)) <= accept:
            return k


def poisson(engine: MT19937Engine, rates: np.ndarray) -> np.ndarray:
    """``torch.poisson(rates)``: one count per rate, in order (float64 counts)."""
    counts = [_poisson_one(engine, rate) for rate in np.ravel(rates).astype(_F64).tolist()]
    return np.array(counts, dtype=_F64).reshape(np.shape(rates))


def _gamma_one(engine: MT19937Engine, alpha: float, single: bool) -> float:
    """ATen's ``sample_gamma`` (Marsaglia and Tsang, after NumPy): ``alpha`` is handled in
    the tensor's precision (float32 when ``single``), the rest in float64, the normals
    from the generator's one-at-a-time Box–Muller (which shares its cached sample)."""
    as_tensor_type = (lambda v: float(_F32(v))) if single else float
    alpha = as_tensor_type(alpha)
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        u = float(unit_float64(engine, 1)[0])
        scale *= math.pow(1 - u, as_tensor_type(1.0 / alpha) if single else 1.0 / alpha)
        alpha = as_tensor_type(alpha + 1.0)
    d = as_tensor_type(alpha - float(_F32(1.0 / 3.0)))  # (1.0f / 3.0f: a float constant)
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = float(normal_one_at_a_time(engine, 1)[0])
            y = _fused(c, x, 1.0)
            if y > 0:
                break
        v = y * y * y
        u = 1 - float(unit_float64(engine, 1)[0])
        xx = x * x
        if u < _fused(-float(_F32(0.0331)) * xx, xx, 1.0):
            return scale * d * v
        if _safe_log(u) < _fused(0.5, xx, d * (1.0 - v + math.log(v))):
            return scale * d * v


def standard_gamma(engine: MT19937Engine, alphas: np.ndarray) -> np.ndarray:
    """``torch._standard_gamma(alphas)``: one Gamma(α, 1) draw per element, in order,
    floored at the dtype's smallest normal number (as PyTorch does)."""
    single = alphas.dtype != _F64
    draws = [_gamma_one(engine, a, single) for a in np.ravel(alphas).astype(_F64).tolist()]
    out = np.array(draws, dtype=_F64).astype(alphas.dtype)
    return np.maximum(out, np.finfo(alphas.dtype).tiny).reshape(alphas.shape)


_STIRLING_TAILS = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                   0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                   0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                   0.00833056343336287)


def _stirling_tail(k: float) -> float:
    if k < len(_STIRLING_TAILS):
        return _STIRLING_TAILS[int(k)]
    square = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / square) / square) / (k + 1)


def _binomial_inversion(engine: MT19937Engine, count: float, prob: float, kind) -> float:
    """Count geometric waiting times until they pass ``count`` (small ``count · prob``)."""
    log_q = kind(math.log1p(-prob))
    total, successes = 0.0, 0.0
    while True:
        total += math.ceil(_safe_log(float(unit_float64(engine, 1)[0])) / log_q)
        if total > count:
            return successes
        successes = kind(successes + 1)


def _btrs(engine: MT19937Engine, count: float, prob: float, kind) -> float:
    """Hörmann's transformed rejection with squeeze (BTRS), as ATen writes it; ``kind``
    rounds what ATen computes in the tensor's type (float32 for float tensors)."""
    stddev = kind(math.sqrt(kind(kind(count * prob) * kind(1 - prob))))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = kind(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = kind(prob / kind(1 - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(kind(kind(count + 1) * prob))
    while True:
        u, v = (float(x) for x in unit_float64(engine, 2))
        u -= 0.5
        u_s = 0.5 - abs(u)
        k = kind(math.floor((2 * a / u_s + b) * u + c))
        if k < 0 or k > count:
            continue
        if u_s >= 0.07 and v <= v_r:
            return k
        v = _safe_log(v * alpha / (a / (u_s * u_s) + b))
        count_minus_k = kind(count - k)
        bound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + kind(count + 1) * math.log((count - m + 1) / kind(count_minus_k + 1))
                 + (k + 0.5) * math.log(r * kind(count_minus_k + 1) / kind(k + 1))
                 + _stirling_tail(m) + _stirling_tail(count - m)
                 - _stirling_tail(k) - _stirling_tail(count_minus_k))
        if v <= bound:
            return k


def _binomial_one(engine: MT19937Engine, count: float, prob: float, kind) -> float:
    """ATen's ``sample_binomial``: inversion for a small mean, else BTRS (on 1 − p
    above one half)."""
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if kind(count * prob) >= 10.0:
            return _btrs(engine, count, prob, kind)
        return _binomial_inversion(engine, count, prob, kind)
    if prob > 0.5:
        q = kind(1.0 - prob)
        if kind(count * q) >= 10.0:
            return kind(count - _btrs(engine, count, q, kind))
        return kind(count - _binomial_inversion(engine, count, q, kind))
    return math.nan


def binomial(engine: MT19937Engine, counts: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """``torch.binomial(counts, probs)``: one draw per element, in order, in their dtype."""
    dtype = np.result_type(counts, probs)
    kind = float if dtype == _F64 else (lambda v: float(_F32(v)))
    counts, probs = np.broadcast_arrays(counts, probs)
    draws = [_binomial_one(engine, kind(n), kind(p), kind)
             for n, p in zip(np.ravel(counts).tolist(), np.ravel(probs).tolist())]
    return np.array(draws, dtype=_F64).astype(dtype).reshape(counts.shape)


def rrelu_slopes(engine: MT19937Engine, values: np.ndarray, lower: float,
                 upper: float) -> np.ndarray:
    """RReLU's training noise (ATen's ``_rrelu_with_noise_train``): a float64 uniform slope
    in [lower, upper) for each element ≤ 0, in order; 1 for the others. The bounds are
    first rounded to the tensor's type. (Compiled for the baseline CPU: no fused
    multiply-add on x86.)"""
    if values.dtype != _F64:
        lower, upper = float(_F32(lower)), float(_F32(upper))
    slopes = np.ones(values.shape, dtype=_F64)
    negative = values <= 0
    draws = unit_float64(engine, int(negative.sum()))
    if CAPABILITY == "arm":
        slopes[negative] = _fma64(draws, upper - lower, lower)
    else:
        slopes[negative] = draws * (upper - lower) + lower
    return slopes
