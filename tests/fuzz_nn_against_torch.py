"""Differential testing of ``torch.nn.functional`` (and a few ``nn`` modules) against PyTorch.

tests/fuzz_against_torch.py draws random programs of core ops; this script draws random
*calls* of the neural-network functions, the part of the API with the most arguments:
convolutions (1-d to 3-d, transposed, groups, ``padding='same'``/``'valid'``, the Conv
modules' ``padding_mode``), pools (max, avg, lp, adaptive, max_unpool; ``ceil_mode``,
``count_include_pad``, ``divisor_override``, ``return_indices``), ``interpolate`` in every
mode (``size``/``scale_factor``, ``align_corners``, ``recompute_scale_factor``,
``antialias``), ``grid_sample``/``affine_grid``, ``pad`` in every mode, ``fold``/``unfold``,
pixel (un)shuffle, the normalisation functions, the dropout family where it is
deterministic (``training=False``, ``p=0``, ``p=1``), ``embedding``/``embedding_bag``,
every loss (random ``reduction``, ``weight``, ``ignore_index``, ``label_smoothing``,
``pos_weight`` ...), the activations with their parameters, the softmax family with
``dtype=``, ``scaled_dot_product_attention`` with masks and ``is_causal``, distances,
``one_hot``, ``normalize``, ``linear``/``bilinear``.

From a seed a case is drawn: an op, its inputs (float32 or float64, batched or not, empty
batches, non-contiguous views) and its arguments -- mostly valid ones, and now and then an
invalid one (a zero stride, too much padding, a group count that does not divide the
channels, a wrong shape, an unknown mode or reduction). The case is a short program: the
leaves, the call, then ``backward()`` of a weighted sum of the (first) output. It runs
once with ``torch`` the real PyTorch and once with ``torch`` bound to teachgrad, and the
two are compared with the core fuzzer's machinery: output values (with a tolerance),
dtype, shape, ``requires_grad``, ``grad_fn`` name, the gradient of every leaf, and an
exception's type and message (``teachgrad`` read as ``torch``; teachgrad may add one
``Hint:`` line). A mismatch is shrunk (each keyword argument dropped in turn while the
same kind of difference stays, and the backward dropped for a forward difference) and
printed as a Python script.

Run ``python tests/fuzz_nn_against_torch.py --seeds 0:2000 [--ops conv2d,mse_loss]
[--verbose]``. The summary counts the cases per op and the mismatches by op, by family
and by category. Known, explained differences are in ``SKIPS``, each with its reason.
The ops added last (the in-place activations ``relu_`` ..., ``upsample*``,
``fractional_max_pool*``) are drawn only when named with ``--ops``, so that every seed
still draws the case it drew before (``EXTRA``).
"""

from __future__ import annotations

import argparse
import collections
import math
import os
import random
import re
import sys
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fuzz_against_torch as core  # noqa: E402  (the core fuzzer: running and comparing)

Statement = core.Statement

# --------------------------------------------------------------------------- cases


class Name(str):
    """Source text that is written as it is (a variable's name), not as a literal."""

    def __repr__(self) -> str:
        return str(self)


def source_of(value) -> str:
    """A Python literal for an argument (floats as the core fuzzer writes them)."""
    if isinstance(value, Name):
        return str(value)
    if isinstance(value, float):
        return core._literal(value)
    if isinstance(value, tuple):
        inner = ", ".join(source_of(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(source_of(v) for v in value) + "]"
    return repr(value)


@dataclass
class Case:
    """One drawn call: its setup lines, the call itself, and what to compare afterwards."""

    seed: int
    op: str
    family: str = ""
    setup: list = field(default_factory=list)  # Statements before the call
    func: str = ""  # "F.conv2d", "m" ...
    args: list = field(default_factory=list)  # positional arguments (values)
    kwargs: dict = field(default_factory=dict)  # keyword arguments (values)
    after: list = field(default_factory=list)  # names also compared after the call
    grads: list = field(default_factory=list)  # names whose .grad is compared
    backward: bool = True

    def call_source(self) -> str:
        parts = [source_of(a) for a in self.args]
        parts += [f"{k}={source_of(v)}" for k, v in self.kwargs.items()]
        return f"out = {self.func}({', '.join(parts)})"

    def statements(self) -> list[Statement]:
        """The case as the core fuzzer's statements (the call's op is the case's op)."""
        out = [Statement("F = torch.nn.functional", "setup")] + list(self.setup)
        out.append(Statement(self.call_source(), self.op, ["out"] + self.after))
        if self.backward and self.grads:
            out.append(Statement(BACKWARD, "backward"))
            out.append(Statement("pass", "backward", [f"{n}.grad" for n in self.grads]))
        return out


# The loss whose backward is compared: a fixed, uneven weighting of the first output (so a
# gradient that is wrong at one position cannot hide in a plain sum).
BACKWARD = """y = out[0] if isinstance(out, (tuple, list)) else out
if isinstance(y, torch.Tensor) and y.requires_grad:
    (y * torch.arange(y.numel(), dtype=y.dtype).reshape(y.shape).mul(0.37).sin()).sum(
        ).backward()"""


class Draw:
    """The random choices of one case, and helpers that write its leaves."""

    def __init__(self, seed: int, op: str):
        self.r = random.Random(f"{seed}-{op}")
        self.case = Case(seed, op)
        self.dtype = "float32" if self.r.random() < 0.65 else "float64"
        self.count = 0
        self.invalid = self.r.random() < 0.3  # may this case draw invalid arguments?

    # --- choices
    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def pick(self, options):
        return self.r.choice(list(options))

    def int(self, low: int, high: int) -> int:
        return self.r.randint(low, high)

    def bad(self, good, *bad, p: float = 0.12):
        """``good``, or (in an invalid case, now and then) one of the invalid ``bad``."""
        if bad and self.invalid and self.r.random() < p:
            return self.pick(bad)
        return good

    def fresh(self, prefix: str = "a") -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def batch(self, allow_unbatched: bool = True) -> list[int]:
        """Leading batch dimensions: none (unbatched), or one of size 0, 1, 2 or 3."""
        if allow_unbatched and self.chance(0.2):
            return []
        return [self.bad(self.pick([1, 2, 2, 3]), 0, p=0.5) if self.chance(0.12)
                else self.pick([1, 2, 2, 3])]

    def spatial(self, nd: int, low: int, high: int):
        """An int or a tuple of ``nd`` ints, each in [low, high]."""
        if self.chance(0.5):
            return self.int(low, high)
        return tuple(self.int(low, high) for _ in range(nd))

    def reduction(self) -> str:
        return self.bad(self.pick(["none", "mean", "sum"]), "avg", p=0.15)

    # --- leaves
    def values(self, n: int, kind: str) -> list:
        r = self.r
        if kind == "positive":
            return [round(r.uniform(0.1, 2.5), 3) for _ in range(n)]
        if kind == "prob":
            return [round(r.uniform(0.02, 0.98), 3) for _ in range(n)]
        if kind == "kinks":  # where piecewise functions change formula
            return [r.choice([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0]) if r.random() < 0.3
                    else round(r.gauss(0, 2), 3) for _ in range(n)]
        if kind == "grid":
            return [round(r.uniform(-1.15, 1.15), 3) for _ in range(n)]
        return [round(r.gauss(0, 1), 3) for _ in range(n)]

    def leaf(self, shape, kind: str = "normal", dtype: str | None = None, grad: bool = True,
             strided: bool | None = None) -> Name:
        """A float leaf of ``shape`` (sometimes handed on as a non-contiguous view)."""
        shape = tuple(shape)
        dtype = dtype or self.dtype
        name = self.fresh()
        if strided is None:
            strided = len(shape) >= 2 and self.chance(0.15)
        made = shape[:-2] + (shape[-1], shape[-2]) if strided else shape
        flat = self.values(math.prod(made), kind)
        text = (f"{name} = torch.tensor({source_of(flat)}, dtype=torch.{dtype})"
                f".reshape({source_of(made)})" + (".requires_grad_()" if grad else ""))
        self.case.setup.append(Statement(text, "leaf"))
        if grad:
            self.case.grads.append(name)
        if not strided:
            return Name(name)
        view = self.fresh("v")
        self.case.setup.append(Statement(f"{view} = {name}.transpose(-1, -2)", "leaf"))
        return Name(view)

    def ints(self, shape, low: int, high: int, dtype: str = "int64") -> Name:
        shape = tuple(shape)
        name = self.fresh("i")
        flat = [self.int(low, high) for _ in range(math.prod(shape))]
        self.case.setup.append(Statement(
            f"{name} = torch.tensor({source_of(flat)}, dtype=torch.{dtype})"
            f".reshape({source_of(shape)})", "leaf"))
        return Name(name)

    def mask(self, shape) -> Name:
        shape = tuple(shape)
        name = self.fresh("m")
        flat = [self.chance(0.7) for _ in range(math.prod(shape))]
        self.case.setup.append(Statement(
            f"{name} = torch.tensor({source_of(flat)}).reshape({source_of(shape)})", "leaf"))
        return Name(name)

    def line(self, text: str) -> None:
        self.case.setup.append(Statement(text, "setup"))

    def call(self, func: str, *args, **kwargs) -> None:
        self.case.func = func
        self.case.args = list(args)
        self.case.kwargs = dict(kwargs)

    def maybe(self, kwargs: dict, name: str, value, p: float = 0.6) -> None:
        """Pass ``name=value`` with probability ``p`` (otherwise the default is used)."""
        if self.chance(p):
            kwargs[name] = value


# --------------------------------------------------------------------------- the ops

OPS: dict[str, tuple[str, object]] = {}  # name -> (family, draw function)


EXTRA: set[str] = set()  # ops drawn only when named with --ops (see ``op``)


def op(family: str, *names, extra: bool = False):
    """Register a drawing function for ``names``. ``extra`` ops (added after seeds 0-10000
    were cleaned) are left out of the default draw, so that a seed keeps drawing the case
    it always drew; run them with ``--ops``."""
    def register(fn):
        for n in names:
            OPS[n] = (family, fn)
            if extra:
                EXTRA.add(n)
        return fn
    return register


def _nd(name: str) -> int:
    return int(re.search(r"(\d)d", name).group(1))


@op("conv", "conv1d", "conv2d", "conv3d")
def _conv(d: Draw, name: str) -> None:
    nd = _nd(name)
    groups = d.pick([1, 1, 1, 2, 3])
    cin, cout = groups * d.int(1, 2), groups * d.int(1, 2)
    kernel = [d.int(1, 3) for _ in range(nd)]
    size = [d.int(1, 6 if nd < 3 else 4) for _ in range(nd)]
    x = d.leaf(d.batch() + [d.bad(cin, cin + 1)] + size)
    w = d.leaf([cout, cin // groups] + d.bad(kernel, kernel[:-1], p=0.05),
               dtype=d.bad(d.dtype, "float64" if d.dtype == "float32" else "float32", p=0.05))
    kwargs: dict = {}
    if d.chance(0.6):
        kwargs["bias"] = d.leaf([d.bad(cout, cout + 1, p=0.08)])
    d.maybe(kwargs, "stride", d.bad(d.spatial(nd, 1, 3), 0, -1, (1,) * (nd + 1)))
    d.maybe(kwargs, "padding", d.bad(d.pick([d.spatial(nd, 0, 2), "same", "valid"]),
                                     -1, "full", (0,) * (nd + 1)))
    d.maybe(kwargs, "dilation", d.bad(d.spatial(nd, 1, 2), 0))
    if groups > 1 or d.chance(0.2):
        kwargs["groups"] = d.bad(groups, groups + 1, 0)
    d.call(f"F.{name}", x, w, **kwargs)


@op("conv", "Conv1d", "Conv2d", "Conv3d")
def _conv_module(d: Draw, name: str) -> None:
    # the modules add padding_mode (reflect, replicate, circular), which F.conv* has not
    nd = _nd(name)
    groups = d.pick([1, 1, 2])
    cin, cout = groups * d.int(1, 2), groups * d.int(1, 2)
    kernel = d.spatial(nd, 1, 3)
    size = [d.int(2, 5 if nd < 3 else 4) for _ in range(nd)]
    kwargs: dict = {"padding_mode": d.bad(d.pick(["zeros", "reflect", "replicate",
                                                  "circular"]), "wrap")}
    d.maybe(kwargs, "stride", d.bad(d.spatial(nd, 1, 2), 0))
    d.maybe(kwargs, "padding", d.bad(d.pick([d.spatial(nd, 0, 2), "same", "valid"]), -1,
                                     "full"), p=0.8)
    d.maybe(kwargs, "dilation", d.spatial(nd, 1, 2))
    d.maybe(kwargs, "bias", d.chance(0.5))
    if groups > 1:
        kwargs["groups"] = groups
    args = ", ".join([str(cin), str(cout), source_of(kernel)]
                     + [f"{k}={source_of(v)}" for k, v in kwargs.items()])
    d.line(f"m = torch.nn.{name}({args}).to(torch.{d.dtype})")
    weights = d.leaf([cout, cin // groups] + ([kernel] * nd if isinstance(kernel, int)
                                              else list(kernel)), grad=False, strided=False)
    d.line(f"with torch.no_grad():\n    m.weight.copy_({weights})\n"
           f"    if m.bias is not None:\n        m.bias.zero_().add_(0.25)")
    x = d.leaf(d.batch() + [cin] + size)
    d.call("m", x)
    d.case.grads += ["m.weight", "m.bias"]


@op("conv", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
def _conv_transpose(d: Draw, name: str) -> None:
    nd = _nd(name)
    groups = d.pick([1, 1, 2])
    cin, cout = groups * d.int(1, 2), groups * d.int(1, 2)
    kernel = [d.int(1, 3) for _ in range(nd)]
    size = [d.int(1, 4) for _ in range(nd)]
    x = d.leaf(d.batch() + [d.bad(cin, cin + 1)] + size)
    w = d.leaf([cin, cout // groups] + kernel)
    kwargs: dict = {}
    if d.chance(0.5):
        kwargs["bias"] = d.leaf([cout])
    stride = d.int(1, 3)
    dilation = d.int(1, 2)
    d.maybe(kwargs, "stride", d.bad(stride, 0))
    d.maybe(kwargs, "padding", d.bad(d.spatial(nd, 0, 2), -1))
    d.maybe(kwargs, "output_padding", d.bad(d.int(0, max(stride, dilation) - 1),
                                            max(stride, dilation)), p=0.4 if "stride"
            in kwargs else 0.1)
    if groups > 1 or d.chance(0.2):
        kwargs["groups"] = d.bad(groups, groups + 1)
    d.maybe(kwargs, "dilation", dilation)
    d.call(f"F.{name}", x, w, **kwargs)


@op("pool", "max_pool1d", "max_pool2d", "max_pool3d")
def _max_pool(d: Draw, name: str) -> None:
    nd = _nd(name)
    x = d.leaf(d.batch() + [d.int(1, 3)] + [d.int(1, 6 if nd < 3 else 4) for _ in range(nd)])
    kernel = d.spatial(nd, 1, 3)
    kmin = kernel if isinstance(kernel, int) else min(kernel)
    kwargs: dict = {}
    d.maybe(kwargs, "stride", d.bad(d.spatial(nd, 1, 3), 0))
    d.maybe(kwargs, "padding", d.bad(d.int(0, kmin // 2), kmin // 2 + 1, -1), p=0.4)
    d.maybe(kwargs, "dilation", d.bad(d.spatial(nd, 1, 2), 0), p=0.3)
    d.maybe(kwargs, "ceil_mode", True, p=0.4)
    d.maybe(kwargs, "return_indices", True, p=0.4)
    d.call(f"F.{name}", x, d.bad(kernel, 0), **kwargs)


@op("pool", "avg_pool1d", "avg_pool2d", "avg_pool3d")
def _avg_pool(d: Draw, name: str) -> None:
    nd = _nd(name)
    x = d.leaf(d.batch() + [d.int(1, 3)] + [d.int(1, 6 if nd < 3 else 4) for _ in range(nd)])
    kernel = d.spatial(nd, 1, 3)
    kmin = kernel if isinstance(kernel, int) else min(kernel)
    kwargs: dict = {}
    d.maybe(kwargs, "stride", d.bad(d.spatial(nd, 1, 3), 0))
    d.maybe(kwargs, "padding", d.bad(d.int(0, kmin // 2), kmin // 2 + 1), p=0.4)
    d.maybe(kwargs, "ceil_mode", True, p=0.4)
    d.maybe(kwargs, "count_include_pad", False, p=0.4)
    if nd > 1:
        d.maybe(kwargs, "divisor_override", d.bad(d.int(1, 5), 0), p=0.3)
    d.call(f"F.{name}", x, d.bad(kernel, 0), **kwargs)


@op("pool", "lp_pool1d", "lp_pool2d", "lp_pool3d")
def _lp_pool(d: Draw, name: str) -> None:
    nd = _nd(name)
    norm = d.pick([1, 2, 3, 1.5])
    # a fractional power of a negative sum is nan in both; keep the inputs positive then
    kind = "positive" if isinstance(norm, float) or d.chance(0.5) else "normal"
    x = d.leaf(d.batch() + [d.int(1, 3)] + [d.int(1, 6 if nd < 3 else 4) for _ in range(nd)],
               kind=kind)
    kwargs: dict = {}
    d.maybe(kwargs, "stride", d.int(1, 3) if nd == 1 else d.spatial(nd, 1, 3))
    d.maybe(kwargs, "ceil_mode", True, p=0.4)
    # (lp_pool1d takes one int: PyTorch 2.13 fails on a tuple, in words of its own)
    kernel = d.int(1, 3) if nd == 1 else d.spatial(nd, 1, 3)
    d.call(f"F.{name}", x, norm, kernel, **kwargs)


@op("pool", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d")
def _adaptive_pool(d: Draw, name: str) -> None:
    nd = _nd(name)
    x = d.leaf(d.batch() + [d.int(1, 3)] + [d.bad(d.int(1, 6 if nd < 3 else 4), 0, p=0.3)
                                            for _ in range(nd)])
    if nd == 1 or d.chance(0.4):
        size = d.bad(d.int(1, 5), 0, -1)
    else:
        size = tuple(d.pick([d.int(1, 5), None]) if nd > 1 else d.int(1, 5)
                     for _ in range(nd))
    kwargs: dict = {}
    if "max" in name:
        d.maybe(kwargs, "return_indices", True, p=0.4)
    d.call(f"F.{name}", x, size, **kwargs)


@op("pool", "max_unpool1d", "max_unpool2d", "max_unpool3d")
def _max_unpool(d: Draw, name: str) -> None:
    nd = _nd(name)
    x = d.leaf([d.int(1, 2), d.int(1, 2)] + [d.int(2, 5) for _ in range(nd)])
    kernel = d.int(1, 3)
    stride = d.pick([None, 1, 2, 3])
    d.line(f"p, idx = F.max_pool{nd}d({x}, {kernel}, {stride}, return_indices=True)")
    kwargs: dict = {}
    if stride is not None:
        kwargs["stride"] = stride
    if d.chance(0.3):
        kwargs["output_size"] = d.bad(None, (1,) * nd, p=0.5)
    d.call(f"F.{name}", Name("p"), Name("idx"), kernel, **kwargs)


MODES_BY_NDIM = {3: ["nearest", "nearest-exact", "area", "linear"],
                 4: ["nearest", "nearest-exact", "area", "bilinear", "bicubic"],
                 5: ["nearest", "nearest-exact", "area", "trilinear"]}


@op("resample", "interpolate")
def _interpolate(d: Draw, name: str) -> None:
    ndim = d.pick([3, 4, 4, 5])
    nd = ndim - 2
    x = d.leaf([d.bad(d.int(1, 2), 0, p=0.3), d.int(1, 2)]
               + [d.int(1, 5 if nd < 3 else 3) for _ in range(nd)])
    mode = d.bad(d.pick(MODES_BY_NDIM[ndim]), "bilinear" if ndim != 4 else "linear",
                 "cubic")
    kwargs: dict = {}
    if d.chance(0.5):
        kwargs["size"] = d.bad(d.spatial(nd, 1, 7), (2,) * (nd + 1), 0)
    else:
        if d.chance(0.5):
            factor = d.pick([0.5, 0.7, 1.3, 1.5, 2.0, 2.5, 3.0])
        else:
            factor = tuple(d.pick([0.6, 1.0, 1.5, 2.0, 2.7]) for _ in range(nd))
        kwargs["scale_factor"] = d.bad(factor, -1.0)
        d.maybe(kwargs, "recompute_scale_factor", d.chance(0.5), p=0.5)
    if d.invalid and d.chance(0.1):
        kwargs["size"], kwargs["scale_factor"] = 2, 2.0
    kwargs["mode"] = mode
    if mode in ("linear", "bilinear", "bicubic", "trilinear") or d.chance(0.1):
        d.maybe(kwargs, "align_corners", d.chance(0.5), p=0.7)
    if mode in ("bilinear", "bicubic") or (d.invalid and d.chance(0.05)):
        d.maybe(kwargs, "antialias", True, p=0.3)
    d.call("F.interpolate", x, **kwargs)


@op("resample", "upsample", "upsample_nearest", "upsample_bilinear", extra=True)
def _upsample(d: Draw, name: str) -> None:
    """The old names of interpolate (each warns that it is deprecated)."""
    ndim = 4 if name == "upsample_bilinear" else d.pick([3, 4, 5])
    nd = ndim - 2
    x = d.leaf([d.int(1, 2), d.int(1, 2)] + [d.int(1, 4 if nd < 3 else 3) for _ in range(nd)])
    kwargs: dict = {}
    if d.chance(0.5):
        kwargs["size"] = d.bad(d.spatial(nd, 1, 6), (2,) * (nd + 1))
    else:
        kwargs["scale_factor"] = d.pick([0.5, 1.5, 2.0, 2.5])
    if d.invalid and d.chance(0.15):
        kwargs["size"], kwargs["scale_factor"] = 2, 2.0
    if name == "upsample":
        kwargs["mode"] = d.pick(MODES_BY_NDIM[ndim])
        if kwargs["mode"] in ("linear", "bilinear", "bicubic", "trilinear"):
            d.maybe(kwargs, "align_corners", d.chance(0.5), p=0.6)
    d.call(f"F.{name}", x, **kwargs)


@op("pool", "fractional_max_pool2d", "fractional_max_pool3d", extra=True)
def _fractional_max_pool(d: Draw, name: str) -> None:
    """Deterministic through ``_random_samples`` (one pair/triple in [0, 1) per plane)."""
    nd = _nd(name)
    batch = d.batch()
    channels = d.int(1, 2)
    x = d.leaf(batch + [channels] + [d.int(2, 6 if nd < 3 else 4) for _ in range(nd)])
    kernel = d.spatial(nd, 1, 2)
    kwargs: dict = {}
    if d.chance(0.5):
        kwargs["output_size"] = d.bad(d.spatial(nd, 1, 3), 0, 9)
    else:
        ratio = d.pick([0.5, 0.7]) if d.chance(0.5) else tuple(
            d.pick([0.5, 0.8]) for _ in range(nd))
        kwargs["output_ratio"] = d.bad(ratio, 1.5)
    d.maybe(kwargs, "return_indices", True, p=0.4)
    planes = batch[0] if batch else 1
    samples = d.leaf([planes, channels, nd], kind="prob", grad=False)
    kwargs["_random_samples"] = samples
    d.call(f"F.{name}", x, d.bad(kernel, 0), **kwargs)


@op("resample", "grid_sample")
def _grid_sample(d: Draw, name: str) -> None:
    nd = d.pick([2, 2, 3])
    n = d.int(1, 2)
    x = d.leaf([n, d.int(1, 2)] + [d.int(1, 4) for _ in range(nd)])
    grid = d.leaf([d.bad(n, n + 1, p=0.3)] + [d.int(1, 3) for _ in range(nd)]
                  + [d.bad(nd, nd + 1, p=0.3)], kind="grid", strided=False)
    kwargs: dict = {}
    d.maybe(kwargs, "mode", d.bad(d.pick(["bilinear", "nearest", "bicubic"] if nd == 2
                                         else ["bilinear", "nearest"]), "bicubic", "area"))
    d.maybe(kwargs, "padding_mode", d.bad(d.pick(["zeros", "border", "reflection"]), "wrap"))
    d.maybe(kwargs, "align_corners", d.chance(0.5))
    d.call("F.grid_sample", x, grid, **kwargs)


@op("resample", "affine_grid")
def _affine_grid(d: Draw, name: str) -> None:
    nd = d.pick([2, 3])
    n = d.int(1, 2)
    theta = d.leaf([n, nd, d.bad(nd + 1, nd)], strided=False)
    size = [d.bad(n, n + 1, p=0.3), d.int(1, 2)] + [d.int(1, 4) for _ in range(nd)]
    kwargs: dict = {}
    d.maybe(kwargs, "align_corners", d.chance(0.5))
    d.call("F.affine_grid", theta, d.bad(size, size[:-1], p=0.2), **kwargs)


@op("shape", "pad")
def _pad(d: Draw, name: str) -> None:
    mode = d.pick(["constant", "constant", "reflect", "replicate", "circular"])
    ndim = d.int(1, 5) if mode == "constant" else d.int(2, 5)
    shape = [d.int(1, 4) for _ in range(ndim)]
    x = d.leaf(shape)
    n = d.int(1, min(3, ndim if mode == "constant" else ndim - 1))
    pads = []
    for size in reversed(shape[-n:]):
        low = -size if mode == "constant" else (-(size - 1) if mode != "replicate" else 0)
        high = 3 if mode in ("constant", "replicate") else size - 1
        pads += [d.int(max(low, -2), high), d.int(max(low, -2), high)]
    pads = d.bad(pads, pads + [1], [shape[-1] + 1, 0], p=0.25)
    kwargs: dict = {}
    if mode != "constant" or d.chance(0.5):
        kwargs["mode"] = d.bad(mode, "symmetric", p=0.05)
    if mode == "constant" and d.chance(0.4):
        kwargs["value"] = round(d.r.gauss(0, 2), 2)
    d.call("F.pad", x, tuple(pads), **kwargs)


@op("shape", "unfold", "fold")
def _fold(d: Draw, name: str) -> None:
    kernel = d.spatial(2, 1, 3)
    dilation, padding, stride = d.spatial(2, 1, 2), d.spatial(2, 0, 1), d.spatial(2, 1, 2)
    kwargs = {"dilation": dilation, "padding": padding, "stride": stride}
    kwargs = {k: v for k, v in kwargs.items() if d.chance(0.6)}
    if "stride" in kwargs:
        kwargs["stride"] = d.bad(kwargs["stride"], 0)
    batch = d.batch()
    if name == "unfold":
        x = d.leaf(batch + [d.int(1, 2), d.int(1, 5), d.int(1, 5)])
        d.call("F.unfold", x, kernel, **kwargs)
        return
    def pair(v):
        return (v, v) if isinstance(v, int) else v

    k = pair(kernel)
    dil, pad, st = (pair(kwargs.get(n, default)) for n, default in
                    (("dilation", 1), ("padding", 0), ("stride", 1)))
    out_size = (d.int(1, 5), d.int(1, 5))
    blocks = [(o + 2 * p - dl * (kk - 1) - 1) // s + 1 if s > 0 else 1
              for o, p, dl, kk, s in zip(out_size, pad, dil, k, st)]
    length = max(blocks[0], 0) * max(blocks[1], 0)
    channels = d.int(1, 2) * k[0] * k[1]
    x = d.leaf(batch + [d.bad(channels, channels + 1, p=0.3), d.bad(length, length + 1,
                                                                    p=0.3)])
    d.call("F.fold", x, out_size, kernel, **kwargs)


@op("shape", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle")
def _shuffle(d: Draw, name: str) -> None:
    factor = d.int(1, 3)
    batch = d.batch()
    if name == "pixel_shuffle":
        shape = [d.int(1, 2) * factor * factor, d.int(1, 3), d.int(1, 3)]
    elif name == "pixel_unshuffle":
        shape = [d.int(1, 2), factor * d.int(1, 2), factor * d.int(1, 2)]
    else:
        shape = [factor * d.int(1, 3), d.int(1, 3), d.int(1, 3)]
        batch = batch or [1]
    x = d.leaf(batch + d.bad(shape, [s + 1 for s in shape], shape[1:], p=0.3))
    d.call(f"F.{name}", x, d.bad(factor, 0, -1, p=0.1))


# ---- normalisation


@op("norm", "batch_norm")
def _batch_norm(d: Draw, name: str) -> None:
    c = d.int(1, 3)
    x = d.leaf([d.bad(d.int(1, 3), 0, p=0.2), c] + [d.int(1, 3) for _ in range(d.int(0, 3))])
    training = d.chance(0.5)
    kwargs: dict = {}
    args = []
    for _stat in ("running_mean", "running_var"):
        if not training or d.chance(0.6):
            args.append(d.leaf([d.bad(c, c + 1, p=0.1)], kind="positive", grad=False))
            d.case.after.append(args[-1])
        else:
            args.append(None)
    d.maybe(kwargs, "weight", d.leaf([c]), p=0.5)
    d.maybe(kwargs, "bias", d.leaf([c]), p=0.5)
    kwargs["training"] = training
    d.maybe(kwargs, "momentum", d.pick([0.1, 0.5, None]), p=0.3)
    d.maybe(kwargs, "eps", d.pick([1e-5, 0.1]), p=0.3)
    d.call("F.batch_norm", x, *args, **kwargs)


@op("norm", "instance_norm")
def _instance_norm(d: Draw, name: str) -> None:
    c = d.int(1, 3)
    x = d.leaf([d.int(1, 3), c] + [d.int(1, 3) for _ in range(d.int(1, 3))])
    kwargs: dict = {}
    if d.chance(0.4):
        kwargs["running_mean"] = d.leaf([c], grad=False)
        kwargs["running_var"] = d.leaf([c], kind="positive", grad=False)
        d.case.after += [kwargs["running_mean"], kwargs["running_var"]]
        d.maybe(kwargs, "use_input_stats", d.chance(0.5), p=0.5)
    d.maybe(kwargs, "weight", d.leaf([c]), p=0.5)
    d.maybe(kwargs, "bias", d.leaf([c]), p=0.5)
    d.maybe(kwargs, "momentum", 0.3, p=0.2)
    d.maybe(kwargs, "eps", d.pick([1e-5, 0.1]), p=0.3)
    d.call("F.instance_norm", x, **kwargs)


@op("norm", "layer_norm", "rms_norm")
def _layer_norm(d: Draw, name: str) -> None:
    shape = d.batch() + [d.int(1, 4) for _ in range(d.int(1, 3))]
    x = d.leaf(shape)
    k = d.int(1, len(shape))
    normalized = d.bad(tuple(shape[-k:]), tuple(s + 1 for s in shape[-k:]), p=0.2)
    kwargs: dict = {}
    d.maybe(kwargs, "weight", d.leaf(list(normalized)), p=0.5)
    if name == "layer_norm":
        d.maybe(kwargs, "bias", d.leaf(list(normalized)), p=0.5)
    d.maybe(kwargs, "eps", d.pick([1e-5, 0.1, None] if name == "rms_norm" else [1e-5, 0.1]),
            p=0.3)
    d.call(f"F.{name}", x, d.pick([normalized, list(normalized)]) if k > 1 else
           d.pick([normalized, normalized[0]]), **kwargs)


@op("norm", "group_norm")
def _group_norm(d: Draw, name: str) -> None:
    groups = d.int(1, 3)
    c = groups * d.int(1, 2)
    x = d.leaf([d.bad(d.int(1, 3), 0, p=0.2), d.bad(c, c + 1)]
               + [d.int(1, 3) for _ in range(d.int(0, 2))])
    kwargs: dict = {}
    d.maybe(kwargs, "weight", d.leaf([c]), p=0.5)
    d.maybe(kwargs, "bias", d.leaf([c]), p=0.5)
    d.maybe(kwargs, "eps", d.pick([1e-5, 0.1]), p=0.3)
    d.call("F.group_norm", x, d.bad(groups, 0, p=0.05), **kwargs)


@op("norm", "local_response_norm")
def _lrn(d: Draw, name: str) -> None:
    x = d.leaf([d.int(1, 2), d.int(1, 5)] + [d.int(1, 3) for _ in range(d.bad(d.int(0, 3), -1,
                                                                            p=0.2))])
    kwargs: dict = {}
    d.maybe(kwargs, "alpha", d.pick([1e-4, 0.5]), p=0.4)
    d.maybe(kwargs, "beta", d.pick([0.75, 1.5]), p=0.4)
    d.maybe(kwargs, "k", d.pick([1.0, 2.0]), p=0.4)
    d.call("F.local_response_norm", x, d.int(1, 4), **kwargs)


@op("norm", "normalize")
def _normalize(d: Draw, name: str) -> None:
    shape = [d.int(0 if d.chance(0.1) else 1, 4) for _ in range(d.int(1, 3))]
    x = d.leaf(shape, kind=d.pick(["normal", "kinks"]))
    kwargs: dict = {}
    d.maybe(kwargs, "p", d.pick([1, 2, 3, 1.5, math.inf]), p=0.5)
    d.maybe(kwargs, "dim", d.bad(d.int(-len(shape), len(shape) - 1), len(shape)), p=0.6)
    d.maybe(kwargs, "eps", d.pick([1e-12, 0.5]), p=0.3)
    d.call("F.normalize", x, **kwargs)


# ---- dropout in its deterministic corners


@op("dropout", "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
    "feature_alpha_dropout")
def _dropout(d: Draw, name: str) -> None:
    ndim = {"dropout1d": d.pick([2, 3]), "dropout2d": d.pick([3, 4]),
            "dropout3d": d.pick([4, 5])}.get(name, d.int(1, 4))
    x = d.leaf([d.int(1, 3) for _ in range(d.bad(ndim, ndim + 2, p=0.3))])
    training, p = d.pick([(False, 0.5), (True, 0.0), (False, 0.0), (True, 1.0)])
    kwargs = {"p": d.bad(p, 1.5, -0.1), "training": training}
    d.call(f"F.{name}", x, **kwargs)


# ---- embeddings


@op("embedding", "embedding")
def _embedding(d: Draw, name: str) -> None:
    num, dim = d.int(1, 5), d.int(1, 3)
    idx = d.ints([d.int(0, 3) for _ in range(d.int(0, 2))], 0, d.bad(num - 1, num))
    w = d.leaf([num, dim], strided=False)
    kwargs: dict = {}
    d.maybe(kwargs, "padding_idx", d.bad(d.int(-num, num - 1), num), p=0.3)
    d.maybe(kwargs, "scale_grad_by_freq", True, p=0.2)
    if d.chance(0.15):
        kwargs["max_norm"] = d.pick([0.5, 1.0])
        d.maybe(kwargs, "norm_type", d.pick([1.0, 3.0]), p=0.5)
    d.call("F.embedding", idx, w, **kwargs)


@op("embedding", "embedding_bag")
def _embedding_bag(d: Draw, name: str) -> None:
    num, dim = d.int(1, 5), d.int(1, 3)
    w = d.leaf([num, dim], strided=False)
    mode = d.pick(["sum", "mean", "max"])
    kwargs: dict = {}
    if d.chance(0.5):
        shape = [d.int(1, 3), d.int(1, 3)]
        idx = d.ints(shape, 0, d.bad(num - 1, num))
    else:
        length = d.int(0, 6)
        shape = [length]
        idx = d.ints(shape, 0, num - 1)
        cuts = sorted(d.int(0, length) for _ in range(d.int(0, 3)))
        if d.chance(0.3):
            # the last offset closes the last bag (PyTorch 2.13 crashes, in mode='max',
            # on offsets=[0] with include_last_offset: no bag at all)
            kwargs["include_last_offset"] = True
            cuts.append(length)
        kwargs["offsets"] = Name(f"torch.tensor({[0] + cuts})")
    kwargs["mode"] = d.bad(mode, "min")
    if mode == "sum" or (d.invalid and d.chance(0.2)):
        d.maybe(kwargs, "per_sample_weights", d.leaf(shape, strided=False), p=0.4)
    d.maybe(kwargs, "padding_idx", d.int(0, num - 1), p=0.25)
    d.call("F.embedding_bag", idx, w, **kwargs)


@op("embedding", "one_hot")
def _one_hot(d: Draw, name: str) -> None:
    classes = d.int(1, 5)
    idx = d.ints([d.int(0, 3) for _ in range(d.int(0, 2))], d.bad(0, -1), d.bad(classes - 1,
                                                                                 classes))
    d.call("F.one_hot", idx, *([d.bad(classes, -1, 0)] if d.chance(0.7) else []))


# ---- losses

PAIR_LOSSES = {"l1_loss": "normal", "mse_loss": "normal", "smooth_l1_loss": "normal",
               "huber_loss": "normal", "soft_margin_loss": "sign",
               "hinge_embedding_loss": "sign", "poisson_nll_loss": "positive",
               "kl_div": "prob", "binary_cross_entropy": "prob",
               "binary_cross_entropy_with_logits": "prob", "gaussian_nll_loss": "normal",
               "multilabel_soft_margin_loss": "binary"}


@op("loss", *PAIR_LOSSES)
def _pair_loss(d: Draw, name: str) -> None:
    shape = [d.int(1, 3) for _ in range(d.int(0, 3))]
    if name == "multilabel_soft_margin_loss":
        shape = d.batch() + [d.int(1, 4)]
    if shape and d.chance(0.06):
        shape[0] = 0
    kind = "prob" if name == "binary_cross_entropy" else "normal"
    x = d.leaf(shape, kind=kind)
    target_kind = PAIR_LOSSES[name]
    tshape = d.bad(shape, shape[1:], shape + [2], p=0.25)
    if target_kind in ("sign", "binary"):
        target = d.ints(tshape, 0, 1)
        to_sign = " * 2 - 1" if target_kind == "sign" else ""
        d.line(f"{target} = ({target}{to_sign}).to(torch.{d.dtype})")
    else:
        target = d.leaf(tshape, kind=target_kind, grad=d.chance(0.5))
    kwargs: dict = {"reduction": d.reduction()} if d.chance(0.8) else {}
    args = [x, target]
    if name == "smooth_l1_loss":
        d.maybe(kwargs, "beta", d.bad(d.pick([0.0, 0.5, 1.0, 2.0]), -1.0), p=0.5)
    elif name == "huber_loss":
        d.maybe(kwargs, "delta", d.bad(d.pick([0.5, 1.0, 2.0]), 0.0, -1.0), p=0.5)
    elif name == "hinge_embedding_loss":
        d.maybe(kwargs, "margin", d.pick([0.5, 1.0, 2.0]), p=0.5)
    elif name == "poisson_nll_loss":
        d.maybe(kwargs, "log_input", d.chance(0.5), p=0.6)
        d.maybe(kwargs, "full", True, p=0.4)
        d.maybe(kwargs, "eps", d.pick([1e-8, 0.1]), p=0.3)
        if kwargs.get("log_input") is False:
            args[0] = d.leaf(shape, kind="positive")
            if x in d.case.grads:  # (a strided x is a view: its base leaf just gets no grad)
                d.case.grads.remove(x)
    elif name == "kl_div":
        d.maybe(kwargs, "log_target", d.chance(0.5), p=0.6)
        if kwargs.get("reduction") == "mean" or d.chance(0.2):
            kwargs["reduction"] = d.pick(["batchmean", "mean"])
    elif name in ("binary_cross_entropy", "binary_cross_entropy_with_logits",
                  "multilabel_soft_margin_loss"):
        wshape = d.bad(shape[-1:] if name == "multilabel_soft_margin_loss" else shape,
                       [7], p=0.2)
        d.maybe(kwargs, "weight", d.leaf(wshape, kind="positive", grad=False), p=0.4)
        if name == "binary_cross_entropy_with_logits":
            d.maybe(kwargs, "pos_weight", d.leaf(shape[-1:], kind="positive", grad=False),
                    p=0.4)
    elif name == "gaussian_nll_loss":
        vshape = d.pick([shape, shape[:-1] + [1] if shape else shape, shape[:-1]])
        args.append(d.leaf(vshape, kind=d.bad("positive", "normal", p=0.3)))
        d.maybe(kwargs, "full", True, p=0.4)
        d.maybe(kwargs, "eps", d.pick([1e-6, 0.5]), p=0.3)
    d.call(f"F.{name}", *args, **kwargs)


@op("loss", "cross_entropy", "nll_loss")
def _cross_entropy(d: Draw, name: str) -> None:
    classes = d.int(1, 4)
    batch = d.batch()
    extra = [d.int(1, 3) for _ in range(d.pick([0, 0, 1, 2]))] if batch else []
    x = d.leaf(batch + [classes] + extra)
    probabilities = name == "cross_entropy" and d.chance(0.3)
    kwargs: dict = {}
    tshape = batch + extra
    if probabilities:
        target = d.leaf(d.bad(batch + [classes] + extra, batch + [classes + 1] + extra,
                              p=0.2), kind="prob", grad=d.chance(0.3))
    else:
        ignore = d.pick([-100, d.int(0, classes - 1), -1])
        target = d.ints(d.bad(tshape, tshape + [1], p=0.15), 0 if ignore != -1 else -1,
                        d.bad(classes - 1, classes))
        if ignore != -100 or d.chance(0.3):
            kwargs["ignore_index"] = ignore
    d.maybe(kwargs, "weight", d.leaf([d.bad(classes, classes + 1)], kind="positive",
                                     grad=False), p=0.4)
    if name == "cross_entropy":
        d.maybe(kwargs, "label_smoothing", d.bad(d.pick([0.1, 0.5, 1.0]), 1.5, -0.1), p=0.4)
    d.maybe(kwargs, "reduction", d.reduction(), p=0.7)
    d.call(f"F.{name}", x, target, **kwargs)


@op("loss", "multi_margin_loss", "multilabel_margin_loss")
def _margin_losses(d: Draw, name: str) -> None:
    classes = d.int(1, 4)
    batch = d.batch()
    x = d.leaf(batch + [classes])
    kwargs: dict = {}
    if name == "multi_margin_loss":
        target = d.ints(batch, 0, d.bad(classes - 1, classes))
        d.maybe(kwargs, "p", d.bad(d.pick([1, 2]), 3), p=0.4)
        d.maybe(kwargs, "margin", d.pick([0.5, 1.0, 2.0]), p=0.4)
        d.maybe(kwargs, "weight", d.leaf([classes], kind="positive", grad=False), p=0.3)
    else:
        target = d.ints(batch + [classes], -1, d.bad(classes - 1, classes))
    d.maybe(kwargs, "reduction", d.reduction(), p=0.7)
    d.call(f"F.{name}", x, target, **kwargs)


@op("loss", "margin_ranking_loss", "cosine_embedding_loss")
def _ranking_losses(d: Draw, name: str) -> None:
    batch = d.batch()
    if name == "margin_ranking_loss":
        shape = batch
        x1, x2 = d.leaf(shape), d.leaf(d.bad(shape, shape + [2], p=0.2))
        y_shape = shape
    else:
        dim = d.int(1, 3)
        x1, x2 = d.leaf(batch + [dim]), d.leaf(batch + [d.bad(dim, dim + 1, p=0.2)])
        y_shape = batch
    y = d.ints(y_shape, 0, 1)
    d.line(f"{y} = ({y} * 2 - 1).to(torch.{d.dtype})")
    kwargs: dict = {}
    d.maybe(kwargs, "margin", d.pick([0.0, 0.5, 1.0]), p=0.5)
    d.maybe(kwargs, "reduction", d.reduction(), p=0.7)
    d.call(f"F.{name}", x1, x2, y, **kwargs)


@op("loss", "triplet_margin_loss", "triplet_margin_with_distance_loss")
def _triplet(d: Draw, name: str) -> None:
    shape = d.batch() + [d.int(1, 4)]
    a, p, n = d.leaf(shape), d.leaf(shape), d.leaf(d.bad(shape, shape[:-1] + [shape[-1] + 1],
                                                         p=0.2))
    kwargs: dict = {}
    d.maybe(kwargs, "margin", d.bad(d.pick([0.5, 1.0, 2.0]), -1.0), p=0.5)
    d.maybe(kwargs, "swap", True, p=0.3)
    if name == "triplet_margin_loss":
        d.maybe(kwargs, "p", d.pick([1.0, 2.0, 3.0]), p=0.4)
        d.maybe(kwargs, "eps", d.pick([1e-6, 0.1]), p=0.3)
    d.maybe(kwargs, "reduction", d.reduction(), p=0.7)
    d.call(f"F.{name}", a, p, n, **kwargs)


@op("loss", "ctc_loss")
def _ctc(d: Draw, name: str) -> None:
    t, n, c = d.int(1, 6), d.int(1, 2), d.int(2, 4)
    x = d.leaf([t, n, c])
    d.line(f"lp = {x}.log_softmax(-1)")
    s = d.int(1, 3)
    targets = d.ints([n, s], 1, c - 1)
    in_len = Name(f"torch.tensor({[d.int(max(1, t - 2), t) for _ in range(n)]})")
    tgt_len = Name(f"torch.tensor({[d.int(0, d.bad(s, s + 1)) for _ in range(n)]})")
    kwargs: dict = {}
    d.maybe(kwargs, "reduction", d.reduction(), p=0.7)
    d.maybe(kwargs, "zero_infinity", True, p=0.4)
    d.call("F.ctc_loss", Name("lp"), targets, in_len, tgt_len, **kwargs)


# ---- activations

ACTIVATIONS = {
    "relu": {}, "relu6": {}, "selu": {}, "logsigmoid": {}, "tanhshrink": {},
    "softsign": {}, "tanh": {}, "sigmoid": {}, "hardsigmoid": {}, "hardswish": {},
    "silu": {}, "mish": {},
    "elu": {"alpha": [0.5, 1.0, 2.0]}, "celu": {"alpha": [0.5, 1.0, 2.0, 0.0]},
    "leaky_relu": {"negative_slope": [0.01, 0.2, -0.5, 1.5]},
    "hardtanh": {"min_val": [-1.0, -2.0, 0.0], "max_val": [1.0, 0.5, 3.0]},
    "hardshrink": {"lambd": [0.5, 1.0, 0.0]}, "softshrink": {"lambd": [0.5, 1.0, 0.0, -1.0]},
    "softplus": {"beta": [1.0, 2.0, 0.5], "threshold": [20.0, 1.0]},
    "gelu": {"approximate": ["none", "tanh"]},
    "threshold": {}, "rrelu": {"lower": [0.1, 0.3], "upper": [0.3, 0.5]},
}


@op("activation", *ACTIVATIONS)
def _activation(d: Draw, name: str) -> None:
    x = d.leaf([d.int(0 if d.chance(0.05) else 1, 4) for _ in range(d.int(0, 3))],
               kind=d.pick(["normal", "kinks"]))
    kwargs = {k: d.pick(v) for k, v in ACTIVATIONS[name].items() if d.chance(0.6)}
    args = [x]
    if name == "threshold":
        args += [d.pick([0.0, 0.5, -1.0, 1.0]), d.pick([0.0, -2.0, 3.0])]
    if name == "rrelu":
        kwargs["training"] = False
    d.call(f"F.{name}", *args, **kwargs)


INPLACE_ACTIVATIONS = {
    "relu_": {}, "selu_": {}, "elu_": {"alpha": [0.5, 1.0, 2.0]}, "celu_": {"alpha": [0.5, 2.0]},
    "leaky_relu_": {"negative_slope": [0.01, 0.2, -0.5]},
    "hardtanh_": {"min_val": [-1.0, 0.0], "max_val": [1.0, 3.0]},
    "threshold_": {}, "rrelu_": {"lower": [0.1, 0.3], "upper": [0.3, 0.5]},
}


@op("activation", *INPLACE_ACTIVATIONS, extra=True)
def _inplace_activation(d: Draw, name: str) -> None:
    """The in-place forms, on a tensor made by an op (or, now and then, on a leaf that
    requires grad, which they refuse) or on a view of one."""
    x = d.leaf([d.int(0 if d.chance(0.05) else 1, 4) for _ in range(d.int(0, 3))],
               kind=d.pick(["normal", "kinks"]))
    target = x
    if d.bad(True, False, p=0.4):
        target = Name(d.fresh("h"))
        d.line(f"{target} = {x} * 1")
        if d.chance(0.2):
            d.line(f"{target} = {target}.unsqueeze(0)[0]")  # a view: its base is rebased
        d.case.after.append(str(x))
    kwargs = {k: d.pick(v) for k, v in INPLACE_ACTIVATIONS[name].items() if d.chance(0.6)}
    args = [target]
    if name == "threshold_":
        args += [d.pick([0.0, 0.5, -1.0]), d.pick([0.0, -2.0, 3.0])]
    if name == "rrelu_":
        kwargs["training"] = False
    d.call(f"F.{name}", *args, **kwargs)


@op("activation", "prelu", "glu")
def _prelu_glu(d: Draw, name: str) -> None:
    shape = [d.int(1, 4) for _ in range(d.int(1 if name == "glu" else 0, 3))]
    if name == "glu":
        dim = d.int(-len(shape), len(shape) - 1)
        shape[dim] = d.bad(2 * d.int(1, 2), 3, p=0.3)
        x = d.leaf(shape, kind="kinks")
        d.call("F.glu", x, *([dim] if d.chance(0.7) else []))
        return
    x = d.leaf(shape, kind="kinks")
    channels = shape[1] if len(shape) >= 2 else (shape[0] if shape else 1)
    w = d.leaf([d.pick([1, d.bad(channels, channels + 1)])])
    d.call("F.prelu", x, w)


@op("softmax", "softmax", "softmin", "log_softmax")
def _softmax(d: Draw, name: str) -> None:
    shape = [d.int(0 if d.chance(0.05) else 1, 4) for _ in range(d.int(0, 3))]
    x = d.leaf(shape)
    ndim = max(len(shape), 1)
    kwargs: dict = {"dim": d.bad(d.int(-ndim, ndim - 1), ndim)}
    d.maybe(kwargs, "dtype", Name(f"torch.{d.pick(['float64', 'float32'])}"), p=0.4)
    d.call(f"F.{name}", x, **kwargs)


@op("attention", "scaled_dot_product_attention")
def _sdpa(d: Draw, name: str) -> None:
    batch = [d.int(1, 2) for _ in range(d.int(0, 2))]
    length, source, e, ev = d.int(1, 4), d.int(1, 4), d.int(1, 3), d.int(1, 3)
    q = d.leaf(batch + [length, e])
    k = d.leaf(batch + [source, d.bad(e, e + 1, p=0.2)])
    v = d.leaf(batch + [source, ev])
    kwargs: dict = {}
    if d.chance(0.4):
        if d.chance(0.5):
            kwargs["attn_mask"] = d.mask(d.pick([[length, source], [1, source],
                                                 batch + [length, source]]))
        else:
            kwargs["attn_mask"] = d.leaf(d.pick([[length, source], [source]]), grad=False)
    if d.chance(0.3) or ("attn_mask" not in kwargs and d.chance(0.2)):
        kwargs["is_causal"] = True
    d.maybe(kwargs, "scale", d.pick([0.5, 2.0]), p=0.3)
    d.call("F.scaled_dot_product_attention", q, k, v, **kwargs)


# ---- distances and linear maps


@op("distance", "cosine_similarity", "pairwise_distance")
def _pairwise(d: Draw, name: str) -> None:
    shape = d.batch() + [d.int(1, 4)]
    x1 = d.leaf(shape)
    x2 = d.leaf(d.pick([shape, [1] * (len(shape) - 1) + shape[-1:],
                        shape[:-1] + [d.bad(shape[-1], shape[-1] + 1, p=0.3)]]))
    kwargs: dict = {}
    if name == "cosine_similarity":
        d.maybe(kwargs, "dim", d.int(-len(shape), len(shape) - 1), p=0.5)
        d.maybe(kwargs, "eps", d.pick([1e-8, 0.5]), p=0.3)
    else:
        d.maybe(kwargs, "p", d.pick([1.0, 2.0, 3.0, math.inf, 0.0]), p=0.5)
        d.maybe(kwargs, "eps", d.pick([1e-6, 0.5]), p=0.3)
        d.maybe(kwargs, "keepdim", True, p=0.3)
    d.call(f"F.{name}", x1, x2, **kwargs)


@op("distance", "pdist", "cdist")
def _pdist(d: Draw, name: str) -> None:
    n, m = d.int(0 if d.chance(0.1) else 1, 4), d.int(1, 3)
    kwargs: dict = {}
    if name == "pdist":
        x = d.leaf([max(n, 1), m])  # (PyTorch 2.13 crashes differentiating pdist of 0 rows)
        d.maybe(kwargs, "p", d.bad(d.pick([1.0, 2.0, 3.0, math.inf, 0.0]), -1.0), p=0.6)
        d.call("F.pdist", x, **kwargs)
        return
    batch = d.pick([[], [2]])
    x1 = d.leaf(batch + [n, m])
    x2 = d.leaf(batch + [d.int(1, 3), d.bad(m, m + 1, p=0.2)])
    d.maybe(kwargs, "p", d.bad(d.pick([1.0, 2.0, 3.0, math.inf, 0.0]), -1.0), p=0.6)
    d.call("torch.cdist", x1, x2, **kwargs)


@op("linear", "linear", "bilinear")
def _linear(d: Draw, name: str) -> None:
    batch = [d.int(0 if d.chance(0.1) else 1, 3) for _ in range(d.int(0, 2))]
    i, o = d.int(1, 3), d.int(1, 3)
    kwargs: dict = {}
    if name == "linear":
        x = d.leaf(batch + [i])
        w = d.leaf(d.pick([[o, d.bad(i, i + 1, p=0.2)], [i]]))
        d.maybe(kwargs, "bias", d.leaf([o]), p=0.5)
        d.call("F.linear", x, w, **kwargs)
        return
    j = d.int(1, 3)
    x1, x2 = d.leaf(batch + [i]), d.leaf(batch + [d.bad(j, j + 1, p=0.2)])
    w = d.leaf([o, i, j])
    d.maybe(kwargs, "bias", d.leaf([o]), p=0.5)
    d.call("F.bilinear", x1, x2, w, **kwargs)


# --------------------------------------------------------------------------- drawing

def draw(seed: int, ops: list[str] | None = None) -> Case:
    """The case of ``seed`` (reproducible: the same seed and ops give the same source)."""
    names = sorted(ops or set(OPS) - EXTRA)
    name = random.Random(seed).choice(names)
    family, fn = OPS[name]
    d = Draw(seed, name)
    d.case.family = family
    fn(d, name)
    return d.case


# --------------------------------------------------------------------------- known skips
#
# Differences that are known and explained (reason, test). The test sees the case, the
# mismatch's category and both runs' steps at the first difference.

SKIPS: list = [
    # PyTorch 2.13's reflection_pad2d/3d do not check the size that negative pads leave
    # (reflection_pad1d does: "input (W: 3) is too small. Calculated output W: -1"): a
    # negative size reaches the allocation, which reports "numel: integer multiplication
    # overflow"; teachgrad names the negative dimension instead (seed 519826).
    ("PyTorch quirk: 2-d/3-d reflection pad leaves a negative output size unchecked",
     lambda case, cat, t, o: cat == "error message" and case.op == "pad"
     and case.kwargs.get("mode") == "reflect"
     and core._torch_error(t, "^numel: integer multiplication overflow$")
     and "Trying to create tensor with negative dimension" in o.payload[1]),
    # PyTorch 2.13's group_norm backward with a bias and no weight fails ("tensor does not
    # have a device"); teachgrad differentiates.
    ("PyTorch quirk: group_norm backward with bias and no weight",
     lambda case, cat, t, o: cat == "torch raised only" and case.op == "group_norm"
     and core._torch_error(t, "tensor does not have a device")),
    # PyTorch 2.13 picks a convolution kernel by the arguments (oneDNN for a batch of more
    # than one or for groups, its own loops otherwise), and the kernels disagree where the
    # output would be empty or the dilation is 0: oneDNN returns a 0-sized output, fails
    # with "could not construct a memory descriptor" or says "non-positive dilation" (or,
    # with a zero dilation and a weight of another dtype, names the dtypes first: seed
    # 186183, where one sample says "dilation should be greater than zero");
    # teachgrad gives PyTorch's own kernel's answer ("Output size is too small", "but got
    # [...]"), the same whatever the batch size.
    ("PyTorch quirk: oneDNN's answers for an empty output or a zero dilation",
     lambda case, cat, t, o: case.family == "conv" and (
         core._torch_error(t, "could not construct a memory descriptor|non-positive "
                              "dilation is not supported")
         or (cat == "error message" and core._torch_error(t, "or input should be a MKLDNN")
             and o.payload[1].startswith("dilation should be greater than zero"))
         or (cat == "teachgrad raised only" and "Output size is too small" in o.payload[1]
             and "transpose" in case.op))),
    # max_unpool with indices that do not fit the output: PyTorch 2.13's threads (one per
    # group of planes) each remember the last bad index they met, and whichever writes
    # last is named. teachgrad names the last one of all, PyTorch's answer on one thread
    # (torch.set_num_threads(1)).
    ("PyTorch quirk: which invalid max_unpool index is named depends on its threads",
     lambda case, cat, t, o: cat == "error message" and case.op.startswith("max_unpool")
     and core._torch_error(t, "^Found an invalid max index: ")
     and re.sub(r"\d+ \(", "(", t.payload[1]) == re.sub(r"\d+ \(", "(", o.payload[1])),
    # PyTorch 2.13's hardsigmoid backward multiplies by float(1/6) in every dtype: float64
    # gradients carry float32's rounding (3e-8). teachgrad divides by 6.
    ("PyTorch quirk: hardsigmoid's float64 gradient is rounded to float32's 1/6",
     lambda case, cat, t, o: cat == "grad" and case.op == "hardsigmoid"
     and _close(t, o, 1e-6)),
    # PyTorch 2.13's pixel_shuffle backward on an empty batch fails ("returned an invalid
    # gradient ... got [0, 2, 6, 6] but expected shape compatible with [0, 18, 2, 2]").
    ("PyTorch quirk: pixel_shuffle backward on an empty batch",
     lambda case, cat, t, o: cat == "torch raised only" and case.op == "pixel_shuffle"
     and core._torch_error(t, "returned an invalid gradient")),
    # The cause: PyTorch 2.13's pixel_unshuffle returns an empty input as it is (shape
    # [0, 1, 6, 6] for a factor 3, not [0, 9, 2, 2]); teachgrad reshapes it.
    ("PyTorch bug: pixel_unshuffle of an empty tensor keeps its shape",
     lambda case, cat, t, o: cat == "shape" and case.op == "pixel_unshuffle"
     and _has_empty_leaf(case)),
    # PyTorch 2.13's multi(label)_margin_loss of an empty batch (mean or sum) returns whatever
    # its uninitialised output held (1e-19, 7e33 ... one run to the next); teachgrad
    # reduces nothing to nan (mean) or 0 (sum), as PyTorch's other losses do.
    ("PyTorch quirk: multi(label)_margin_loss of an empty batch is uninitialised memory",
     lambda case, cat, t, o: cat == "value" and case.op in ("multi_margin_loss",
                                                             "multilabel_margin_loss")
     and _has_empty_leaf(case)),
    # nn.Conv*d's message lists its padding modes as a Python set, whose order depends on
    # the process's string hashing and on how the set was built: PyTorch's and
    # teachgrad's sets hold the same words but may print them in another order.
    ("Python quirk: a set's printed order (Conv's list of padding modes)",
     lambda case, cat, t, o: cat == "error message" and _same_set_message(t, o)),
    # PyTorch 2.13's fractional_max_pool2d with a float output_ratio and _random_samples
    # fails in its own Python ("object of type 'float' has no len()"); teachgrad pools.
    ("PyTorch bug: fractional_max_pool2d(output_ratio=<float>) with _random_samples",
     lambda case, cat, t, o: case.op == "fractional_max_pool2d"
     and core._torch_error(t, "object of type 'float' has no len")),
    # fractional_max_pool with a kernel size of 0: PyTorch 2.13 returns -inf with made-up
    # indices (its backward then fails an internal assert); teachgrad refuses the size.
    ("PyTorch bug: fractional_max_pool with kernel_size 0",
     lambda case, cat, t, o: cat == "teachgrad raised only"
     and case.op.startswith("fractional_max_pool")
     and "kernel_size must be greater than zero" in o.payload[1]),
    # PyTorch 2.13's group_norm names the *weight's* shape in its message about a bias of
    # the wrong size ("bias of shape [0]" when no weight is given); teachgrad names the
    # bias's shape.
    ("PyTorch bug: group_norm's bias message shows the weight's shape",
     lambda case, cat, t, o: cat == "error message" and case.op == "group_norm"
     and core._torch_error(t, "^Expected bias to be a vector of size equal")
     and re.sub(r"bias of shape \[[\d, ]*\]", "", t.payload[1])
     == re.sub(r"bias of shape \[[\d, ]*\]", "", o.payload[1].split("\nHint:")[0])),
    # PyTorch 2.13's nll_loss backward of a 4-d (or more) non-contiguous input fails
    # ("grad_input must be contiguous"); teachgrad differentiates.
    ("PyTorch bug: nll_loss2d backward of a non-contiguous input",
     lambda case, cat, t, o: cat == "torch raised only" and case.op == "nll_loss"
     and core._torch_error(t, "^grad_input must be contiguous$")),
    # An unbatched input (C,) with a class target of shape (1,) instead of (): PyTorch
    # 2.13's nll_loss forward takes it, its backward refuses it ("size mismatch (got
    # input: [2], target: [1])"); teachgrad differentiates what its forward computed.
    ("PyTorch bug: nll_loss backward refuses the (1,) target its forward took",
     lambda case, cat, t, o: cat == "torch raised only"
     and case.op in ("nll_loss", "cross_entropy")
     and core._torch_error(t, r"^size mismatch \(got input: \[\d+\], target: \[1\]\)$")),
    # A convolution whose output would have a negative size, or whose arguments only the
    # kernel checks (a zero dilation, a transposed output_padding too large), where
    # PyTorch 2.13 runs no kernel of its own (an empty batch) or oneDNN's: it returns an
    # empty result unchecked or fails while shaping it ("only one dimension can be
    # inferred", "numel: integer multiplication overflow", "cannot reshape tensor of 0
    # elements", "invalid shape dimension -3": seed 209174). teachgrad gives its own loops'
    # answer whatever the batch.
    ("PyTorch quirk: unchecked convolution sizes on an empty batch or in oneDNN",
     lambda case, cat, t, o: case.family == "conv" and (
         (cat == "error message" and "Output size is too small" in o.payload[1]
          and core._torch_error(t, "only one dimension can be inferred|numel: integer "
                                   "multiplication overflow|cannot reshape tensor of 0|"
                                   "invalid shape dimension -"))
         or (cat == "teachgrad raised only" and _has_empty_leaf(case)
             and re.search("^(dilation should be greater than zero|output padding must be "
                           "smaller)", o.payload[1]) is not None))),
    # interpolate(antialias=True, scale_factor=s) where a spatial size n stays n (n=2,
    # s=1.3): PyTorch 2.13's forward copies that dimension unchanged, but its backward
    # differentiates the resampling with step 1/s, so its gradient is not the gradient of
    # its output. teachgrad resamples with 1/s (as without antialias, and as PyTorch's
    # backward): its output differs, its gradient is PyTorch's.
    ("PyTorch bug: antialiased interpolate skips a size it keeps, only in forward",
     lambda case, cat, t, o: cat == "value" and case.op == "interpolate"
     and _antialias_keeps_a_size(case)),
    # Circular padding with a negative pad on one side and more than what is left on the
    # other ((2, -2) of 3 values): PyTorch 2.13 copies the border from an overlapping
    # slice of its own output. Where the slices are contiguous its copy_ refuses the
    # overlap (teachgrad's answer always); otherwise (a 2-d input) it copies without the
    # check and returns uninitialised memory (seeds 39425, 64435).
    # With another dimension padded as well ((2, -1, -2, 2) of a 3x3 image), the 4-d copy
    # is unchecked too: PyTorch's widened border holds uninitialised memory (a new value
    # each run: -1.5e-308, 4.8e+233, 0 - seed 214294); padding that dimension alone gives
    # the repeated middle, teachgrad's answer.
    # And where the border repeats the cropped middle of one dimension while another is
    # cropped ((0, 1, -2, 3, -1, 0) of a 1x2x4x4 input), PyTorch's overlap check refuses
    # the copy (as it does (0, 1, -2, 3) of one 4x4 plane, and not of two): teachgrad
    # computes what PyTorch gives for the two planes, cropped after (seed 236171).
    ("PyTorch bug: circular pad copying between overlapping slices of its output",
     lambda case, cat, t, o: case.op == "pad" and case.kwargs.get("mode") == "circular" and (
         (cat == "teachgrad raised only" and "refer to a single memory location" in o.payload[1])
         or (cat == "torch raised only" and "refer to a single memory location" in t.payload[1]
             and _circular_border_repeats(case))
         or (cat == "value" and _circular_border_repeats(case)
             and sum(p != 0 for p in case.args[1]) > 2))),
    # The same pads where PyTorch does copy (a 4-d input, (0, -1, -2, 2) of height 3): the
    # right border is wider than the cropped middle, so it repeats the middle, as PyTorch's
    # element-by-element copy does; teachgrad's gradient is the derivative of those values
    # (gradcheck), PyTorch's reads the copied border as a snapshot and counts one copy
    # fewer (the sixteenth session's circular-pad fix; seed 180170).
    ("PyTorch bug: circular pad's gradient misses the repeats of a border wider than the "
     "cropped middle",
     lambda case, cat, t, o: cat == "grad" and case.op == "pad"
     and case.kwargs.get("mode") == "circular" and _circular_border_repeats(case)),
    # lp_pool with an odd p sums x^p over a window and keeps sign(s)·relu(|s|): where the
    # sum cancels to 0 in exact arithmetic (0.019 + 1.407 - 0.293 - 1.133), float32
    # rounding decides between PyTorch's exact 0 (no gradient) and teachgrad's -9e-8 (a
    # full gradient). teachgrad averages a window along the rows, then the columns (one
    # separable map per axis); PyTorch adds its cells in one loop. Outputs agree within
    # tolerance, gradients of such windows do not (seed 64493).
    ("float32 rounding of a window sum that cancels, at lp_pool's sign()",
     lambda case, cat, t, o: cat == "grad" and case.op.startswith("lp_pool")
     and len(case.args) > 1 and isinstance(case.args[1], int | float)
     and float(case.args[1]) % 2 == 1
     and any(re.search(r"\[.*-\d", st.source) for st in case.setup)),  # (a negative value)
    # Antialiased bilinear/bicubic interpolate to an output width of 1: PyTorch 2.13
    # repeats its first output row down the whole height ((5, 1) -> (6, 1) gives six
    # copies of row 0; a width of 3 resamples right); teachgrad resamples every row
    # (seeds 77952, 98012).
    ("PyTorch bug: antialiased interpolate to width 1 repeats the first row",
     lambda case, cat, t, o: cat in ("value", "grad") and case.op == "interpolate"
     and _antialias_to_width_one(case)),
    # reflect (or replicate) padding whose negative pads leave a dimension empty (depth 2
    # padded by (-1, -1)): the output has no elements, and PyTorch 2.13's backward returns
    # an uninitialised gradient (4e-310, 1e+243 ... one run to the next) where teachgrad's
    # is 0 (seed 94756).
    ("PyTorch bug: reflect/replicate pad backward of an empty output is uninitialised",
     lambda case, cat, t, o: cat == "grad" and case.op == "pad"
     and case.kwargs.get("mode") in ("reflect", "replicate") and _pad_empties(case)),
    # The same for nearest in 1-d and 3-d, the other way round: PyTorch 2.13's forward
    # resamples a size n that a scale factor s keeps (n=3, s=1.3: [x0, x0, x1]), its
    # backward passes the gradient through unchanged (as if the output were the input;
    # 2-d nearest copies in both). teachgrad's gradient is that of its output, which is
    # PyTorch's (seeds 58875, 69487).
    ("PyTorch bug: 1-d/3-d nearest interpolate keeping a size copies only in backward",
     lambda case, cat, t, o: cat == "grad" and case.op == "interpolate"
     and _nearest_keeps_a_size(case)),
    # And bicubic keeping every size (3x3 at scale 1.3): its forward resamples, its
    # backward passes the gradient through (focused seed 200903; bilinear copies in both).
    ("PyTorch bug: bicubic interpolate keeping every size copies only in backward",
     lambda case, cat, t, o: cat == "grad" and case.op == "interpolate"
     and _bicubic_keeps_every_size(case)),
    # A normalisation over groups of one element (or of equal values): the output is 0
    # and its gradient 0 up to PyTorch's float32 rounding, which 1/sqrt(eps) magnifies to
    # 1e-4 (the gradient) or 3e-5 (the output: its rounding error times 1/sqrt(1e-5) and
    # the weight); teachgrad's zeros are exact.
    ("float32 rounding magnified by 1/sqrt(eps) in a normalisation of constant groups",
     lambda case, cat, t, o: case.family == "norm" and (
         (cat == "grad" and _close(t, o, 1e-3)) or (cat == "value" and _close(t, o, 1e-4)))),
]


def _spatial_tuple(value, nd: int) -> tuple:
    return tuple(value) if isinstance(value, tuple | list) else (value,) * nd


def _max_pool_window_in_padding(case: Case) -> bool:
    """Does a max_pool output window lie wholly in the padding (a dilated window, e.g.
    height 1, padding 1, kernel 2, dilation 2: rows -1 and 1)?"""
    if not case.op.startswith("max_pool") or len(case.args) < 2:
        return False
    shape = _leaf_shape(case, str(case.args[0]))
    nd = int(case.op[-2])
    kw = case.kwargs
    try:
        kernel = _spatial_tuple(case.args[1], nd)
        stride = _spatial_tuple(kw.get("stride") or case.args[1], nd)
        padding = _spatial_tuple(kw.get("padding", 0), nd)
        dilation = _spatial_tuple(kw.get("dilation", 1), nd)
        if shape is None or min(kernel + stride + dilation) <= 0 or min(padding) < 0:
            return False
        for n, k, st, p, dil in zip(shape[-nd:], kernel, stride, padding, dilation):
            extra = st - 1 if kw.get("ceil_mode") else 0
            outs = (n + 2 * p - dil * (k - 1) - 1 + extra) // st + 1
            if kw.get("ceil_mode") and (outs - 1) * st >= n + p:
                outs -= 1
            for o in range(outs):
                if all(not 0 <= o * st - p + j * dil < n for j in range(k)):
                    return True
    except (TypeError, ValueError, IndexError):
        return False
    return False


# Cases that are not run at all: PyTorch 2.13 corrupts its heap on them (the process dies
# later, in "free(): invalid next size" or "munmap_chunk(): invalid pointer").
NOT_RUN: list = [
    # A max_pool window wholly in the padding: PyTorch's output is -inf and its index
    # points outside the input's plane (height 1: index 7 of 6 values); backward adds the
    # gradient there, into other memory. teachgrad's index stays inside the plane, and
    # no gradient flows from such a window.
    ("PyTorch bug: max_pool window wholly in the padding writes outside the input in "
     "backward", _max_pool_window_in_padding),
]


def _has_empty_leaf(case: Case) -> bool:
    """Does one of the case's leaves have a dimension of size 0?"""
    return any(re.search(r"\.reshape\(\(([^)]*\b)?0\b", st.source) for st in case.setup)


def _leaf_shape(case: Case, name: str) -> tuple | None:
    """The shape of a leaf (or of its transposed view) the case's setup made, if known."""
    for st in case.setup:
        made = re.match(rf"{name} = torch\.tensor\(.*\)\.reshape\(\(([\d, ]*)\)\)",
                        st.source)
        if made:
            return tuple(int(n) for n in made.group(1).split(",") if n.strip())
        view = re.match(rf"{name} = (\w+)\.transpose\(-1, -2\)$", st.source)
        if view:
            shape = _leaf_shape(case, view.group(1))
            return None if shape is None else shape[:-2] + (shape[-1], shape[-2])
    return None


def _antialias_to_width_one(case: Case) -> bool:
    """Is an antialiased interpolate's output 1 wide (and more than 1 high)?"""
    kw = case.kwargs
    shape = _leaf_shape(case, str(case.args[0])) if case.args else None
    if not kw.get("antialias") or shape is None or len(shape) != 4:
        return False
    if "size" in kw:
        size = kw["size"]
        height, width = (size, size) if isinstance(size, int) else size
    else:
        factors = kw.get("scale_factor")
        factors = factors if isinstance(factors, tuple) else (factors, factors)
        try:
            height, width = (math.floor(n * f) for n, f in zip(shape[2:], factors))
        except TypeError:
            return False
    return width == 1 and height > 1


def _pad_empties(case: Case) -> bool:
    """Do a pad's negative pads leave some dimension of its output with no elements?"""
    shape = _leaf_shape(case, str(case.args[0])) if len(case.args) > 1 else None
    pads = case.args[1] if len(case.args) > 1 else ()
    if shape is None or not isinstance(pads, tuple) or len(pads) % 2 or \
            len(pads) // 2 > len(shape):
        return False
    sizes = list(reversed(shape))  # (pads list the last dimension first)
    return any(sizes[k] + pads[2 * k] + pads[2 * k + 1] == 0 for k in range(len(pads) // 2))


def _circular_border_repeats(case: Case) -> bool:
    """Does a circular pad crop one side of a dimension and add on the other a border wider
    than what is left (so the border repeats the cropped middle)?"""
    shape = _leaf_shape(case, str(case.args[0])) if len(case.args) > 1 else None
    pads = case.args[1] if len(case.args) > 1 else ()
    if shape is None or not isinstance(pads, tuple) or len(pads) % 2 or \
            len(pads) // 2 > len(shape):
        return False
    sizes = list(reversed(shape))  # (pads list the last dimension first)
    return any(pads[2 * k] < 0 < pads[2 * k + 1] and pads[2 * k + 1] > sizes[k] + pads[2 * k]
               for k in range(len(pads) // 2))


def _antialias_keeps_a_size(case: Case) -> bool:
    """Does an antialiased interpolate by a scale factor (not 1) keep some size n?"""
    return bool(case.kwargs.get("antialias")) and _scale_keeps_a_size(case)


def _bicubic_keeps_every_size(case: Case) -> bool:
    """Does a bicubic interpolate by scale factors (one not 1) keep every size?"""
    kw = case.kwargs
    shape = _leaf_shape(case, str(case.args[0])) if case.args else None
    if kw.get("mode") != "bicubic" or shape is None or len(shape) != 4 \
            or not _scale_keeps_a_size(case):
        return False
    factors = kw["scale_factor"]
    factors = factors if isinstance(factors, tuple) else (factors, factors)
    return all(math.floor(n * s) == n for n, s in zip(shape[2:], factors))


def _nearest_keeps_a_size(case: Case) -> bool:
    """Does a 1-d or 3-d nearest interpolate by a scale factor (not 1) keep some size n?"""
    shape = _leaf_shape(case, str(case.args[0])) if case.args else None
    return (case.kwargs.get("mode", "nearest") == "nearest" and shape is not None
            and len(shape) in (3, 5) and _scale_keeps_a_size(case))


def _scale_keeps_a_size(case: Case) -> bool:
    """Does an interpolate by a scale factor (not 1) keep some size n (n=2, s=1.3)?"""
    kw = case.kwargs
    if "scale_factor" not in kw or kw.get("recompute_scale_factor") \
            or kw.get("align_corners") or not case.args:
        return False
    shape = _leaf_shape(case, str(case.args[0]))
    if shape is None:
        return False
    sizes = shape[2:]
    factors = kw["scale_factor"]
    if not isinstance(factors, tuple):
        factors = (factors,) * len(sizes)
    return any(s != 1 and math.floor(n * s) == n for n, s in zip(sizes, factors))


_SET = re.compile(r"\{([^{}]*)\}")


def _same_set_message(theirs, ours) -> bool:
    """Do two error messages differ only in the order of a printed set's elements?"""
    if theirs.kind != "exc" or ours.kind != "exc":
        return False
    t, o = theirs.payload[1], ours.payload[1].split("\nHint:")[0]

    def elements(match):
        return "{" + ", ".join(sorted(match.group(1).split(", "))) + "}"

    return "{" in t and _SET.sub(elements, t) == _SET.sub(elements, o)


def _close(theirs, ours, atol: float) -> bool:
    """Do two steps' tensors agree to ``atol`` (absolute)?"""
    if theirs is None or ours is None or theirs.kind != "ok" or ours.kind != "ok":
        return False
    import numpy as np
    for t, o in zip(theirs.payload, ours.payload):
        if t[0] != "tensor" or o[0] != "tensor" or t[5] is None or o[5] is None:
            continue
        if t[5].shape != o[5].shape or not np.allclose(t[5], o[5], rtol=1e-6, atol=atol,
                                                       equal_nan=True):
            return False
    return True


def known_reason(case: Case, category: str, theirs, ours) -> str | None:
    for reason, test in SKIPS:
        if test(case, category, theirs, ours):
            return reason
    return None


# --------------------------------------------------------------------------- comparing


def compare(case: Case, torch, teachgrad):
    """(statement index, category, detail) of the first difference, or None."""
    statements = case.statements()
    found = core._first_difference(statements, torch, teachgrad)
    if found is None:
        return None
    index, category, detail, theirs, ours = found
    reason = known_reason(case, category, theirs, ours)
    return (index, f"skipped: {reason}", detail) if reason else (index, category, detail)


def shrink(case: Case, found, torch, teachgrad) -> tuple[Case, tuple]:
    """Drop keyword arguments (and the backward) while the same kind of difference stays."""
    category = found[1]
    op_at = case.statements()[found[0]].op

    def same(trial: Case):
        try:
            again = compare(trial, torch, teachgrad)
        except Exception:  # noqa: BLE001 - a trial that breaks the harness is not kept
            return None
        if again and again[1] == category and trial.statements()[again[0]].op == op_at:
            return again
        return None

    current = case
    if op_at != "backward":
        trial = _copy(current, backward=False)
        again = same(trial)
        if again:
            current, found = trial, again
    for key in list(current.kwargs):
        trial = _copy(current, kwargs={k: v for k, v in current.kwargs.items() if k != key})
        again = same(trial)
        if again:
            current, found = trial, again
    return current, found


def _copy(case: Case, **changes) -> Case:
    fields = dict(case.__dict__)
    fields.update(changes)
    return Case(**fields)


def program(case: Case, mark: int | None = None) -> str:
    return core.program_source(case.statements(), mark=mark)


def fuzz(seeds, torch, teachgrad, ops=None, verbose=False, out=sys.stdout):
    """Run the cases of ``seeds``; returns (mismatches, Counter of skipped reasons, Counter
    of cases per op). Each mismatch is (seed, category, op, family, source, detail)."""
    mismatches, skipped, cases = [], collections.Counter(), collections.Counter()
    for seed in seeds:
        case = draw(seed, ops)
        cases[case.op] += 1
        crash = next((reason for reason, test in NOT_RUN if test(case)), None)
        found = (0, f"skipped: not run: {crash}", "") if crash else compare(case, torch,
                                                                           teachgrad)
        if verbose:
            print(f"# seed {seed} {case.op}: {'ok' if not found else found[1]}", file=out)
        if not found:
            continue
        if found[1].startswith("skipped: "):
            skipped[found[1].removeprefix("skipped: ")] += 1
            continue
        small, (index, category, detail) = shrink(case, found, torch, teachgrad)
        source = program(small, mark=index)
        mismatches.append((seed, category, case.op, case.family, source, detail))
        print(f"\n=== seed {seed}: {category} at {case.op}\n{source}\n--- {detail}", file=out)
    return mismatches, skipped, cases


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0:500", help="START:STOP, as a range")
    parser.add_argument("--ops", default=None, help="comma-separated op names to draw from")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    import torch

    import teachgrad

    # one thread: PyTorch's answer to a bad max_unpool index is then the same every run
    torch.set_num_threads(1)
    start, stop = (int(s) for s in args.seeds.split(":"))
    ops = args.ops.split(",") if args.ops else None
    unknown = [o for o in ops or [] if o not in OPS]
    if unknown:
        parser.error(f"unknown ops {unknown}; known: {sorted(OPS)}")
    mismatches, skipped, cases = fuzz(range(start, stop), torch, teachgrad, ops,
                                      args.verbose)
    print(f"\n{stop - start} cases, {len(mismatches)} mismatches, "
          f"{sum(skipped.values())} known differences skipped")
    for reason, count in skipped.most_common():
        print(f"  skipped  {reason:60} {count}")
    for label, key in (("category", 1), ("family", 3), ("op", 2)):
        counts = collections.Counter(m[key] for m in mismatches)
        for name, count in counts.most_common():
            total = f" of {cases[name]}" if label == "op" else ""
            print(f"  {label:8} {name:34} {count}{total}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
