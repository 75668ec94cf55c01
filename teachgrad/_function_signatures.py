"""PyTorch's TypeError for a call of a top-level function that fits none of its signatures
(``torch.add(x)``, ``torch.mm(x)``, ``torch.sum(x, 'a')``, ``torch.full(2.5)``).

PyTorch's argument parser knows every signature of ``torch.add`` & co. and words its
refusal from them::

    torch.add(x)
    TypeError: add() received an invalid combination of arguments - got (Tensor), but
    expected (Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)

teachgrad's functions are Python functions: left alone, Python would answer in its own
words (``add() missing 1 required positional argument: 'other'``), or the function would
fail somewhere inside. ``SIGNATURES`` lists PyTorch's signatures of the functions a learner
calls most (arithmetic, comparisons, the matmul family, reductions, creation functions), as
PyTorch prints them (the marks ``[1]`` and ``?`` are explained in _arguments), read from
PyTorch 2.13's own declarations.

It costs nothing on a call that works: the wrappers every namespace function already has
(``out=``: _out.accepts_out; a non-tensor ``input``: _input_check.checks_input; the
factories' ``pin_memory=``: _pin_memory) call :func:`parser_error` in their ``except``
branch only, and it replaces the error only when the arguments fit none of the signatures
(an error from a call that fits one is the function's own, and kept).

>>> import teachgrad as torch
>>> torch.mm(torch.ones(2, 2))
Traceback (most recent call last):
...
TypeError: mm() received an invalid combination of arguments - got (Tensor), but expected one of:
 * (Tensor input, Tensor mat2, *, Tensor out = None)
 * (Tensor input, Tensor mat2, torch.dtype out_dtype, *, Tensor out = None)
<BLANKLINE>
"""

from __future__ import annotations

from ._arguments import Signatures, is_number
from ._real_pytorch import real_pytorch_hint
from ._tensor import Tensor


class _Hidden(tuple):
    """Signatures of a function that has hidden (deprecated) ones too, which PyTorch does
    not print: with them, a call that fits none is "an invalid combination" (torch.add(x))."""


def _hidden(*texts: str) -> _Hidden:
    return _Hidden(texts)


_FACTORY = ("torch.dtype? dtype = None, torch.layout? layout = None, torch.device? device = "
            "None, bool? pin_memory = False, bool? requires_grad = False")
_LIKE = "torch.memory_format? memory_format = None, " + _FACTORY
# (the windows' factory arguments, as their signatures print them: no "?")
_WINDOW = ("torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
           "bool pin_memory = False, bool requires_grad = False")
_WINDOWS = (f"(int window_length, *, {_WINDOW})",
            f"(int window_length, bool periodic, *, {_WINDOW})")

# PyTorch 2.13's signatures of torch.<name>, in the order its messages list them.
SIGNATURES: dict[str, tuple[str, ...]] = {
    "add": _hidden("(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)"),
    "sub": _hidden("(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)"),
    "mul": ("(Tensor input, Tensor other, *, Tensor out = None)",),
    "div": (
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, Tensor other, *, str? rounding_mode, Tensor out = None)",
        "(Tensor input, Number other, *, str? rounding_mode)"
    ),
    "true_divide": (
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, Number other)"
    ),
    "floor_divide": (
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, Number other)"
    ),
    "remainder": (
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Number self, Tensor other)",
        "(Tensor input, Number other, *, Tensor out = None)"
    ),
    "fmod": (
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, Number other, *, Tensor out = None)"
    ),
    "pow": (
        "(Tensor input, Tensor exponent, *, Tensor out = None)",
        "(Number self, Tensor exponent, *, Tensor out = None)",
        "(Tensor input, Number exponent, *, Tensor out = None)"
    ),
    "multiply": (
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, Number other)"
    ),
    "subtract": (
        "(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)",
        "(Tensor input, Number other, Number alpha = 1)"
    ),
    "divide": (
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, Tensor other, *, str? rounding_mode, Tensor out = None)",
        "(Tensor input, Number other)",
        "(Tensor input, Number other, *, str? rounding_mode)"
    ),
    "eq": (
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, Number other, *, Tensor out = None)"
    ),
    "ne": (
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, Number other, *, Tensor out = None)"
    ),
    "not_equal": (
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, Number other, *, Tensor out = None)"
    ),
    "lt": (
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, Number other, *, Tensor out = None)"
    ),
    "le": (
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, Number other, *, Tensor out = None)"
    ),
    "gt": (
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, Number other, *, Tensor out = None)"
    ),
    "ge": (
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, Number other, *, Tensor out = None)"
    ),
    "maximum": ("(Tensor input, Tensor other, *, Tensor out = None)",),
    "minimum": ("(Tensor input, Tensor other, *, Tensor out = None)",),
    "clamp": (
        "(Tensor input, Tensor? min = None, Tensor? max = None, *, Tensor out = None)",
        "(Tensor input, Number? min = None, Number? max = None, *, Tensor out = None)"
    ),
    "hann_window": _WINDOWS,
    "blackman_window": _WINDOWS,
    "bartlett_window": _WINDOWS,
    "hamming_window": (
        *_WINDOWS,
        f"(int window_length, bool periodic, float alpha, *, {_WINDOW})",
        f"(int window_length, bool periodic, float alpha, float beta, *, {_WINDOW})"
    ),
    "kaiser_window": (
        *_WINDOWS, f"(int window_length, bool periodic, float beta, *, {_WINDOW})"
    ),
    "clamp_min": (
        "(Tensor input, Tensor min, *, Tensor out = None)",
        "(Tensor input, Number min, *, Tensor out = None)"
    ),
    "clamp_max": (
        "(Tensor input, Tensor max, *, Tensor out = None)",
        "(Tensor input, Number max, *, Tensor out = None)"
    ),
    "where": (
        "(Tensor condition)",
        "(Tensor condition, Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor condition, Number self, Tensor other)",
        "(Tensor condition, Tensor input, Number other)",
        "(Tensor condition, Number self, Number other)"
    ),
    "matmul": ("(Tensor input, Tensor other, *, Tensor out = None)",),
    "mm": (
        "(Tensor input, Tensor mat2, *, Tensor out = None)",
        "(Tensor input, Tensor mat2, torch.dtype out_dtype, *, Tensor out = None)"
    ),
    "bmm": (
        "(Tensor input, Tensor mat2, *, Tensor out = None)",
        "(Tensor input, Tensor mat2, torch.dtype out_dtype, *, Tensor out = None)"
    ),
    "mv": ("(Tensor input, Tensor vec, *, Tensor out = None)",),
    "dot": ("(Tensor input, Tensor tensor, *, Tensor out = None)",),
    "outer": ("(Tensor input, Tensor vec2, *, Tensor out = None)",),
    "inner": ("(Tensor input, Tensor other, *, Tensor out = None)",),
    "addmm": (
        "(Tensor input, Tensor mat1, Tensor mat2, *, Number beta = 1, Number alpha = 1, "
        "Tensor out = None)",
        "(Tensor input, Tensor mat1, Tensor mat2, torch.dtype out_dtype, *, Number beta = 1, "
        "Number alpha = 1, Tensor out = None)"
    ),
    "addmv": _hidden(
        "(Tensor input, Tensor mat, Tensor vec, *, Number beta = 1, Number alpha = 1, "
        "Tensor out = None)"
    ),
    "baddbmm": (
        "(Tensor input, Tensor batch1, Tensor batch2, *, Number beta = 1, Number alpha = 1, "
        "Tensor out = None)",
        "(Tensor input, Tensor batch1, Tensor batch2, torch.dtype out_dtype, *, Number beta = 1, "
        "Number alpha = 1, Tensor out = None)"
    ),
    "addbmm": _hidden(
        "(Tensor input, Tensor batch1, Tensor batch2, *, Number beta = 1, Number alpha = 1, "
        "Tensor out = None)"
    ),
    "kron": ("(Tensor input, Tensor other, *, Tensor out = None)",),
    "cross": ("(Tensor input, Tensor other, int? dim = None, *, Tensor out = None)",),
    "sum": (
        "(Tensor input, *, torch.dtype? dtype = None)",
        "(Tensor input, tuple of ints[1]? dim, bool keepdim = False, *, "
        "torch.dtype? dtype = None, Tensor out = None)"
    ),
    "mean": (
        "(Tensor input, *, torch.dtype? dtype = None, Tensor out = None)",
        "(Tensor input, tuple of ints[1]? dim, bool keepdim = False, *, "
        "torch.dtype? dtype = None, Tensor out = None)"
    ),
    "prod": (
        "(Tensor input, *, torch.dtype? dtype = None)",
        "(Tensor input, int dim, bool keepdim = False, *, torch.dtype? dtype = None, "
        "Tensor out = None)"
    ),
    "max": (
        "(Tensor input, *, Tensor out = None)",
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)"
    ),
    "min": (
        "(Tensor input, *, Tensor out = None)",
        "(Tensor input, Tensor other, *, Tensor out = None)",
        "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)"
    ),
    "amax": (
        "(Tensor input, tuple of ints[1] dim = None, bool keepdim = False, *, Tensor out = None)",
    ),
    "amin": (
        "(Tensor input, tuple of ints[1] dim = None, bool keepdim = False, *, Tensor out = None)",
    ),
    "argmax": ("(Tensor input, int? dim = None, bool keepdim = False, *, Tensor out = None)",),
    "argmin": ("(Tensor input, int? dim = None, bool keepdim = False, *, Tensor out = None)",),
    "std": (
        "(Tensor input, tuple of ints[1]? dim, bool unbiased = True, bool keepdim = False, *, "
        "Tensor out = None)",
        "(Tensor input, tuple of ints[1]? dim = None, *, Number? correction = None, "
        "bool keepdim = False, Tensor out = None)",
        "(Tensor input, bool unbiased = True)"
    ),
    "var": (
        "(Tensor input, tuple of ints[1]? dim, bool unbiased = True, bool keepdim = False, *, "
        "Tensor out = None)",
        "(Tensor input, tuple of ints[1]? dim = None, *, Number? correction = None, "
        "bool keepdim = False, Tensor out = None)",
        "(Tensor input, bool unbiased = True)"
    ),
    "median": (
        "(Tensor input)",
        "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)"
    ),
    "logsumexp": (
        "(Tensor input, tuple of ints[1] dim, bool keepdim = False, *, Tensor out = None)",
    ),
    "cumsum": ("(Tensor input, int dim, *, torch.dtype? dtype = None, Tensor out = None)",),
    "cumprod": ("(Tensor input, int dim, *, torch.dtype? dtype = None, Tensor out = None)",),
    "all": (
        "(Tensor input, *, Tensor out = None)",
        "(Tensor input, tuple of ints? dim = None, bool keepdim = False, *, Tensor out = None)",
        "(Tensor input, int dim, bool keepdim = False, *, Tensor out = None)"
    ),
    "any": (
        "(Tensor input, *, Tensor out = None)",
        "(Tensor input, tuple of ints? dim = None, bool keepdim = False, *, Tensor out = None)",
        "(Tensor input, int dim, bool keepdim = False, *, Tensor out = None)"
    ),
    "nansum": (
        "(Tensor input, tuple of ints[1]? dim = None, bool keepdim = False, *, "
        "torch.dtype? dtype = None, Tensor out = None)",
    ),
    "nanmean": (
        "(Tensor input, tuple of ints[1]? dim = None, bool keepdim = False, *, "
        "torch.dtype? dtype = None, Tensor out = None)",
    ),
    "softmax": ("(Tensor input, int dim, torch.dtype? dtype = None, *, Tensor out = None)",),
    "log_softmax": ("(Tensor input, int dim, torch.dtype? dtype = None, *, Tensor out = None)",),
    "zeros": (f"(tuple of ints size, *, Tensor out = None, {_FACTORY})",),
    "ones": (f"(tuple of ints size, *, Tensor out = None, {_FACTORY})",),
    "empty": (
        "(tuple of ints size, *, torch.memory_format? memory_format = None, Tensor out = None, "
        f"{_FACTORY})",
    ),
    "full": (f"(tuple of ints size, Number fill_value, *, Tensor out = None, {_FACTORY})",),
    "arange": (
        f"(Number end, *, Tensor out = None, {_FACTORY})",
        f"(Number start, Number end, *, {_FACTORY})",
        f"(Number start, Number end, Number step = 1, *, Tensor out = None, {_FACTORY})"
    ),
    "linspace": (
        f"(Tensor start, Tensor end, int steps, *, Tensor out = None, {_FACTORY})",
        f"(Number start, Tensor end, int steps, *, Tensor out = None, {_FACTORY})",
        f"(Tensor start, Number end, int steps, *, Tensor out = None, {_FACTORY})",
        f"(Number start, Number end, int steps, *, Tensor out = None, {_FACTORY})"
    ),
    "logspace": (
        "(Tensor start, Tensor end, int steps, float base = 10.0, *, Tensor out = None, "
        f"{_FACTORY})",
        "(Number start, Tensor end, int steps, float base = 10.0, *, Tensor out = None, "
        f"{_FACTORY})",
        "(Tensor start, Number end, int steps, float base = 10.0, *, Tensor out = None, "
        f"{_FACTORY})",
        "(Number start, Number end, int steps, float base = 10.0, *, Tensor out = None, "
        f"{_FACTORY})"
    ),
    "randn": (
        f"(tuple of ints size, *, torch.Generator? generator, Tensor out = None, {_FACTORY})",
        f"(tuple of ints size, *, Tensor out = None, {_FACTORY})"
    ),
    "rand": (
        f"(tuple of ints size, *, torch.Generator? generator, Tensor out = None, {_FACTORY})",
        f"(tuple of ints size, *, Tensor out = None, {_FACTORY})"
    ),
    "randint": (
        "(int high, tuple of ints size, *, torch.Generator? generator, Tensor out = None, "
        f"{_FACTORY})",
        f"(int high, tuple of ints size, *, Tensor out = None, {_FACTORY})",
        "(int low, int high, tuple of ints size, *, torch.Generator? generator, "
        f"Tensor out = None, {_FACTORY})",
        f"(int low, int high, tuple of ints size, *, Tensor out = None, {_FACTORY})"
    ),
    "randperm": (
        f"(int n, *, torch.Generator? generator, Tensor out = None, {_FACTORY})",
        f"(int n, *, Tensor out = None, {_FACTORY})"
    ),
    "eye": (
        f"(int n, *, Tensor out = None, {_FACTORY})",
        f"(int n, int m, *, Tensor out = None, {_FACTORY})"
    ),
    "zeros_like": (f"(Tensor input, *, {_LIKE})",),
    "ones_like": (f"(Tensor input, *, {_LIKE})",),
    "full_like": (f"(Tensor input, Number fill_value, *, {_LIKE})",),
    "rand_like": (
        f"(Tensor input, *, torch.Generator? generator, {_LIKE})",
        f"(Tensor input, *, {_LIKE})"
    ),
    "randn_like": (
        f"(Tensor input, *, torch.Generator? generator, {_LIKE})",
        f"(Tensor input, *, {_LIKE})"
    ),
    "randint_like": (
        f"(Tensor input, int low, int high, *, torch.Generator? generator, {_LIKE})",
        f"(Tensor input, int low, int high, *, {_LIKE})",
        f"(Tensor input, Tensor high, *, torch.Generator? generator, {_LIKE})",
        f"(Tensor input, Tensor high, *, {_LIKE})",
        f"(Tensor input, int high, *, torch.Generator? generator, {_LIKE})",
        f"(Tensor input, int high, *, {_LIKE})"
    ),
    "normal": (
        "(Tensor mean, Tensor std, *, torch.Generator? generator = None, Tensor out = None)",
        "(Tensor mean, float std = 1, *, torch.Generator? generator = None, Tensor out = None)",
        "(float mean, Tensor std, *, torch.Generator? generator = None, Tensor out = None)",
        "(float mean, float std, tuple of ints size, *, torch.Generator? generator = None, "
        f"Tensor out = None, {_FACTORY})"
    ),
}

# The functions whose Tensor parameters PyTorch's parser also fills with a number
# (python_arg_parser.cpp's should_allow_numbers_as_tensors): torch.add(2, x) is a call.
_NUMBERS_AS_TENSORS = frozenset({
    "add", "sub", "mul", "div", "divide", "multiply", "subtract", "true_divide", "floor_divide",
})

_PARSED: dict[str, Signatures] = {}  # (parsed on a first error, then kept)


def _signatures(name: str) -> Signatures | None:
    """The parsed signatures of ``torch.<name>``, or None when it is not listed."""
    if name not in _PARSED:
        texts = SIGNATURES.get(name)
        if texts is None:
            return None
        _PARSED[name] = Signatures(name, *texts, hidden=isinstance(texts, _Hidden),
                                   numbers_as_tensors=name in _NUMBERS_AS_TENSORS)
    return _PARSED[name]


def parser_error(name: str | None, args: tuple, kwargs: dict,
                 error: Exception) -> TypeError | None:
    """PyTorch's TypeError for ``torch.<name>(*args, **kwargs)``, which failed with
    ``error``, when the arguments fit none of PyTorch's signatures; None otherwise (the
    function's own error stands). Call it in an ``except`` branch only."""
    if getattr(error, "from_signatures", False):  # (an inner wrapper worded it already)
        return error
    signatures = _signatures(name) if name is not None else None
    if signatures is None:
        return None
    refusal = signatures.error(args, kwargs)
    if refusal is None:
        return None
    message, own = str(refusal), str(error)
    hint = _input_hint(name, signatures, args, kwargs)
    if own.startswith(message.rstrip("\n")) and ("Hint: " in own or not hint):
        return None  # (the function's own words are PyTorch's already)
    refusal = TypeError(message + hint)
    refusal.from_signatures = True
    return refusal


def refusal(name: str, args: tuple, kwargs: dict | None = None) -> TypeError:
    """PyTorch's TypeError for ``torch.<name>(*args, **kwargs)``, a call its function has
    found to fit none of the signatures (``torch.where(c, y)``: one branch without the
    other)."""
    error = _signatures(name).error(args, kwargs)
    return error or TypeError(f"{name}() received an invalid combination of arguments")


def _input_hint(name: str, signatures: Signatures, args: tuple, kwargs: dict) -> str:
    """A learner's hint for an ``input`` that is no tensor (a list, a NumPy array: how to
    make one), or ""."""
    value = args[0] if args else kwargs.get("input")
    if signatures.signatures[0].parameters[0].name != "input" or (
            isinstance(value, Tensor) or value is None
            or (name in _NUMBERS_AS_TENSORS and is_number(value))):
        return ""
    return real_pytorch_hint(value) or "\nHint: make it a tensor first, e.g. torch.tensor(...)."
