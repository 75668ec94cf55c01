"""Call every function PyTorch and teachgrad both have, with typical arguments, and compare.

The random-program fuzzer (fuzz_against_torch.py) draws from ~130 ops it knows how to call;
this sweep instead walks the namespaces -- ``torch``, ``torch.linalg``, ``torch.special``,
``torch.nn.functional`` -- and calls each public function both libraries have on a fixed
set of typical inputs: float32, float64, int64 and bool tensors; 0-d, 1-d, 2-d and empty
ones; one with nan, ±inf and -0.0; square matrices; with the keyword arguments most
functions document (``dim``, ``keepdim``, ``dtype``, ``out=``). For each call it compares

- the result: type, values (nan where nan, the sign of a zero), dtype, shape, strides
  (of non-empty tensors), a named tuple's type;
- the inputs afterwards (an in-place function changes its first input);
- the error: its type and PyTorch's sentence (teachgrad may add a ``Hint:`` line);
- the warnings (by message);
- the gradients of the float inputs for ``sum`` of the float outputs.

PyTorch decides which calls are kept: a call its argument parser refuses ("received an
invalid combination of arguments", a missing argument) is not typical use and is dropped,
as are the calls whose arguments PyTorch documents no meaning for (see ``_dropped``).

Run ``python tests/sweep_functions_against_torch.py [--only NAME,...] [--verbose]``; it
prints each difference with a line to paste, a summary by category, and the callables
PyTorch has in these namespaces and teachgrad lacks (``--missing``; it also lists every
public name PyTorch defines in ``MISSING_ONLY_SPACES`` -- Tensor methods, nn, optim,
autograd, utils.data, cuda ... -- that teachgrad lacks). Known, explained
differences are listed in ``KNOWN`` with the reason, so a clean run means something.
"""

from __future__ import annotations

import argparse
import collections
import functools
import math
import pathlib
import re
import signal
import sys
import types
import warnings
from dataclasses import dataclass

import numpy as np

NAN, INF = math.nan, math.inf

# --------------------------------------------------------------------------- inputs
#
# Each input is Python data and a dtype, made afresh for every call in each library (an
# in-place function must not change the next call's input). The 1-d ones have six
# elements so that any two of them broadcast.

INPUTS: dict[str, tuple[object, str]] = {
    "f32": ([1.5, -2.0, 0.0, -0.0, 3.25, 0.5], "float32"),
    "g32": ([0.25, 1.0, -1.5, 2.0, -0.0, 4.0], "float32"),
    "f64": ([0.3, -0.7, 1.0, 2.5, -3.0, 0.0], "float64"),
    "nonfinite": ([NAN, INF, -INF, 1.0, -0.0, -2.5], "float64"),
    "i64": ([3, -1, 0, 2, 7, -4], "int64"),
    "j64": ([1, 2, -3, 0, 5, 2], "int64"),
    "bool": ([True, False, True, True, False, False], "bool"),
    "zero_d": (2.5, "float32"),
    "zero_d_int": (3, "int64"),
    "empty": ([], "float32"),
    "empty_rows": ([[], []], "float32"),  # shape (2, 0)
    "m32": ([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], "float32"),  # (2, 3)
    "spd": ([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]], "float64"),
    "sq32": ([[2.0, -1.0, 0.0], [1.0, 3.0, 1.0], [0.5, 0.0, 1.5]], "float32"),
    "batch": ([[[2.0, 1.0], [1.0, 3.0]], [[1.5, -0.5], [0.25, 1.0]]], "float64"),  # (2,2,2)
    "m_i64": ([[1, 0, 2], [3, -1, 4]], "int64"),
    "probs": ([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], "float32"),
    "labels": ([2, 0], "int64"),
}

UNARY = list(INPUTS)
# (first, second) input pairs for functions of two tensors
PAIRS = [("f32", "g32"), ("f32", "i64"), ("i64", "j64"), ("bool", "bool"), ("f64", "f32"),
         ("nonfinite", "f64"), ("zero_d", "f32"), ("empty", "empty"), ("spd", "sq32"),
         ("sq32", "sq32"), ("m32", "m32"), ("batch", "batch"), ("probs", "probs"),
         ("probs", "labels"), ("f32", "bool"), ("m32", "sq32")]
# inputs for the dim / keepdim / dtype keyword calls
DIM_INPUTS = ["f32", "m32", "i64", "bool", "nonfinite", "zero_d", "empty_rows", "batch"]
DTYPE_INPUTS = ["f32", "i64", "bool"]
OUT_CALLS = [(("f32",), "float32"), (("i64",), "int64"), (("m32",), "float32"),
             (("f32", "g32"), "float32"), (("i64", "j64"), "int64"), (("f32",), "int64"),
             (("spd",), "float64")]
NUMBER_INPUTS = ["f32", "i64", "m32"]

# --------------------------------------------------------------------------- calls


@dataclass(frozen=True)
class Call:
    """One call: the function (namespace and name), its arguments as a template."""

    space: str  # "torch", "linalg", "special", "F"
    name: str
    args: tuple  # input names (str), or ("#", number) for a Python number
    kwargs: tuple = ()  # (key, value) with values as for args, or ("dtype", name)

    def source(self) -> str:
        """The call as a line of Python (inputs named as in INPUTS)."""
        prefix = {"torch": "torch.", "linalg": "torch.linalg.", "special": "torch.special.",
                  "F": "torch.nn.functional."}[self.space]
        parts = [_arg_source(a) for a in self.args]
        parts += [f"{k}={_arg_source(v)}" for k, v in self.kwargs]
        return f"{prefix}{self.name}({', '.join(parts)})"


def _arg_source(a) -> str:
    if isinstance(a, tuple) and a[0] == "#":
        return repr(a[1])
    if isinstance(a, tuple) and a[0] == "dtype":
        return f"torch.{a[1]}"
    if isinstance(a, tuple) and a[0] == "out":
        return f"torch.empty(0, dtype=torch.{a[1]})"
    return str(a)


def calls_for(space: str, name: str) -> list[Call]:
    """The typical calls tried for one function."""
    out = [Call(space, name, (x,)) for x in UNARY]
    out += [Call(space, name, pair) for pair in PAIRS]
    for x in NUMBER_INPUTS:
        out += [Call(space, name, (x, ("#", 2))), Call(space, name, (x, ("#", 0.5)))]
    for x in DIM_INPUTS:
        out += [Call(space, name, (x,), (("dim", ("#", 0)),)),
                Call(space, name, (x,), (("dim", ("#", -1)), ("keepdim", ("#", True))))]
    for x in DTYPE_INPUTS:
        out += [Call(space, name, (x,), (("dtype", ("dtype", "float64")),))]
    for args, dtype in OUT_CALLS:  # out= an empty tensor (resized without a warning)
        out += [Call(space, name, args, (("out", ("out", dtype)),))]
    return out


def _make(lib, name: str, requires_grad: bool = False):
    data, dtype = INPUTS[name]
    t = lib.tensor(data, dtype=getattr(lib, dtype))
    if requires_grad and dtype.startswith("float"):
        t.requires_grad_()
    return t


def _arguments(lib, call: Call, requires_grad: bool):
    def value(a):
        if isinstance(a, tuple) and a[0] == "#":
            return a[1]
        if isinstance(a, tuple) and a[0] == "dtype":
            return getattr(lib, a[1])
        if isinstance(a, tuple) and a[0] == "out":
            return lib.empty(0, dtype=getattr(lib, a[1]))
        return _make(lib, a, requires_grad)
    return [value(a) for a in call.args], {k: value(v) for k, v in call.kwargs}


def function(lib, space: str, name: str):
    """The function ``name`` of a namespace of ``lib`` (torch or teachgrad), or None."""
    mod = {"torch": lib, "linalg": getattr(lib, "linalg", None),
           "special": getattr(lib, "special", None),
           "F": getattr(getattr(lib, "nn", None), "functional", None)}[space]
    return getattr(mod, name, None)


# --------------------------------------------------------------------------- describing


def _normalise(message: str) -> str:
    """PyTorch's sentence: without teachgrad's Hint line, its name, PyTorch's C++ suffix."""
    message = re.sub(r"\nHint: .*\Z", "", message, flags=re.S)
    message = message.split(" (Triggered internally")[0]
    # PyTorch's C++ check macros add a request for better wording after the sentence
    message = message.split("  (Could this error message be improved?")[0]
    return message.replace("teachgrad", "torch").strip()


def describe(value, lib, strides: bool = True):
    """A comparable description of a result (tensors by dtype, shape, strides, values)."""
    if isinstance(value, lib.Tensor):
        # (force=True: PyTorch's gradient may be a ZeroTensor)
        data = value.detach().numpy(force=True).copy()
        # strides of non-empty tensors, but a size-1 dimension's (never stepped along)
        stride = tuple(s if n > 1 else None for s, n in zip(value.stride(), value.shape)) \
            if strides and value.numel() > 1 else None
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), stride, data)
    if isinstance(value, (tuple, list)):
        # a named tuple by its type's name (PyTorch's are structseqs, without _fields)
        kind = type(value).__name__
        if kind in ("tuple", "list"):
            kind = "seq"
        return ("seq", kind, None, [describe(v, lib, strides) for v in value])
    if value is None:
        return ("none",)
    if isinstance(value, (bool, int, float, str)):
        return ("number", type(value).__name__, value)
    if isinstance(value, lib.dtype):
        return ("dtype", str(value).split(".")[-1])
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
        return ("function",)
    return ("other", type(value).__name__)


TOLERANCE = {"float32": (2e-6, 1e-6), "float64": (1e-12, 1e-13)}


def _same_values(a: np.ndarray, b: np.ndarray, dtype: str, signed_zeros: bool = True) -> bool:
    if a.shape != b.shape:
        return False
    if dtype not in TOLERANCE:
        return bool(np.array_equal(a, b))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if not np.array_equal(np.isnan(a64), np.isnan(b64)):
        return False
    rtol, atol = TOLERANCE[dtype]
    if not np.allclose(a64, b64, rtol=rtol, atol=atol, equal_nan=True):
        return False
    if not signed_zeros:
        return True
    # the sign of a zero is part of a value (1/x tells them apart); of a gradient it is
    # the order of a backward formula's factors, not compared
    zero = (a64 == 0) & (b64 == 0)
    return bool(np.array_equal(np.signbit(a64[zero]), np.signbit(b64[zero])))


def difference(theirs, ours, signed_zeros: bool = True) -> str | None:
    """The category of the first difference between two descriptions, or None."""
    if theirs[0] != ours[0]:
        return f"kind ({theirs[0]} vs {ours[0]})"
    kind = theirs[0]
    if kind == "tensor":
        _, t_dtype, t_shape, t_stride, t_data = theirs
        _, o_dtype, o_shape, o_stride, o_data = ours
        if t_dtype != o_dtype:
            return "dtype"
        if t_shape != o_shape:
            return "shape"
        if t_data is not None and o_data is not None and not _same_values(
                t_data, o_data, t_dtype, signed_zeros):
            return "value"
        if t_stride != o_stride:
            return "stride"
        return None
    if kind == "seq":
        if theirs[1] != ours[1] or theirs[2] != ours[2] or len(theirs[3]) != len(ours[3]):
            return "sequence type"
        for t, o in zip(theirs[3], ours[3]):
            d = difference(t, o, signed_zeros)
            if d:
                return d
        return None
    if kind == "number":
        if theirs[1] != ours[1]:
            return "number type"
        a, b = theirs[2], ours[2]
        if a == b or (a != a and b != b) or (
                isinstance(a, float) and math.isclose(a, b, rel_tol=1e-6)):
            return None
        return "value"
    return None if theirs == ours else "kind"


# --------------------------------------------------------------------------- running


class _Timeout(BaseException):  # not an Exception: no library code may catch it
    pass


def _alarm(signum, frame):
    raise _Timeout("call took more than 5 s")


@dataclass
class Outcome:
    """What a call did in one library."""

    error: tuple | None = None  # (type name, normalised message)
    result: object = None  # description
    inputs: list | None = None  # descriptions of the tensor inputs afterwards
    warnings: tuple = ()
    grads: object = None  # ("ok", [descriptions]) / ("error", type, message) / None


# Deterministic state functions and ones that change global state are not called.
NOT_CALLED = re.compile(
    r"^(set_|use_deterministic|manual_seed$|seed$|initial_seed$|save$|load$|compile$|"
    r"get_rng_state$|set_rng_state$|autocast|vmap$|cond$|export|fork_rng|"
    r"is_deterministic|are_deterministic|get_default|typename$|get_num_threads|"
    r"is_warn_always|result_type$|promote_types$|can_cast$|is_grad_enabled|"
    r"is_inference_mode_enabled|is_anomaly|empty)")


def run(call: Call, lib) -> Outcome:
    """Call once (seeded as PyTorch seeds), then again with float inputs requiring grad."""
    fn = function(lib, call.space, call.name)
    outcome = Outcome()
    args, kwargs = _arguments(lib, call, requires_grad=False)
    lib.manual_seed(0)
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(5)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            # teachgrad's own filter (its __init__): NumPy's floating-point warnings from
            # its modules are not the learner's, as PyTorch gives none
            warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"teachgrad\.")
            try:
                result = fn(*args, **kwargs)
            except _Timeout:
                raise
            except Exception as e:  # noqa: BLE001 - the error is what we compare
                outcome.error = (type(e).__name__, _normalise(str(e)))
            else:
                outcome.result = describe(result, lib)
                outcome.inputs = [describe(a, lib, strides=False) for a in args
                                  if isinstance(a, lib.Tensor)]
        outcome.warnings = tuple(sorted({_normalise(str(w.message)) for w in caught}))
        if outcome.error is None:
            outcome.grads = _gradients(call, lib, fn)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return outcome


def _float_tensors(value, lib) -> list:
    if isinstance(value, lib.Tensor):
        return [value] if value.dtype in (lib.float32, lib.float64) else []
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _float_tensors(v, lib)]
    return []


def _gradients(call: Call, lib, fn):
    """The float inputs' gradients of the sum of the float outputs (None: nothing to do)."""
    args, kwargs = _arguments(lib, call, requires_grad=True)
    leaves = [a for a in args if isinstance(a, lib.Tensor) and a.requires_grad]
    if not leaves:
        return None
    lib.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            outputs = [o for o in _float_tensors(fn(*args, **kwargs), lib) if o.requires_grad]
            if not outputs:
                return None
            total = sum(o.sum() for o in outputs)
            grads = lib.autograd.grad(total, leaves, allow_unused=True)
        except _Timeout:
            raise
        except Exception as e:  # noqa: BLE001
            return ("error", type(e).__name__, _normalise(str(e)))
    return ("ok", [describe(g, lib, strides=False) for g in grads])


# PyTorch's argument parser refusing a call: not typical use, dropped.
_PARSER = re.compile(r"received an invalid combination of arguments|missing \d+ required|"
                     r"missing required|got an unexpected keyword|takes \d+ positional|"
                     r"got multiple values|takes from \d+ to \d+ positional|"
                     r"must be (a )?(tuple|list|int|Tensor|Number|number|callable)|"
                     r"argument '\w+' (\(position \d+\) )?must be|"
                     r"takes no (keyword )?arguments|object is not callable|"
                     r"incompatible function arguments|"
                     r"unsupported operand type|not supported between|"
                     r"^expected a|Expected a .* object|has no attribute|"
                     r"object of type .* has no len|"
                     r"missing a required argument|unexpected keyword argument|"
                     r"takes exactly|positional argument")


def _dropped(theirs: Outcome) -> bool:
    """Is this call one PyTorch's parser refuses (not a typical use)?"""
    return theirs.error is not None and theirs.error[0] in ("TypeError", "AttributeError") \
        and _PARSER.search(theirs.error[1]) is not None


def compare(call: Call, torch, teachgrad) -> tuple[str, str] | None:
    """(category, detail) of the first difference of one call, or None (also when dropped)."""
    theirs = run(call, torch)
    if _dropped(theirs):
        return None
    try:
        ours = run(call, teachgrad)
    except _Timeout:
        return ("timeout", "teachgrad took more than 5 s")
    if theirs.error or ours.error:
        if theirs.error is None:
            return ("teachgrad raised only", f"{ours.error[0]}: {ours.error[1]}")
        if ours.error is None:
            return ("torch raised only", f"{theirs.error[0]}: {theirs.error[1]}")
        if theirs.error[0] != ours.error[0]:
            return ("error type", f"torch {theirs.error} / teachgrad {ours.error}")
        if theirs.error[1] != ours.error[1]:
            return ("error message", f"torch {theirs.error[1]!r}\n    teachgrad "
                                     f"{ours.error[1]!r}")
        return None
    d = difference(theirs.result, ours.result)
    if d:
        return (d, f"torch {_short(theirs.result)}\n    teachgrad {_short(ours.result)}")
    for t, o in zip(theirs.inputs, ours.inputs):
        d = difference(t, o)
        if d:
            return ("input changed: " + d, f"torch {_short(t)}\n    teachgrad {_short(o)}")
    if theirs.warnings != ours.warnings:
        return ("warnings", f"torch {theirs.warnings}\n    teachgrad {ours.warnings}")
    tg, og = theirs.grads, ours.grads
    if (tg is None) != (og is None):
        return ("grad presence", f"torch {_short(tg)}\n    teachgrad {_short(og)}")
    if tg is not None:
        if tg[0] != og[0]:
            return ("grad " + tg[0] + " vs " + og[0], f"torch {_short(tg)}\n    teachgrad "
                                                       f"{_short(og)}")
        if tg[0] == "error":
            if tg[1:] != og[1:]:
                return ("grad error", f"torch {tg[1:]}\n    teachgrad {og[1:]}")
        else:
            for t, o in zip(tg[1], og[1]):
                d = difference(t, o, signed_zeros=False)
                if d:
                    return ("grad " + d, f"torch {_short(tg)}\n    teachgrad {_short(og)}")
    return None


def _short(description) -> str:
    text = repr(description)
    text = re.sub(r"\s+", " ", text)
    return text if len(text) < 400 else text[:400] + "..."


# --------------------------------------------------------------------------- known
#
# Differences that are known and explained, as (reason, test on call and category).

_WARN_ONCE = ("torch.meshgrid: in an upcoming release", "Using torch.cross without specifying",
              "torch.cholesky is deprecated", "torch.lu is deprecated", "torch.norm is deprecated",
              "chain_matmul is deprecated", "torch.qr is deprecated", "torch.svd is deprecated",
              "torch.lstsq", "torch.solve is deprecated", "torch.symeig", "torch.eig",
              "at::frobenius_norm is deprecated", "at::nuclear_norm is deprecated",
              "adjoint() is deprecated on 0-D", "torch.triangular_solve is deprecated")

KNOWN: list[tuple[str, object]] = [
    # PyTorch gives a deprecation warning once per process (TORCH_WARN_ONCE): after the
    # first call of the sweep it is silent, teachgrad warns every time (Python's filters
    # show a warning once per place in the learner's code).
    ("PyTorch warns once per process",
     lambda call, cat, detail: cat == "warnings" and "torch ()" in detail
     and any(w in detail for w in _WARN_ONCE)),
    # searchsorted/bucketize need sorted boundaries (PyTorch's docs); on unsorted ones the
    # binary searches of the two libraries stop at different places.
    ("undefined: searchsorted/bucketize on unsorted boundaries",
     lambda call, cat, detail: cat == "value" and call.name in ("searchsorted", "bucketize")),
    # teachgrad has no complex dtypes (README): eig and eigvals raise saying so.
    ("deliberate: no complex dtypes (README)",
     lambda call, cat, detail: call.name in ("eig", "eigvals") and "complex" in detail),
    # igamma/igammac are differentiable in the shape too (design notes); PyTorch raises.
    ("deliberate: igamma's derivative in the shape (design notes)",
     lambda call, cat, detail: cat == "grad error vs ok"
     and call.name in ("igamma", "igammac", "gammainc", "gammaincc")),
    # The activations' gradients at nan and ±inf: PyTorch's depend on whether its scalar or
    # vectorised loop ran (see fuzz_against_torch.SKIPS); teachgrad follows the vectorised.
    ("PyTorch quirk: activation gradients at nan/inf depend on the tensor's size",
     lambda call, cat, detail: cat == "grad value" and "nonfinite" in call.args and call.name in (
         "elu", "selu", "celu", "hardtanh", "relu6", "hardshrink", "copysign", "log_ndtr",
         # (hardswish's scalar loop gives 1 at nan, its vectorised nan; softshrink's scalar
         # loop keeps the gradient at nan, its vectorised one zeroes it)
         "hardswish", "softshrink")),
    # softshrink's zeros within lambd: -0.0 for a negative input in PyTorch's scalar loop
    # (tensors of fewer than 8 float64 / 16 float32 elements), +0.0 in its vectorised one;
    # teachgrad answers as for the small tensors a learner prints (activation_ops).
    ("PyTorch quirk: softshrink's sign of zero depends on the tensor's size",
     lambda call, cat, detail: cat == "value" and call.name == "softshrink"),
    # ATen's binary_cross_entropy_with_logits broadcasts an input to the target's shape,
    # but its backward then writes the input's gradient in place in the target's shape and
    # fails; teachgrad sums the gradient back to the input's shape (test_torch_functions_
    # sweep8.py checks it by hand).
    ("PyTorch limitation: bce_with_logits' backward of a broadcast input fails in place",
     lambda call, cat, detail: cat == "grad error vs ok"
     and call.name == "binary_cross_entropy_with_logits"
     and "doesn't match the broadcast shape" in detail),
    # binomial with a 0-d count and matrix_rank with a tensor tol write through an internal
    # out= that PyTorch resizes, warning about its own call; the learner gave no out=.
    ("PyTorch quirk: a resize warning about its own internal out=",
     lambda call, cat, detail: cat == "warnings" and call.name in ("binomial", "matrix_rank")
     and "An output with one or more elements was resized" in detail
     and "teachgrad ()" in detail),
    # einsum is one node computing a new tensor (design notes); PyTorch's einsum that only
    # permutes one operand returns a permuted view (the input's strides).
    ("deliberate: einsum is one node (design notes): a permutation is a new tensor",
     lambda call, cat, detail: cat == "stride" and call.name == "einsum"),
    # num_groups given a tensor: F.group_norm's Python divides by it (ZeroDivisionError for
    # a tensor holding 0), teachgrad refuses it as a truth value first; not a typical call.
    ("undefined: group_norm with a tensor for num_groups",
     lambda call, cat, detail: cat == "error message" and call.name == "group_norm"
     and "ZeroDivisionError" in detail),
    # PyTorch's parser takes a 0-d bool tensor for an int inside an int list (unfold's
    # kernel_size made of a bool tensor's elements); teachgrad's argument checks refuse it
    # (also torch.zeros((torch.tensor(True), 2)), where PyTorch fails with a C++ check).
    ("not done: bool tensors taken as ints in an int list",
     lambda call, cat, detail: cat == "error type" and call.name == "unfold"
     and "found element of type Tensor" in detail),
    # out= given to normal, lu, linalg.eigvals and unique_consecutive, where teachgrad takes
    # none (eigvals' would have to be complex): the sweep's calls fail in PyTorch too (an
    # empty out of the wrong shape, a tensor where lu wants a tuple, unique_consecutive's
    # Python wrapper), teachgrad refuses the keyword.
    ("not done: out= of normal, lu, linalg.eigvals, unique_consecutive (failing calls)",
     lambda call, cat, detail: cat in ("error type", "error message") and call.name in (
         "normal", "lu", "eigvals", "unique_consecutive")
     and "got an unexpected keyword argument 'out'" in detail),
    # lobpcg iterates until the relative residual is below tol (√eps: 3.5e-4 in float32);
    # float32 products rounded differently stop at other approximations within it.
    ("undefined: lobpcg's float32 approximations within its tolerance",
     lambda call, cat, detail: cat == "value" and call.name == "lobpcg"
     and "float32" in detail),
    # svd_lowrank chains qr, qr, qr, svd and matmul: float32 gradients round apart (~1e-6
    # relative).
    ("float32 rounding: the gradient of svd_lowrank's chain of decompositions",
     lambda call, cat, detail: cat == "grad value" and call.name == "svd_lowrank"
     and "float32" in detail),
    # pca_lowrank's default q = min(m, n) exceeds the rank of the centered matrix (centering
    # removes one) on the sweep's small inputs: R's diagonal has a rounding error in place of
    # a zero, different in each library, and the gradient divides by it (undefined).
    ("undefined: pca_lowrank's gradient when q exceeds the centered matrix's rank",
     lambda call, cat, detail: cat == "grad value" and call.name == "pca_lowrank"),
    # Singular vectors are unique up to sign: LAPACK's gesdd (PyTorch) and NumPy's picks
    # differ (U diag(S) Vᵀ is the same).
    ("undefined: the signs of singular vectors",
     lambda call, cat, detail: cat == "value" and call.name in ("svd", "pca_lowrank")),
    # PyTorch 2.13's vander writes its result in place after saving it for backward, so its
    # own backward refuses ("modified by an inplace operation"); teachgrad differentiates
    # (test_api_parity_more.py checks the gradient by finite differences).
    ("PyTorch bug: vander's backward fails on its own in-place write",
     lambda call, cat, detail: cat == "grad error vs ok" and call.name == "vander"
     and "modified by an inplace operation" in detail),
    # meshgrid's refusal of a tensor of 2 or more dimensions: PyTorch prints the whole
    # tensor (its values, then [ torch.FloatTensor{2,3} ]), teachgrad names its shape.
    ("deliberate: meshgrid names the shape where PyTorch prints the tensor",
     lambda call, cat, detail: cat == "error message" and call.name == "meshgrid"
     and "Expected 0D or 1D tensor in the tensor list" in detail),
    # kthvalue/median/nanmedian select with std::nth_element, which orders equal values
    # (here 0.0 and -0.0) as it happens to; PyTorch documents the index as "not necessarily
    # the first occurrence". teachgrad takes them in a stable order. The value differs in
    # the sign of the zero only.
    ("undefined: which of equal values (0.0, -0.0) kthvalue/median select",
     lambda call, cat, detail: cat == "value" and call.name in (
         "kthvalue", "median", "nanmedian") and "f32" in call.args),
    # mode and unique(dim=) sort with `<`, which NaN breaks (std::sort then leaves NaN where
    # it happens to be: first, for the sweep's input); teachgrad sorts NaN last, as sort.
    ("undefined: mode and unique(dim=) of a tensor with NaN (PyTorch sorts with <)",
     lambda call, cat, detail: cat == "value" and call.name in ("mode", "unique")
     and "nonfinite" in call.args),
    # PyTorch's Bessel and Airy functions of torch.special are accurate to ~1e-8 relative in
    # float64 (checked against mpmath: bessel_y0 2e-8, airy_ai 1e-8, bessel_j0 2e-9) where
    # teachgrad's are to ~1e-15; in float32 PyTorch's are within 2e-7 and teachgrad's (float64
    # kernels, rounded) within 5e-8, so the two round apart in the last digit.
    ("PyTorch's accuracy: Bessel/Airy functions' last digits (teachgrad's closer to mpmath)",
     lambda call, cat, detail: cat == "value" and call.name in (
         "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai")
     and "nonfinite" not in call.args or cat == "value" and call.name == "airy_ai"),
    ("PyTorch's accuracy: float32 i1/i1e's last digit (teachgrad's closer to mpmath)",
     lambda call, cat, detail: cat == "value" and call.name in (
         "i1", "i1e", "modified_bessel_i1") and set(call.args) & {"f32", "g32"}),
    # I0(±inf) = inf and I1(±inf) = ±inf: PyTorch's Chebyshev evaluation gives nan there;
    # I1 is odd, so I1(-0.0) = -0.0 (PyTorch gives 0.0). teachgrad keeps the true values.
    ("PyTorch quirk: i0/i1 give nan at ±inf (and i1(-0.0) = 0.0)",
     lambda call, cat, detail: cat == "value" and call.name in (
         "i0", "i0_", "i1", "i1e", "modified_bessel_i0", "modified_bessel_i1")
     and "nonfinite" in call.args),
    # digamma's derivative (trigamma) has poles at 0, -1, -2 ...: PyTorch's reflection
    # formula gives a large finite number at the negative ones (3.2e14 at -2.0 in float32,
    # 7.3e31 at -3.0 in float64), teachgrad inf; elsewhere PyTorch's is accurate to ~5e-10
    # relative (mpmath), teachgrad's to ~4e-16.
    ("PyTorch's accuracy: trigamma (digamma's gradient) at its poles and last digits",
     lambda call, cat, detail: cat == "grad value" and call.name in ("digamma", "psi")),
    # float32 chains that round apart in the last digit: matrix_exp's gradient (a Padé
    # approximant and its adjoint), cholesky_inverse (LAPACK's potri in float32 against
    # teachgrad's float64 product of the inverse factor, rounded: so -0.0 or 0.0 too).
    ("float32 rounding: matrix_exp's gradient, cholesky_inverse's float32 digits",
     lambda call, cat, detail: "float32" in detail and (
         cat == "grad value" and call.name == "matrix_exp"
         or cat == "value" and call.name == "cholesky_inverse")),
    # resize_as_ to more elements: the new ones are uninitialised memory in PyTorch
    # (whatever was there), zeros in teachgrad (NumPy's fresh memory).
    ("undefined: resize_as_'s new elements (uninitialised memory)",
     lambda call, cat, detail: cat == "value" and call.name == "resize_as_"),
    # PyTorch 2.13's gradient of ldexp in input is grad * pow(2, other), with an integer
    # ``other`` an integer power: 2 ** -1 is 0 there, so a negative exponent's gradient is 0
    # (its forward gives x / 2). teachgrad gives 2 ** other (test_torch_functions_sweep6.py).
    ("PyTorch bug: ldexp's gradient is 0 for a negative int exponent",
     lambda call, cat, detail: cat == "grad value" and call.name in ("ldexp", "ldexp_")
     and "i64" in call.args),
    # PyTorch 2.13's backward with a bool operand subtracts the bool tensor and raises
    # (fuzz_against_torch.SKIPS); teachgrad differentiates.
    ("PyTorch quirk: backward with a bool operand raises",
     lambda call, cat, detail: cat == "grad error vs ok"
     and "the `-` operator, with a bool tensor" in detail),
]


def _known(call: Call, category: str, detail: str) -> str | None:
    for reason, test in KNOWN:
        if test(call, category, detail):
            return reason
    return None


# --------------------------------------------------------------------------- namespaces

SPACES = ("torch", "linalg", "special", "F")


def public_functions(lib, space: str) -> dict[str, object]:
    """The public callables of one namespace (not classes, not modules)."""
    mod = {"torch": lib, "linalg": lib.linalg, "special": lib.special,
           "F": lib.nn.functional}[space]
    out = {}
    for n in dir(mod):
        if n.startswith("_"):
            continue
        try:
            v = getattr(mod, n)
        except Exception:  # noqa: BLE001 - teachgrad's refused parts raise AttributeError
            continue
        if isinstance(v, (types.ModuleType, type)) or not callable(v):
            continue
        out[n] = v
    return out


def shared_functions(torch, teachgrad) -> list[tuple[str, str]]:
    """(space, name) of every function both libraries have, but those not called."""
    out = []
    for space in SPACES:
        ours = public_functions(teachgrad, space)
        for name in sorted(public_functions(torch, space)):
            if name in ours and not (space == "torch" and NOT_CALLED.match(name)):
                out.append((space, name))
    return out


def missing_functions(torch, teachgrad) -> dict[str, list[str]]:
    """The callables PyTorch has in each namespace and teachgrad lacks."""
    return {space: sorted(set(public_functions(torch, space))
                          - set(public_functions(teachgrad, space))) for space in SPACES}


# Namespaces --missing also looks through, for every kind of public name PyTorch defines
# there (classes, modules and Tensor methods too, not only functions); none is swept.
MISSING_ONLY_SPACES = (
    "Tensor", "nn", "nn.init", "nn.utils", "nn.utils.rnn", "nn.utils.parametrize",
    "nn.utils.parametrizations", "optim", "optim.lr_scheduler", "optim.swa_utils",
    "autograd", "autograd.graph", "autograd.forward_ad", "autograd.functional", "func",
    "utils.data", "utils.checkpoint", "distributions", "testing", "random", "cuda", "cpu",
    "amp", "backends", "compiler", "version",
)


def _defined_by_pytorch(value) -> bool:
    """Whether a namespace's attribute is PyTorch's own (not ``typing.Any``, ``warnings``,
    ``math.inf`` ... that its modules import)."""
    if isinstance(value, types.ModuleType):
        return value.__name__.startswith("torch.")
    home = getattr(value, "__module__", None)
    return isinstance(home, str) and home.startswith("torch")


def missing_names(torch, teachgrad) -> dict[str, list[str]]:
    """The public names PyTorch defines in ``MISSING_ONLY_SPACES`` and teachgrad lacks."""
    found = {}
    for space in MISSING_ONLY_SPACES:
        theirs = ours = None
        try:
            theirs, ours = (functools.reduce(getattr, space.split("."), lib)
                            for lib in (torch, teachgrad))
        except AttributeError:
            if theirs is not None:  # teachgrad lacks the namespace itself
                found[space] = ["(the namespace)"]
            continue
        names = []
        for name in dir(theirs):
            if name.startswith("_") or hasattr(ours, name):
                continue
            try:
                value = getattr(theirs, name)
            except Exception:  # noqa: BLE001 - a lazily imported part that fails to load
                continue
            if _defined_by_pytorch(value) or space == "Tensor":
                names.append(name)
        found[space] = names
    return found


# Calls PyTorch 2.13 never returns from (in C++, where no alarm reaches): binomial's
# sampling loop with a nan count.
HANGS = {("binomial", "nonfinite")}


def sweep(torch, teachgrad, only: list[str] | None = None, out=sys.stdout,
          verbose: bool = False, progress: bool = False) -> tuple[list, collections.Counter, int]:
    """Run every call; returns (differences, known-skip counter, number of calls compared)."""
    differences = []
    skipped: collections.Counter = collections.Counter()
    count = 0
    for space, name in shared_functions(torch, teachgrad):
        if only and name not in only:
            continue
        if progress:
            print(f"{space}.{name}", file=sys.stderr, flush=True)
        for call in calls_for(space, name):
            if (name, call.args[0]) in HANGS:
                continue
            try:
                found = compare(call, torch, teachgrad)
            except _Timeout:
                continue  # PyTorch itself took too long: not a typical call
            count += 1
            if found is None:
                continue
            category, detail = found
            reason = _known(call, category, detail)
            if reason:
                skipped[reason] += 1
                continue
            differences.append((call, category, detail))
            if verbose:
                print(f"{category}: {call.source()}\n    {detail}", file=out)
    return differences, skipped, count


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated function names")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--progress", action="store_true",
                        help="name each function on stderr as it is swept")
    parser.add_argument("--missing", action="store_true",
                        help="list the callables PyTorch has and teachgrad lacks")
    options = parser.parse_args(argv)
    # the teachgrad of the tree this script is in (not another install)
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    import torch

    import teachgrad
    if options.missing:
        for space, names in {**missing_functions(torch, teachgrad),
                             **missing_names(torch, teachgrad)}.items():
            print(f"{space} ({len(names)}): {' '.join(names)}")
        return 0
    only = options.only.split(",") if options.only else None
    differences, skipped, count = sweep(torch, teachgrad, only, verbose=options.verbose,
                                          progress=options.progress)
    if not options.verbose:
        seen = set()
        for call, category, detail in differences:
            key = (call.space, call.name, category)
            if key in seen:
                continue
            seen.add(key)
            print(f"{category}: {call.source()}\n    {detail}")
    by = collections.Counter(c for _, c, _ in differences)
    print(f"\n{count} calls compared, {len(differences)} differ "
          f"({len({(c.space, c.name) for c, _, _ in differences})} functions); "
          f"{sum(skipped.values())} known")
    for category, n in by.most_common():
        print(f"  {n:5d} {category}")
    for reason, n in skipped.most_common():
        print(f"  known {n:5d} {reason}")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
