"""Differential testing: random small programs run with PyTorch and with teachgrad.

Hand-written tests check the cases someone thought of; this script checks the ones nobody
did. From a seed it generates a small straight-line program -- a few leaves of random
shapes (0-d to 4-d, size-1 and size-0 dimensions) and dtypes (float32, float64, int64,
bool, Python scalars), with ``inf``/``nan``/``0``/negative values at random positions,
then a few ops drawn from ~130 (pointwise math, comparisons, reductions, shape ops,
indexing, matmul, softmax, in-place ops on non-leaves and their views, ``detach``,
``no_grad``), then ``.backward()`` on a reduction and, for some programs, second
derivatives through ``autograd.grad(create_graph=True)``.

The program is generated while running it with PyTorch (so an op can look at its
operands' shapes and dtypes), then run afresh twice, once with ``torch`` the real PyTorch
and once with ``torch`` bound to teachgrad, statement by statement. After each statement
the tensors it made or changed are described -- values, dtype, shape, ``requires_grad``,
``grad_fn`` name -- and so are an exception's type and message (``teachgrad`` read as
``torch``; teachgrad may add one ``Hint:`` line). The first statement whose descriptions
differ is a mismatch; its category is what differed. The program is then shrunk (each
statement dropped in turn while the mismatch stays) and printed as Python source.

Run ``python tests/fuzz_against_torch.py --seeds 0:2000 [--ops NAME,...] [--verbose]``;
``--ops`` draws only those ops (by the names in the summary). Known, deliberate
differences are skipped where the program is generated, each with a comment naming why
(``SKIPS`` below), so a clean run means something.
"""

from __future__ import annotations

import argparse
import collections
import math
import random
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# --------------------------------------------------------------------------- programs


@dataclass
class Statement:
    """One line of a program, and the names whose values it makes or changes."""

    source: str
    op: str
    describe: list[str] = field(default_factory=list)
    program: str = ""  # the program up to here (filled in when a mismatch is judged)
    # did PyTorch's values up to here hold an inf or a nan (filled in with program): a
    # nan made by an op (log of a negative number) counts as much as a literal one
    nonfinite: bool = False


@dataclass
class Var:
    """What the generator knows about a variable (read from PyTorch while generating)."""

    name: str
    shape: tuple
    dtype: str  # "float32", "float64", "int64", "bool"
    requires_grad: bool
    is_leaf: bool

    @property
    def is_float(self) -> bool:
        return self.dtype in ("float32", "float64")

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


PRELUDE = "nan = float('nan')\ninf = float('inf')\n"


def program_source(statements: list[Statement], library: str = "torch",
                   mark: int | None = None) -> str:
    """The program as a script a learner could paste (``library``: which torch to import)."""
    head = "import torch\n" if library == "torch" else "import teachgrad as torch\n"
    lines = [head + PRELUDE.rstrip("\n")]
    for i, s in enumerate(statements):
        lines.append(s.source + ("  # <-- differs here" if i == mark else ""))
    return "\n".join(lines)


# --------------------------------------------------------------------------- describing


def statements_of(source: str) -> list[str]:
    """A program's statements from its source (an indented line continues the one before):
    how the tests read back the shrunk programs the fuzzers printed."""
    out: list[str] = []
    for line in source.splitlines():
        if line.startswith((" ", "\t")):
            out[-1] += "\n" + line
        else:
            out.append(line)
    return out


def _normalise_message(message: str) -> str:
    """Hide what differs by design: teachgrad's own name, its one trailing Hint line."""
    message = re.sub(r"\nHint: .*\Z", "", message, flags=re.S)
    return message.replace("teachgrad", "torch")


def describe(value, lib) -> object:
    """A comparable description of a statement's result (tensors by value and metadata)."""
    if isinstance(value, lib.Tensor):
        fn = value.grad_fn
        data = None
        if value.dtype is not lib.float16:
            # PyTorch's ZeroTensor (an all-zero gradient it did not materialise) needs force,
            # and a view of one (cat's gradient for its second input, after sgn) crashes
            # PyTorch 2.13's numpy(force=True) with a segmentation fault (seed 109822):
            # such a tensor is read as zeros.
            zero = getattr(value, "_is_zerotensor", None)
            if zero is not None and zero():
                data = np.zeros(tuple(value.shape), str(value.dtype).split(".")[-1])
            else:
                data = value.detach().numpy(force=True).copy()
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape),
                bool(value.requires_grad), None if fn is None else fn.name(), data)
    if isinstance(value, (tuple, list)):
        return ("seq", type(value).__name__ if type(value).__name__ not in ("list", "tuple")
                else "seq", [describe(v, lib) for v in value])
    if value is None:
        return ("none",)
    if isinstance(value, (bool, int, float)):
        return ("number", type(value).__name__, value)
    return ("other", type(value).__name__)


TOLERANCE = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-12), "float16": (1e-2, 1e-3)}


def _values_close(a: np.ndarray, b: np.ndarray, dtype: str, loose: bool) -> bool:
    if a.shape != b.shape:
        return False
    if dtype not in TOLERANCE:
        return bool(np.array_equal(a, b))
    # A float64 value computed from float32 ones (a float64 0-d tensor does not promote a
    # float32 one, and its gradient is computed in float32) has float32's precision.
    rtol, atol = TOLERANCE["float32" if loose and dtype == "float64" else dtype]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    scale = max(1.0, float(np.max(np.abs(a64[np.isfinite(a64)]), initial=0.0)))
    return bool(np.allclose(a64, b64, rtol=rtol, atol=atol * scale, equal_nan=True))


def difference(theirs, ours, what: str = "value", loose: bool = False) -> str | None:
    """The category of the first difference between two descriptions, or None."""
    if theirs[0] != ours[0]:
        return "kind"
    kind = theirs[0]
    if kind == "tensor":
        _, t_dtype, t_shape, t_rg, t_fn, t_data = theirs
        _, o_dtype, o_shape, o_rg, o_fn, o_data = ours
        if t_dtype != o_dtype:
            return "dtype"
        if t_shape != o_shape:
            return "shape"
        if t_data is not None and o_data is not None and not _values_close(t_data, o_data,
                                                                          t_dtype, loose):
            return what
        if t_rg != o_rg:
            return "requires_grad"
        if t_fn != o_fn:
            return "grad_fn"
        return None
    if kind == "seq":
        if theirs[1] != ours[1] or len(theirs[2]) != len(ours[2]):
            return "kind"
        for t, o in zip(theirs[2], ours[2]):
            d = difference(t, o, what, loose)
            if d:
                return d
        return None
    if kind == "number":
        if theirs[1] != ours[1]:
            return "dtype"
        a, b = theirs[2], ours[2]
        if a == b or (isinstance(a, float) and math.isclose(a, b, rel_tol=1e-6)) or (
                a != a and b != b):
            return None
        return what
    return None if theirs == ours else "kind"


# --------------------------------------------------------------------------- running


@dataclass
class Step:
    """What one statement did: ("ok", descriptions) or ("exc", type, message)."""

    kind: str
    payload: object


def run_program(statements: list[Statement], lib) -> list[Step]:
    """Run the statements in one namespace with ``torch`` bound to ``lib``; stop at an error."""
    ns: dict[str, object] = {"torch": lib, "nan": math.nan, "inf": math.inf}
    steps = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in statements:
            try:
                exec(compile(s.source, "<program>", "exec"), ns)
            except Exception as e:  # noqa: BLE001 - the error is what we compare
                steps.append(Step("exc", (type(e).__name__, _normalise_message(str(e)))))
                break
            try:
                steps.append(Step("ok", [describe(eval(n, ns), lib) for n in s.describe]))
            except Exception as e:  # noqa: BLE001 - describing failed (e.g. .grad access)
                steps.append(Step("exc", ("describe " + type(e).__name__, str(e))))
                break
    return steps


def _category(statement: Statement) -> str:
    if statement.op.startswith("backward2"):
        return "grad2"
    if statement.op.startswith("backward") or statement.op == "grads":
        return "grad"
    return "value"


# --------------------------------------------------------------------------- known skips
#
# Differences that are known and explained, so that a clean run means something. Each is
# (reason, test): the test sees the statement where the two runs first differ, the
# mismatch category and both steps. Kinds: "deliberate" (README / design notes say so),
# "PyTorch quirk" (PyTorch is wrong or fails; teachgrad keeps the true value), "open"
# (a teachgrad difference found by this script and reported, in code another change
# owns or that would need per-op work on the hot path).


def _torch_error(step, pattern: str) -> bool:
    return step.kind == "exc" and re.search(pattern, step.payload[1]) is not None


SKIPS = [
    # docs/pytorch-compatibility.md: sinc keeps its true derivatives near 0, so its
    # first-order gradient under create_graph is a product (MulBackward0), not PyTorch's
    # where(x == 0, ...) (WhereBackward0).
    ("deliberate: sinc's derivative formula (README)",
     lambda st, cat, t, o: cat == "grad_fn" and st.op.startswith("backward2")
     and re.search(r"\bsinc\(", _program_text(st)) is not None),
    # ... and its second derivative at 0 is -π²/3 (a square of first derivatives there 0),
    # where PyTorch's formula divides 0 by 0: nan.
    ("deliberate: sinc's second derivative at 0 (README)",
     lambda st, cat, t, o: cat == "grad2" and re.search(r"\bsinc\(", st.program) is not None
     and _differs_only_where_torch_is_nan(t, o)),
    # ... and its first derivative near 0 is a power series, where PyTorch's closed form
    # (cos(πa)·πa − sin(πa))/(πa²) cancels: in float32 at a = −0.001 it is 1.5 % off. (A
    # first derivative taken with create_graph=True counts as "grad2": seed 71123.)
    ("deliberate: sinc's first derivative near 0 (README)",
     lambda st, cat, t, o: cat in ("grad", "grad2") and "sinc(" in st.program
     and "float32" in st.program),
    # PyTorch checks the memory an in-place op reads against what it writes only for
    # tensors filling a block of memory (contiguous, or permuted); where the written
    # tensor overlaps an operand otherwise (a[:, 1:].addcdiv_(a[:, :2], ...)) or itself
    # (an unfold with step < size, an as_strided with overlapping strides), it computes
    # anyway, with results that depend on the order it writes in (focused seeds 171, 216).
    # teachgrad reads every operand before it writes.
    ("PyTorch quirk: an in-place op on memory overlapping in a way it does not check",
     lambda st, cat, t, o: cat == "value" and _overlapping_inplace(st)),
    # index_put_ (x[idx] = v), masked_fill_ and index_fill_ on an expanded tensor: PyTorch
    # 2.13 writes the selected memory with a deprecation warning ("Use of index_put_ on
    # expanded tensors is deprecated"), several selected elements sharing one number in
    # write order. teachgrad does too now (seed 197950: an empty index into v =
    # a.expand(2, 2, 2, 2)), but not when autograd records the write: it refuses then,
    # as for every other in-place op.
    ("open: index_put_/masked_fill_/index_fill_ on an expanded tensor, recorded",
     lambda st, cat, t, o: cat == "teachgrad raised only" and re.search(
         r"\]\s*=|index_put_\(|masked_fill_\(|index_fill_\(", st.source) is not None
     and _torch_error(o, "more than one element of the written-to tensor")
     and re.search(r"expand\(|as_strided\(", st.program) is not None),  # (2296: stride 0)
    # index_put_ of a one-element value of shape [1, 1] through a mask (run as masked_fill_
    # with the number): PyTorch 2.13's backward then gives the value the masked gradient,
    # of shape [n], and refuses its own ("CopySlices returned an invalid gradient at index
    # 1 - got [3] but expected shape compatible with [1, 1]", seed 251 of --ops index_put_).
    # teachgrad's gradient has the value's shape.
    ("PyTorch quirk: index_put_ of a [1, 1] value through a mask fails in backward",
     lambda st, cat, t, o: cat == "torch raised only" and _torch_error(
         t, r"returned an invalid gradient at index \d+ - got \[\d+\] but expected shape "
            r"compatible with \[1(, 1)+\]")
     and re.search(r"index_put_\(|\]\s*=", st.program) is not None),
    # The sign of an exact zero out of a matrix product depends on the kernel PyTorch
    # picks by size (its BLAS sums some from -0: mm of a (2, 1) and a (1, 2) gives
    # 0.0 · -0.0 = -0; NumPy sums from +0); a reciprocal then turns it into -inf or inf
    # (seed 223935). addmv/addmm follow PyTorch's usual kernels (see
    # linalg.blas_signed_zeros), mm of a single-term product (k = 1) its gemm; other
    # mm/matmul zeros and nn.Linear's addmm are left to NumPy, on the hot path.
    ("open: the sign of a zero out of a matrix product",
     lambda st, cat, t, o: cat in ("value", "grad", "grad2") and re.search(
         r"\b(mm|matmul|mv|bmm|dot|addmm|addmv|einsum)\(|@", st.program) is not None
     and _differs_only_in_sign(t, o)),
    # PyTorch's derivative of pow in the exponent is where(base == 0 & exponent >= 0, 0,
    # result·log(base)): differentiated again, the branch not taken gets a zero gradient,
    # and 0·log(0) = nan comes back (seed 24823: False ** -0.0). teachgrad's tensor ** tensor
    # now records that formula under create_graph, nan included (seed 24823 matches); the
    # rule stays for a base that reaches the backward as a plain array, where teachgrad's
    # second derivative there is 0 (0 ** b is constant for b > 0).
    ("PyTorch quirk: pow's second derivative in the exponent at base 0 is nan",
     lambda st, cat, t, o: cat == "grad2" and re.search(r"\*\*|\bpow\(", st.program) is not None
     and _differs_only_where_torch_is_nan(t, o)),
    # nan_to_num turns ±inf into ±3.4e38 (±1.8e308); a sum of several of them overflows or
    # cancels depending on the order of the additions, and PyTorch's vectorised sum adds in
    # another order than NumPy's pairwise one (seeds 25711, 43586). Not reproducible short
    # of copying PyTorch's reduction order.
    ("open: the order of a sum of values near the float's max (nan_to_num of ±inf)",
     lambda st, cat, t, o: cat == "value" and "nan_to_num(" in st.program
     and _nonfinite_program(st)),
    # ... and a derivative at nan_to_num(±inf) = ±1.8e308 squares it: asinh's second
    # derivative -x/(x² + 1)^(3/2) overflows to nan in PyTorch's formula, where its
    # limit, 0, is teachgrad's (seed 239989).
    ("PyTorch quirk: a second derivative at nan_to_num(±inf) overflows to nan",
     lambda st, cat, t, o: cat in ("grad", "grad2") and "nan_to_num(" in st.program
     and _nonfinite_program(st) and _differs_only_where_torch_is_nan(t, o)),
    # PyTorch 2.13's backward of logaddexp/pow with a bool tensor argument subtracts the
    # bool tensor and raises; teachgrad differentiates (the bool input gets no gradient).
    ("PyTorch quirk: backward with a bool operand raises",
     lambda st, cat, t, o: cat in ("torch raised only", "error message")
     and _torch_error(t, r"(Subtraction|Negation), the `-` operator, (with|on) a bool tensor")),
    # PyTorch 2.13's sgn gradient is an immutable "ZeroTensor"; a backward formula that
    # then writes into it in place (std's, after sgn) fails ("ZeroTensors are immutable").
    ("PyTorch quirk: ZeroTensors are immutable",
     lambda st, cat, t, o: cat == "torch raised only"
     and _torch_error(t, "ZeroTensors are immutable")),
    # PyTorch 2.13 fails an internal assert differentiating `False ** x` twice.
    ("PyTorch quirk: INTERNAL ASSERT in double backward",
     lambda st, cat, t, o: cat == "torch raised only" and _torch_error(t, "INTERNAL ASSERT")),
    # PyTorch's sgn/sign backward returns an "efficient zero tensor", and 0-tensor · nan is
    # 0 in its later backward formulas (lgamma(nan).sgn() gives 0); teachgrad's zeros are
    # ordinary, 0 · nan = nan.
    ("PyTorch quirk: ZeroTensor gradients of sgn/sign short-circuit 0·nan",
     lambda st, cat, t, o: cat in ("grad", "grad2") and re.search(r"\.(sgn|sign)\(|"
                                                                  r"torch\.(sgn|sign)\(",
                                                                  st.program) is not None),
    # ... and abs's backward is grad · sgn(x): differentiated again, the sgn's ZeroTensor
    # gradient meets an inf further back (log2(0) under abs_, seed 81902) and gives 0
    # where teachgrad's ordinary zero gives 0 · inf = nan.
    ("PyTorch quirk: ZeroTensor gradient of sgn inside abs's backward short-circuits 0·inf",
     lambda st, cat, t, o: cat == "grad2" and re.search(r"\babs_?\(", st.program) is not None
     and _differs_only_where_ours_is_nan(t, o)),
    # ... and so is the inf-norm's (and the 1-norm's) backward, PyTorch's sgn(a) · ...:
    # differentiated again, that ZeroTensor reaches mv's backward as 0 and 0 · -inf is
    # not computed (seed 273524: mv([[0.]], [-inf]) = nan; the second derivative in the
    # matrix is 0 in PyTorch, nan in teachgrad). Checked: the gradient sgn sends back is
    # a ZeroTensor (_is_zerotensor()), and an ordinary v4 * 0 gives PyTorch's nan too.
    ("PyTorch quirk: ZeroTensor gradient of sgn inside a 1/inf-norm's backward",
     lambda st, cat, t, o: cat == "grad2" and re.search(
         r"norm\(.*\b(p|ord)=(float\('-?inf'\)|1(\.0)?\b)", st.program) is not None
     and _differs_only_where_ours_is_nan(t, o)),
    # trigamma (polygamma(1, x), digamma's derivative) is accurate to about 1e-10 in
    # PyTorch 2.13's float64 kernel (teachgrad's to rounding: at 2.62 PyTorch gives
    # 0.46353976998, the true value is 0.46353976986); a second derivative through
    # digamma magnifies it past the float64 tolerance (seed 89222).
    ("PyTorch quirk: trigamma's float64 accuracy is about 1e-10",
     lambda st, cat, t, o: cat in ("grad", "grad2") and re.search(
         r"(digamma|lgamma|polygamma)\(", st.program) is not None
     and _close_steps(t, o, rtol=1e-6)),
    # ... and near a pole it is further off: trigamma(-2.998) (float32 -2.99799990654) is
    # 249979.64 (mpmath, SciPy, teachgrad); PyTorch 2.13 gives 250035.06 in float32 and
    # 250003.01 in float64, 1e-4 off (digamma's gradient, seed 144159).
    ("PyTorch quirk: trigamma near a pole is 1e-4 off",
     lambda st, cat, t, o: cat in ("grad", "grad2")
     and re.search(r"(digamma|lgamma|polygamma)\(", st.program) is not None
     and _close_steps(t, o, rtol=1e-3)),
    # PyTorch 2.13's float32 erf is not correctly rounded (erf(-3.136) is 1 ulp off) and
    # its float32 gelu loses the far negative tail where 1 + erf cancels (gelu(-5.19) is
    # 13 % off; teachgrad's is the float32 nearest the true value); an op next to a pole
    # (log1p near -1, digamma near 0) magnifies that past the tolerance (seeds 94806,
    # 101506).
    # ... or by a gradient that cancels: d atan2(x, erf x)/dx at x = 0.004 is
    # (erf x − x·erf′x)/(x² + erf²x), two float32 numbers agreeing to 6 digits: true
    # 1.3239e-3, teachgrad 1.3199e-3, PyTorch 1.3046e-3 (seed 217452).
    ("PyTorch quirk: float32 erf/gelu are ulps off, magnified by a later op",
     lambda st, cat, t, o: cat in ("value", "grad", "grad2") and "float32" in st.program
     and re.search(r"\berf\(|functional\.gelu\(", st.program) is not None
     and re.search(r"\berf\(|functional\.gelu\(", st.source) is None),
    # A p-norm (p ≠ 1, 2) is (Σ|a|ᵖ)^(1/p) in teachgrad, up to an ulp from PyTorch's
    # kernel (whose norm of one element is exactly |a|); a second derivative that cancels
    # to 0 exactly in PyTorch then leaves a residue of ~1e-12 (seed 112014).
    ("open: p-norm rounding (an ulp) left as a residue in a cancelling second derivative",
     lambda st, cat, t, o: cat == "grad2" and re.search(r"norm\(.*p=", st.program) is not None
     and _close_steps(t, o, rtol=0.0, atol=1e-9)),
    # var/std are two-pass sums of squared deviations in teachgrad (correctly rounded
    # here: var(-1.4, -1.401) = 5.000000000001119e-07, as exact rational arithmetic
    # gives); PyTorch 2.13's CPU kernel is Welford's, 5.000000000000009e-07. Where the
    # values nearly cancel that last-bits difference is a relative 1e-12 of the gradient,
    # and a second derivative whose true value is 0 keeps it as a residue of ~1e-11
    # (seed 719327: std over a dimension of two nearly equal values).
    ("open: var/std rounding (two-pass, PyTorch's Welford) as a residue in a cancelling "
     "second derivative",
     lambda st, cat, t, o: cat == "grad2"
     and re.search(r"\b(std|var)(_mean)?\(", st.program) is not None
     and _close_steps(t, o, rtol=0.0, atol=1e-9)),
    # digamma's derivative (polygamma(1, x)) at a pole x = 0, −1, −2 ...: PyTorch 2.13
    # gives a huge finite number (6.6e32; 8.1e13 in float32 at -4, seed 227012);
    # teachgrad inf. The pole may also be reached from an inf: tanh(-inf) = -1, where the
    # chain rule's 0 · polygamma(1, -1) is 0 in PyTorch and 0 · inf = nan in teachgrad
    # (seed 329763).
    ("PyTorch quirk: polygamma at a non-positive integer is finite",
     lambda st, cat, t, o: cat in ("grad", "grad2") and re.search(
         r"(digamma|lgamma|polygamma)\(", st.program) is not None
     and (re.search(r"-\d+\.0\b|\b0\.0\b", st.program) is not None
          or _nonfinite_program(st))),
    # logit's gradient at ±0 is ±inf; which sign PyTorch 2.13 gives for -0 depends on
    # whether its vectorised or scalar kernel ran (the tensor's size). teachgrad: the
    # scalar kernel's answer.
    ("PyTorch quirk: logit's gradient at -0 depends on the tensor's size",
     lambda st, cat, t, o: cat == "grad" and "logit(" in st.program
     and re.search(r"-0\.0\b", st.program) is not None),
    # copysign(True, nan): the result depends on the sign bit of a nan (log of a negative
    # number is −nan in PyTorch's kernel, +nan in NumPy's).
    # signbit(nan) likewise: NumPy's log and sqrt of a negative number give −nan (the x86
    # default nan), PyTorch's +nan.
    ("PyTorch quirk: the sign bit of nan",
     lambda st, cat, t, o: cat == "value" and ("copysign(" in st.program or (
         "signbit(" in st.source and st.nonfinite))),
    # copysign(x, s)'s derivative is ±1 for x ≠ 0; PyTorch 2.13 computes result / x, which
    # is inf/inf = nan at x = ±inf. teachgrad keeps ±1.
    ("PyTorch quirk: copysign's gradient at ±inf (and its second at 0) is nan",
     lambda st, cat, t, o: cat in ("grad", "grad2") and "copysign(" in st.program),
    # hardswish's and hardtanh's (relu6's) gradient at nan: PyTorch 2.13's vectorised
    # loop gives nan and 0, its scalar loop (tensors of fewer than 8 or 16 elements, and
    # a long tensor's last few) gives 1 -- its answer depends on the tensor's size.
    # teachgrad gives the vectorised loop's (see nn/activation_ops.py).
    ("PyTorch quirk: hardswish/hardtanh's gradient at nan depends on the tensor's size",
     lambda st, cat, t, o: cat in ("grad", "grad2") and re.search(
         r"functional\.(hardswish|hardtanh|relu6)\(", st.program) is not None
     and _nonfinite_program(st)),  # (inf·0 makes a nan)
    # elu's (selu's, celu's) gradient at nan: 1 from PyTorch 2.13's scalar loop (small
    # tensors), nan from its vectorised one; teachgrad follows the vectorised loop, as
    # for hardtanh. gelu(±inf): nan from PyTorch's kernel (the limits are inf and 0), and
    # silu's, gelu's, mish's second derivatives at ±inf likewise. (Signed zeros and
    # silu's second derivative at 0 were teachgrad's bugs, fixed: see
    # test_fuzz_regressions.py.) The nan may be made by an op (xlogy(a, -1.0), log of a
    # negative number), hence _nonfinite_program.
    ("PyTorch quirk: elu/gelu/silu at inf and nan",
     lambda st, cat, t, o: cat in ("grad", "grad2", "grad_fn", "value") and re.search(
         r"functional\.(elu|silu|gelu|mish|softplus)\(", st.program) is not None
     and _nonfinite_program(st)),
    # PyTorch's argument parser words a missing argument its own way ("add_() received an
    # invalid combination of arguments - got ()"); teachgrad's is Python's TypeError.
    ("open: the argument parser's message for a missing argument",
     lambda st, cat, t, o: cat == "error message"
     and _torch_error(t, r"received an invalid combination of arguments - got \(\)")),
    # PyTorch's fill_ does not check that its target can have a gradient: an integer or
    # bool tensor filled with a 0-d tensor that requires grad (b[0:2] = a, b[...] = a)
    # gets requires_grad=True and a CopySlices/FillBackward3 history, whose backward then
    # fails ("Autograd not support dtype"). teachgrad keeps such a tensor out of the graph.
    ("PyTorch quirk: fill_ gives an integer tensor a history",
     lambda st, cat, t, o: cat in ("requires_grad", "grad_fn") and t.kind == "ok" and any(
         d[0] == "tensor" and d[1] in ("bool", "int64") and d[3] for d in t.payload)),
    # median along a dim of length > 1 that is expanded (stride 0): PyTorch 2.13 returns a
    # number read from past the tensor's memory (4.5741e-41 for the median of
    # a.expand(2), index 1, seed 387569); teachgrad the repeated value, index 0.
    ("PyTorch quirk: median along an expanded dim reads the wrong memory",
     lambda st, cat, t, o: cat in ("value", "grad", "grad2") and re.search(
         r"\.median\(", st.program) is not None and "expand(" in st.program),
    # amin/amax (min/max) of 0 and -0: which zero PyTorch's kernel keeps depends on its
    # loop (vectorised or not, the order of the comparisons); a later op can make ±inf of
    # it (logit's gradient, a reciprocal: seed 386361).
    ("open: the sign of a zero out of amin/amax/min/max of ±0",
     lambda st, cat, t, o: cat in ("value", "grad", "grad2") and re.search(
         r"\.(amin|amax|min|max)\(", st.program) is not None
     and _differs_only_in_sign(t, o)),
    # float32 cosh/sinh just below their overflow (|x| a little under 89.4): PyTorch 2.13's
    # kernel computes e^|x| / 2 and overflows to inf there, where the true value, still a
    # float32, is teachgrad's (seed 418337: cosh(rad2deg(a)), 3.4e38 > cosh(88.9)).
    ("PyTorch quirk: float32 cosh/sinh overflow to inf early",
     lambda st, cat, t, o: cat in ("value", "grad", "grad2") and "float32" in st.program
     and re.search(r"\b(cosh|sinh)\(", st.program) is not None
     and _differs_only_where_torch_is_inf(t, o)),
    # A float32 quotient a few ulps from a whole number: floor_divide rounds it down to
    # one integer or the next, so an ulp of difference earlier (the order of a float32
    # sum: PyTorch's vectorised sum and NumPy's pairwise one round differently, 10.3739986
    # and 10.3740015 around the true 10.3739999) becomes a difference of 1 (seed 503150:
    # a.sum() // b, -104.99998 floored to -105 in PyTorch, -105.00002 to -106 here).
    ("open: float32 rounding (ulps) moving floor_divide across a whole number",
     lambda st, cat, t, o: cat == "value" and st.op == "floor_divide"
     and "float32" in st.program and _differs_only_by_one(t, o)),
    # ... and floor/ceil/trunc/round of a float32 value an ulp from a whole number: NumPy's
    # float32 tanh is not always correctly rounded (tanh(9.0975027) is 0.99999994 here,
    # PyTorch's correctly rounded 1.0; the true value is 0.99999997), floor makes it 0 or
    # 1 (seed 740099: floor(tanh(exp(a))))
    ("open: float32 rounding (an ulp) moving floor/ceil/trunc/round across a whole number",
     lambda st, cat, t, o: cat == "value" and st.op in ("floor", "ceil", "trunc", "round")
     and "float32" in st.program and _differs_only_by_one(t, o)),
    # tan near its pole (π/2 + kπ) multiplies an ulp of its float32 argument by sec²,
    # above 100 where |tan| > 10, and by the argument's size (seed 503187: tan(silu(1.825)),
    # PyTorch's float32 silu 1 ulp below the correctly rounded 1.5716262 that teachgrad
    # gives, -1205.196 and -1205.023; seed 506097: tan(digamma(a)), digamma 111.51077 in
    # PyTorch, 111.510765 here, true 111.510768, tan 63.420 and 63.390).
    ("open: float32 rounding (an ulp) magnified by tan near its pole",
     lambda st, cat, t, o: cat == "value" and st.op == "tan" and "float32" in st.program
     and _differs_only_where_large(t, o, 10.0)),
    # sin/cos of a huge float32 argument made by exp: its ulp (0.25 at 3e6, 2^17 at 1.6e12)
    # is a sizeable part of the period or more, so any rounding before exp (digamma's
    # float32 kernels differ in the last bit) changes the result entirely (seed 542236:
    # sin(exp(digamma(a))), exp(digamma(-0.064)) = 3070290.0 and 3070287.0).
    ("open: float32 rounding magnified by exp, then sin/cos of the huge result",
     lambda st, cat, t, o: cat == "value" and st.op in ("sin", "cos")
     and "float32" in st.program and re.search(r"\bexp_?\(", st.program) is not None),
    # An in-place op mixing float32 and float64 (v32.mul_(w64)) under create_graph: the
    # float64 operand's gradient is summed then cast in PyTorch (ToCopyBackward0 last),
    # cast then summed in teachgrad (SumBackward1 last); same values.
    ("open: mixed-dtype in-place op, order of sum and cast in the gradient's graph",
     lambda st, cat, t, o: cat == "grad_fn" and "ToCopyBackward0" in repr(t.payload)
     and re.search(r"\w_\(", st.program) is not None),
]


_VIEW_OF = re.compile(r"(\w+) = (\w+)(\[|\.(unfold|as_strided|t|transpose|view|reshape|"
                      r"permute|expand|narrow|diagonal|squeeze|unsqueeze|flatten|movedim)\()")


def _overlapping_inplace(statement: Statement) -> bool:
    """Is this statement an in-place op writing a tensor that shares memory with one of its
    operands, or with itself (made by unfold/as_strided/expand)?"""
    m = re.fullmatch(r"(\w+)\.\w+_\((.*)\)", statement.source, flags=re.S)
    if m is None:
        return False
    parent = {v.group(1): (v.group(2), v.group(4)) for v in _VIEW_OF.finditer(statement.program)}

    def chain(name: str) -> list:
        out = [(name, None)]
        while out[-1][0] in parent and len(out) < 50:
            out.append(parent[out[-1][0]])
        return out

    target = chain(m.group(1))
    if any(how in ("unfold", "as_strided", "expand") for _, how in target):
        return True
    root = target[-1][0]
    return any(chain(n)[-1][0] == root for n in re.findall(r"\b[av]\d+\b", m.group(2)))


def _program_text(statement: Statement) -> str:
    return statement.program


def _nonfinite_program(statement: Statement) -> bool:
    """Did an inf or a nan appear before this statement, written or computed?"""
    return statement.nonfinite or re.search(r"\b(nan|inf)\b", statement.program) is not None


def _differs_only_where_torch_is_nan(theirs, ours) -> bool:
    """Do the two steps' tensors differ only at positions where PyTorch's value is nan?"""
    if theirs is None or ours is None or theirs.kind != "ok" or ours.kind != "ok":
        return False
    pairs = list(zip(theirs.payload, ours.payload))
    while pairs:
        t, o = pairs.pop()
        if t[0] == "seq" and o[0] == "seq":
            pairs.extend(zip(t[2], o[2]))
            continue
        if t[0] != "tensor" or o[0] != "tensor" or t[5] is None or o[5] is None:
            continue
        a, b = t[5].astype(np.float64), o[5].astype(np.float64)
        if a.shape != b.shape:
            return False
        differ = ~np.isclose(a, b, rtol=1e-4, atol=1e-6, equal_nan=True)
        if not np.isnan(a[differ]).all():
            return False
    return True


def _tensor_pairs(theirs, ours):
    """The (PyTorch's, teachgrad's) value arrays of two successful steps' tensors."""
    if theirs is None or ours is None or theirs.kind != "ok" or ours.kind != "ok":
        return
    pairs = list(zip(theirs.payload, ours.payload))
    while pairs:
        t, o = pairs.pop()
        if t[0] == "seq" and o[0] == "seq":
            pairs.extend(zip(t[2], o[2]))
        elif t[0] == "tensor" and o[0] == "tensor" and t[5] is not None and o[5] is not None:
            yield t[5].astype(np.float64), o[5].astype(np.float64)


def _differing_values(theirs, ours) -> list | None:
    """The two steps' tensors' values where they differ, pair by pair (None when there are
    no tensors to compare, or their shapes differ)."""
    pairs = list(_tensor_pairs(theirs, ours))
    if not pairs:
        return None
    values = []
    for a, b in pairs:
        if a.shape != b.shape:
            return None
        differ = ~np.isclose(a, b, rtol=1e-4, atol=1e-6, equal_nan=True)
        values.append((a[differ], b[differ]))
    return values


def _differs_only_where_torch_is_inf(theirs, ours) -> bool:
    """Do the two steps' tensors differ only where PyTorch's value is ±inf (an overflow)?"""
    values = _differing_values(theirs, ours)
    return values is not None and all(np.isinf(a).all() for a, _ in values)


def _differs_only_where_ours_is_nan(theirs, ours) -> bool:
    """Do the two steps' tensors differ only at positions where teachgrad's value is nan?"""
    values = _differing_values(theirs, ours)
    return values is not None and all(np.isnan(b).all() for _, b in values)


def _differs_only_by_one(theirs, ours) -> bool:
    """Do the two steps' tensors differ only by 1 (a floor on either side of a whole
    number)?"""
    values = _differing_values(theirs, ours)
    return values is not None and all(np.all(np.abs(a - b) == 1) for a, b in values)


def _differs_only_where_large(theirs, ours, size: float) -> bool:
    """Do the two steps' tensors differ only where PyTorch's value is finite and beyond
    ``±size``, and there by less than 1 %?"""
    values = _differing_values(theirs, ours)
    return values is not None and all(
        np.all(np.isfinite(a) & (np.abs(a) > size)) and np.allclose(a, b, rtol=1e-2)
        for a, b in values)


def _differs_only_in_sign(theirs, ours) -> bool:
    """Do the two steps' tensors differ only where their values are equal but for the sign
    (±0, or ±inf from one)?"""
    values = _differing_values(theirs, ours)
    return values is not None and all(
        np.array_equal(np.abs(a), np.abs(b), equal_nan=True) for a, b in values)


def _close_steps(theirs, ours, rtol: float, atol: float = 0.0) -> bool:
    """Are the two steps' tensors equal to ``rtol``/``atol`` (same shapes, nan where nan)?"""
    pairs = list(_tensor_pairs(theirs, ours))
    return bool(pairs) and all(a.shape == b.shape and np.allclose(a, b, rtol=rtol, atol=atol,
                                                                  equal_nan=True)
                               for a, b in pairs)


def _nonfinite(desc) -> bool:
    """Does a description (see describe) hold an inf or a nan?"""
    if desc[0] == "tensor":
        data = desc[5]
        return data is not None and data.dtype.kind == "f" and not np.isfinite(data).all()
    if desc[0] == "seq":
        return any(_nonfinite(d) for d in desc[2])
    return desc[0] == "number" and isinstance(desc[2], float) and not math.isfinite(desc[2])


def _nonfinite_values(steps) -> bool:
    return any(_nonfinite(d) for step in steps if step.kind == "ok" for d in step.payload)


def known_reason(statements, index, category, theirs, ours) -> str | None:
    """The reason a mismatch is a known, explained difference (see SKIPS), or None."""
    statement = statements[index]
    statement.program = "\n".join(s.source for s in statements[: index + 1])
    for reason, test in SKIPS:
        if test(statement, category, theirs, ours):
            return reason
    return None


def compare(statements: list[Statement], torch, teachgrad) -> tuple[int, str, str] | None:
    """(statement index, category, detail) of the first difference, or None.

    A known difference (see SKIPS) has the category ``"skipped: <reason>"``.
    """
    found = _first_difference(statements, torch, teachgrad)
    if found is None:
        return None
    index, category, detail, theirs, ours = found
    reason = known_reason(statements, index, category, theirs, ours)
    return (index, f"skipped: {reason}", detail) if reason else (index, category, detail)


def _first_difference(statements, torch, teachgrad):
    theirs = run_program(statements, torch)
    ours = run_program(statements, teachgrad)
    # float32 anywhere in the program (leaves, or ints made float by exp/sigmoid ...):
    # float64 values derived from it carry float32 rounding (see _values_close)
    loose = any("float32" in s.source for s in statements) or any(
        "'float32'" in repr(step.payload) for step in theirs if step.kind == "ok")
    nonfinite = False  # (in the values made before statement i: its operands)
    for i, (t, o) in enumerate(zip(theirs, ours)):
        statements[i].nonfinite = nonfinite
        nonfinite = nonfinite or _nonfinite_values([t])
        if t.kind == "exc" and o.kind == "exc":
            if t.payload[0] != o.payload[0]:
                return i, "error type", f"torch {t.payload}, teachgrad {o.payload}", t, o
            if t.payload[1] != o.payload[1]:
                return (i, "error message",
                        f"torch {t.payload[1]!r}\n   teachgrad {o.payload[1]!r}", t, o)
            return None
        if t.kind == "exc":
            return i, "torch raised only", f"torch {t.payload}", t, o
        if o.kind == "exc":
            return i, "teachgrad raised only", f"teachgrad {o.payload}", t, o
        for name, td, od in zip(statements[i].describe, t.payload, o.payload):
            d = difference(td, od, _category(statements[i]), loose)
            if d:
                return (i, d, f"{name}:\n   torch     {_show(td)}\n   teachgrad {_show(od)}",
                        t, o)
    if len(theirs) != len(ours):
        return min(len(theirs), len(ours)), "length", "", None, None
    return None


def _show(desc) -> str:
    if desc[0] == "tensor":
        _, dtype, shape, rg, fn, data = desc
        values = np.array2string(data, precision=6, threshold=40) if data is not None else ""
        return f"{dtype} {list(shape)} requires_grad={rg} grad_fn={fn} {values}"
    if desc[0] == "seq":
        return "[" + "; ".join(_show(d) for d in desc[2]) + "]"
    return repr(desc)


def shrink(statements: list[Statement], found: tuple[int, str, str], torch, teachgrad):
    """Drop statements one at a time while the same kind of mismatch stays at the same line."""
    index, category, _ = found
    target = statements[index].source
    current = list(statements[: index + 1])
    i = len(current) - 2
    while i >= 0:
        trial = current[:i] + current[i + 1:]
        try:
            again = compare(trial, torch, teachgrad)
        except Exception:  # noqa: BLE001
            again = None
        if again and again[1] == category and trial[again[0]].source == target:
            current = trial
        i -= 1
    return current, compare(current, torch, teachgrad)


# --------------------------------------------------------------------------- generating

SPECIALS = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0]


def _literal(x) -> str:
    if isinstance(x, bool):
        return repr(x)
    if isinstance(x, int):
        return str(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def _nested(flat: list, shape: tuple) -> str:
    if not shape:
        return _literal(flat[0])
    step = len(flat) // shape[0]
    return "[" + ", ".join(_nested(flat[k * step:(k + 1) * step], shape[1:])
                           for k in range(shape[0])) + "]"


class Generator:
    """Builds one program from a seed, running each statement with PyTorch as it goes."""

    def __init__(self, seed: int, torch, ops: list[str] | None) -> None:
        self.rng = random.Random(seed)
        self.torch = torch
        self.ns: dict[str, object] = {"torch": torch, "nan": math.nan, "inf": math.inf}
        self.statements: list[Statement] = []
        self.vars: dict[str, Var] = {}
        self.leaves: list[str] = []
        self.counter = 0
        self.ops = ops
        self.failed = False  # PyTorch raised: the program ends there
        self.specials = self.rng.random() < 0.35

    # -- bookkeeping
    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, source: str, op: str, describe: list[str]) -> bool:
        """Run ``source`` with PyTorch; record it; False if PyTorch raised (program ends)."""
        self.statements.append(Statement(source, op, describe))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(source, "<program>", "exec"), self.ns)
        except Exception:  # noqa: BLE001 - an error is a fine last statement
            self.failed = True
            return False
        for name in describe:
            if re.fullmatch(r"\w+", name):
                self._learn(name)
        return True

    def _learn(self, name: str) -> None:
        value = self.ns[name]
        if isinstance(value, self.torch.Tensor):
            self.vars[name] = Var(name, tuple(value.shape), str(value.dtype).split(".")[-1],
                                  value.requires_grad, value.is_leaf)
        elif isinstance(value, (tuple, list)):
            for k, v in enumerate(value):
                if isinstance(v, self.torch.Tensor) and self.rng.random() < 0.7:
                    part = self.fresh()
                    self.emit(f"{part} = {name}[{k}]", "unpack", [part])

    def pick(self, predicate=lambda v: True) -> Var | None:
        candidates = [v for v in self.vars.values() if predicate(v)]
        return self.rng.choice(candidates) if candidates else None

    # -- values
    def random_shape(self, ndim: int | None = None) -> tuple:
        rng = self.rng
        ndim = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4]) if ndim is None else ndim
        return tuple(rng.choice([1, 2, 2, 3, 3, 4, 0] if rng.random() < 0.15 else
                                [1, 2, 2, 3, 3, 4]) for _ in range(ndim))

    def broadcastable_shape(self, shape: tuple) -> tuple:
        """A shape that broadcasts with ``shape``: a suffix, some dims 1, maybe a new front."""
        rng = self.rng
        if rng.random() < 0.05:  # sometimes not broadcastable: the error is compared
            return tuple(d + 1 for d in shape) or (2,)
        k = rng.randint(0, len(shape))
        out = [1 if rng.random() < 0.3 else d for d in shape[len(shape) - k:]]
        if rng.random() < 0.15 and len(out) < 4:
            out.insert(0, rng.choice([1, 2]))
        return tuple(out)

    def values(self, n: int, dtype: str) -> list:
        rng = self.rng
        if dtype == "bool":
            return [rng.random() < 0.5 for _ in range(n)]
        if dtype == "int64":
            return [rng.randint(-4, 5) for _ in range(n)]
        flat = [round(rng.gauss(0, 1.5), 3) for _ in range(n)]
        if self.specials and n:
            for _ in range(rng.randint(1, max(1, n // 3))):
                flat[rng.randrange(n)] = rng.choice(SPECIALS)
        return flat

    def leaf(self, shape: tuple | None = None, dtype: str | None = None,
             requires_grad: bool | None = None) -> Var | None:
        rng = self.rng
        shape = self.random_shape() if shape is None else shape
        dtype = dtype or rng.choice(["float32", "float32", "float64", "float64", "float64",
                                     "int64", "bool"])
        if requires_grad is None:
            requires_grad = dtype.startswith("float") and rng.random() < 0.85
        name = self.fresh("a")
        rg = ", requires_grad=True" if requires_grad else ""
        n = math.prod(shape)
        if n == 0:
            source = f"{name} = torch.zeros({shape}, dtype=torch.{dtype}{rg})"
        else:
            source = (f"{name} = torch.tensor({_nested(self.values(n, dtype), shape)}, "
                      f"dtype=torch.{dtype}{rg})")
        if not self.emit(source, "leaf", [name]):
            return None
        self.leaves.append(name)
        return self.vars[name]

    def operand(self, like: Var) -> str:
        """A second operand for a binary op with ``like``: a variable, a new leaf or a scalar."""
        rng = self.rng
        r = rng.random()
        if r < 0.25:
            return rng.choice([_literal(round(rng.gauss(0, 2), 2)), str(rng.randint(-3, 4)),
                               rng.choice(["True", "False", "0.5", "2", "-1", "0"])])
        if r < 0.55:
            v = self.pick(lambda v: v.name != like.name and _broadcasts(v.shape, like.shape))
            if v is not None:
                return v.name
        v = self.leaf(self.broadcastable_shape(like.shape))
        return v.name if v is not None else "1"

    def dim(self, v: Var, allow_none: bool = False) -> str:
        if v.ndim == 0:
            return self.rng.choice(["0", "-1"]) if self.rng.random() < 0.5 else "None"
        if allow_none and self.rng.random() < 0.2:
            return "None"
        d = self.rng.randrange(v.ndim)
        return str(d - v.ndim if self.rng.random() < 0.3 else d)

    # -- the program
    def build(self) -> list[Statement]:
        rng = self.rng
        for _ in range(rng.randint(1, 2)):
            self.leaf()
        names = self.ops or [n for n in OPS if n not in EXTRA]
        for _ in range(rng.randint(1, 5)):
            if self.failed:
                break
            name = rng.choice(names)
            OPS[name](self, name)
        if not self.failed:
            self.differentiate()
        return self.statements

    def differentiate(self) -> None:
        rng = self.rng
        target = self.pick(lambda v: v.is_float and v.requires_grad and not v.is_leaf)
        leaves = [n for n in self.leaves if self.vars[n].requires_grad]
        if target is None or not leaves:
            return
        reduction = rng.choice(["sum()", "sum()", "mean()", "square().sum()"])
        if not self.emit(f"loss = {target.name}.{reduction}", "loss", ["loss"]):
            return
        if rng.random() < 0.3:
            self.emit(f"grads = torch.autograd.grad(loss, [{', '.join(leaves)}], "
                      "create_graph=True, allow_unused=True)", "backward2 grad", ["grads"])
            if self.failed:
                return
            grads = self.ns["grads"]
            live = [k for k, g in enumerate(grads) if g is not None and g.requires_grad]
            if live:
                total = " + ".join(f"(grads[{k}] * grads[{k}]).sum()" for k in live)
                # retain_graph: loss.backward() below goes through the same first-order
                # graph, which this call would otherwise free.
                self.emit(f"second = torch.autograd.grad({total}, [{', '.join(leaves)}], "
                          "allow_unused=True, retain_graph=True)", "backward2", ["second"])
                if self.failed:
                    return
        self.emit("loss.backward()", "backward",
                  [f"{n}.grad" for n in leaves])


def _broadcasts(a: tuple, b: tuple) -> bool:
    return all(x == y or x == 1 or y == 1 for x, y in zip(reversed(a), reversed(b)))


# --------------------------------------------------------------------------- the ops
#
# Each op is a function (generator, name) that emits one or more statements. They pick
# operands by what PyTorch said about the variables so far.

OPS: dict = {}
EXTRA: set[str] = set()  # ops drawn only when named with --ops (see ``op``)


def op(*names, extra: bool = False):
    """Register a drawing function for ``names``. ``extra`` ops (added after seeds 0-140000
    were cleaned) are left out of the default draw, so that a seed keeps drawing the
    program it always drew; run them with ``--ops``."""
    def register(f):
        for n in names:
            OPS[n] = f
            if extra:
                EXTRA.add(n)
        return f
    return register


def _assign(g: Generator, expr: str, name: str) -> str | None:
    out = g.fresh()
    return out if g.emit(f"{out} = {expr}", name, [out]) else None


def _any(g: Generator) -> Var | None:
    return g.pick() or g.leaf()


def _float(g: Generator) -> Var | None:
    return g.pick(lambda v: v.is_float) or g.leaf(dtype="float64")


UNARY_FLOAT = ["exp", "log", "sin", "cos", "tan", "tanh", "sigmoid", "sqrt", "rsqrt",
               "reciprocal", "log1p", "expm1", "log2", "log10", "exp2", "asin", "acos",
               "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv",
               "lgamma", "digamma", "logit", "sinc", "frac", "deg2rad", "rad2deg"]
UNARY_ANY = ["abs", "neg", "square", "relu", "floor", "ceil", "round", "trunc", "sign",
             "sgn", "isnan", "isinf", "isfinite", "signbit", "positive", "nan_to_num",
             "logical_not", "clone", "detach", "contiguous"]


@op(*UNARY_FLOAT, *UNARY_ANY)
def _unary(g: Generator, name: str) -> None:
    x = _any(g) if g.rng.random() < 0.25 else _float(g)
    if x is None:
        return
    style = g.rng.random()
    method_only = name == "contiguous"  # (there is no torch.contiguous)
    expr = f"torch.{name}({x.name})" if style < 0.5 and not method_only else f"{x.name}.{name}()"
    _assign(g, expr, name)


@op("gelu", "silu", "softplus", "elu", "leaky_relu", "mish", "hardtanh", "relu6",
    "logsigmoid", "softsign", "tanhshrink", "hardswish")
def _activation(g: Generator, name: str) -> None:
    x = _float(g)
    if x is not None:
        _assign(g, f"torch.nn.functional.{name}({x.name})", name)


BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floor_divide": "//",
          "remainder": "%", "pow": "**", "atan2": None, "hypot": None, "maximum": None,
          "minimum": None, "fmax": None, "fmin": None, "copysign": None, "xlogy": None,
          "logaddexp": None, "fmod": None, "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
          "eq": "==", "ne": "!=", "logical_and": None, "logical_or": None,
          "logical_xor": None, "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
          "true_divide": None}


@op(*BINARY)
def _binary(g: Generator, name: str) -> None:
    rng = g.rng
    if name.startswith("bitwise"):
        x = g.pick(lambda v: not v.is_float) or g.leaf(dtype=rng.choice(["int64", "bool"]))
    else:
        x = _any(g) if rng.random() < 0.35 else _float(g)
    if x is None:
        return
    y = g.operand(x)
    if g.failed:
        return
    symbol = BINARY[name]
    scalar_first = not re.fullmatch(r"[av]\d+", y)
    if symbol and rng.random() < 0.5:
        expr = f"{y} {symbol} {x.name}" if scalar_first and rng.random() < 0.3 \
            else f"{x.name} {symbol} {y}"
    elif rng.random() < 0.5 or scalar_first:
        expr = f"{x.name}.{name}({y})"
    else:
        expr = f"torch.{name}({x.name}, {y})"
    _assign(g, expr, name)


@op("where")
def _where(g: Generator, name: str) -> None:
    x = _any(g)
    if x is None:
        return
    cond = g.pick(lambda v: v.dtype == "bool" and _broadcasts(v.shape, x.shape))
    cond_name = cond.name if cond else f"({x.name} > 0)"
    y = g.operand(x)
    if not g.failed:
        _assign(g, f"torch.where({cond_name}, {x.name}, {y})", name)


@op("lerp", "addcmul", "addcdiv")
def _ternary(g: Generator, name: str) -> None:
    x = _float(g)
    if x is None:
        return
    a = g.leaf(g.broadcastable_shape(x.shape), dtype=x.dtype)
    b = g.leaf(g.broadcastable_shape(x.shape), dtype=x.dtype) if not g.failed else None
    if a is None or b is None:
        return
    if name == "lerp":
        weight = b.name if g.rng.random() < 0.5 else "0.3"
        _assign(g, f"torch.lerp({x.name}, {a.name}, {weight})", name)
    else:
        _assign(g, f"torch.{name}({x.name}, {a.name}, {b.name}, value=0.5)", name)


@op("clamp")
def _clamp(g: Generator, name: str) -> None:
    x = _any(g) if g.rng.random() < 0.2 else _float(g)
    if x is None:
        return
    r = g.rng.random()
    if r < 0.3:
        args = "min=-0.5"
    elif r < 0.5:
        args = "max=0.7"
    elif r < 0.8:
        args = "-0.5, 0.7"
    else:
        lo = g.leaf(g.broadcastable_shape(x.shape), dtype=x.dtype)
        if lo is None:
            return
        args = f"min={lo.name}"
    _assign(g, f"{x.name}.clamp({args})", name)


REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "max", "min", "std", "var",
              "logsumexp", "norm", "cumsum", "cumprod", "argmax", "argmin", "all", "any",
              "median", "nansum", "count_nonzero"]


@op(*REDUCTIONS)
def _reduction(g: Generator, name: str) -> None:
    rng = g.rng
    x = _any(g) if rng.random() < 0.3 else _float(g)
    if x is None:
        return
    keep = ", keepdim=True" if rng.random() < 0.4 else ""
    dim = g.dim(x)
    if name in ("cumsum", "cumprod"):
        expr = f"{x.name}.{name}({dim if dim != 'None' else 0})"
    elif name in ("max", "min", "median", "argmax", "argmin") and (rng.random() < 0.3
                                                                  or dim == "None"):
        expr = f"{x.name}.{name}()"
    elif name in ("max", "min", "median"):
        expr = f"{x.name}.{name}({dim}{keep})"
    elif name in ("std", "var"):
        corr = rng.choice(["", ", correction=0", ", correction=1", ", correction=2",
                           ", unbiased=False"])
        expr = f"{x.name}.{name}({'dim=' + dim if dim != 'None' else ''}{corr}{keep})"
        expr = expr.replace("(, ", "(")
    elif name == "norm":
        p = rng.choice(["", "p=1, ", "p=3, ", "p=float('inf'), ", "p=0, "])
        expr = f"torch.norm({x.name}, {p}dim={dim}{keep})"
    elif name == "logsumexp":
        expr = f"torch.logsumexp({x.name}, {dim if dim != 'None' else 0}{keep})"
    elif name in ("all", "any", "count_nonzero"):
        expr = f"{x.name}.{name}({'' if dim == 'None' or rng.random() < 0.3 else dim})"
    elif dim == "None" or rng.random() < 0.25:
        expr = f"{x.name}.{name}()"
    else:
        multi = rng.random() < 0.2 and x.ndim >= 2 and name in ("sum", "mean", "amax",
                                                                 "amin", "nansum")
        d = f"({dim}, {(int(dim) + 1) % x.ndim})" if multi else dim
        expr = f"{x.name}.{name}(dim={d}{keep})"
    _assign(g, expr, name)


@op("softmax", "log_softmax")
def _softmax(g: Generator, name: str) -> None:
    x = _float(g)
    if x is not None:
        dim = g.dim(x)
        _assign(g, f"torch.{name}({x.name}, dim={dim if dim != 'None' else 0})", name)


# -- shape ops


@op("reshape", "view", "flatten")
def _reshape(g: Generator, name: str) -> None:
    x = _any(g)
    if x is None:
        return
    rng = g.rng
    if name == "flatten":
        _assign(g, f"{x.name}.flatten()" if x.ndim < 2 or rng.random() < 0.5
                else f"{x.name}.flatten(1)", name)
        return
    n = x.numel
    choices = [(n,), (-1,), (1, n), (n, 1), (1, -1)]
    for d in (2, 3, 4):
        if n and n % d == 0:
            choices += [(d, n // d), (d, -1), (-1, d)]
    if rng.random() < 0.1:
        choices = [(n + 1,)]  # the wrong size: compared as an error
    if n == 1 and rng.random() < 0.3:
        choices = [()]
    shape = rng.choice(choices)
    source = x.name
    if name == "view" and x.ndim >= 2 and rng.random() < 0.3:
        source = f"{x.name}.transpose(0, 1)"  # may be non-contiguous: view refuses
    _assign(g, f"{source}.{name}({shape if len(shape) != 1 else shape[0]})"
            .replace(".view(())", ".view(())"), name)


@op("permute", "transpose", "movedim", "t")
def _permute(g: Generator, name: str) -> None:
    x = _any(g)
    if x is None:
        return
    rng = g.rng
    if name == "t":
        _assign(g, f"{x.name}.t()", name)
    elif name == "permute":
        order = list(range(x.ndim))
        rng.shuffle(order)
        _assign(g, f"{x.name}.permute({', '.join(map(str, order))})"
                if order else f"{x.name}.permute(())", name)
    elif x.ndim == 0:
        _assign(g, f"{x.name}.{name}(0, -1)", name)
    else:
        _assign(g, f"{x.name}.{name}({g.dim(x)}, {g.dim(x)})", name)


@op("expand", "repeat")
def _expand(g: Generator, name: str) -> None:
    x = _any(g)
    if x is None:
        return
    shape = [3 if (d == 1 and g.rng.random() < 0.6) else d for d in x.shape]
    if g.rng.random() < 0.4:
        shape.insert(0, 2)
    if name == "expand" and g.rng.random() < 0.3:
        shape = [-1] * x.ndim if x.ndim else [2]
    if name == "repeat":
        shape = [g.rng.choice([1, 2]) for _ in range(x.ndim + g.rng.randint(0, 1))] or [2]
    _assign(g, f"{x.name}.{name}({', '.join(map(str, shape))})" if shape
            else f"{x.name}.{name}(())", name)


@op("squeeze", "unsqueeze")
def _squeeze(g: Generator, name: str) -> None:
    x = _any(g)
    if x is None:
        return
    if name == "squeeze" and g.rng.random() < 0.3:
        _assign(g, f"{x.name}.squeeze()", name)
        return
    dim = g.rng.randint(-x.ndim - 1, x.ndim) if name == "unsqueeze" else g.dim(x)
    _assign(g, f"{x.name}.{name}({dim if dim != 'None' else 0})", name)


@op("cat", "stack")
def _cat(g: Generator, name: str) -> None:
    x = _any(g)
    if x is None:
        return
    rng = g.rng
    dim = rng.randint(0, max(0, x.ndim - 1)) if name == "cat" else rng.randint(0, x.ndim)
    shape = list(x.shape)
    if name == "cat" and shape:
        shape[dim] = rng.choice([0, 1, 2])
    other = g.pick(lambda v: v.name != x.name and v.shape == tuple(shape))
    if other is None or rng.random() < 0.4:
        other = g.leaf(tuple(shape), dtype=rng.choice([x.dtype, x.dtype, "float64",
                                                       "float32", "int64"]))
    if other is not None:
        _assign(g, f"torch.{name}([{x.name}, {other.name}], dim={dim})", name)


@op("split", "chunk", "unbind")
def _split(g: Generator, name: str) -> None:
    x = g.pick(lambda v: v.ndim > 0) or g.leaf(g.random_shape(g.rng.randint(1, 3)))
    if x is None:
        return
    dim = g.dim(x)
    size = g.rng.choice([1, 2, 3])
    arg = f"{size}, dim={dim}" if name != "unbind" else f"dim={dim}"
    _assign(g, f"{x.name}.{name}({arg})", name)


@op("flip", "roll", "narrow")
def _flip(g: Generator, name: str) -> None:
    x = g.pick(lambda v: v.ndim > 0) or g.leaf(g.random_shape(g.rng.randint(1, 3)))
    if x is None:
        return
    rng, dim = g.rng, g.dim(x)
    if name == "flip":
        _assign(g, f"{x.name}.flip({dim})", name)
    elif name == "roll":
        _assign(g, f"{x.name}.roll({rng.randint(-3, 3)}, {dim})" if rng.random() < 0.8
                else f"{x.name}.roll({rng.randint(-3, 3)})", name)
    else:
        size = x.shape[int(dim)]
        start = rng.randint(0, max(0, size))
        length = rng.randint(0, size - start + 1) if size >= start else 0
        _assign(g, f"{x.name}.narrow({dim}, {start}, {length})", name)


def _index(g: Generator, x: Var) -> str:
    """A random index for ``x``: ints, slices, ``None``, ``...``, a bool mask, an int tensor."""
    rng = g.rng
    r = rng.random()
    if r < 0.15 and x.ndim:
        return f"{x.name} > 0" if x.dtype != "bool" else f"~{x.name}"
    if r < 0.3 and x.ndim:
        size = x.shape[0]
        idx = [rng.randint(-size, size - 1) for _ in range(rng.randint(0, 3))] if size else []
        return f"torch.tensor({idx}, dtype=torch.int64)"
    parts = []
    for d in x.shape[: rng.randint(0, x.ndim)]:
        k = rng.random()
        if k < 0.3 and d:
            parts.append(str(rng.randint(-d, d - 1)))
        elif k < 0.7:
            a, b = rng.randint(-d - 1, d), rng.choice(["", str(rng.randint(-d, d + 1))])
            step = rng.choice(["", "", ":2"])
            parts.append(f"{a}:{b}{step}")
        elif k < 0.8:
            parts.append("None")
        else:
            parts.append(":")
    if rng.random() < 0.15:
        parts.append("...")
    return ", ".join(parts) or "..."


@op("getitem")
def _getitem(g: Generator, name: str) -> None:
    x = _any(g)
    if x is not None:
        _assign(g, f"{x.name}[{_index(g, x)}]", name)


@op("setitem")
def _setitem(g: Generator, name: str) -> None:
    x = g.pick(lambda v: not v.is_leaf) or _any(g)
    if x is None:
        return
    rng = g.rng
    target = x.name
    if x.is_leaf and x.requires_grad:
        target = g.fresh()
        if not g.emit(f"{target} = {x.name}.clone()", "clone", [target]):
            return
    value = rng.choice(["0.5", "-1", "nan", "True"])
    if rng.random() < 0.3:
        v = _float(g)
        if v is not None and v.ndim == 0:
            value = v.name
    g.emit(f"{target}[{_index(g, g.vars[target])}] = {value}", name, [target])


@op("gather", "scatter", "scatter_add", "index_select", "masked_fill", "take_along_dim")
def _gather(g: Generator, name: str) -> None:
    x = g.pick(lambda v: v.ndim > 0 and v.numel > 0) or g.leaf(
        g.random_shape(g.rng.randint(1, 3)))
    if x is None or x.numel == 0:
        return
    rng, dim = g.rng, int(g.dim(x))
    if name == "index_select":
        size = x.shape[dim]
        idx = [rng.randrange(size) for _ in range(rng.randint(0, 4))]
        _assign(g, f"{x.name}.index_select({dim}, torch.tensor({idx}))", name)
        return
    if name == "masked_fill":
        mask = g.leaf(g.broadcastable_shape(x.shape), dtype="bool")
        if mask is not None:
            _assign(g, f"{x.name}.masked_fill({mask.name}, {rng.choice(['0.0', '-inf', '2'])})",
                    name)
        return
    shape = tuple(rng.randint(1, d) if d else 0 for d in x.shape)
    n = math.prod(shape)
    idx = [rng.randrange(x.shape[dim]) for _ in range(n)]
    index = (f"torch.tensor({_nested(idx, shape)})" if n
             else f"torch.zeros({shape}, dtype=torch.int64)")
    if name in ("gather", "take_along_dim"):
        _assign(g, f"torch.{name}({x.name}, {index}, dim={dim})" if name == "take_along_dim"
                else f"{x.name}.gather({dim}, {index})", name)
    else:
        src = g.leaf(shape, dtype=x.dtype)
        if src is not None:
            _assign(g, f"{x.name}.{name}({dim}, {index}, {src.name})", name)


@op("diagonal", "tril", "triu")
def _diagonal(g: Generator, name: str) -> None:
    x = g.pick(lambda v: v.ndim >= 2) or g.leaf(g.random_shape(2))
    if x is not None:
        k = g.rng.randint(-1, 1)
        _assign(g, f"{x.name}.{name}({k})", name)


@op("matmul", "mm", "bmm", "mv", "dot", "outer")
def _matmul(g: Generator, name: str) -> None:
    rng = g.rng
    dtype = rng.choice(["float32", "float64", "float64"])
    n, k, m, b = (rng.choice([0, 1, 2, 3]) if rng.random() < 0.1 else rng.randint(1, 3)
                  for _ in range(4))
    shapes = {"mm": ((n, k), (k, m)), "bmm": ((b, n, k), (b, k, m)), "mv": ((n, k), (k,)),
              "dot": ((k,), (k,)), "outer": ((n,), (m,)),
              "matmul": rng.choice([((n, k), (k, m)), ((k,), (k, m)), ((n, k), (k,)),
                                    ((b, n, k), (k, m)), ((k,), (b, k, m)),
                                    ((2, 1, n, k), (b, k, m)), ((k,), (k,))])}[name]
    x = g.pick(lambda v: v.shape == shapes[0] and v.is_float) or g.leaf(shapes[0], dtype=dtype)
    y = g.leaf(shapes[1], dtype=rng.choice([x.dtype] * 5 + ["int64"])) if x else None
    if x is not None and y is not None:
        _assign(g, f"torch.{name}({x.name}, {y.name})" if rng.random() < 0.7
                else f"{x.name} @ {y.name}" if name == "matmul" else
                f"{x.name}.{name}({y.name})", name)


# -- in-place ops on non-leaves, views, detach, no_grad

INPLACE = ["add_", "mul_", "sub_", "div_", "clamp_", "relu_", "exp_", "neg_", "zero_",
           "fill_", "sigmoid_", "abs_"]


@op(*INPLACE)
def _inplace(g: Generator, name: str) -> None:
    rng = g.rng
    x = g.pick(lambda v: not (v.is_leaf and v.requires_grad))
    if x is None:
        x = _float(g)
        if x is None:
            return
        if x.is_leaf and x.requires_grad:
            if rng.random() < 0.15:  # in-place on a leaf that requires grad: an error
                no_argument = name.endswith(("u_", "p_", "g_", "s_", "o_", "d_"))
                g.emit(f"{x.name}.{name}({'' if no_argument else '1'})", name, [x.name])
                return
            clone = _assign(g, f"{x.name} * 1", "mul")
            if clone is None:
                return
            x = g.vars[clone]
    target = x.name
    view = None
    if x.ndim and rng.random() < 0.35:  # through a view: the base changes too
        view = g.fresh()
        key = rng.choice(["0", "1:", ":, 0", "..., :1"]) if x.ndim >= 2 else "1:"
        if not g.emit(f"{view} = {x.name}[{key}]", "getitem", [view]):
            return
        target = view
    args = {"add_": "2.5", "mul_": rng.choice(["2", "-1", "0.5"]), "sub_": "1",
            "div_": rng.choice(["2", "0"]), "clamp_": "-0.5, 0.5", "fill_": "3"}.get(name, "")
    if name in ("add_", "mul_") and rng.random() < 0.3:
        other = g.leaf(g.broadcastable_shape(g.vars[target].shape))
        if other is None:
            return
        args = other.name
    g.emit(f"{target}.{name}({args})", name, [target, x.name])


@op("detach", "no_grad")
def _detach(g: Generator, name: str) -> None:
    x = _float(g)
    if x is None:
        return
    if name == "detach":
        _assign(g, f"{x.name}.detach() * 2 + {x.name}", name)
    else:
        out = g.fresh()
        g.emit(f"with torch.no_grad():\n    {out} = {x.name} * 2\n{out} = {out} + {x.name}",
               name, [out])


# -- more in-place ops, strided views, requires_grad_ (drawn only with --ops: see EXTRA)


def _inplace_target(g: Generator) -> str | None:
    """A tensor an in-place op may change: a non-leaf (a leaf that requires grad is copied
    first), sometimes through a view of it, so that the base changes too."""
    rng = g.rng
    x = g.pick(lambda v: not (v.is_leaf and v.requires_grad)) or _float(g)
    if x is None:
        return None
    if x.is_leaf and x.requires_grad:
        clone = _assign(g, f"{x.name} * 1", "mul")
        if clone is None:
            return None
        x = g.vars[clone]
    if x.ndim and rng.random() < 0.4:
        view = g.fresh()
        key = rng.choice(["0", "1:", ":, 0", "..., :1", "::2"]) if x.ndim >= 2 else \
            rng.choice(["1:", "::2", ":2"])
        if not g.emit(f"{view} = {x.name}[{key}]", "getitem", [view]):
            return None
        return view
    return x.name


def _changed(g: Generator, target: str) -> list[str]:
    """What an in-place op on ``target`` changes: it, and the base of a view of it."""
    for s in reversed(g.statements):
        m = re.fullmatch(rf"{target} = (\w+)\[.*\]", s.source)
        if m:
            return [target, m.group(1)]
    return [target]


def _index_tensor(g: Generator, size: int, n: int | None = None) -> str:
    rng = g.rng
    n = rng.randint(0, 3) if n is None else n
    idx = [rng.randint(-size, size - 1) for _ in range(n)] if size else []
    return f"torch.tensor({idx}, dtype=torch.int64)"


def _value(g: Generator, shape: tuple, dtype: str) -> str | None:
    """A value to write: a number, a 0-d tensor that may require grad, or a leaf of a
    shape broadcasting to ``shape``."""
    rng = g.rng
    r = rng.random()
    if r < 0.3:
        return rng.choice(["0.5", "-1.0", "2", "nan", "True"])
    if r < 0.55:
        v = g.leaf((), dtype=dtype if rng.random() < 0.8 else "float32")
    else:
        v = g.leaf(g.broadcastable_shape(shape), dtype=dtype if rng.random() < 0.8
                   else rng.choice(["float32", "float64", "int64"]))
    return None if v is None else v.name


@op("index_put_", extra=True)
def _index_put(g: Generator, name: str) -> None:
    target = _inplace_target(g)
    if target is None:
        return
    x, rng = g.vars[target], g.rng
    if x.ndim == 0:
        return
    r = rng.random()
    if r < 0.2:
        mask = g.leaf(x.shape[: rng.randint(1, x.ndim)], dtype="bool")
        if mask is None:
            return
        indices, shape = f"({mask.name},)", (rng.randint(0, 2),) + x.shape[mask.ndim:]
    elif r < 0.4 and x.ndim >= 2:
        n = rng.randint(1, 3)
        indices = (f"({_index_tensor(g, x.shape[0], n)}, "
                   f"{_index_tensor(g, x.shape[1], rng.choice([n, n, 1]))})")
        shape = (n,) + x.shape[2:]
    elif r < 0.5 and x.ndim >= 2:  # None among the indices: refused by PyTorch
        indices, shape = f"(None, {_index_tensor(g, x.shape[1], 2)})", (2,)
    else:
        n = rng.randint(0, 3)
        indices, shape = f"({_index_tensor(g, x.shape[0], n)},)", (n,) + x.shape[1:]
    value = _value(g, shape, x.dtype)
    if value is None or g.failed:
        return
    if not re.fullmatch(r"[av]\d+", value):
        value = f"torch.tensor({value})"
    acc = rng.choice(["", ", accumulate=True", ", accumulate=False"])
    g.emit(f"{target}.index_put_({indices}, {value}{acc})", name, _changed(g, target))


@op("masked_fill_", extra=True)
def _masked_fill_(g: Generator, name: str) -> None:
    target = _inplace_target(g)
    if target is None:
        return
    x, rng = g.vars[target], g.rng
    mask = g.leaf(g.broadcastable_shape(x.shape), dtype="bool")
    if mask is None:
        return
    value = rng.choice(["0.0", "-inf", "2", "nan"])
    if rng.random() < 0.4:
        v = g.pick(lambda v: v.ndim == 0 and v.is_float) or g.leaf((), dtype=x.dtype)
        if v is None:
            return
        value = v.name
    g.emit(f"{target}.masked_fill_({mask.name}, {value})", name, _changed(g, target))


@op("scatter_", "scatter_add_", "index_add_", "index_fill_", "index_copy_", extra=True)
def _scatter_(g: Generator, name: str) -> None:
    target = _inplace_target(g)
    if target is None:
        return
    x, rng = g.vars[target], g.rng
    if x.ndim == 0 or x.numel == 0:
        return
    dim = rng.randrange(x.ndim)
    size = x.shape[dim]
    if name in ("scatter_", "scatter_add_"):
        shape = tuple(rng.randint(1, d) for d in x.shape)
        n = math.prod(shape)
        index = f"torch.tensor({_nested([rng.randrange(size) for _ in range(n)], shape)})"
        if name == "scatter_" and rng.random() < 0.3:
            src = rng.choice(["0.5", "-2.0"])
        else:
            v = g.leaf(shape, dtype=x.dtype)
            if v is None:
                return
            src = v.name
        g.emit(f"{target}.{name}({dim}, {index}, {src})", name, _changed(g, target))
        return
    n = rng.randint(0, 3)
    # index_copy_ with a repeated index is nondeterministic: distinct indices there
    picks = (rng.sample(range(size), min(n, size)) if name == "index_copy_"
             else [rng.randrange(size) for _ in range(n)])
    index = f"torch.tensor({picks}, dtype=torch.int64)"
    if name == "index_fill_":
        value = rng.choice(["0.5", "-inf", "3"])
        if rng.random() < 0.3:
            v = g.leaf((), dtype=x.dtype)
            if v is None:
                return
            value = v.name
        g.emit(f"{target}.index_fill_({dim}, {index}, {value})", name, _changed(g, target))
        return
    shape = list(x.shape)
    shape[dim] = len(picks)
    v = g.leaf(tuple(shape), dtype=x.dtype if rng.random() < 0.9 else "float32")
    if v is None:
        return
    alpha = ", alpha=2" if name == "index_add_" and rng.random() < 0.3 else ""
    g.emit(f"{target}.{name}({dim}, {index}, {v.name}{alpha})", name, _changed(g, target))


@op("copy_", "lerp_", "addcmul_", "addcdiv_", "cumsum_", "cumprod_", extra=True)
def _inplace_more(g: Generator, name: str) -> None:
    target = _inplace_target(g)
    if target is None:
        return
    x, rng = g.vars[target], g.rng
    if name in ("cumsum_", "cumprod_"):
        g.emit(f"{target}.{name}({g.dim(x) if x.ndim else 0})".replace("(None)", "(0)"),
               name, _changed(g, target))
        return
    a = g.pick(lambda v: v.name != target and _broadcasts(v.shape, x.shape)
               and len(v.shape) <= x.ndim) if rng.random() < 0.4 else None
    a = a or g.leaf(g.broadcastable_shape(x.shape), dtype=x.dtype if rng.random() < 0.8
                    else rng.choice(["float32", "float64", "int64"]))
    if a is None:
        return
    if name == "copy_":
        g.emit(f"{target}.copy_({a.name})", name, _changed(g, target))
        return
    b = g.leaf(g.broadcastable_shape(x.shape), dtype=x.dtype)
    if b is None:
        return
    if name == "lerp_":
        weight = b.name if rng.random() < 0.5 else "0.3"
        g.emit(f"{target}.lerp_({a.name}, {weight})", name, _changed(g, target))
    else:
        value = rng.choice(["", ", value=0.5", ", value=-2"])
        g.emit(f"{target}.{name}({a.name}, {b.name}{value})", name, _changed(g, target))


@op("as_strided", "unfold", extra=True)
def _strided(g: Generator, name: str) -> None:
    rng = g.rng
    x = _any(g) if rng.random() < 0.3 else _float(g)
    if x is None:
        return
    if name == "unfold":
        if x.ndim == 0:
            _assign(g, f"{x.name}.unfold(0, {rng.choice([0, 1, 2])}, 1)", name)
            return
        dim = int(g.dim(x))
        size = rng.randint(0, x.shape[dim] + (1 if rng.random() < 0.1 else 0))
        _assign(g, f"{x.name}.unfold({dim}, {size}, {rng.choice([1, 1, 2, 3])})", name)
        return
    n = x.numel
    if n == 0:
        _assign(g, f"{x.name}.as_strided((0,), (1,))", name)
        return
    ndim = rng.randint(0, 3)
    size = [rng.randint(1, 3) for _ in range(ndim)]
    stride = [rng.choice([0, 1, 1, 2, 3]) for _ in range(ndim)]
    span = sum((s - 1) * t for s, t in zip(size, stride))
    offset = rng.randint(0, max(0, n - 1 - span)) if span < n else 0
    extra = f", {offset}" if offset or rng.random() < 0.3 else ""
    _assign(g, f"{x.name}.as_strided({tuple(size)}, {tuple(stride)}{extra})", name)


# -- linear algebra (extra: drawn with --ops; each makes a square matrix, or a batch of
# them, and differentiates a decomposition or a solve through it; eigen- and singular
# vectors are squared, their sign being LAPACK's choice)

LINALG = ["det", "slogdet", "inv", "solve", "eigvalsh", "eigh", "svdvals", "svd", "qr",
          "cholesky", "cholesky_solve", "lu_factor", "lu_solve", "matrix_exp", "pinv",
          "householder_product"]


@op(*LINALG, extra=True)
def _linalg(g: Generator, name: str) -> None:
    rng = g.rng
    n = rng.choice([0, 1, 2, 3]) if rng.random() < 0.1 else rng.randint(1, 3)
    batch = rng.choice([(), (), (2,), (1,)])
    x = (g.pick(lambda v: v.shape == batch + (n, n) and v.is_float)
         or g.leaf(batch + (n, n), dtype=rng.choice(["float32", "float64", "float64"])))
    if x is None:
        return
    a, m = x.name, rng.randint(1, 3)
    spd = f"({a} @ {a}.mT + {n} * torch.eye({n}, dtype=torch.{x.dtype}))"

    def rhs(shape: tuple) -> str | None:
        y = g.leaf(shape, dtype=x.dtype)
        return y.name if y is not None else None

    if name in ("det", "inv", "matrix_exp", "pinv", "svdvals", "eigvalsh"):
        arg = f"({a} + {a}.mT)" if name == "eigvalsh" else a
        _assign(g, f"torch.linalg.{name}({arg})", name)
    elif name == "slogdet":
        _assign(g, f"torch.linalg.slogdet({a}).logabsdet", name)
    elif name == "eigh":
        _assign(g, f"torch.linalg.eigh({a} + {a}.mT).eigenvectors ** 2", name)
    elif name == "svd":
        full = rng.choice(["True", "False"])
        part = rng.choice(["U", "Vh"])
        _assign(g, f"torch.linalg.svd({a}, full_matrices={full}).{part} ** 2", name)
    elif name == "qr":
        _assign(g, f"torch.linalg.qr({a}).{rng.choice(['Q', 'R'])}", name)
    elif name == "cholesky":
        _assign(g, f"torch.linalg.cholesky({spd}, upper={rng.choice(['True', 'False'])})",
                name)
    elif name == "lu_factor":
        _assign(g, f"torch.linalg.lu_factor({a}).LU", name)
    elif name == "householder_product":
        tau = g.leaf(batch + (rng.randint(0, n),), dtype=x.dtype)
        if tau is not None:
            _assign(g, f"torch.linalg.householder_product({a}, {tau.name})", name)
    else:  # solves: a right-hand side
        left = rng.random() < 0.7
        b = rhs(batch + ((n, m) if left else (m, n)))
        if b is None:
            return
        flag = "" if left else ", left=False"
        if name == "solve":
            _assign(g, f"torch.linalg.solve({a}, {b}{flag})", name)
        elif name == "lu_solve":
            adjoint = rng.choice(["", ", adjoint=True"])
            _assign(g, f"torch.linalg.lu_solve(*torch.linalg.lu_factor({a}), {b}{flag}"
                       f"{adjoint})", name)
        elif left:
            _assign(g, f"torch.cholesky_solve({b}, torch.linalg.cholesky({spd}))", name)


@op("requires_grad_", extra=True)
def _requires_grad_(g: Generator, name: str) -> None:
    """A view of a leaf taken before the leaf is made to require grad."""
    rng = g.rng
    x = g.leaf(dtype=rng.choice(["float32", "float64"]), requires_grad=False)
    if x is None:
        return
    key = (rng.choice(["0", "1:", "...", ":, 0", "::2"]) if x.ndim >= 2 else
           rng.choice(["...", ":", "1:"]) if x.ndim else "...")
    view = g.fresh()
    if not g.emit(f"{view} = {x.name}[{key}]", "getitem", [view]):
        return
    if not g.emit(f"{x.name}.requires_grad_()", name, [x.name, view]):
        return
    g._learn(x.name)
    if rng.random() < 0.5:
        _assign(g, f"{view} * 2", "mul")



# --------------------------------------------------------------------------- main


def generate(seed: int, torch, ops: list[str] | None = None) -> list[Statement]:
    """The program of ``seed`` (reproducible: the same seed gives the same source)."""
    return Generator(seed, torch, ops).build()


def fuzz(seeds, torch, teachgrad, ops=None, verbose=False, out=sys.stdout):
    """Run the programs of ``seeds``; returns (mismatches, Counter of skipped reasons).

    Each mismatch is (seed, category, op, shrunk program source, detail).
    """
    mismatches, skipped = [], collections.Counter()
    for seed in seeds:
        statements = generate(seed, torch, ops)
        found = compare(statements, torch, teachgrad)
        if verbose:
            print(f"# seed {seed}: {'ok' if not found else found[1]}", file=out)
        if not found:
            continue
        if found[1].startswith("skipped: "):
            skipped[found[1].removeprefix("skipped: ")] += 1
            continue
        small, again = shrink(statements, found, torch, teachgrad)
        if again is None:  # shrinking lost it (should not happen): report the whole program
            small, again = statements[: found[0] + 1], found
        index, category, detail = again
        op_name = small[index].op
        mismatches.append((seed, category, op_name, program_source(small, mark=index), detail))
        print(f"\n=== seed {seed}: {category} at op {op_name}\n"
              f"{program_source(small, mark=index)}\n--- {detail}", file=out)
    return mismatches, skipped


#: the checkout this script belongs to (the directory above tests/)
CHECKOUT = Path(__file__).resolve().parent.parent


def import_own_teachgrad():
    """teachgrad from this script's own checkout, not whichever one is first on sys.path
    (another clone on PYTHONPATH, an installed copy): the fuzzer tests the code beside it."""
    sys.path.insert(0, str(CHECKOUT))
    import teachgrad

    where = Path(teachgrad.__file__).resolve().parent.parent
    if where != CHECKOUT:
        raise SystemExit(f"teachgrad was already imported from {where}, not from {CHECKOUT}")
    return teachgrad


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0:500", help="START:STOP, as a range")
    parser.add_argument("--ops", default=None, help="comma-separated op names to draw from")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    import torch

    teachgrad = import_own_teachgrad()

    start, stop = (int(s) for s in args.seeds.split(":"))
    ops = args.ops.split(",") if args.ops else None
    unknown = [o for o in ops or [] if o not in OPS]
    if unknown:
        parser.error(f"unknown ops {unknown}; known: {sorted(OPS)}")
    mismatches, skipped = fuzz(range(start, stop), torch, teachgrad, ops, args.verbose)
    print(f"\n{stop - start} programs, {len(mismatches)} mismatches, "
          f"{sum(skipped.values())} known differences skipped")
    for reason, count in skipped.most_common():
        print(f"  skipped  {reason:60} {count}")
    for label, key in (("category", 1), ("op", 2)):
        counts = collections.Counter(m[key] for m in mismatches)
        for name, count in counts.most_common():
            print(f"  {label:8} {name:24} {count}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
