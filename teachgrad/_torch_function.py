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
from .autograd.grad_mode import is_grad_enabled


class _State:
    """Whether dispatch is on. ``armed``: a subclass that takes part exists and nothing
    switched subclass dispatch off: the one question every ``torch.*`` call asks."""

    __slots__ = ("armed", "subclasses", "subclass_off", "all_off")

    def __init__(self) -> None:
        self.armed = False
        self.subclasses = False  # (a Tensor subclass with the protocol was defined)
        self.subclass_off = 0  # (DisableTorchFunctionSubclass blocks entered)
        self.all_off = 0  # (DisableTorchFunction blocks entered)

    def update(self) -> None:
        self.armed = self.subclasses and not self.subclass_off and not self.all_off


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


def overloaded_arguments(values) -> list:
    """The arguments among ``values`` (and the items of a list or tuple among them) whose
    ``__torch_function__`` is to be called, in PyTorch's order: one per type, a subclass
    before its base classes, otherwise left to right."""
    found: list = []
    for value in values:
        items = value if type(value) in (list, tuple) else (value,)
        for item in items:
            if not _takes_part(item) or any(type(item) is type(f) for f in found):
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
    """Is some argument (or an item of a list argument) one that dispatch hands over?"""
    for value in relevant(args, kwargs):
        if type(value) in (list, tuple):
            if any(_takes_part(item) for item in value):
                return True
        elif _takes_part(value):
            return True
    return False


# ----------------------------------------------------------------------------------------
# Handing a call over
# ----------------------------------------------------------------------------------------
class NoImplementation(TypeError):
    """Every ``__torch_function__`` asked returned NotImplemented."""


def dispatch(func: Callable, overloaded: list, args: tuple, kwargs: dict | None,
             python: bool = False):
    """Ask each of ``overloaded``'s ``__torch_function__`` for ``func(*args, **kwargs)``;
    the first answer that is not NotImplemented is the result (``python``: see
    :func:`no_implementation`)."""
    types = tuple(type(arg) for arg in overloaded)
    for arg in overloaded:
        result = arg.__torch_function__(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise no_implementation(func, types, python)


def handle(func: Callable, args: tuple, kwargs: dict | None):
    """``dispatch`` of ``func(*args, **kwargs)`` to the arguments that take part."""
    return dispatch(func, overloaded_arguments(relevant(args, kwargs)), args, kwargs or None)


def no_implementation(func: Callable, types: tuple, python: bool = False) -> NoImplementation:
    """PyTorch's TypeError when every handler returned NotImplemented (its C++ functions'
    words; its Python ones say it more briefly, as does ``python``: a function of the
    user's, through ``torch.overrides.handle_torch_function``)."""
    name = resolve_name(func) or repr(func)
    nn_name = name.removeprefix("torch.nn.functional.")
    if name in _PYTHON_FUNCTIONS or python or (nn_name != name and nn_name not in _NN_BUILTINS):
        return NoImplementation(
            f"no implementation found for '{name}' on types that implement "
            f"__torch_function__: {list(types)}")
    listed = "".join(f"  - tensor subclass {kind}\n" for kind in types)
    return NoImplementation(
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
        if name.startswith("_") or name in ignored or not inspect.isfunction(value):
            continue
        if getattr(value, "__module__", "").split(".")[0] != "teachgrad":
            continue
        full_name = _public_name(public, name)
        # (the flag names the function that dispatches: a wrapper made by functools.wraps
        # copies it from the function it wraps, without dispatching itself)
        if getattr(value, "dispatches_torch_function", None) is value:
            if getattr(value, "torch_function_name", None) is None:
                value.torch_function_name = full_name
            continue
        # (one function in two namespaces stays one: torch.bilinear is F.bilinear)
        if id(value) not in _DISPATCHING:
            _DISPATCHING[id(value)] = dispatching(value, full_name)
        namespace[name] = _DISPATCHING[id(value)]


_DISPATCHING: dict = {}  # id(function) -> its dispatching wrapper (see add_dispatch)


# ----------------------------------------------------------------------------------------
# Methods, operators and properties of a subclass
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
# operator: the reflected form Python calls on the right operand first when it is a
# subclass (``t + sub`` calls ``sub.__radd__(t)``): PyTorch sees ``t.__add__(sub)``.
_REFLECTED = {
    "__radd__": "__add__", "__rsub__": "__sub__", "__rmul__": "__mul__",
    "__rtruediv__": "__truediv__", "__rfloordiv__": "__floordiv__", "__rmod__": "__mod__",
    "__rpow__": "__pow__", "__rmatmul__": "__matmul__", "__rand__": "__and__",
    "__ror__": "__or__", "__rxor__": "__xor__", "__rlshift__": "__lshift__",
    "__rrshift__": "__rshift__",
}
_OPERATORS = frozenset(_REFLECTED) | frozenset(_REFLECTED.values()) | frozenset({
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__iadd__", "__isub__",
    "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__", "__iand__",
    "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__imatmul__",
})


def prepare_subclass(cls: type) -> None:
    """Called for each new subclass of Tensor (``Tensor.__init_subclass__``): give it
    dispatching versions of Tensor's methods and properties that neither it nor a base
    between it and Tensor redefines. A subclass whose ``__torch_function__`` is
    ``_disabled_torch_function_impl`` (``nn.Parameter``) takes no part: it keeps Tensor's
    own methods, and so its results are plain tensors."""
    if getattr(cls, "__torch_function__", None) is disabled_torch_function_impl:
        return
    STATE.subclasses = True
    STATE.update()
    for name, member in _tensor_members().items():
        owner = next(base for base in cls.__mro__ if name in base.__dict__)
        if owner is not Tensor:  # (the subclass, or a base between, has its own)
            continue
        if isinstance(member, property):
            setattr(cls, name, _dispatching_property(member))
        else:
            setattr(cls, name, _dispatching_method(name, member))


@functools.lru_cache(maxsize=1)
def _tensor_members() -> dict:
    """Tensor's public methods, its operators and other special methods, and its
    properties: what a subclass dispatches (read once, when the first subclass is made,
    after every op has registered its method)."""
    members = {}
    for name, member in vars(Tensor).items():
        if name in _NOT_DISPATCHED or (name.startswith("_") and not name.startswith("__")):
            continue
        if isinstance(member, property) or callable(member) and not isinstance(
                member, (classmethod, staticmethod, type)):
            members[name] = member
    global _NO_WRAP
    _NO_WRAP = (Tensor.grad.__get__,)
    return members


def _dispatching_method(name: str, method: Callable) -> Callable:
    forward = _REFLECTED.get(name)
    is_operator = name in _OPERATORS

    @functools.wraps(method)
    def dispatching_method(self, *args, **kwargs):
        if not STATE.armed:
            return method(self, *args, **kwargs)
        func, call = method, (self, *args)
        if forward is not None and len(args) == 1 and isinstance(args[0], Tensor):
            func, call = getattr(Tensor, forward), (args[0], self)  # (see _REFLECTED)
        try:
            return dispatch(func, overloaded_arguments(relevant(call, kwargs)), call,
                            kwargs or None)
        except NoImplementation:
            if not is_operator:
                raise
        return NotImplemented  # (Python then tries the other operand, then says no)

    return dispatching_method


def _dispatching_property(prop: property) -> property:
    getter = prop.__get__  # (what PyTorch hands over: Tensor.shape.__get__)

    def dispatching_getter(self):
        if not STATE.armed:
            return prop.fget(self)
        return dispatch(getter, overloaded_arguments((self,)), (self,), None)

    return property(dispatching_getter, prop.fset, prop.fdel, prop.__doc__)


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
