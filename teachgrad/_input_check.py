"""``torch.sum([1, 2])``: PyTorch's TypeError when a function's ``input`` is no tensor.

Most of teachgrad's functions are written for tensors and read ``input._data`` straight
away: given a list they failed with ``AttributeError: 'list' object has no attribute
'_data'``, a message from teachgrad's inside. PyTorch's argument parser says instead::

    TypeError: sum(): argument 'input' (position 1) must be Tensor, not list

Checking every call up front would cost every call; this checks *after the fact*, as
``_arguments.checks_types`` does: the namespace function runs as it is, and only when it
fails with an ``AttributeError`` or ``TypeError`` while its ``input`` is not a tensor is
the error replaced by PyTorch's. (A ``try`` costs nothing until something is raised.)
Numbers and NumPy arrays that a function accepts keep working: only failures are
translated. The Tensor methods are not wrapped (their ``self`` is always a tensor).

>>> import teachgrad as torch
>>> torch.sum([1, 2])
Traceback (most recent call last):
...
TypeError: sum(): argument 'input' (position 1) must be Tensor, not list
Hint: make it a tensor first, e.g. torch.tensor(...).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

from ._function_signatures import parser_error
from ._missing_arguments import missing_arguments_error
from ._real_pytorch import real_pytorch_hint
from ._tensor import Tensor, python_type_name
from ._torch_function import STATE, dispatch, handle, has_overloaded, tensor_likes


class NotATensor(TypeError):
    """A function that takes tensors only (``torch.exp``) was given something else: a number
    (``torch.exp(1.0)``), a NumPy array. Raised where the function meets it, off the path of
    a call that works (``_unary``'s branch for a non-tensor); the function's wrapper
    (:func:`checks_input`) names the function, as PyTorch's parser does."""


def not_a_tensor(value) -> NotATensor:
    """The error for ``value`` given as a tensor-only function's ``input``."""
    return NotATensor(f"argument 'input' (position 1) must be Tensor, not "
                      f"{python_type_name(value)}" + _tensor_hint(value))


def _tensor_hint(value) -> str:
    return real_pytorch_hint(value) or "\nHint: make it a tensor first, e.g. torch.tensor(...)."


def refuse_non_tensor_input(name: str, args: tuple, kwargs: dict,
                            error: Exception | None = None, main: str | None = None) -> None:
    """Raise PyTorch's TypeError if the ``input`` argument (first, or by keyword) is not a
    tensor; return otherwise (the caller then re-raises its own error).

    ``name`` is the function as PyTorch prints it (the name called: ``absolute``,
    ``special_expit``); ``main`` is the one teachgrad's own messages use (``abs``,
    ``sigmoid``) when they differ. Given the ``error`` the function raised, an error already
    in PyTorch's words ("copysign() received an invalid combination of arguments" for a
    number first) is kept, and so is any ``TypeError`` about a number: PyTorch's overloads
    often take one there, and its message then says something else.
    """
    value = args[0] if args else kwargs.get("input", _MISSING)
    if value is _MISSING or isinstance(value, Tensor):
        return
    if isinstance(error, TypeError) and not isinstance(error, NotATensor) and (
            isinstance(value, (int, float, complex))
            or _in_pytorchs_words(main or name, str(error))):
        return
    at = " (position 1)" if args else ""  # (PyTorch's parser gives a keyword's none)
    raise TypeError(
        f"{name}(): argument '{_FIRST_ARGUMENT.get(name, 'input')}'{at} must be "
        f"Tensor, not {python_type_name(value)}" + _tensor_hint(value)
    ) from None


# The few functions whose first argument PyTorch calls something else than ``input``.
_FIRST_ARGUMENT = {
    "special_airy_ai": "x", "special_scaled_modified_bessel_k0": "x",
    "special_scaled_modified_bessel_k1": "x", "special_spherical_bessel_j0": "x",
}

# The names PyTorch's messages show where they are not the name called: functions written
# in Python in PyTorch that call another (torch.unique calls _unique2).
_SHOWN_AS = {"unique": "_unique2", "logsigmoid": "log_sigmoid"}


def shown_name(name: str, prefix: str = "") -> str:
    """The name PyTorch's argument parser prints for ``prefix`` + ``name``, the function
    called (``torch.absolute`` is ``absolute``, not ``abs``; ``torch.special.expit`` is
    ``special_expit``)."""
    return _SHOWN_AS.get(prefix + name, prefix + name)


def renamed(error: Exception, main: str, name: str) -> TypeError | None:
    """``error`` (a TypeError from teachgrad's ``main()``) as PyTorch's parser words it for
    ``name()``, the alias called (``abs() takes 1 positional argument`` becomes
    ``absolute() takes ...``), or None when it does not name ``main``."""
    message = str(error)
    if name == main or not isinstance(error, TypeError) or not message.startswith(main + "("):
        return None
    return TypeError(name + message[len(main):])


_MISSING = object()


def _in_pytorchs_words(name: str, message: str) -> bool:
    """Is this already the TypeError PyTorch prints for ``name`` (teachgrad's own checks
    write them: ``checks_types``, or the function checking its input itself; F.cross_entropy
    says ``cross_entropy_loss()``, as PyTorch's does), and not Python's "missing argument"?"""
    return message.startswith(name) and (
        "(position 1)" in message or "received an invalid combination" in message)


def missing_error(error: Exception, name: str, main: str, function: Callable, args: tuple,
                  kwargs: dict) -> TypeError | None:
    """PyTorch's TypeError for ``name(*args, **kwargs)`` missing arguments of ``function``
    (``torch.atan2(x)``), or None: for another error, or one already in PyTorch's words
    (its parser reports a wrong type before what is missing: ``torch.swapaxes([1.0])``)."""
    if not isinstance(error, TypeError) or (
            _in_pytorchs_words(main, str(error)) and not hasattr(error, "in_method_words")):
        return None  # (an op's own, worded for its method (see missing): word it again)
    return missing_arguments_error(name, function, args, kwargs, method=False)


def checks_input(function: Callable, name: str, main: str | None = None,
                 torch_function: bool = False) -> Callable:
    """``function`` whose failures with a non-tensor ``input`` get PyTorch's TypeError;
    ``name`` is the name called, ``main`` the function's own (for an alias).
    ``torch_function``: it is ``torch.<name>``, whose failures get PyTorch's words from
    its signatures too (_function_signatures; F.softmax is not torch.softmax)."""
    main = main or name
    signatures_of = name if torch_function else None

    @functools.wraps(function)
    def with_input_check(*args, **kwargs):
        # (the __torch_function__ protocol, in this wrapper to save a frame of its own:
        # a subclass's call is handed over first, a Tensor-like's once the function failed)
        if STATE.armed and has_overloaded(args, kwargs):
            return handle(with_input_check, args, kwargs)
        try:
            return function(*args, **kwargs)
        except (AttributeError, TypeError) as error:
            tensor_like = tensor_likes(args, kwargs)
            if not tensor_like:
                error_for_alias = parser_error(signatures_of, args, kwargs, error)
                if error_for_alias is None:  # (torch.sum(x, "a"): that, first)
                    refuse_non_tensor_input(name, args, kwargs, error, main)
                error_for_alias = (error_for_alias
                                   or missing_error(error, name, main, function, args, kwargs)
                                   or renamed(error, main, name))
                if error_for_alias is None:
                    raise
        if tensor_like:
            return dispatch(with_input_check, tensor_like, args, kwargs or None)
        raise error_for_alias  # (outside the except: no "during handling" chain)

    with_input_check.checks_input = True
    with_input_check.dispatches_torch_function = with_input_check  # (itself: see add_dispatch)
    return with_input_check


def takes_input_first(function: Callable) -> bool:
    """Is ``function``'s first parameter PyTorch's ``input`` (a tensor)?"""
    try:
        parameters = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):  # (a builtin or a class without a signature)
        return False
    return bool(parameters) and parameters[0] == "input"


def add_input_checks(namespace: dict, prefix: str = "",
                     skip: frozenset[str] = frozenset(), torch_functions: bool = False) -> None:
    """Wrap every public function of ``namespace`` whose first parameter is ``input``
    (``torch_functions``: the namespace is torch's own, see checks_input).

    Each name gets its own wrapper, named as PyTorch's parser names the function called
    (``prefix`` + name: ``"special_"`` for torch.special): ``torch.absolute([1])`` says
    ``absolute()`` as PyTorch's does, not ``abs()``. So an alias is a function of its own,
    as in PyTorch (``torch.arcsin is not torch.asin``), calling the same code."""
    for name, value in list(namespace.items()):
        if name.startswith("_") or name in skip or not inspect.isfunction(value):
            continue
        if getattr(value, "checks_input", False):  # (out= functions check it themselves)
            continue
        if getattr(value, "__module__", "").split(".")[0] != "teachgrad":
            continue
        if not takes_input_first(value):
            continue
        namespace[name] = checks_input(value, shown_name(name, prefix),
                                       value.__name__.lstrip("_"), torch_functions)

# ----------------------------------------------------------------------------------------
# A complex number where PyTorch takes a real one
# ----------------------------------------------------------------------------------------
BUILTIN = None  # (a position: the user's own, the function being PyTorch's C++ binding)
DOUBLE = "double"  # (a Scalar that PyTorch's kernel converts to a C++ double)


def refuses_complex(cpp_name: str, in_place: bool | str = False,
                    **parameters: int | str | Exception | None) -> Callable:
    """Give ``function`` PyTorch's error for a complex Python number in one of its real
    ``parameters`` (``F.smooth_l1_loss(x, y, beta=1j)``), where teachgrad's own code would
    fail with Python's words ("'<' not supported between instances of 'complex' and
    'int'") or take the number silently.

    Each parameter names how PyTorch refuses it:

    * a position: its argument parser, called by PyTorch's Python with the number at that
      position of ``cpp_name``: ``TypeError: smooth_l1_loss(): argument 'beta' (position
      4) must be float, not complex``;
    * ``BUILTIN``: the same, the function being PyTorch's binding itself, so the position
      is the caller's own (none for a keyword argument);
    * ``DOUBLE``: a Scalar its kernel converts to double: ``RuntimeError: value cannot be
      converted to type double without overflow``;
    * an exception: what PyTorch raises instead (its kernel's own words).

    The check is one ``type(...) is complex`` per listed parameter, before the function.
    A function that changes its input in place (``in_place``: True, or the name of its
    switch, ``inplace``) first refuses what autograd refuses in place (a leaf that
    requires grad): PyTorch's kernel converts the Scalar only after that check.
    """

    def decorate(function: Callable) -> Callable:
        checks = _checks(function, parameters)

        @functools.wraps(function)
        def checked(*args, **kwargs):
            for name, spec, value, position in _given(checks, args, kwargs):
                if type(value) is complex:
                    if in_place and spec == DOUBLE:
                        _check_in_place(function, args, kwargs, in_place)
                    raise _complex_error(cpp_name, name, spec, position)
            return function(*args, **kwargs)

        return checked

    return decorate


def _checks(function: Callable, parameters: dict) -> tuple:
    """``(name, index, spec)`` of each checked parameter: where ``function`` takes it."""
    names = list(inspect.signature(function).parameters)
    return tuple((name, names.index(name), spec) for name, spec in parameters.items())


def _given(checks: tuple, args: tuple, kwargs: dict):
    """``(name, spec, value, position)`` of each checked parameter the call gives
    (``position`` is None for a keyword argument)."""
    for name, index, spec in checks:
        if index < len(args):
            yield name, spec, args[index], index + 1
        elif name in kwargs:
            yield name, spec, kwargs[name], None


def _check_in_place(function: Callable, args: tuple, kwargs: dict,
                    in_place: bool | str) -> None:
    """Autograd's in-place checks of the input, where this call changes it in place."""
    if isinstance(in_place, str):
        bound = inspect.signature(function).bind(*args, **kwargs)
        bound.apply_defaults()
        if not bound.arguments.get(in_place):
            return
    target = args[0] if args else kwargs.get("input")
    if isinstance(target, Tensor):
        target._check_inplace()


def _complex_error(cpp_name: str, name: str, spec: int | str | Exception | None,
                   position: int | None) -> Exception:
    hint = ("\nHint: teachgrad's tensors are real, and so are its parameters: pass a "
            "float.")
    if isinstance(spec, Exception):
        return type(spec)(*spec.args)
    if spec == DOUBLE:
        return RuntimeError("value cannot be converted to type double without overflow" + hint)
    where = spec if spec is not BUILTIN else position
    at = f" (position {where})" if where is not None else ""
    return TypeError(f"{cpp_name}(): argument '{name}'{at} must be float, not complex" + hint)


# ----------------------------------------------------------------------------------------
# Anything but an int (or a tensor) where PyTorch's parser takes one
# ----------------------------------------------------------------------------------------
def takes_ints(cpp_name: str, optional: tuple[str, ...] = (),
               **parameters: int | None) -> Callable:
    """Give ``function`` PyTorch's TypeError when one of its int ``parameters`` is given
    something else (``F.nll_loss(x, y, ignore_index=1.5)``: ``nll_loss_nd(): argument
    'ignore_index' (position 5) must be int, not float``), where teachgrad's code would
    take a float, a bool or a complex number silently, or fail with NumPy's words.

    Each parameter names its position as ``refuses_complex`` does: where PyTorch's Python
    passes it to ``cpp_name``, or ``BUILTIN`` (the caller's own position, none for a
    keyword). Those in ``optional`` may be None. As PyTorch's parser, a NumPy integer or
    a 0-d integer tensor is an int; a bool is not. Cost: one ``type(...) is int`` per
    parameter given.
    """
    from ._arguments import is_int

    return _typed(cpp_name, "int", lambda v: type(v) is int or is_int(v),
                  "\nHint: give a whole number (an int).", optional, parameters)


def takes_tensors(cpp_name: str, optional: tuple[str, ...] = (),
                  **parameters: int | None) -> Callable:
    """As :func:`takes_ints`, for parameters that must be tensors (``F.prelu(x, 0.25)``:
    ``prelu(): argument 'weight' (position 2) must be Tensor, not float``)."""
    return _typed(cpp_name, "Tensor", lambda v: isinstance(v, Tensor),
                  "\nHint: make it a tensor first, e.g. torch.tensor(...).", optional,
                  parameters)


def _typed(cpp_name: str, kind: str, accepts: Callable, hint: str, optional: tuple[str, ...],
           parameters: dict) -> Callable:
    def decorate(function: Callable) -> Callable:
        checks = _checks(function, parameters)

        @functools.wraps(function)
        def checked(*args, **kwargs):
            for name, spec, value, position in _given(checks, args, kwargs):
                if accepts(value) or (value is None and name in optional):
                    continue
                where = spec if spec is not BUILTIN else position
                at = f" (position {where})" if where is not None else ""
                raise TypeError(f"{cpp_name}(): argument '{name}'{at} must be {kind}, not "
                                f"{python_type_name(value)}" + hint)
            return function(*args, **kwargs)

        return checked

    return decorate
