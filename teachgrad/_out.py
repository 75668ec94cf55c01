"""The ``out=`` argument of PyTorch's functions: ``torch.matmul(a, b, out=c)``.

PyTorch's functions (not the Tensor methods) can write their result into an existing
tensor instead of making a new one; the tensors tutorial shows it with ``matmul`` and
``mul``. teachgrad computes the result as usual and copies it into ``out``, with PyTorch's
rules:

- no autograd through ``out=``: if grad mode is on and an input (or ``out``) requires grad,
  it is an error, as in PyTorch;
- the result's dtype must cast to ``out``'s by the same-kind rule (float into a long
  tensor is refused, long into float is fine);
- an ``out`` of another shape is resized, with PyTorch's warning when it was not empty;
- creation functions (``torch.rand(2, 2, out=c)``) make values of ``out``'s dtype.

>>> import teachgrad as torch
>>> a = torch.ones(2, 2)
>>> c = torch.empty(2, 2)
>>> torch.mul(a, a + 1, out=c) is c
True
>>> c
tensor([[2., 2.],
        [2., 2.]])

Only the namespace functions take ``out=`` (``teachgrad.mul``, not ``Tensor.mul``), so the
wrapper costs nothing on the hot path of ``a * b`` or ``x.mul(y)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from ._dtypes import to_dtype
from ._function_signatures import parser_error
from ._input_check import (
    missing_error,
    refuse_non_tensor_input,
    renamed,
    shown_name,
    takes_input_first,
)
from ._real_pytorch import real_pytorch_hint
from ._tensor import Tensor, python_type_name
from ._torch_function import STATE, dispatch, handle, has_overloaded, tensor_likes
from ._warn import warn_user
from .autograd.grad_mode import is_grad_enabled, no_grad

# PyTorch functions with an ``out=`` argument that return one tensor, as teachgrad spells
# them at the top level. (Functions returning several tensors, such as max and sort, are not
# here: their ``out=`` is a tuple.)
OUT_FUNCTIONS = (
    "abs", "acos", "acosh", "add", "addbmm", "addcdiv", "addcmul", "addmm", "addmv", "addr",
    "all", "amax", "amin", "angle", "any", "asin", "asinh", "atan", "atan2", "atanh", "baddbmm",
    "bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or", "bitwise_right_shift",
    "bitwise_xor", "bmm", "bucketize", "cat", "ceil", "clamp", "clip", "column_stack",
    "concat", "copysign", "cos", "cosh", "cross", "cumprod", "cumsum", "deg2rad", "diag",
    "diff", "div", "divide", "dot", "dstack", "eq", "exp", "expm1", "float_power", "floor",
    "floor_divide", "fmax", "fmin", "fmod", "gather", "gcd", "ge", "gt", "heaviside",
    "hstack", "hypot", "index_select", "inner", "isneginf", "isposinf", "kron", "lcm",
    "ldexp", "le", "lerp", "lgamma", "log", "log10", "log1p", "log2", "logaddexp",
    "logaddexp2", "logcumsumexp", "logical_and", "logical_not", "logical_or", "logical_xor",
    "logsumexp", "lt", "masked_select", "matmul", "maximum", "mean", "minimum", "mm", "mul",
    "multiply", "mv", "nan_to_num", "nanmean", "ne", "neg", "nextafter", "outer", "pow",
    "prod", "rad2deg", "reciprocal", "remainder", "round", "rsqrt", "searchsorted", "sgn",
    "sigmoid", "sign", "signbit", "sin", "sinh", "sqrt", "square", "stack", "std", "sub",
    "subtract", "sum", "take_along_dim", "tan", "tanh", "tril", "triu", "true_divide",
    "trunc", "var", "vdot", "vstack", "where",
    # (found missing by tests/sweep_functions_against_torch.py)
    "alias_copy", "arctan2", "argmax", "argmin", "chain_matmul", "cholesky",
    "cholesky_inverse", "cholesky_solve", "clamp_max", "clamp_min", "conj_physical",
    "detach_copy", "diagonal_copy", "digamma", "erf", "erfc", "erfinv", "exp2", "fix", "frac",
    "histc", "i0", "igamma", "igammac", "inverse", "logit", "msort", "nansum", "nonzero",
    "norm", "nuclear_norm", "sinc", "slice_copy", "slice_scatter", "t_copy", "take", "xlogy",
    "nanquantile", "orgqr", "quantile", "tensordot",
    "bernoulli", "hardshrink", "isin", "squeeze_copy", "view_copy",
)
# torch.special's and torch.linalg's own functions with out= (those not also top-level
# functions, which are wrapped with them)
SPECIAL_OUT_FUNCTIONS = (
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma",
    "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "gammainc", "gammaincc",
    "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e",
    "laguerre_polynomial_l", "legendre_polynomial_p", "log_ndtr", "logit",
    "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
    "ndtr", "ndtri", "psi", "round", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "sinc",
    "spherical_bessel_j0", "xlog1py", "xlogy", "zeta",
)
LINALG_OUT_FUNCTIONS = (
    "cholesky", "cond", "det", "eigvalsh", "inv", "matmul", "matrix_norm", "matrix_rank",
    "norm", "pinv", "svdvals", "vecdot", "vector_norm",
    # (found missing by tests/sweep_functions_against_torch.py)
    "cross", "householder_product", "ldl_solve", "lu_solve", "matrix_power", "multi_dot",
    "solve", "solve_triangular", "tensorinv", "tensorsolve",
)

# Creation functions with ``out=`` (``torch.rand(2, 2, out=c)``): the new values take
# ``out``'s dtype unless a dtype is given, as in PyTorch.
OUT_CREATION_FUNCTIONS = (
    "arange", "empty", "eye", "full", "linspace", "logspace", "ones", "rand", "randint",
    "randn", "randperm", "zeros",
)


def _requires_grad(args: tuple, kwargs: dict) -> bool:
    """Whether any tensor argument (also inside a list, as cat's) requires grad."""
    for arg in (*args, *kwargs.values()):
        items = arg if isinstance(arg, (list, tuple)) else (arg,)
        if any(isinstance(item, Tensor) and item.requires_grad for item in items):
            return True
    return False


# Functions whose ``out`` must have the result's dtype exactly, each with PyTorch's words
# (``{result}``/``{out}``: the dtypes as "Float", ``{result_cpp}``/``{out_cpp}``: as C++'s
# "float", "long int"). Functions not listed cast by the same-kind rule (float into long
# refused, long into float allowed) or, as the reductions below, compute in out's dtype.
_EXACT = "Expected out tensor to have dtype {result_cpp}, but got {out_cpp} instead"
_SAME_DTYPE_MESSAGES = {
    **dict.fromkeys(("mm", "matmul", "bmm", "addmm", "mv", "addmv", "baddbmm", "cross",
                     "diag", "tril", "triu", "gather", "take_along_dim", "argmax", "argmin",
                     "alias_copy", "detach_copy", "msort", "norm", "t_copy", "isin",
                     "squeeze_copy", "view_copy"), _EXACT),
    "histc": "torch.histogram: input tensor and hist tensor should have the same dtype, but "
             "got input {result_cpp} and hist {out_cpp}",
    "nonzero": "nonzero: Expected out tensor to have scalar type Long but got scalar type{out}",
    "dot": "result dtype {out} does not match input dtype {result}",
    # nn.functional's activations that are PyTorch's C++ bindings (F.gelu(x, out=y))
    **dict.fromkeys(("gelu", "softplus", "softshrink", "hardshrink"),
                    "Found dtype {out} but expected {result}"),
    "log_sigmoid": "expected scalar type {result} but found {out}",
    "vdot": "result dtype {out} does not match input dtype {result}",
    "addbmm": "self and mat2 must have the same dtype, but got {out} and {result}",
    "inner": "tensordot: Expected the output tensor to have dtype {result}, but got an output "
             "tensor with dtype {out}",
    "index_select": "index_select(): self and result must have the same scalar type",
    "masked_select": "masked_select(): self and result must have the same scalar type",
    "where": "Expected out type to be {result} but got {out}",
    "amax": "Expected the dtype for input and out to match, but got {result} for input's dtype "
            "and {out} for out's dtype.",
    "amin": "Expected the dtype for input and out to match, but got {result} for input's dtype "
            "and {out} for out's dtype.",
    "nan_to_num": "nan_to_num: dtype of out: {out} should be same as input: {result}",
    "logcumsumexp": "expected scalar_type {result} but found {out}",
    **dict.fromkeys(("round", "clamp", "clip", "conj_physical", "conj", "fix", "frac", "abs",
                     "ceil", "floor", "trunc", "neg", "sign", "sgn", "hardshrink"),
                    "Found dtype {out} but expected {result}"),
}
# Functions whose ``out`` must have one of a few dtypes, whatever the inputs' (a float
# out of torch.all was filled with 0.0/1.0), with PyTorch's refusal.
_OUT_DTYPES = {
    **{name: (("bool", "uint8"), name + " only supports bool tensor for result, got: {out}")
       for name in ("all", "any")},
    **{name: (("bool",), name + " does not support non-boolean outputs.")
       for name in ("isneginf", "isposinf", "signbit")},
    "float_power": (("float64",), "the output given to float_power has dtype {out} but the "
                    "operation's result requires dtype Double"),
}
# Functions whose ``out`` takes any dtype the result casts to safely, in PyTorch's words
# for a refusal (the others say "result type Float can't be cast to ...").
_CAST_MESSAGES = {
    "mean": "mean.dtype_out(): input types can't be cast to the desired output type {out}",
    "ldexp": "ldexp can't be cast to the desired output type {out}",
    **dict.fromkeys(("max", "min"), "Expected canCast( typeMetaToScalarType(self.dtype()), "
                    "typeMetaToScalarType(out.dtype())) to be true, but got false."),
}
# Functions whose result has no gradient: PyTorch writes it into out= even when an input
# requires grad (torch.argmax(w, out=i)).
_NOT_DIFFERENTIABLE = frozenset((
    "argmax", "argmin", "nonzero", "histc", "bucketize", "searchsorted", "eq", "ne", "ge",
    "gt", "le", "lt", "isneginf", "isposinf", "signbit", "logical_and", "logical_not",
    "logical_or", "logical_xor", "all", "any", "isin", "matrix_rank",
    # torch.special's functions PyTorch gives no derivative (their results never require grad)
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "spherical_bessel_j0",
))
# The concatenations check the same-kind rule with their own words.
_CAT_FUNCTIONS = ("cat", "concat", "stack", "hstack", "vstack", "dstack", "column_stack")
# Reductions that compute in out's dtype (the input converted first), as with dtype=.
_REDUCE_IN_OUT_DTYPE = ("sum", "prod", "cumsum", "cumprod")
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


# How each function's PyTorch kernel checks ``out``'s memory against its tensor arguments,
# before computing (the message is in-place ops', ops/inplace.check_overlap). Pointwise
# ops, cumulative ops, where, clamp ... (the default) refuse an ``out`` that shares some
# but not all memory with an input (``torch.exp(x[:-1], out=x[1:])``); writing into the
# input itself is fine. The concatenations, gather, index_select, masked_select, outer,
# cross and addr refuse any shared memory (``torch.cat([x, y], out=x)``); addmm and its
# kind check their first argument only (ldexp too: it multiplies it by 2 ** other). The
# matrix products, reductions, tril/triu, diag and the search functions check nothing
# (their results with such an ``out`` depend on the order PyTorch writes in; teachgrad
# computes first and then copies).
_OUT_OVERLAP_ANY = frozenset({
    "cat", "concat", "stack", "vstack", "hstack", "dstack", "column_stack", "gather",
    "index_select", "masked_select", "take_along_dim", "outer", "cross", "addr",
})
_OUT_OVERLAP_FIRST = frozenset({"addmm", "addmv", "baddbmm", "addbmm", "ldexp"})
_OUT_OVERLAP_UNCHECKED = frozenset({
    "all", "any", "amax", "amin", "bmm", "diag", "diff", "dot", "vdot", "inner", "kron",
    "logsumexp", "matmul", "mean", "mm", "mv", "nanmean", "prod", "std", "sum", "tril",
    "triu", "var", "bucketize", "searchsorted",
})


def _check_out_memory(name: str, args: tuple, kwargs: dict, out: Tensor) -> None:
    """Refuse an ``out`` sharing memory with a tensor argument as ``name``'s PyTorch kernel
    does (see ``_OUT_OVERLAP_ANY``)."""
    if name in _OUT_OVERLAP_UNCHECKED or not isinstance(out, Tensor):
        return
    from .ops.inplace import check_overlap

    full_too = name in _OUT_OVERLAP_ANY
    operands = args[:1] if name in _OUT_OVERLAP_FIRST else (*args, *kwargs.values())
    for arg in operands:
        for item in arg if isinstance(arg, (list, tuple)) else (arg,):
            if isinstance(item, Tensor):
                check_overlap(out._data, item._data, full_too=full_too)


def _dtype_refusal(name: str, result: Tensor, out: Tensor) -> str | None:
    """PyTorch's message when ``result`` may not be written into ``out``, else None."""
    names = {"result": _short(result), "out": _short(out),
             "result_cpp": _CPP_NAMES[result._data.dtype.name],
             "out_cpp": _CPP_NAMES[out._data.dtype.name]}
    same = result._data.dtype == out._data.dtype
    if name in _OUT_DTYPES:
        allowed, message = _OUT_DTYPES[name]
        return None if out._data.dtype.name in allowed else message.format(**names)
    if name in _SAME_DTYPE_MESSAGES:
        return None if same else _SAME_DTYPE_MESSAGES[name].format(**names)
    if name in ("searchsorted", "bucketize") and not same:  # (int32 iff out_int32=True)
        return ("torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) "
                "or Long(int64) depending on whether out_int32 flag is True, but we got output "
                f"tensor's dtype {names['out']} and out_int32 flag is "
                f"{result._data.dtype == np.int32}")
    if name == "logsumexp" and out._data.dtype.kind != "f":
        return ("logsumexp(): Expected floating point type for result tensor, but got: "
                f"{names['out']}")
    if np.can_cast(result._data.dtype, out._data.dtype, "same_kind"):
        return None
    if name in _CAT_FUNCTIONS:
        return f"torch.cat(): input types can't be cast to the desired output type {names['out']}"
    if name in _CAST_MESSAGES:
        return _CAST_MESSAGES[name].format(**names)
    return f"result type {names['result']} can't be cast to the desired output type {names['out']}"


def _short(t: Tensor) -> str:
    return t.dtype._legacy.removesuffix("Tensor")


def _castable_from_float(prefix: str) -> Callable:
    """The linalg functions that check first that their float result casts to ``out``."""
    def check(x: np.dtype, out: np.dtype, names: dict) -> str | None:
        if x.kind == "f" and not np.can_cast(x, out, "same_kind"):
            return (f"{prefix}: Expected result to be safely castable from {names['x']} dtype, "
                    f"but got result with dtype {names['out']}")
        return None
    return check


def _exact_for_float(message: str) -> Callable:
    """Norms of a float tensor: ``out`` must have its dtype (checked first)."""
    def check(x: np.dtype, out: np.dtype, names: dict) -> str | None:
        return message.format(**names) if x.kind == "f" and x != out else None
    return check


def _diag_out(x: np.dtype, out: np.dtype, names: dict) -> str | None:
    if names["ndim"] == 1 and not np.can_cast(x, out, "same_kind"):
        return (f"diag: result type {names['x']} can't be cast to the desired out= type "
                f"{names['out']}")
    return None if x == out or names["ndim"] not in (1, 2) else _EXACT.format(
        result_cpp=names["x_cpp"], out_cpp=names["out_cpp"])


def _nan_reduction_out(mean: bool) -> Callable:
    def check(x: np.dtype, out: np.dtype, names: dict) -> str | None:
        if mean and x.kind != "f":
            return ("nanmean(): integral types and 'Bool' are not supported for nanmean, even "
                    "for empty tensors.")
        if x.kind == "f" and out.kind != "f":  # (PyTorch sums in out's dtype: no int kernel)
            return f"\"nansum_cpu\" not implemented for '{names['out']}'"
        return None
    return check


# Functions whose PyTorch kernel checks ``out``'s dtype against the input's before anything
# else (the others compute first, then refuse: write_out): (input dtype, out dtype, names)
# -> PyTorch's message, or None. Keyed by the name called (linalg_norm is not torch.norm).
_OUT_DTYPE_FIRST: dict[str, Callable] = {
    "cholesky": _castable_from_float("cholesky"),
    "linalg_cond": _castable_from_float("linalg.cond"),
    "linalg_pinv": _castable_from_float("linalg.pinv"),
    "linalg_tensorinv": _castable_from_float("tensorinv"),
    "linalg_norm": _exact_for_float("linalg.norm expected out tensor dtype {x} but got: {out}"),
    "linalg_vector_norm": _exact_for_float(_EXACT.replace("result_cpp", "x_cpp")),
    "slice_copy": lambda x, out, names: None if x == out else _EXACT.format(
        result_cpp=names["x_cpp"], out_cpp=names["out_cpp"]),
    "bitwise_not": lambda x, out, names: None if x == out else
    f"Found dtype {names['out']} but expected {names['x']}",
    "diag": _diag_out,
    "nansum": _nan_reduction_out(mean=False),
    "nanmean": _nan_reduction_out(mean=True),
}


def _check_out_dtype_first(called: str, args: tuple, kwargs: dict, out) -> None:
    """Refuse ``out``'s dtype before computing, where PyTorch does (``_OUT_DTYPE_FIRST``)."""
    check = _OUT_DTYPE_FIRST.get(called)
    x = args[0] if args else kwargs.get("input", kwargs.get("A"))
    if check is None or not isinstance(x, Tensor) or not isinstance(out, Tensor) or \
            kwargs.get("dtype") is not None:
        return
    names = {"x": _short(x), "out": _short(out), "x_cpp": _CPP_NAMES[x._data.dtype.name],
             "out_cpp": _CPP_NAMES[out._data.dtype.name], "ndim": x._data.ndim}
    message = check(x._data.dtype, out._data.dtype, names)
    if message is not None:
        kind = NotImplementedError if message.startswith('"') else RuntimeError
        raise kind(message)


def write_out(name: str, result: Tensor, out: Tensor, row_major: bool = False) -> Tensor:
    """Copy ``result`` into ``out`` (resized if needed) and return ``out``; ``row_major``:
    a resized ``out`` stays row-major (PyTorch copies such a function's result into it)."""
    if not isinstance(out, Tensor):
        raise TypeError(
            f"{name}(): argument 'out' must be Tensor, not {python_type_name(out)}"
            + real_pytorch_hint(out)
        )
    refusal = _dtype_refusal(name, result, out)
    if refusal is not None:
        raise RuntimeError(refusal)
    if out.shape != result.shape:
        if out.numel():
            warn_user(
                "An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                "with t.resize_(0).",
                UserWarning,
            )
        out.resize_(result.shape)
        if not row_major and not result._data.flags.c_contiguous and result.numel():
            # a resized out takes the layout the result has (column-major for LAPACK's
            # results, a permuted input's order for pointwise ops), as PyTorch's kernels
            # set it; an out of the right shape keeps its own
            out.as_strided_(result.shape, result.stride())
    with no_grad():
        out.copy_(result)
    return out


def accepts_out(function: Callable[..., Tensor], name: str | None = None,
                creates: bool = False, called: str | None = None) -> Callable[..., Tensor]:
    """``function`` with PyTorch's ``out=`` keyword added (see the module docstring);
    ``name`` is the one errors show (default: the function's own); ``creates``: a creation
    function, whose values take ``out``'s dtype unless ``dtype=`` is given. ``called`` is
    the name of an alias (``absolute`` for abs): PyTorch's argument parser names it in its
    TypeErrors, while its kernels' errors name the function itself."""
    name = name or function.__name__
    called = called or name
    input_first = takes_input_first(function)

    @functools.wraps(function)
    def with_out(*args, out: Tensor | None = None, **kwargs) -> Tensor:
        # (the __torch_function__ protocol, here to save a frame: see _input_check)
        if STATE.armed and has_overloaded(args, kwargs if out is None else {**kwargs,
                                                                            "out": out}):
            return handle(with_out, args, kwargs if out is None else {**kwargs, "out": out})
        if out is None:
            try:
                return function(*args, **kwargs)
            except (AttributeError, TypeError) as error:  # torch.sum([1, 2]): PyTorch's words
                tensor_like = tensor_likes(args, kwargs)
                if not tensor_like:
                    error_for_alias = parser_error(called, args, kwargs, error)  # torch.add(x)
                    if error_for_alias is None and input_first:
                        refuse_non_tensor_input(called, args, kwargs, error, name)
                    error_for_alias = (error_for_alias
                                       or missing_error(error, called, name, function, args,
                                                        kwargs)
                                       or renamed(error, name, called))
                    if error_for_alias is None:
                        raise
            if tensor_like:
                return dispatch(with_out, tensor_like, args, kwargs or None)
            raise error_for_alias  # (outside the except: no "during handling" chain)
        if called in _DEPRECATED_WITH_OUT:
            warn_user(_DEPRECATED_WITH_OUT[called], UserWarning)
        if creates and isinstance(out, Tensor) and kwargs.get("dtype") is None:
            kwargs["dtype"] = out.dtype
        elif creates and isinstance(out, Tensor) and to_dtype(kwargs["dtype"]) != out.dtype:
            raise RuntimeError(
                f"dtype {to_dtype(kwargs['dtype'])._legacy.removesuffix('Tensor')} does not "
                f"match dtype of out parameter ({_short(out)})"
            )
        if name in _REDUCE_IN_OUT_DTYPE and isinstance(out, Tensor) and kwargs.get("dtype") is None:
            kwargs["dtype"] = out.dtype
        if name not in _NOT_DIFFERENTIABLE and called not in _COMPOSITE_OUT and \
                is_grad_enabled() and (
            _requires_grad(args, kwargs) or (isinstance(out, Tensor) and out.requires_grad)
        ):
            raise _out_autograd_error(name, called, args)
        _check_out_memory(name, args, kwargs, out)
        _check_out_dtype_first(called, args, kwargs, out)
        if called in _COMPOSITE_OUT and is_grad_enabled() and _requires_grad(args, kwargs):
            return _write_out_recorded(name, function(*args, **kwargs), out)
        return write_out(name, function(*args, **kwargs), out, called in _ROW_MAJOR_OUT)

    with_out.checks_input = True  # (see _input_check: not to be wrapped again)
    with_out.dispatches_torch_function = with_out  # (itself: see add_dispatch)
    return with_out


# The kernel PyTorch's out= autograd error names when it is not the function's own: the
# one the function is written with (torch.square is pow), keyed by the name called.
_AUTOGRAD_KERNELS = {
    **dict.fromkeys(("column_stack", "dstack", "hstack", "vstack"), "cat"),
    **dict.fromkeys(("cross", "linalg_cross"), "linalg_cross"),
    **dict.fromkeys(("kron", "outer", "ger"), "mul"),
    **dict.fromkeys(("norm", "linalg_vector_norm"), "linalg_vector_norm"),
    **dict.fromkeys(("inverse", "linalg_inv"), "linalg_inv_ex"),
    **dict.fromkeys(("orgqr", "linalg_householder_product"), "linalg_householder_product"),
    **dict.fromkeys(("chain_matmul", "linalg_multi_dot"), "mm"),
    **dict.fromkeys(("square", "float_power"), "pow"),
    "log_sigmoid": "log_sigmoid_forward",
    "diff": "sub", "nanmean": "nansum", "take_along_dim": "gather", "fix": "trunc",
    "msort": "sort", "linalg_cholesky": "linalg_cholesky_ex", "linalg_det": "_linalg_det",
    "linalg_eigvalsh": "_linalg_eigh", "linalg_pinv": "linalg_pinv",
    "linalg_svdvals": "_linalg_svd", "linalg_vecdot": "vdot", "linalg_lu_solve":
    "linalg_lu_solve", "linalg_matrix_power": "matmul", "linalg_solve": "_linalg_solve_ex",
    **{f"special_{n}": f"special_{n}" for n in (
        "entr", "erfcx", "i0e", "i1", "i1e", "log_ndtr", "ndtri", "xlog1py", "zeta")},
}
# Functions PyTorch differentiates, but not with out=: no derivative formula at all then.
_NO_OUT_DERIVATIVE = {
    "alias_copy": "alias_copy", "conj_physical": "conj_physical", "detach_copy": "detach_copy",
    "diagonal_copy": "diagonal_copy", "floor_divide": "floor_divide", "heaviside": "heaviside",
    "slice_copy": "slice_copy", "slice_scatter": "slice_scatter", "t_copy": "t_copy",
    "squeeze_copy": "squeeze_copy",
}


# Deprecated names whose out= kernel warns before writing (without out= PyTorch 2.13's
# torch.ger goes straight to outer, silently).
_DEPRECATED_WITH_OUT = {
    "ger": "torch.ger is deprecated and will be removed in a future PyTorch release. Use "
           "torch.outer instead.",
}


# Functions PyTorch writes in Python-like C++ (CompositeImplicitAutograd): with out= they
# compute as usual and copy into out, so out= records a graph (out.grad_fn is CopyBackwards).
_COMPOSITE_OUT = frozenset(("linalg_cond", "linalg_matrix_norm", "linalg_norm", "inner",
                            "special_ndtr"))


# Functions whose result PyTorch copies into a resized out (torch.cholesky: the deprecated
# name computes linalg.cholesky and copies), so out stays row-major where the result is not.
_ROW_MAJOR_OUT = frozenset(("cholesky",))


def _write_out_recorded(name: str, result: Tensor, out: Tensor) -> Tensor:
    """``write_out`` for ``_COMPOSITE_OUT``: the copy into ``out`` is recorded."""
    if out.requires_grad:  # (a leaf that requires grad cannot be written in place)
        raise _out_autograd_error(name, name, ())
    written = write_out(name, result.detach(), out)  # (dtype, resizing, warning)
    written.copy_(result)  # again, recorded: the gradient flows back to the inputs
    return written


def _out_autograd_error(name: str, called: str, args: tuple) -> RuntimeError:
    """PyTorch's refusal of out= when an argument requires grad, naming its kernel."""
    if called == "diag" and args and isinstance(args[0], Tensor):  # (diag_embed / diagonal)
        called = "diag_embed" if args[0]._data.ndim == 1 else "diagonal_copy"
        return RuntimeError(f"derivative for aten::{called} is not implemented\nHint: out= "
                            "never records a graph; call the function without out= to "
                            "differentiate it.")
    if called in _NO_OUT_DERIVATIVE:
        return RuntimeError(f"derivative for aten::{_NO_OUT_DERIVATIVE[called]} is not "
                            "implemented\nHint: out= never records a graph; call the "
                            "function without out= to differentiate it.")
    return RuntimeError(
        f"{_AUTOGRAD_KERNELS.get(called, name)}(): functions with out=... arguments don't "
        "support automatic differentiation, but one of the arguments requires grad.")


def add_out_arguments(namespace: dict, special: dict) -> None:
    """Wrap the :data:`OUT_FUNCTIONS` found in ``namespace`` (a module's globals).

    Every name bound to one of them, in ``namespace`` and in ``special`` (torch.special's
    namespace), is rebound to a wrapper of its own that takes ``out=`` too and whose
    TypeErrors name the function called, as PyTorch's parser does (``torch.absolute``
    says ``absolute()``, ``torch.special.expit`` ``special_expit()``); its other errors
    name the function itself (``abs()``), as PyTorch's kernels do.
    """
    wanted = {id(namespace[name]) for name in OUT_FUNCTIONS if name in namespace}
    wanted |= {id(special[name]) for name in SPECIAL_OUT_FUNCTIONS if name in special}
    creating = {id(namespace[name]) for name in OUT_CREATION_FUNCTIONS if name in namespace}
    for names, prefix in ((namespace, ""), (special, "special_")):
        for name, value in list(names.items()):
            if callable(value) and (id(value) in wanted or id(value) in creating):
                names[name] = accepts_out(value, creates=id(value) in creating,
                                          called=shown_name(name, prefix))


def add_linalg_out_arguments(linalg: dict) -> None:
    """Wrap :data:`LINALG_OUT_FUNCTIONS` in ``linalg`` (teachgrad.linalg's namespace); its
    TypeErrors name ``linalg_det`` & co., as PyTorch's parser does."""
    for name in LINALG_OUT_FUNCTIONS:
        if name in linalg:
            linalg[name] = accepts_out(linalg[name], called=shown_name(name, "linalg_"))


# Functions returning several tensors (a named tuple) take ``out=`` as a tuple of tensors,
# one per result, in PyTorch: ``torch.sort(x, out=(values, indices))``. (max and min
# return one tensor without ``dim``: then ``out`` is one tensor, as above.)
TUPLE_OUT_FUNCTIONS = (
    "aminmax", "cummax", "cummin", "frexp", "geqrf", "histogram", "kthvalue", "lu_unpack",
    "max", "median", "min", "mode", "nanmedian", "qr", "slogdet", "sort", "svd", "topk",
    "triangular_solve",
)
LINALG_TUPLE_OUT_FUNCTIONS = (
    "cholesky_ex", "eig", "eigh", "inv_ex", "ldl_factor", "ldl_factor_ex", "lstsq", "lu",
    "lu_factor", "lu_factor_ex", "qr", "slogdet", "solve_ex", "svd",
)

# How PyTorch's C++ names dtypes in "Expected out tensor to have dtype ..."
_CPP_NAMES = {
    "float16": "c10::Half", "float32": "float", "float64": "double", "int64": "long int",
    "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
    "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}


def _cpp_name(dtype: np.dtype) -> str:
    return _CPP_NAMES.get(dtype.name, dtype.name)


def write_tuple_out(name: str, result: tuple, out) -> tuple:
    """Copy each tensor of ``result`` into the tensor of ``out`` at its place.

    Every dtype must match exactly (PyTorch's kernels for these write the results as they
    are); shapes are resized as for one tensor. The answer is PyTorch's ``<name>_out`` named
    tuple of the ``out`` tensors themselves.
    """
    if len(out) != len(result):
        raise TypeError(f"expected tuple of {len(result)} elements but got {len(out)}")
    for made, given in zip(result, out):
        if not isinstance(given, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                            f"{type(given).__name__}")
        if made._data.dtype != given._data.dtype:
            raise RuntimeError(
                f"Expected out tensor to have dtype {_cpp_name(made._data.dtype)}, but got "
                f"{_cpp_name(given._data.dtype)} instead\nHint: make the out tensors with the "
                "dtypes the function returns (indices are int64)."
            )
    for made, given in zip(result, out):
        write_out(name, made, given)
    fields = getattr(type(result), "_fields", None)
    if not fields:  # (a plain tuple)
        return tuple(out)
    from .return_types import structseq

    return structseq(f"{type(result).__name__}_out", fields)(*out)


def accepts_tuple_out(function: Callable, name: str) -> Callable:
    """``function`` (which returns a named tuple) with PyTorch's tuple ``out=`` added."""

    @functools.wraps(function)
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return function(*args, **kwargs)
        if not isinstance(out, (tuple, list, Tensor)):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                            f"{type(out).__name__}")
        if is_grad_enabled() and (_requires_grad(args, kwargs) or any(
                isinstance(o, Tensor) and o.requires_grad
                for o in (out if isinstance(out, (tuple, list)) else (out,)))):
            # (max(a, b) and min(a, b) are PyTorch's maximum and minimum kernels)
            pairwise = name in ("max", "min") and len(args) > 1 and isinstance(args[1], Tensor)
            raise RuntimeError(
                f"{name + 'imum' if pairwise else name}(): functions with out=... arguments "
                "don't support automatic "
                "differentiation, but one of the arguments requires grad."
            )
        result = function(*args, **kwargs)
        if isinstance(result, Tensor):  # max(x), min(x), max(a, b): one tensor
            return write_out(name, result, out)
        if isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not Tensor")
        return write_tuple_out(name, result, out)

    return with_out


def add_tuple_out_arguments(namespace: dict, linalg: dict) -> None:
    """Wrap the functions of :data:`TUPLE_OUT_FUNCTIONS` (in ``namespace``, teachgrad's
    globals) and :data:`LINALG_TUPLE_OUT_FUNCTIONS` (in ``linalg``, teachgrad.linalg's)."""
    for names, wanted, prefix in ((namespace, TUPLE_OUT_FUNCTIONS, ""),
                                  (linalg, LINALG_TUPLE_OUT_FUNCTIONS, "linalg_")):
        for name in wanted:
            if name in names:
                names[name] = accepts_tuple_out(names[name], prefix + name)
