"""PyTorch's TypeError for a call that misses required arguments (``x.sub()``,
``x.transpose(0)``), built in the except branch of a wrapper: free until raised.

Python's own message names the function that refused the call, in Python's words
(``sub() missing 1 required positional argument: 'other'``); a wrapper around an op may
even name an inner function (``check_lerp_dtypes()``). PyTorch's argument parser says
one of two things:

- an op with one signature: ``transpose() missing 1 required positional arguments:
  "dim1"`` (its plural is the wrong way round: "1 ... arguments", "2 ... argument");
- an op with several (``lt``: a Tensor or a Number ``other``), or with hidden ones
  (``sub``'s deprecated ``sub(Number alpha, Tensor other)``): "received an invalid
  combination of arguments", with its signatures. Those are listed in ``OVERLOADED``,
  as PyTorch prints them.

Ops that have no wrapper (``x.mm()``, ``x.add_()``: a wrapper would cost every call) give
their required arguments the default ``REQUIRED`` and test for it: one ``is`` test, then
``raise missing(...)`` builds the message here.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable

# PyTorch's signatures of the methods that have more than one (as it prints them, after
# ``self``): the message for a call that misses arguments lists them. A name with one
# signature here has hidden (deprecated) ones too: PyTorch lists only this one.
_BINARY = ("(Tensor other)", "(Number other)")
_GROUPS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("add", "sub"), ("(Tensor other, *, Number alpha = 1)",)),
    (("addbmm", "baddbmm"),
     ("(Tensor batch1, Tensor batch2, *, Number beta = 1, Number alpha = 1)",)),
    (("addcdiv", "addcmul"), ("(Tensor tensor1, Tensor tensor2, *, Number value = 1)",)),
    (("addmm",), ("(Tensor mat1, Tensor mat2, *, Number beta = 1, Number alpha = 1)",)),
    (("addmv",), ("(Tensor mat, Tensor vec, *, Number beta = 1, Number alpha = 1)",)),
    (("addr",), ("(Tensor vec1, Tensor vec2, *, Number beta = 1, Number alpha = 1)",)),
    (("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
      "bitwise_right_shift", "copysign", "eq", "ne", "not_equal", "lt", "less", "le",
      "less_equal", "gt", "greater", "ge", "greater_equal", "floor_divide", "fmod",
      "remainder", "multiply", "true_divide", "xlogy"), _BINARY),
    (("clamp_max",), ("(Tensor max)", "(Number max)")),
    (("clamp_min",), ("(Tensor min)", "(Number min)")),
    (("div",), ("(Tensor other)", "(Tensor other, *, str rounding_mode)",
                "(Number other, *, str rounding_mode)")),
    (("divide",), ("(Tensor other)", "(Tensor other, *, str rounding_mode)",
                   "(Number other)", "(Number other, *, str rounding_mode)")),
    (("pow", "float_power"), ("(Tensor exponent)", "(Number exponent)")),
    (("index_fill",), ("(int dim, Tensor index, Tensor value)",
                       "(int dim, Tensor index, Number value)")),
    (("lerp",), ("(Tensor end, Tensor weight)", "(Tensor end, Number weight)")),
    (("masked_fill",), ("(Tensor mask, Tensor value)", "(Tensor mask, Number value)")),
    (("scatter",), ("(int dim, Tensor index, Tensor src)",
                    "(int dim, Tensor index, Tensor src, *, str reduce)",
                    "(int dim, Tensor index, Number value)",
                    "(int dim, Tensor index, Number value, *, str reduce)")),
    (("subtract",), ("(Tensor other, *, Number alpha = 1)", "(Number other, Number alpha = 1)")),
)
# (the in-place forms share their op's signatures; copy_ is PyTorch's own)
OVERLOADED: dict[str, tuple[str, ...]] = {
    form: signatures
    for names, signatures in _GROUPS for name in names for form in (name, name + "_")
}
OVERLOADED.update({
    "copy_": ("(Tensor other, bool non_blocking = False)",),
    "dsplit": ("(int sections)", "(tuple of ints indices)"),
    **{name: tuple(f'({q} q, int dim = None, bool keepdim = False, *, '
                   'str interpolation = "linear")' for q in ("Tensor", "float"))
       for name in ("quantile", "nanquantile")},
    "hsplit": ("(int sections)", "(tuple of ints indices)"),
    "vsplit": ("(int sections)", "(tuple of ints indices)"),
    "moveaxis": ("(int source, int destination)",
                 "(tuple of ints source, tuple of ints destination)"),
    "tensor_split": ("(tuple of ints indices, int dim = 0)",
                     "(Tensor tensor_indices_or_sections, int dim = 0)",
                     "(int sections, int dim = 0)"),
})


class _Required:
    """The type of ``REQUIRED``: the default of a required argument of an op that has no
    wrapper to catch Python's own TypeError (see ``missing``)."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()


# The alias methods that run an op's code under their own name (x.greater runs gt's code
# as "greater", see _tensor.tensor_method): their code objects, to the name called
RENAMED_CODES: dict = {}


def missing(name: str, function: Callable, *args, **kwargs) -> TypeError:
    """PyTorch's TypeError for the call of ``name`` (a method) that left some of
    ``function``'s ``REQUIRED`` defaults: ``args`` are the op's own arguments, ``self``
    first, as it received them (``REQUIRED`` where none was given).

    The error is marked ``in_method_words``: a function's wrapper words it again for
    ``torch.op(...)``, whose message lists ``input`` too."""
    name = RENAMED_CODES.get(sys._getframe(1).f_code, name)  # (x.greater(), not gt())
    # (by identity: ``in`` would compare tensors with ==)
    given = args[:next((i for i, a in enumerate(args) if a is REQUIRED), len(args))]
    kwargs = {k: v for k, v in kwargs.items() if v is not REQUIRED}
    error = missing_arguments_error(name, function, given, kwargs)
    error = error or TypeError(f"{name}() is missing arguments")
    error.in_method_words = True
    return error


# The ops that leave the test for REQUIRED to the helper where a missing argument fails
# anyway (``_operand``): the arithmetic operators share their code with the methods
# (``x + y`` runs add's), so an ``is`` test in them would cost every ``x + y``.
# Their code objects (an alias's copy's too), to the function.
UNTESTED_OPS: dict = {}


def untested(function: Callable) -> Callable:
    """Register ``function`` (an op with REQUIRED defaults and no test for them) for
    ``missing_in_caller``; the decorator returns it unchanged."""
    UNTESTED_OPS[function.__code__] = function
    return function


def missing_in_caller(value) -> TypeError | None:
    """In a helper's error branch: if ``value`` is REQUIRED, PyTorch's TypeError for the
    ``untested`` op that called the helper (found among the callers: an error path only),
    else None."""
    if value is not REQUIRED:
        return None
    frame = sys._getframe(1)
    while frame is not None and frame.f_code not in UNTESTED_OPS:
        frame = frame.f_back
    if frame is None:
        return None
    function = UNTESTED_OPS[frame.f_code]
    parameters = inspect.signature(function).parameters.values()
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    values = frame.f_locals
    args = [values[p.name] for p in parameters if p.kind in positional]
    # (the keywords given: those not at their default, as far as one can tell)
    kwargs = {p.name: values[p.name] for p in parameters
              if p.kind == p.KEYWORD_ONLY and values[p.name] is not p.default}
    name = RENAMED_CODES.get(frame.f_code, frame.f_code.co_name)
    given = args[:next((i for i, a in enumerate(args) if a is REQUIRED), len(args))]
    error = missing_arguments_error(name, function, tuple(given), kwargs)
    if error is not None:
        error.in_method_words = True
    return error


# PyTorch's names of parameters that teachgrad's function (shared with another name) calls
# differently: swapaxes_ runs transpose's code
_PYTORCH_NAMES = {"swapaxes_": {"dim0": "axis0", "dim1": "axis1"},
                  "orgqr": {"tau": "input2"}, "ormqr": {"tau": "input2", "other": "input3"},
                  "map_": {"tensor": "other"}}

# The Tensor methods PyTorch writes in Python (torch/_tensor.py), not in its parser: a call
# missing arguments gets Python's own message, naming ``Tensor.split`` (its qualified name).
# teachgrad's op is shared with the function (torch.split), so the method's words are made
# here, with the method's parameter names. (lstsq and solve are teachgrad methods named
# Tensor.* already: removed_linalg.py.)
PYTHON_METHODS = {"split": {"split_size_or_sections": "split_size"}, "unflatten": {}}


def python_missing_message(qualname: str, missing: list[str]) -> str:
    """Python's words for a call of ``qualname`` without the parameters ``missing``:
    ``Tensor.unflatten() missing 2 required positional arguments: 'dim' and 'sizes'``."""
    quoted = [f"'{name}'" for name in missing]
    if len(quoted) > 2:
        listed = ", ".join(quoted[:-1]) + ", and " + quoted[-1]
    else:
        listed = " and ".join(quoted)
    plural = "" if len(missing) == 1 else "s"
    return f"{qualname}() missing {len(missing)} required positional argument{plural}: {listed}"


def missing_arguments_error(name: str, function: Callable, args: tuple, kwargs: dict,
                            method: bool = True) -> TypeError | None:
    """PyTorch's TypeError when the call ``name(*args, **kwargs)`` misses required
    arguments of ``function``, or None when none is missing (another failure, to be
    raised as it is).

    ``args`` start with ``self`` for a method (``method=True``): PyTorch's messages do
    not count it. Call it only in an except branch: it inspects ``function``.
    """
    missing = _missing(function, args, kwargs)
    if not missing:
        return None
    from ._arguments import Signatures  # (here: _tensor imports this module, see REQUIRED)

    given = args[1:] if method else args
    if method and name in OVERLOADED:
        signatures = OVERLOADED[name]
        return Signatures(name, *signatures, hidden=len(signatures) == 1).error(given, kwargs)
    if method and name in PYTHON_METHODS:
        renames = PYTHON_METHODS[name]
        return TypeError(python_missing_message(f"Tensor.{name}",
                                                [renames.get(p, p) for p in missing]))
    renames = _PYTORCH_NAMES.get(name, {})
    return TypeError(missing_message(name, [renames.get(p, p) for p in missing]))


def missing_message(name: str, missing: list[str]) -> str:
    """PyTorch's words for a call of ``name`` without the parameters ``missing``."""
    # (PyTorch's plural is the wrong way round: "1 ... arguments", "2 ... argument")
    plural = "s" if len(missing) == 1 else ""
    return (f"{name}() missing {len(missing)} required positional argument{plural}: "
            + ", ".join(f'"{parameter}"' for parameter in missing))


def _missing(function: Callable, args: tuple, kwargs: dict) -> list[str]:
    """The names of ``function``'s required positional parameters the call leaves out,
    counted as PyTorch does: from the first one missing on, also those given by keyword
    (``torch.atan2(other=y)`` misses "input", "other")."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):  # (a builtin without a signature)
        return []
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [(i, p.name) for i, p in enumerate(parameters)
                if p.kind in positional and (p.default is p.empty or p.default is REQUIRED)]
    first = next((i for i, name in required if i >= len(args) and name not in kwargs), None)
    return [] if first is None else [name for i, name in required if i >= first]
