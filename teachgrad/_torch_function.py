"""PyTorch's ``__torch_function__`` protocol: subclasses of Tensor, and Tensor-like types.

PyTorch lets two kinds of user types take part in its functions (the note "Extending
torch" shows both):

* a subclass of ``torch.Tensor``: every method, operator and ``torch.*`` /
  ``torch.nn.functional`` function given one returns the subclass
  (``type(MyTensor([1.]) + 1) is MyTensor``), and a subclass may override
  ``__torch_function__`` to see, change or replace each call (a ``LoggingTensor``);
* any other class with a ``__torch_function__`` method (a ``ScalarTensor`` that is no
  tensor at all): ``torch.mean(d)`` calls ``d.__torch_function__(torch.mean, ...)``.

How a call is handed over (:func:`dispatch`): the arguments that have a
``__torch_function__`` (plain tensors and ``nn.Parameter`` do not count) are gathered,
subclasses before their base classes and otherwise left to right; each one's
``__torch_function__(func, types, args, kwargs)`` is asked in turn, and the first answer
that is not ``NotImplemented`` is the result. ``Tensor.__torch_function__`` (what a
subclass inherits, :func:`default_torch_function`) runs ``func`` with the protocol switched
off for subclasses (:class:`DisableTorchFunctionSubclass`, so it does not come back here)
and turns the tensors it returns into the subclass (:func:`convert`).

What it costs a plain tensor: nothing in its methods and operators (the dispatching
methods are put on each subclass when it is defined, :func:`prepare_subclass`; ``Tensor``
keeps its own). A ``torch.*`` or ``F.*`` function asks one flag, ``STATE.armed``, true only
once a subclass has been defined; a Tensor-like that is no tensor is looked for only after
the function failed on it (it cannot read one), as ``_input_check`` does for its errors.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ._real_pytorch import is_real_pytorch
from ._tensor import Tensor
from ._torch_function_calls import (
    NN_FUNCTIONAL,
    SELF_TYPED,
    TENSOR_METHODS,
    TENSOR_OPERATORS,
)
from .autograd.grad_mode import is_grad_enabled


class _State:
    """Whether dispatch is on. ``armed``: nothing switched the protocol off, and a
    ``TorchFunctionMode`` is active or a subclass that takes part exists (and subclass
    dispatch is not switched off): the one question every ``torch.*`` call asks."""

    __slots__ = ("armed", "subclasses", "subclass_off", "all_off", "modes")

    def __init__(self) -> None:
        self.armed = False
        self.subclasses = False  # (a Tensor subclass with the protocol was defined)
        self.subclass_off = 0  # (DisableTorchFunctionSubclass blocks entered)
        self.all_off = 0  # (DisableTorchFunction blocks entered)
        self.modes: list = []  # (the TorchFunctionMode stack, the current one last)

    def update(self) -> None:
        self.armed = not self.all_off and bool(
            self.modes or self.subclasses and not self.subclass_off)


STATE = _State()


class _DisabledTorchFunctionImpl:
    """``torch._C._disabled_torch_function_impl``: a ``__torch_function__`` that takes no
    part (``nn.Parameter``'s, so a parameter's results are plain tensors). A callable
    object rather than a function so that, put in a class body, it is not bound as a
    method (as PyTorch's, a builtin)."""

    def __call__(self, func, types, args=(), kwargs=None):
        with DisableTorchFunction():
            return func(*args, **(kwargs or {}))

    def __repr__(self) -> str:
        return "<built-in function _disabled_torch_function_impl>"


disabled_torch_function_impl = _DisabledTorchFunctionImpl()


class DisableTorchFunctionSubclass:
    """``torch._C.DisableTorchFunctionSubclass()``: inside the block, subclasses of Tensor
    behave as plain tensors (their ``__torch_function__`` is not called); Tensor-like
    types that are no tensors still are."""

    def __enter__(self):
        STATE.subclass_off += 1
        STATE.update()
        return self

    def __exit__(self, *exc) -> None:
        STATE.subclass_off -= 1
        STATE.update()


class DisableTorchFunction:
    """``torch._C.DisableTorchFunction()``: inside the block no ``__torch_function__`` is
    called at all."""

    def __enter__(self):
        STATE.all_off += 1
        STATE.update()
        return self

    def __exit__(self, *exc) -> None:
        STATE.all_off -= 1
        STATE.update()


def is_torch_function_enabled() -> bool:
    """``torch._C._is_torch_function_enabled()``: not inside DisableTorchFunction."""
    return not STATE.all_off


# ----------------------------------------------------------------------------------------
# Which arguments take part
# ----------------------------------------------------------------------------------------
# Types that never have a __torch_function__: skipped at once (most arguments are these).
_PLAIN_TYPES = frozenset({Tensor, int, float, bool, type(None), str, slice, tuple, list,
                          dict, type(Ellipsis), complex})


def _takes_part(value) -> bool:
    """Does ``value``'s type have a ``__torch_function__`` that dispatch should call?"""
    kind = type(value)
    if kind in _PLAIN_TYPES:
        return False
    handler = getattr(kind, "__torch_function__", None)
    if handler is None or handler is disabled_torch_function_impl:
        return False
    if isinstance(value, Tensor):
        return not STATE.subclass_off and not STATE.all_off
    # (the real PyTorch's tensors have a __torch_function__ too, but they do not mix with
    # teachgrad's: the function's own error says so, see _real_pytorch)
    return not STATE.all_off and not is_real_pytorch(value)


def overloaded_arguments(values, plain: bool = False) -> list:
    """The arguments among ``values`` (and the items of a list or tuple among them) whose
    ``__torch_function__`` is to be called, in PyTorch's order: one per type, a subclass
    before its base classes, otherwise left to right. ``plain``: plain tensors count too
    (PyTorch's functions written in Python, and its property accessors, count them in
    ``types``)."""
    found: list = []
    for value in values:
        items = value if type(value) in (list, tuple) else (value,)
        for item in items:
            if not (_takes_part(item) or plain and type(item) is Tensor) or any(
                    type(item) is type(f) for f in found):
                continue
            where = len(found)
            for i, earlier in enumerate(found):
                if issubclass(type(item), type(earlier)):
                    where = i
                    break
            found.insert(where, item)
    return found


def relevant(args: tuple, kwargs: dict | None) -> tuple:
    """The values that may take part: the positional and the keyword arguments."""
    return (*args, *kwargs.values()) if kwargs else args


def has_overloaded(args: tuple, kwargs: dict | None) -> bool:
    """Is the call to be handed over: a mode is active, or some argument (or an item of a
    list argument) is one whose ``__torch_function__`` dispatch asks?"""
    if STATE.modes and not STATE.all_off:
        return True
    # (asked on every call once the protocol is on: numbers and plain tensors, the usual
    # arguments, are passed over without a call)
    for value in args:
        if type(value) not in _PASSIVE_TYPES and _overloaded_value(value):
            return True
    if kwargs:
        for value in kwargs.values():
            if type(value) not in _PASSIVE_TYPES and _overloaded_value(value):
                return True
    return False


def _overloaded_value(value) -> bool:
    """Does ``value`` (or, for a list or tuple, an item of it) take part?"""
    if type(value) in (list, tuple):
        return any(type(item) not in _PASSIVE_TYPES and _takes_part(item) for item in value)
    return _takes_part(value)


# Types whose values never take part, checked without a call: numbers, plain tensors and
# the subclasses that take no part (nn.Parameter: prepare_subclass adds them). Containers
# are not here: their items might take part.
_PASSIVE_TYPES = {Tensor, int, float, bool, type(None), str, slice, type(Ellipsis), complex}


# ----------------------------------------------------------------------------------------
# Handing a call over
# ----------------------------------------------------------------------------------------
def dispatch(func: Callable, overloaded: list, args: tuple, kwargs: dict | None,
             python: bool = False, operator: bool = False):
    """Ask each of ``overloaded``'s ``__torch_function__`` for ``func(*args, **kwargs)``;
    the first answer that is not NotImplemented is the result. If all of them say
    NotImplemented: PyTorch's TypeError (``python``: see :func:`no_implementation`), or
    for an ``operator`` NotImplemented (Python then asks the other operand, then raises
    its own "unsupported operand" TypeError). A function written in Python in PyTorch hands over its
    arguments as its wrapper spells them (``torch_function_call``, see add_dispatch)."""
    spell = getattr(func, "torch_function_call", None)
    if spell is not None:
        spelled = spell(args, kwargs)
        if spelled is not None:
            args, kwargs, relevant_values = spelled
            counted = overloaded_arguments(relevant_values, plain=True)
            # (the relevant ones, unless what took part is elsewhere: F.softmax(x,
            # dtype=sub) is not handed over by PyTorch; here it keeps its handlers)
            if STATE.modes or any(type(arg) is not Tensor for arg in counted):
                overloaded = counted
    types = tuple(type(arg) for arg in overloaded)
    mode = None
    if STATE.modes and not STATE.all_off:  # (the current mode is asked first)
        mode = STATE.modes[-1]
        result = ask_mode(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        result = arg.__torch_function__(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    if operator:
        return NotImplemented
    raise no_implementation(func, types, python, mode)


def ask_mode(func: Callable, types: tuple, args: tuple, kwargs: dict | None):
    """The current mode's ``__torch_function__`` answer, asked with the mode taken off
    the stack (so that calling ``func`` inside it runs the function, and not the mode
    again), as PyTorch does."""
    mode = STATE.modes.pop()
    STATE.update()
    try:
        return mode.__torch_function__(func, types, args, kwargs)
    finally:
        STATE.modes.append(mode)
        STATE.update()


def handle(func: Callable, args: tuple, kwargs: dict | None):
    """``dispatch`` of ``func(*args, **kwargs)`` to the arguments that take part."""
    return dispatch(func, overloaded_arguments(relevant(args, kwargs)), args, kwargs or None)


def no_implementation(func: Callable, types: tuple, python: bool = False,
                      mode=None) -> TypeError:
    """PyTorch's TypeError when every handler returned NotImplemented (its C++ functions'
    words; its Python ones say it more briefly, as does ``python``: a function of the
    user's, through ``torch.overrides.handle_torch_function``). ``mode``: the mode that
    was asked first."""
    name = resolve_name(func) or repr(func)
    nn_name = name.removeprefix("torch.nn.functional.")
    if name in _PYTHON_FUNCTIONS or python or (nn_name != name and nn_name not in _NN_BUILTINS):
        return TypeError(
            f"no implementation found for '{name}' on types that implement "
            f"__torch_function__: {list(types)}")
    listed = (f"  - mode object {mode!r}\n" if mode is not None else "") + "".join(
        f"  - tensor subclass {kind}\n" for kind in types)
    return TypeError(
        f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
        f"NotImplemented:\n\n{listed}\nFor more information, try re-running with "
        "TORCH_LOGS=not_implemented")


# The functions that are written in Python in PyTorch (its C++ functions word the error
# above differently): torch.functional's and most of torch.nn.functional's.
_PYTHON_FUNCTIONS = frozenset(
    [f"torch.functional.{name}" for name in (
        "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_tensors",
        "cartesian_prod", "cdist", "chain_matmul", "einsum", "lu", "meshgrid", "norm",
        "split", "tensordot", "unique", "unique_consecutive", "unravel_index")]
)
# torch.nn.functional's functions that are C++ bindings in PyTorch (the rest are Python).
_NN_BUILTINS = frozenset({
    "adaptive_avg_pool1d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "bilinear", "celu_",
    "channel_shuffle", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "cosine_similarity", "elu_", "gelu",
    "hardshrink", "hardtanh_", "leaky_relu_", "linear", "logsigmoid", "one_hot",
    "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu", "relu_",
    "rrelu_", "scaled_dot_product_attention", "selu_", "softplus", "softshrink",
    "threshold_",
})
_TORCH_FUNCTIONAL = frozenset(name.rpartition(".")[2] for name in _PYTHON_FUNCTIONS)


def resolve_name(func: Callable) -> str | None:
    """The name PyTorch's messages give ``func``: ``torch.add``, ``torch.Tensor.add``,
    ``torch.nn.functional.relu``, ``torch.functional.einsum``."""
    public = getattr(func, "torch_function_name", None)
    if public is not None:
        return public
    name = getattr(func, "__name__", None)
    if name is not None and vars(Tensor).get(name) is func:
        return f"torch.Tensor.{name}"
    owner = getattr(func, "__self__", None)
    if isinstance(owner, property):  # (Tensor.shape.__get__, Tensor.data.__set__)
        prop = next((key for key, value in vars(Tensor).items() if value is owner), None)
        return f"torch.Tensor.{prop}.{name}" if prop else None
    module = getattr(func, "__module__", None)
    return f"{module}.{name}" if module and name else name


def _public_name(namespace: str, name: str) -> str:
    """``torch_function_name`` of namespace function ``name`` (see resolve_name)."""
    if namespace == "torch" and name in _TORCH_FUNCTIONAL:
        return f"torch.functional.{name}"
    return f"{namespace}.{name}"


# ----------------------------------------------------------------------------------------
# Tensor.__torch_function__: what a subclass inherits
# ----------------------------------------------------------------------------------------
def default_torch_function(cls: type, func: Callable, types: tuple, args=(), kwargs=None):
    """``torch.Tensor.__torch_function__``: run ``func`` as for plain tensors, then make
    the tensors it returns ``cls`` instances. NotImplemented when some type in ``types``
    is not a base of ``cls`` (another subclass, or a Tensor-like: let it answer)."""
    if not all(issubclass(cls, kind) for kind in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        result = func(*args, **(kwargs or {}))
        if func in _NO_WRAP:
            return result
        return convert(result, cls, relevant(args, kwargs))


def convert(result, cls: type, args: tuple = ()):
    """``result`` with its tensors made ``cls`` instances (in tuples and lists too).

    A tensor the call made is changed in place (its class is set: the same object, the
    same graph node); one of the arguments handed back (``x.contiguous()``, an in-place
    op's result) is aliased instead, so the caller's own tensor keeps its type."""
    if cls is Tensor:
        return result
    if isinstance(result, Tensor):
        if isinstance(result, cls):
            return result
        if result._requires_grad and is_grad_enabled():
            # (PyTorch's Tensor.as_subclass: an alias, recorded as AliasBackward0)
            from .ops.shape import AliasBackward0  # (the ops import this module's users)

            result = AliasBackward0.apply(result)
        elif any(result is arg for arg in args) or type(result) is not Tensor:
            return alias_as(result, cls)
        try:
            result.__class__ = cls
            return result
        except TypeError:  # (a subclass with __slots__ of its own: another layout)
            return alias_as(result, cls)
    if type(result) in (tuple, list) or (isinstance(result, tuple) and hasattr(result,
                                                                               "_fields")):
        items = [convert(item, cls, args) for item in result]
        if all(new is old for new, old in zip(items, result)):
            return result
        if type(result) in (tuple, list):
            return type(result)(items)
        return type(result)(*items)  # (a return_types named tuple: max's (values, indices))
    return result


def as_subclass(tensor: Tensor, cls: type) -> Tensor:
    """``tensor.as_subclass(cls)``: ``tensor`` as a ``cls`` object (see :func:`convert`)."""
    return convert(tensor, cls, (tensor,))


_SLOTS = ("_data", "_requires_grad", "_grad", "_grad_fn", "_output_nr", "_vc", "_base",
          "_accumulator", "_extra")


def alias_as(tensor: Tensor, cls: type) -> Tensor:
    """A ``cls`` object that is ``tensor`` under another type: the same values, version
    counter and graph node (``Tensor.as_subclass`` of a tensor that needs no graph)."""
    alias = object.__new__(cls)
    for slot in _SLOTS:
        setattr(alias, slot, getattr(tensor, slot))
    return alias


# Properties whose value is handed back as it is (PyTorch's get_default_nowrap_functions):
# a subclass's .grad is whatever tensor was accumulated, not converted.
_NO_WRAP: tuple = ()


# ----------------------------------------------------------------------------------------
# Functions of the torch namespaces
# ----------------------------------------------------------------------------------------
def dispatching(function: Callable, name: str) -> Callable:
    """``function`` as a ``torch.*`` (or ``F.*``) function that takes part in the protocol:
    ``name`` is its public name (``torch.add``). The wrapper is what the user sees as
    ``torch.add``, so it is also the ``func`` handed to ``__torch_function__``."""

    @functools.wraps(function)
    def public(*args, **kwargs):
        if STATE.armed and has_overloaded(args, kwargs):
            return handle(public, args, kwargs)
        try:
            return function(*args, **kwargs)
        except (AttributeError, TypeError):
            overloaded = tensor_likes(args, kwargs)
            if not overloaded:
                raise
        return dispatch(public, overloaded, args, kwargs or None)

    public.torch_function_name = name
    public.dispatches_torch_function = public
    return public


def tensor_likes(args: tuple, kwargs: dict | None) -> list:
    """After a function failed: the Tensor-likes among its arguments (types with a
    ``__torch_function__`` that are no tensors, which the function could not read)."""
    if STATE.all_off:
        return []
    return [arg for arg in overloaded_arguments(relevant(args, kwargs))
            if not isinstance(arg, Tensor)]


def add_dispatch(namespace: dict, public: str, ignored: frozenset = frozenset()) -> None:
    """Make every public function of ``namespace`` (a module's globals, torch's or
    ``torch.nn.functional``'s) take part, but those in ``ignored`` (factories, settings:
    PyTorch's get_ignored_functions). A function that dispatches already (the wrappers
    of ``_input_check`` and ``_out`` do, and F.linear, to save a frame) only gets its
    name."""
    import inspect

    for name, value in list(namespace.items()):
        if name.startswith("_") or not inspect.isfunction(value):
            continue
        if getattr(value, "__module__", "").split(".")[0] != "teachgrad":
            continue
        full_name = _public_name(public, name)
        if name in ignored:  # (a factory with out= dispatches all the same: its name)
            if getattr(value, "dispatches_torch_function", None) is value:
                value.torch_function_name = full_name
            continue
        # (the flag names the function that dispatches: a wrapper made by functools.wraps
        # copies it from the function it wraps, without dispatching itself)
        if getattr(value, "dispatches_torch_function", None) is value:
            # (a function in both torch and F is named as F's, as PyTorch's resolve_name
            # does: F.conv2d is torch.conv2d)
            named = getattr(value, "torch_function_name", None) is not None
            if not named or public.endswith("nn.functional"):
                value.torch_function_name = full_name
        else:
            # (one function in two namespaces stays one: torch.bilinear is F.bilinear)
            if id(value) not in _DISPATCHING:
                _DISPATCHING[id(value)] = dispatching(value, full_name)
            value = namespace[name] = _DISPATCHING[id(value)]
            if public.endswith("nn.functional"):
                value.torch_function_name = full_name
        if public == "torch.nn.functional" and name in NN_FUNCTIONAL:
            value.torch_function_call = python_call_spelling(value, *NN_FUNCTIONAL[name])


def python_call_spelling(function: Callable, positional: tuple, keywords: tuple,
                         defaults: dict, relevant: tuple) -> Callable | None:
    """How PyTorch's Python ``function`` passes a call on to ``__torch_function__``
    (see _torch_function_calls.py): a function of ``(args, kwargs)`` giving the
    ``args`` (``positional``), the ``kwargs`` (``keywords``, each at the caller's value
    or its default) and the ``relevant`` values whose types make ``types``; None for a
    call that does not fit the signature (it is going to fail: handed over as written).
    None when ``function`` cannot take PyTorch's keywords."""
    import inspect

    signature = inspect.signature(function)
    names = list(signature.parameters)
    takes_any = any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values())
    if not takes_any and any(name not in names for name in keywords):
        return None
    first = names[0] if names else None
    rename = positional[:1] == ("self",) and first != "self"  # (an op's ``input``)

    def spell(args: tuple, kwargs: dict | None) -> tuple[tuple, dict, tuple] | None:
        try:
            given = signature.bind(*args, **(kwargs or {})).arguments
        except TypeError:
            return None
        if rename:
            given = {"self" if name == first else name: value for name, value in given.items()}
        values = {**defaults, **given}
        if any(name not in values for name in positional + keywords + relevant):
            return None
        return (tuple([values[name] for name in positional]),
                {name: values[name] for name in keywords},
                tuple([values[name] for name in relevant]))

    return spell


_DISPATCHING: dict = {}  # id(function) -> its dispatching wrapper (see add_dispatch)


def install_mode_factories(namespace: dict) -> None:
    """Make the factories that PyTorch's modes see (``torch.tensor``, ``torch.arange``
    ...; they take no part otherwise) hand their calls to the current mode: done when the
    first mode is entered, so that until then they cost nothing."""
    for name in MODE_FACTORIES:
        value = namespace.get(name)
        if value is None or getattr(value, "dispatches_torch_function", None) is value:
            continue  # (it dispatches already: has_overloaded says yes under a mode)
        if getattr(value, "seen_by_modes", False):
            continue
        namespace[name] = _seen_by_modes(value, f"torch.{name}")


def _seen_by_modes(function: Callable, name: str) -> Callable:
    """``function`` handing its calls to the current mode, if any (see
    install_mode_factories)."""

    @functools.wraps(function)
    def public(*args, **kwargs):
        if STATE.modes and not STATE.all_off:
            return dispatch(public, [], args, kwargs or None)
        return function(*args, **kwargs)

    public.torch_function_name = name
    public.seen_by_modes = True
    return public


# The functions of IGNORED_TORCH that PyTorch 2.13's modes are handed all the same.
MODE_FACTORIES = frozenset({
    "arange", "as_tensor", "asarray", "bartlett_window", "blackman_window", "can_cast",
    "empty", "empty_permuted", "empty_strided", "eye", "full", "hamming_window",
    "hann_window", "kaiser_window", "linspace", "logspace", "normal", "ones",
    "promote_types", "rand", "rand_like", "randint", "randint_like", "randn",
    "randn_like", "randperm", "result_type", "scalar_tensor", "tensor", "tril_indices",
    "triu_indices", "vander", "zeros",
})


# ----------------------------------------------------------------------------------------
# Tensor's methods, operators and properties
# ----------------------------------------------------------------------------------------
# Tensor's own members that are not ops: building the object, the protocol itself.
_NOT_DISPATCHED = frozenset({
    "__init__", "__new__", "__init_subclass__", "__torch_function__", "__getattribute__",
    "__getattr__", "__setattr__", "__delattr__", "__dir__", "__sizeof__", "__reduce__",
    "__class_getitem__", "__subclasshook__", "__array_priority__", "__slots__",
    "__module__", "__doc__", "__dict__", "__weakref__", "__annotations__", "__qualname__",
    "as_subclass", "_make_subclass",
    # PyTorch's __iter__ skips the protocol on purpose (gh-54457): the method runs as it
    # is, and its self.unbind(0) then makes rows of the subclass
    "__iter__",
})
# Operators: when every handler says NotImplemented they return NotImplemented, so that
# Python asks the other operand and then raises its own "unsupported operand" TypeError.
_OPERATORS = frozenset({
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
    "__rpow__", "__matmul__", "__rmatmul__", "__and__", "__rand__", "__or__", "__ror__",
    "__xor__", "__rxor__", "__lshift__", "__rlshift__", "__rshift__", "__rrshift__",
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__iadd__", "__isub__",
    "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__", "__iand__",
    "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__imatmul__",
})


# The method an operator hands over in PyTorch 2.13, where it is not the operator itself:
# ``t + s`` hands over ``Tensor.add``, ``t += s`` ``Tensor.add_``, ``t @ s`` ``Tensor.matmul``.
_OPERATOR_FUNCS = {
    "__add__": "add", "__radd__": "add", "__sub__": "sub", "__mul__": "mul",
    "__rmul__": "mul", "__truediv__": "div", "__mod__": "remainder", "__matmul__": "matmul",
    "__rand__": "bitwise_and", "__ror__": "bitwise_or", "__rxor__": "bitwise_xor",
    "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
    "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_",
    "__ifloordiv__": "floor_divide_", "__imod__": "remainder_",
}


def prepare_subclass(cls: type) -> None:
    """Called for each new subclass of Tensor (``Tensor.__init_subclass__``): switch the
    protocol on, giving Tensor its dispatching members the first time (see
    :func:`install_tensor_dispatch`). A subclass whose ``__torch_function__`` is
    ``_disabled_torch_function_impl`` (``nn.Parameter``) takes no part and switches
    nothing on: its results are plain tensors."""
    if getattr(cls, "__torch_function__", None) is disabled_torch_function_impl:
        _PASSIVE_TYPES.add(cls)
        return
    install_tensor_dispatch()
    STATE.subclasses = True
    STATE.update()


def install_tensor_dispatch() -> None:
    """Give Tensor methods, operators and properties that hand a call over to
    ``__torch_function__`` (a subclass argument's, anywhere in the call, or a mode's).

    Done once, when the first subclass that takes part is defined or the first
    ``TorchFunctionMode`` is entered: until then Tensor keeps the ops' own functions, so
    a program that uses neither pays nothing for the protocol. (So ``torch.Tensor.add``
    read before that moment is the plain function, which does not dispatch.)"""
    if _INSTALLED:
        return
    members = _tensor_members()
    made: dict = {}  # id(function) -> its wrapper: ``sub is subtract`` stays true
    for name, member in members.items():
        if isinstance(member, property):
            setattr(Tensor, name, _dispatching_property(member))
        elif name not in _OPERATORS:
            if id(member) not in made:
                made[id(member)] = _dispatching_method(name, member)
                if name in TENSOR_METHODS:  # (written in Python in PyTorch)
                    made[id(member)].torch_function_call = python_call_spelling(
                        member, *TENSOR_METHODS[name])
                elif name in SELF_TYPED:
                    made[id(member)].torch_function_call = _self_typed
            setattr(Tensor, name, made[id(member)])
    # An operator has a wrapper of its own (it answers NotImplemented where the method
    # raises), handing over what PyTorch's does (see _OPERATOR_FUNCS).
    for name, member in members.items():
        if name in _OPERATORS:
            method = _OPERATOR_FUNCS.get(name)  # (Tensor's is its dispatching one by now)
            func = vars(Tensor)[method] if method else None
            operator = _dispatching_method(name, member, func)
            if name in TENSOR_OPERATORS:
                operator.torch_function_call = _as_given
            setattr(Tensor, name, operator)
    global _NO_WRAP
    _NO_WRAP = (Tensor.grad.__get__,)
    _INSTALLED.append(True)


def _self_typed(args: tuple, kwargs: dict | None) -> tuple[tuple, dict | None, tuple]:
    """The spelling of a method PyTorch hands over with the tensor among the relevant
    arguments (see SELF_TYPED)."""
    return args, kwargs, args[:1]


def _as_given(args: tuple, kwargs: dict | None) -> tuple[tuple, dict, tuple]:
    """The spelling of an operator PyTorch writes in Python (see TENSOR_OPERATORS)."""
    return args, kwargs or {}, args


_INSTALLED: list = []  # (one item once install_tensor_dispatch has run)


def _tensor_members() -> dict:
    """Tensor's public methods, its operators and other special methods, and its
    properties: what dispatches (read when the protocol is first switched on, after every
    op has registered its method)."""
    members = {}
    for name, member in vars(Tensor).items():
        if name in _NOT_DISPATCHED or (name.startswith("_") and not name.startswith("__")):
            continue
        if isinstance(member, property) or callable(member) and not isinstance(
                member, (classmethod, staticmethod, type)):
            members[name] = member
    return members


def _public_method_name(name: str, method: Callable) -> str:
    """The name a method's ``func`` shows: the function's own (``add`` for ``__add__``,
    as PyTorch's ``t + s`` hands over ``Tensor.add``) when Tensor has it under that name,
    else the attribute's (``__getitem__``, not the function's ``getitem``)."""
    own = getattr(method, "__name__", name)
    return own if vars(Tensor).get(own) is method else name


def _dispatching_method(name: str, method: Callable, func: Callable | None = None
                        ) -> Callable:
    """Tensor's ``name`` (the function ``method``) as a method that hands the call over
    (as ``func``, by default itself) when the protocol is on and a mode is active or an
    argument takes part; otherwise it calls ``method`` at once."""
    if name in _OPERATORS and name not in _TERNARY:
        return _dispatching_operator(name, method, func)
    is_operator = name in _OPERATORS

    @functools.wraps(method)
    def dispatching_method(self, *args, **kwargs):
        if STATE.armed:  # (a subclass or a mode exists: does this call go to one?)
            hand_over = STATE.modes or type(self) not in _PASSIVE_TYPES and _takes_part(self)
            if not hand_over:  # (the arguments, most often numbers and plain tensors)
                for value in args:
                    if type(value) not in _PASSIVE_TYPES:
                        hand_over = has_overloaded(args, kwargs)
                        break
                else:
                    hand_over = bool(kwargs) and has_overloaded((), kwargs)
            if hand_over:
                call = (self, *args)
                return dispatch(func or dispatching_method,
                                overloaded_arguments(relevant(call, kwargs)), call,
                                kwargs or None, operator=is_operator)
        return method(self, *args, **kwargs)

    return _named(dispatching_method, name, method)


def _dispatching_operator(name: str, method: Callable, func: Callable | None) -> Callable:
    """:func:`_dispatching_method` for a binary operator (one argument: a faster check)."""

    @functools.wraps(method)
    def dispatching_operator(self, other):
        if STATE.armed and (STATE.modes or type(self) not in _PASSIVE_TYPES
                            and _takes_part(self) or type(other) not in _PASSIVE_TYPES
                            and has_overloaded((other,), None)):
            return dispatch(func or dispatching_operator, overloaded_arguments((self, other)),
                            (self, other), None, operator=True)
        return method(self, other)

    return _named(dispatching_operator, name, method)

_TERNARY = frozenset({"__pow__", "__rpow__", "__ipow__"})  # (pow(x, y, modulo) exists)


def _named(wrapper: Callable, name: str, method: Callable) -> Callable:
    """``wrapper`` named as PyTorch names Tensor's ``name`` (see _public_method_name)."""
    public = _public_method_name(name, method)
    wrapper.__name__ = public
    wrapper.__qualname__ = f"Tensor.{public}"
    wrapper.torch_function_name = f"torch.Tensor.{public}"
    return wrapper


def _dispatching_property(prop: property) -> property:
    """``prop`` whose getter and setter hand the call over as methods do; the ``func``
    handed over is what PyTorch's is: ``Tensor.shape.__get__``, ``Tensor.data.__set__``
    (the new property's)."""
    fget, fset = prop.fget, prop.fset

    def dispatching_getter(self):
        if STATE.armed and (STATE.modes or type(self) not in _PASSIVE_TYPES
                            and _takes_part(self)):
            return dispatch(public.__get__, overloaded_arguments((self,), plain=True),
                            (self,), None)
        return fget(self)

    def dispatching_setter(self, value):
        # (as PyTorch's: only the tensor set decides, not the value: ``t.data = s`` of a
        # plain t does not dispatch)
        if STATE.armed and (STATE.modes or type(self) not in _PASSIVE_TYPES
                            and _takes_part(self)):
            dispatch(public.__set__, overloaded_arguments((self,), plain=True),
                     (self, value), None)
            return
        fset(self, value)

    public = property(dispatching_getter, dispatching_setter if fset else None, prop.fdel,
                      prop.__doc__)
    return public


# ----------------------------------------------------------------------------------------
# What takes no part (PyTorch's get_ignored_functions, as teachgrad names them)
# ----------------------------------------------------------------------------------------
# torch.*: factories (their arguments are no tensors to dispatch on), settings, seeds, I/O.
IGNORED_TORCH = frozenset({
    "arange", "as_tensor", "asarray", "bartlett_window", "blackman_window",
    "broadcast_shapes", "can_cast", "compile", "empty", "empty_permuted", "empty_strided",
    "eye", "from_dlpack", "from_numpy", "frombuffer", "full", "get_default_device",
    "get_default_dtype", "get_deterministic_debug_mode", "get_float32_matmul_precision",
    "get_num_interop_threads", "get_num_threads", "get_printoptions", "get_rng_state",
    "hamming_window", "hann_window", "init_num_threads", "initial_seed", "install_as_torch",
    "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "is_autocast_enabled",
    "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
    "is_grad_enabled", "is_inference_mode_enabled", "is_storage", "is_tensor",
    "is_warn_always_enabled", "kaiser_window", "linspace", "load", "load_ipython_extension",
    "logspace", "manual_seed", "normal", "ones", "promote_types", "rand", "rand_like",
    "randint", "randint_like", "randn", "randn_like", "randperm", "range", "result_type",
    "save", "scalar_tensor", "seed", "set_anomaly_enabled", "set_default_device",
    "set_default_dtype", "set_default_tensor_type", "set_deterministic_debug_mode",
    "set_float32_matmul_precision", "set_flush_denormal", "set_num_interop_threads",
    "set_num_threads", "set_printoptions", "set_rng_state", "set_warn_always", "tensor",
    "to_dlpack", "tril_indices", "triu_indices", "typename", "unload_ipython_extension",
    "use_deterministic_algorithms", "vander", "vmap", "zeros",
})
# torch.nn.functional: its helpers, and what PyTorch's F takes from elsewhere without
# dispatching on it itself.
IGNORED_NN = frozenset({
    "accepts_out", "add_input_checks", "argument_error", "keep_given", "numpy_names",
    "python_type_name", "real_pytorch_hint", "refuses_complex", "save_nll_loss",
    "saving_indices", "takes_arguments", "takes_ints", "takes_tensors", "warn_user",
})
