"""PyTorch's TypeError for a number parameter given something else.

``nn.functional`` passes numbers such as ``negative_slope`` or ``eps`` to PyTorch's C++
functions, whose argument parser refuses a string or ``None`` with a TypeError naming the
argument. teachgrad's NumPy code would fail with NumPy's words instead (or, where the
number goes unused, take it silently): the functions check with :func:`scalar_argument`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

import numpy as np

from .._arguments import Signatures, is_number
from .._tensor import Tensor, python_type_name


def scalar_argument(value, function: str, name: str, position: int | None = None,
                    kind: str = "Number"):
    """``value`` as a Python number, or PyTorch's TypeError when a ``Number`` (or ``float``)
    parameter gets something else (``F.leaky_relu(x, 'a')``: "leaky_relu(): argument
    'negative_slope' (position 2) must be Number, not str"), where NumPy's words came out
    or the value was taken silently. A NumPy scalar or a 0-d tensor is a number, as in
    PyTorch. A plain int or float costs one type test."""
    if type(value) is float or type(value) is int:
        return value
    if is_number(value) if kind == "Number" else is_real_number(value):
        return value.item() if isinstance(value, Tensor | np.generic) else value
    at = f" (position {position})" if position is not None else ""
    raise TypeError(f"{function}(): argument '{name}'{at} must be {kind}, not "
                    f"{python_type_name(value)}\nHint: give a number, e.g. 0.1.")


def is_real_number(value) -> bool:
    return is_number(value) and not isinstance(value, complex) and not (
        isinstance(value, Tensor) and value._data.dtype.kind == "c")


def bool_argument(value, function: str, name: str, position: int | None = None) -> None:
    """PyTorch's TypeError when a ``bool`` parameter gets anything else (``1`` and ``None``
    too: its parser takes only True and False)."""
    if type(value) is not bool:
        at = f" (position {position})" if position is not None else ""
        raise TypeError(f"{function}(): argument '{name}'{at} must be bool, not "
                        f"{python_type_name(value)}\nHint: pass True or False.")


# ----------------------------------------------------------------------------------------
# A whole function's parameters, checked as PyTorch's argument parser checks them
# ----------------------------------------------------------------------------------------
BUILTIN = None  # where: the function is PyTorch's C++ binding; the caller's own position
KEYWORD = "keyword"  # where: PyTorch's Python passes the value on by keyword (no position)

_HINTS = {
    "tuple of ints": "\nHint: give an int or a tuple of ints, e.g. 2 or (2, 2).",
    "int": "\nHint: give a whole number (an int).",
    "float": "\nHint: give a number, e.g. 0.1.",
    "Number": "\nHint: give a number, e.g. 0.1.",
    "bool": "\nHint: pass True or False.",
    "str": "\nHint: give a string, e.g. 'constant'.",
}


def _int(value) -> bool:
    """An ``int`` to PyTorch's parser: not a bool, not a float; a NumPy or 0-d integer tensor
    is one."""
    if isinstance(value, Tensor):
        return value._data.ndim == 0 and value._data.dtype.kind in "iu"
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


_ACCEPTS = {
    "int": _int,
    "float": is_real_number,
    "Number": is_number,
    "bool": lambda v: type(v) is bool,
    "str": lambda v: isinstance(v, str),
}


def argument_error(function: str, name: str, kind: str, value,
                   position: int | None) -> TypeError | None:
    """PyTorch's TypeError for ``value`` given as parameter ``name`` of type ``kind``
    ("tuple of ints", "int", "float", "Number", "bool" or "str"; a trailing ``?`` also
    takes None; "tuple of ints[]" takes no single int for the tuple, as ``F.pad``'s pad),
    or None if its parser takes the value. ``position`` is where the value stands in the
    call PyTorch parses (None: a keyword argument, which PyTorch words more shortly)."""
    if kind.endswith("?"):
        if value is None:
            return None
        kind = kind[:-1]
    at = f" (position {position})" if position is not None else ""
    start = f"{function}(): argument '{name}'"
    if kind.startswith("tuple of ints"):
        if kind.endswith("[]") and not isinstance(value, tuple | list):
            why = f"not {python_type_name(value)}"  # (an int too: "not int")
        else:
            why = _int_list_mismatch(value, position is not None, start)
        if why is None:
            return None
        message = why if why.startswith(start) else f"{start}{at} must be tuple of ints, {why}"
        kind = "tuple of ints"
    elif _ACCEPTS[kind](value):
        return None
    else:
        message = f"{start}{at} must be {kind}, not {python_type_name(value)}"
    return TypeError(message + _HINTS[kind])


def _int_list_mismatch(value, positional: bool, start: str) -> str | None:
    """Why PyTorch's parser refuses ``value`` as a tuple of ints (its words after "must be
    tuple of ints, "), its whole message for a bad later element, or None. An int is taken
    for the tuple. It looks at the first element only, and names it only for a positional
    argument; the later elements fail when unpacked."""
    if not isinstance(value, tuple | list):
        return None if _int(value) else f"not {python_type_name(value)}"
    if value and not _int(value[0]):
        if positional:
            return f"but found element of type {python_type_name(value[0])} at pos 0"
        return f"not {python_type_name(value)}"
    for index, element in enumerate(value):
        if not _int(element):
            return (f"{start} failed to unpack the object at pos {index + 1} with error "
                    f"\"type must be tuple of ints,but got {python_type_name(element)}\"")
    return None


_TAKE_AN_INT = {"tuple of ints", "int", "float", "Number"}  # (kinds a plain int passes)


def takes_arguments(function_name: str, signatures=None, **parameters: tuple) -> Callable:
    """Give a function PyTorch's TypeError for a parameter of the wrong type, before its own
    code meets the value (and fails in Python's or NumPy's words, or takes it silently):
    ``F.max_pool2d(x, 1j)``: "max_pool2d(): argument 'kernel_size' (position 2) must be tuple
    of ints, not complex".

    Each parameter maps to ``(kind, where)`` or ``(kind, where, pytorch_name)`` (the name
    PyTorch's binding gives it: ``F.dropout``'s ``training`` is ``train``): ``kind`` as
    :func:`argument_error` takes it;
    ``where`` says how PyTorch's argument parser gets the value: a number (PyTorch's Python
    passes it at that position of ``function_name``), :data:`KEYWORD` (passed on by keyword)
    or :data:`BUILTIN` (the function is the binding itself: the caller's own position, none
    for a keyword argument). A correct call costs one type test per parameter it gives.

    A binding with several overloads (``conv2d``'s padding: ints or a string) gives its
    :class:`~teachgrad._arguments.Signatures` as ``signatures``: a value one overload
    refuses is then judged against them all, and PyTorch's "invalid combination of
    arguments" comes out when none fits.
    """

    def decorate(function):
        names = list(inspect.signature(function).parameters)
        checks = tuple((name, names.index(name), spec[0], spec[1],
                        spec[2] if len(spec) > 2 else name,
                        spec[0].rstrip("?") in _TAKE_AN_INT)
                       for name, spec in parameters.items())

        @functools.wraps(function)
        def checked(*args, **kwargs):
            for name, index, kind, where, shown, takes_int in checks:
                if index < len(args):
                    value, own = args[index], index + 1
                elif name in kwargs:
                    value, own = kwargs[name], None
                else:
                    continue
                if takes_int and type(value) is int:  # (the common case, at once)
                    continue
                position = own if where is BUILTIN else None if where == KEYWORD else where
                error = argument_error(function_name, shown, kind, value, position)
                if error is not None and signatures is not None:
                    error = signatures.error(args, kwargs)
                if error is not None:
                    raise error
            return function(*args, **kwargs)

        return checked

    return decorate


# ----------------------------------------------------------------------------------------
# A number PyTorch's Python hands on to a tensor method or operator
# ----------------------------------------------------------------------------------------
# (the methods as PyTorch's parser declares them: its words for a value of the wrong type)
_METHODS = {
    "pow": Signatures("pow", "(Tensor exponent)", "(Number exponent)"),
    "clamp_min": Signatures("clamp_min", "(Tensor min)", "(Number min)"),
    "clamp_": Signatures("clamp_", "(Tensor min = None, Tensor max = None)",
                         "(Number min = None, Number max = None)"),
    "mul": Signatures("mul", "(Tensor other)"),
    "add": Signatures("add", "(Tensor other)"),
}
_OPERATORS = {"/"}  # (Python's own words for these)


def operand_argument(value, method: str, keyword: str | None = None):
    """``value``, or PyTorch's TypeError when a parameter that PyTorch's Python passes on to
    a tensor method (``x.pow(norm_type)``, ``x.mul(alpha)``) or operator (``x / tau``) is
    not a number: ``F.local_response_norm(x, 2, alpha='a')``: "mul(): argument 'other'
    (position 1) must be Tensor, not str". Without the check teachgrad's own arithmetic
    answers in its general words, or (``clamp_min(None)``) takes the value silently.
    ``method`` is the method's name or the operator; ``keyword`` the name PyTorch's Python
    gives the value by (``clamp_(min=eps)``), None when it passes it by position."""
    if type(value) is float or type(value) is int or is_number(value) or isinstance(
            value, Tensor):
        return value
    if method in _OPERATORS:
        message = (f"unsupported operand type(s) for {method}: 'Tensor' and "
                   f"'{type(value).__name__}'")
    else:
        args, kwargs = ((), {keyword: value}) if keyword else ((value,), {})
        error = _METHODS[method].error(args, kwargs)
        if error is None:  # (None for ``clamp_(min=None)``: the method's own check says)
            return value
        message = str(error)
    # (PyTorch's "invalid combination" message ends with a newline already)
    separator = "" if message.endswith("\n") else "\n"
    raise TypeError(message + separator + "Hint: give a number, e.g. 0.1.")
