"""PyTorch's argument parser, for the error path: which signature a call fits, and the
TypeError PyTorch gives when it fits none.

A function declares its signatures as PyTorch prints them in its messages::

    SUM = Signatures("sum", "(*, torch.dtype dtype = None)",
                     "(tuple of ints[1]? dim, bool keepdim = False, *, torch.dtype dtype = None)")

Two marks, taken from PyTorch's own declarations (``int[1]? dim``) and left out when a
signature is printed, say what the printed text cannot:

- ``[1]`` after ``tuple of ints``: one int is taken for the tuple (``x.sum(0)``);
- ``?`` after a type: ``None`` is taken too (as a default of ``None`` says already).

A tuple of ints that is the only positional parameter also takes the ints one by one
(``x.view(2, 3)``), as in PyTorch.

The checks cost nothing on a correct call: ops call :meth:`Signatures.check` only once
something went wrong (see :func:`checks_types`), or after a cheap test of their own where a
wrong type would otherwise pass silently. The rules follow PyTorch's
``python_arg_parser.cpp``: ``bool`` is not an ``int``, a float is not an ``int``, a 0-d
integer tensor is one, a 0-d tensor that needs no gradient is a ``Number``.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._dtypes import dtype as DType
from ._tensor import Tensor, has_numpy_names, python_type_name, use_pytorch_names


@dataclass(frozen=True)
class Parameter:
    """One parameter of a signature: ``bool keepdim = False``."""

    kind: str  # the type as printed: "int", "tuple of ints", "Tensor" ...
    name: str
    optional: bool  # has a default
    allows_none: bool
    one_int_for_tuple: bool  # ``int[1]``: an int is taken for a tuple of ints
    keyword_only: bool


def _parameter(text: str, keyword_only: bool) -> tuple[Parameter, str]:
    """Parse ``"tuple of ints[1]? dim = None"``; return it and its printed text."""
    declaration, _, default = text.partition(" = ")
    kind, name = declaration.rsplit(" ", 1)
    allows_none = kind.endswith("?") or default == "None"
    kind = kind.rstrip("?")
    one_int = kind.endswith("[1]")
    kind = kind.removesuffix("[1]")
    printed = f"{kind} {name}" + (f" = {default}" if default else "")
    return Parameter(kind, name, bool(default), allows_none, one_int, keyword_only), printed


class Signature:
    """One of a function's signatures, parsed from the text PyTorch prints."""

    def __init__(self, text: str):
        keyword_only = False
        self.parameters: list[Parameter] = []
        printed = []
        for piece in filter(None, text.strip()[1:-1].split(", ")):
            if piece == "*":
                keyword_only = True
                printed.append("*")
                continue
            parameter, shown = _parameter(piece, keyword_only)
            self.parameters.append(parameter)
            printed.append(shown)
        self.text = "(" + ", ".join(printed) + ")"
        self.pieces = printed or [""]  # how PyTorch's message code counts arguments
        self.positional = [p for p in self.parameters if not p.keyword_only]
        self.min_args = sum(not p.optional for p in self.parameters)
        self.max_args = len(self.parameters)
        # A tuple of ints that is the only positional parameter takes its ints one by one.
        self.varargs = len(self.positional) == 1 and self.positional[0].kind == "tuple of ints"


# --- which values each printed type takes ----------------------------------------------


def is_int(value) -> bool:
    """Does PyTorch's parser take ``value`` as an ``int``? (Not a bool, not a float; a 0-d
    integer tensor, yes.)"""
    if isinstance(value, Tensor):
        return value._data.ndim == 0 and value._data.dtype.kind in "iu"
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_number(value) -> bool:
    """Does PyTorch's parser take ``value`` as a ``Number``? (A tensor: when it is 0-d and
    needs no gradient.)"""
    if isinstance(value, Tensor):
        return value._data.ndim == 0 and not value._requires_grad
    return isinstance(value, (numbers.Number, np.number, np.bool_))


def _is_float(value) -> bool:
    return is_number(value) and not isinstance(value, complex) and not (
        isinstance(value, Tensor) and value._data.dtype.kind == "c")


def _is_generator(value) -> bool:
    from ._random import Generator  # (here: _random imports this module)

    return isinstance(value, Generator)


_ACCEPTS: dict[str, Callable] = {
    "int": is_int,
    "float": _is_float,
    "Number": is_number,
    "bool": lambda v: isinstance(v, bool),  # (not numpy.bool, not 1: PyTorch refuses both)
    "Tensor": lambda v: isinstance(v, Tensor),
    "str": lambda v: isinstance(v, str),
    "torch.dtype": lambda v: isinstance(v, DType),
    "torch.Generator": lambda v: _is_generator(v),
    "tuple of Tensors": lambda v: isinstance(v, (tuple, list)),
}


def _type_mismatch(parameter: Parameter, value, numbers_as_tensors: bool = False) -> str | None:
    """Why ``value`` cannot be ``parameter`` (PyTorch's words after "must be"), or None.
    ``numbers_as_tensors``: a number is taken for a ``Tensor`` (PyTorch's parser does so
    for add, mul, div and a few others: ``torch.add(2, x)``)."""
    if numbers_as_tensors and parameter.kind == "Tensor" and is_number(value):
        return None
    if value is None:
        return None if parameter.allows_none else f"{parameter.kind}, not NoneType"
    if parameter.kind == "tuple of ints":
        if isinstance(value, (tuple, list)):
            # (PyTorch looks at the first element only; the others fail when unpacked)
            if value and not is_int(value[0]):
                return (f"tuple of ints, but found element of type "
                        f"{python_type_name(value[0])} at pos 0")
            return None
        if parameter.one_int_for_tuple and is_int(value):
            return None
        return f"tuple of ints, not {python_type_name(value)}"
    accepts = _ACCEPTS.get(parameter.kind)
    if accepts is None or accepts(value):  # (a type not checked here: taken as given)
        return None
    return f"{parameter.kind}, not {python_type_name(value)}"


def _unpack_failure(name: str, parameter: Parameter, value) -> str | None:
    """PyTorch's message for a tuple of ints whose later element is not an int."""
    if parameter.kind != "tuple of ints" or not isinstance(value, (tuple, list)):
        return None
    for position, element in enumerate(value):
        if not is_int(element):
            return (f"{name}(): argument '{parameter.name}' failed to unpack the object at pos "
                    f"{position + 1} with error \"type must be tuple of ints,but got "
                    f"{python_type_name(element)}\"")
    return None


def _plural(n: int) -> str:
    return "" if n == 1 else "s"


def _mismatch(name: str, signature: Signature, args: tuple, kwargs: dict,
              numbers_as_tensors: bool = False) -> str | None:
    """PyTorch's message for why the call does not fit ``signature``, or None if it does
    (``numbers_as_tensors``: see _type_mismatch)."""
    positional = signature.positional
    if signature.varargs and args and is_int(args[0]):
        args = (tuple(args),)
    if len(args) > len(positional):
        low, high = signature.min_args, len(positional)
        takes = (f"from {low} to {high} positional arguments" if low != high
                 else f"{high} positional argument{_plural(high)}")
        return f"{name}() takes {takes} but {len(args)} were given"
    for index, parameter in enumerate(signature.parameters):
        by_position = index < len(args)
        if by_position:
            value = args[index]
        elif parameter.name in kwargs:
            value = kwargs[parameter.name]
        elif parameter.optional:
            continue
        else:
            missing = [f'"{p.name}"' for p in signature.parameters[index:] if not p.optional]
            # (PyTorch's plural is the wrong way round: "1 ... arguments", "2 ... argument")
            plural = "s" if len(missing) == 1 else ""
            return (f"{name}() missing {len(missing)} required positional argument{plural}: "
                    + ", ".join(missing))
        wrong = _type_mismatch(parameter, value, numbers_as_tensors)
        if wrong is not None:
            where = f" (position {index + 1})" if by_position else ""
            return f"{name}(): argument '{parameter.name}'{where} must be {wrong}"
    names = {p.name for p in signature.parameters}
    for keyword in kwargs:
        if keyword not in names:
            return f"{name}() got an unexpected keyword argument '{keyword}'"
        if any(p.name == keyword for p in positional[:len(args)]):
            return f"{name}() got multiple values for argument '{keyword}'"
    return None


def _unpacking(name: str, signature: Signature, args: tuple, kwargs: dict) -> str | None:
    """For a call that fits ``signature``: PyTorch's message for a tuple of ints with an
    element that is not an int after the first (its parser looks at the first only, so
    the signature matched and the unpacking fails), or None."""
    if signature.varargs and args and is_int(args[0]):
        args = (tuple(args),)
    for index, parameter in enumerate(signature.parameters):
        value = args[index] if index < len(args) else kwargs.get(parameter.name)
        failure = _unpack_failure(name, parameter, value)
        if failure is not None:
            return failure
    return None


def _shown_matching(piece: str, value) -> bool:
    """Does PyTorch's message code mark ``value`` as fitting ``piece`` (a printed
    parameter)? It compares type names: an int fits ``int`` and ``float``, and a type it
    does not know (``Number``, a tuple, a parameter with a default) fits nothing."""
    kind = piece.lstrip("*").rpartition(" ")[0]
    given = python_type_name(value)
    if kind == "float":
        return given in ("float", "int")
    return given == kind


class Signatures:
    """A function's signatures (as PyTorch prints them), and the TypeError for a call that
    fits none of them."""

    def __init__(self, name: str, *texts: str, hint: str = "", hidden: bool = False,
                 numbers_as_tensors: bool = False):
        self.name = name
        self.numbers_as_tensors = numbers_as_tensors  # (see _type_mismatch)
        self.hint = hint  # a learner hint, put after PyTorch's message
        # PyTorch has hidden (deprecated) signatures too: it does not print them, but with
        # them a call that fits no signature is "an invalid combination" (x.sub())
        self.hidden = hidden
        self.texts = texts  # (as given, for an alias's own copy: see _checked's renamed)
        self.signatures = [Signature(text) for text in texts]

    def error(self, args: tuple, kwargs: dict | None = None) -> TypeError | None:
        """PyTorch's TypeError for a call with these arguments (after ``self`` for a method),
        or None when they fit one of the signatures."""
        kwargs = kwargs or {}
        reasons = [_mismatch(self.name, s, args, kwargs, self.numbers_as_tensors)
                   for s in self.signatures]
        if None in reasons:  # (the first signature that fits is the one PyTorch takes)
            fitting = self.signatures[reasons.index(None)]
            failure = _unpacking(self.name, fitting, args, kwargs)
            return None if failure is None else TypeError(failure)
        count = len(args) + len(kwargs)
        plausible = [r for s, r in zip(self.signatures, reasons)
                     if s.min_args <= count <= s.max_args]
        if len(plausible) == 1 or (len(self.signatures) == 1 and not self.hidden):
            message = plausible[0] if len(plausible) == 1 else reasons[0]
        else:
            message = self._no_combination(args, kwargs)
        if self.hint:
            message += ("" if message.endswith("\n") else "\n") + "Hint: " + self.hint
        return TypeError(message)

    def check(self, args: tuple, kwargs: dict | None = None) -> None:
        """Raise PyTorch's TypeError if the arguments fit none of the signatures."""
        error = self.error(args, kwargs)
        if error is not None:
            raise error

    def _no_combination(self, args: tuple, kwargs: dict) -> str:
        """PyTorch's "received an invalid combination of arguments" message."""
        given = [python_type_name(a) for a in args]
        # (PyTorch lists the keywords from a hash map: in the reverse order, as seen)
        named = [f"{k}={python_type_name(v)}" for k, v in reversed(kwargs.items())]
        got = ", ".join(given + named) + (", " if named and not given else "")
        head = (f"{self.name}() received an invalid combination of arguments - got ({got}), "
                "but expected ")
        if len(self.signatures) == 1:  # (only with hidden ones: the count did not fit)
            signature = self.signatures[0]
            unknown = _incorrect_keywords(signature, kwargs)
            if unknown:
                return (f"{self.name}() received an invalid combination of arguments - got "
                        f"unrecognized keyword arguments: {', '.join(unknown)}")
            return head + signature.text
        lines = [head + "one of:"]
        for signature in self.signatures:
            lines.append(f" * {signature.text}")
            if len(signature.pieces) == len(args) + len(kwargs):
                unknown = _incorrect_keywords(signature, kwargs)
                lines.append("      didn't match because some of the keywords were incorrect: "
                             + ", ".join(unknown) if unknown else
                             "      didn't match because some of the arguments have invalid "
                             "types: " + self._marked(signature, args, kwargs))
        return "\n".join(lines) + "\n"

    @staticmethod
    def _marked(signature: Signature, args: tuple, kwargs: dict) -> str:
        """The given types, each that does not fit its parameter between ``!`` (a list
        shows its elements' types: ``list of [int]``)."""
        given = [("", a) for a in args] + [(f"{k}=", v) for k, v in kwargs.items()]
        shown = []
        for piece, (keyword, value) in zip(signature.pieces, given):
            text = keyword + _described(value)
            shown.append(text if _shown_matching(piece, value) else f"!{text}!")
        # (keywords alone end with ", ", as in the message's "got (dim=NoneType, )")
        return "(" + ", ".join(shown) + (", " if kwargs and not args else "") + ")"


def _incorrect_keywords(signature: Signature, kwargs: dict) -> list[str]:
    """The keywords PyTorch's message calls incorrect for ``signature``: as its message code
    (invalid_arguments.cpp) matches them, only against the last ``len(kwargs)`` printed
    parameters, and never one printed with a default (it reads ``= None`` as the name)."""
    start = max(len(signature.pieces) - len(kwargs), 0)
    names = {piece.rsplit(" ", 1)[-1] for piece in signature.pieces[start:]
             if piece != "*" and " = " not in piece}
    return [k for k in reversed(kwargs) if k not in names]


def _described(value) -> str:
    """A value's type as PyTorch's message shows it: ``int``, ``tuple of (int, str)``."""
    if not isinstance(value, (tuple, list)):
        return python_type_name(value)
    inner = ", ".join(map(python_type_name, value))
    if isinstance(value, list):
        return f"list of [{inner}]"
    return f"tuple of ({inner}{',' if len(value) == 1 else ''})"


class _NotGiven:
    """The type of ``NOT_GIVEN``."""

    def __repr__(self) -> str:
        return "NOT_GIVEN"


#: The default of an optional argument whose ``None`` PyTorch refuses (``torch.max(x, None)``,
#: ``x.squeeze(None)``): the op tells "not given" (this) from a ``None`` given, which then
#: fails inside and gets the parser's TypeError from :func:`checks_types`. An ``is`` test
#: costs what ``is None`` costs.
NOT_GIVEN = _NotGiven()


def checks_types(name: str, *signatures: str, function: tuple[str, ...] | None = None,
                 hint: str = "") -> Callable:
    """Decorate an op so that, when it fails, a call whose argument types fit none of its
    signatures gets PyTorch's TypeError instead of the failure from inside.

    ``signatures`` are those of the method ``x.op(...)`` (after ``self``); ``function``
    those of ``torch.op(x, ...)`` when they differ from the method's with ``Tensor input``
    in front (``out=``, for example), or ``()`` to leave the function as it is (a hot one
    whose own checks are right). The decorated function carries ``method_form`` for
    ``tensor_method`` to register. A correct call pays one call frame, nothing more.
    ``hint`` (for learners) goes after PyTorch's message, on a line of its own.
    """
    method = Signatures(name, *signatures, hint=hint)
    if function is None:
        function = tuple("(Tensor input" + (", " + s[1:] if s != "()" else ")")
                         for s in signatures)
    as_function = Signatures(name, *function, hint=hint) if function else None

    def decorate(fn: Callable) -> Callable:
        checked_function = _checked(fn, as_function, 0) if as_function else fn
        checked_function.method_form = _checked(fn, method, 1)
        return checked_function

    return decorate


def _checked(fn: Callable, signatures: Signatures, skip: int) -> Callable:
    """``fn``, whose failures are PyTorch's TypeError when the types fit no signature
    (the first ``skip`` arguments, ``self``, are not in the signatures).

    A bool where only ints are taken (``x.topk(True)``), or anything but a bool where
    only a bool is (``x.sum(0, keepdim=1)``), would pass silently (Python's bool is an
    int): such a call is checked before it runs, as PyTorch's parser refuses it.

    It also takes NumPy's ``axis=``/``keepdims=`` when ``fn`` has a ``dim``/``keepdim``,
    so that ``numpy_names`` needs no second wrapper (and a call, no second frame)."""
    renames = has_numpy_names(fn)
    positions, keywords = _bool_spots(signatures)

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        if renames and kwargs and ("axis" in kwargs or "keepdims" in kwargs):
            use_pytorch_names(fn.__name__, kwargs)
        if (kwargs or len(args) > skip) and _bool_confused(args, skip, kwargs, positions,
                                                            keywords):
            error = signatures.error(args[skip:], kwargs)
            if error is not None:
                raise error
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError, RuntimeError, IndexError, OverflowError):
            error = signatures.error(args[skip:], kwargs)
            if error is None:
                raise
        raise error  # (outside the except: no "during handling" chain)

    checked.takes_numpy_names = renames

    def renamed(name: str, *texts: str) -> Callable:
        """The same checks for an alias (``swapaxes`` of ``transpose``), whose messages
        name it, with its own ``texts`` when PyTorch names its parameters differently."""
        return _checked(fn, Signatures(name, *(texts or signatures.texts),
                                       hint=signatures.hint, hidden=signatures.hidden), skip)

    checked.renamed = renamed
    return checked


_INT_KINDS = frozenset({"int", "tuple of ints"})


def _bool_spots(signatures: Signatures) -> tuple[dict, dict]:
    """Where a call may confuse a bool and an int, by position and by keyword: ``True``
    where every signature wants a bool, ``False`` where they all want ints (and so refuse
    a bool). Other places (a Number, a Tensor, a bool in one signature and an int in
    another) are left to the signatures."""
    by_position: dict[int, set] = {}
    by_keyword: dict[str, set] = {}
    for signature in signatures.signatures:
        for index, parameter in enumerate(signature.positional):
            kinds = {"tuple of ints"} if signature.varargs else {parameter.kind}
            by_position.setdefault(index, set()).update(kinds)
        for parameter in signature.parameters:
            by_keyword.setdefault(parameter.name, set()).add(parameter.kind)

    def spots(kinds_at: dict) -> dict:
        return {at: kinds == {"bool"} for at, kinds in kinds_at.items()
                if kinds == {"bool"} or kinds <= _INT_KINDS}

    return spots(by_position), spots(by_keyword)


def _bool_confused(args: tuple, skip: int, kwargs: dict, positions: dict,
                   keywords: dict) -> bool:
    """Is an argument a bool where only ints are taken, or not a bool where only a bool
    is? (Cheap: a few dictionary lookups; the signatures then say what is wrong.)"""
    for index in range(skip, len(args)):
        wants_bool = positions.get(index - skip)
        if wants_bool is not None and (args[index].__class__ is bool) is not wants_bool:
            return True
    for name, value in kwargs.items():
        wants_bool = keywords.get(name)
        if wants_bool is not None and (value.__class__ is bool) is not wants_bool:
            return True
    return False
