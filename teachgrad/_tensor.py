"""The Tensor: a NumPy array plus the autograd state PyTorch keeps beside it.

A tensor is five things a student can print (the five the lessons keep printing):

* ``data``          the numbers (a NumPy array underneath, ``t.numpy()`` shows it)
* ``requires_grad`` whether ops on it are recorded for backward
* ``grad``          where ``backward()`` accumulates d(output)/d(this tensor)
* ``grad_fn``       the graph node that made it (``None`` for tensors you created)
* ``is_leaf``       ``grad_fn is None``: you made it, the graph ends here

Everything else on this class is bookkeeping that makes those five behave as in PyTorch:
a version counter (to catch in-place changes of tensors saved for backward), views that
share storage, hooks and ``retain_grad``.

The math lives in :mod:`teachgrad.ops`; each op there registers itself as a method here
with :func:`tensor_method` (so ``x.exp()``, ``x * y`` and ``teachgrad.exp(x)`` are one
function).
"""

from __future__ import annotations

import functools
import inspect
import types
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import _device, _dtypes
from ._dtypes import dtype as DType
from ._missing_arguments import RENAMED_CODES, REQUIRED, UNTESTED_OPS
from ._package_name import qualified
from ._printing import PRINTED_AS_TENSOR
from ._real_pytorch import (
    is_real_pytorch_function,
    real_pytorch_hint,
    refused_by_real_pytorch,
)
from ._warn import warn_user
from .autograd import grad_mode, inference
from .autograd.graph import (
    RemovableHandle,
    accumulator_of,
    check_no_grad_view,
    gained_history,
    is_multi_output_view,
    is_no_grad_view,
    is_stale_view,
    multi_output_view_error,
    no_grad_view_error,
    rebuild_view,
    set_no_grad_view_requires_grad,
    views_late_leaf,
)

_grad_state = grad_mode.state


class Size(tuple):
    """A tensor's shape: a tuple that prints as PyTorch's ``torch.Size([2, 3])``.

    >>> import teachgrad as torch
    >>> torch.ones(2, 3).shape
    teachgrad.Size([2, 3])
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return qualified(f"Size([{', '.join(str(int(s)) for s in self)}])")

    __str__ = __repr__

    # Slices, sums and repeats of a Size are Sizes too (``x.shape[1:].numel()`` works).
    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(
                f"can only concatenate tuple (not {type(other).__name__}) to teachgrad.Size"
            )
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, times):
        return Size(tuple.__mul__(self, times))

    __rmul__ = __mul__

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        n = 1
        for s in self:
            n *= s
        return n


def tensor_method(*names: str) -> Callable:
    """Register a function as ``Tensor`` method(s): ``@tensor_method("exp")``.

    The ops modules use it so that each op is written once and is both
    ``teachgrad.exp(x)`` and ``x.exp()``.
    """

    def register(fn: Callable) -> Callable:
        # (an op whose messages differ as a method, see _arguments.checks_types)
        method = numpy_names(getattr(fn, "method_form", fn), method=True)
        fn = numpy_names(fn)
        for name in names or (fn.__name__,):
            # (an alias's own copy of the argument checks names the alias in its messages)
            alias = name != fn.__name__ and getattr(method, "renamed", None)
            if alias:
                setattr(Tensor, name, alias(name))
            elif (name != fn.__name__ and not name.startswith("__")
                  and _has_required(method)):  # (x.greater(): see _renamed_copy)
                setattr(Tensor, name, _renamed_copy(method, name))
            else:
                setattr(Tensor, name, method)
        return fn

    return register


def _has_required(fn: Callable) -> bool:
    """Does ``fn`` test for a REQUIRED default (see _missing_arguments.missing)?"""
    return any(default is REQUIRED for default in getattr(fn, "__defaults__", None) or ())


def _renamed_copy(fn: Callable, name: str) -> Callable:
    """``fn`` whose code runs under the name ``name``: the same code, so it costs nothing
    more per call, but a call that misses arguments (``x.greater()``) is named ``greater``
    in PyTorch's message, not ``gt`` (see _missing_arguments.RENAMED_CODES)."""
    code = fn.__code__.replace(co_name=name)
    copy = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    functools.update_wrapper(copy, fn, updated=())
    copy.__dict__.update(fn.__dict__)
    RENAMED_CODES[code] = name
    if fn.__code__ in UNTESTED_OPS:
        UNTESTED_OPS[code] = fn
    return copy


_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim"}


def numpy_names(fn: Callable, method: bool = False) -> Callable:
    """Let ``fn`` take NumPy's ``axis=`` and ``keepdims=`` for ``dim=`` and ``keepdim=``.

    PyTorch accepts both spellings in every function with a ``dim``, so code written by
    NumPy users runs. Functions without a ``dim`` or ``keepdim`` parameter are returned
    unchanged (and so pay nothing). ``method``: ``fn`` is a Tensor method (PyTorch's
    message for a call that misses arguments leaves ``self`` out).

    >>> import teachgrad as torch
    >>> torch.ones(2, 3).sum(axis=0, keepdims=True)
    tensor([[2., 2., 2.]])
    """
    if getattr(fn, "takes_numpy_names", False):  # (_arguments.checks_types does it too)
        return fn
    if not has_numpy_names(fn):
        return fn

    @functools.wraps(fn)
    def with_numpy_names(*args, **kwargs):
        if kwargs and ("axis" in kwargs or "keepdims" in kwargs):
            use_pytorch_names(fn.__name__, kwargs)
        try:  # (free until something is raised)
            return fn(*args, **kwargs)
        except TypeError:
            error = _missing_arguments_error(fn, args, kwargs, method)
            if error is None:
                raise
        raise error  # (PyTorch's words for x.cumsum(): not Python's)

    return with_numpy_names


def _missing_arguments_error(fn: Callable, args: tuple, kwargs: dict,
                             method: bool) -> TypeError | None:
    """PyTorch's TypeError for a call of ``fn`` that misses arguments, or None (see
    _missing_arguments; imported here, on the error path only, as it needs this module)."""
    from ._missing_arguments import missing_arguments_error

    return missing_arguments_error(fn.__name__, fn, args, kwargs, method)


def has_numpy_names(fn: Callable) -> bool:
    """Does ``fn`` have a ``dim`` or ``keepdim`` (which NumPy calls ``axis``, ``keepdims``)?"""
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # (a builtin without a signature)
        return False
    return any(new in parameters for new in _NUMPY_NAMES.values())


def use_pytorch_names(name: str, kwargs: dict) -> None:
    """Rename NumPy's ``axis=`` and ``keepdims=`` in ``kwargs`` to ``dim=`` and ``keepdim=``."""
    for old, new in _NUMPY_NAMES.items():
        if old in kwargs:
            if new in kwargs:
                raise TypeError(f"{name}() got both '{new}' and its alias '{old}'")
            kwargs[new] = kwargs.pop(old)


# How PyTorch's C++ core spells element types in some messages ('double', 'long int').
_CPP_TYPE_NAMES = {
    "float16": "c10::Half", "float32": "float", "float64": "double", "int64": "long int",
    "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
    "bool": "bool",
}

_NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)


class Tensor:
    """A multi-dimensional array that can record the operations done to it.

    Create tensors with :func:`teachgrad.tensor`, :func:`teachgrad.ones` and friends.
    ``Tensor(...)`` itself is PyTorch's legacy constructor: ``Tensor([[3, 4]])`` gives a
    tensor of the default floating dtype (float32 unless ``set_default_dtype`` changed
    it), ``Tensor(2, 3)`` a 2x3 one (zero-filled here).
    """

    __slots__ = (
        "_data",            # np.ndarray: the values
        "_requires_grad",   # bool
        "_grad",            # Tensor | None: accumulated gradient
        "_grad_fn",         # Node | None: the op that produced this tensor
        "_output_nr",       # which output of grad_fn this tensor is (split has several)
        "_vc",              # [int]: bumped by every in-place change, shared with views
        "_base",            # Tensor | None: the tensor this one is a view of
        "_accumulator",     # weakref to the leaf's AccumulateGrad node, or None
        "_extra",           # dict | None: rarely used state (hooks, retains_grad, ...)
        "__weakref__",
        # Attributes a user sets (``p.frozen = True``; nn.Buffer's mark), as PyTorch's
        # tensors allow: the dict is made only when the first one is set.
        "__dict__",
    )

    # NumPy must hand mixed expressions such as ``ndarray * tensor`` to us (see
    # __array_ufunc__), and must not try to turn a tensor into an object array.
    __array_priority__ = 1000

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """PyTorch's protocol for subclasses (see ``_torch_function``): run ``func`` on the
        arguments as plain tensors, and return the tensors it makes as ``cls``. A subclass
        overriding it calls this one with ``super().__torch_function__(...)``.

        The *real* PyTorch calls it too, when one of its functions gets a teachgrad
        tensor: that is refused, saying why (see ``_real_pytorch``)."""
        if is_real_pytorch_function(func):
            raise refused_by_real_pytorch(func)
        from ._torch_function import default_torch_function

        return default_torch_function(cls, func, types, args, kwargs)

    def __init_subclass__(cls, **kwargs) -> None:
        # A subclass gets methods that hand each call to its __torch_function__ (Tensor
        # keeps its own, which know nothing of the protocol: see _torch_function).
        super().__init_subclass__(**kwargs)
        from ._torch_function import prepare_subclass

        prepare_subclass(cls)

    @staticmethod
    def _make_subclass(cls: type, data: Tensor, require_grad: bool = False) -> Tensor:
        """A ``cls`` leaf sharing ``data``'s values and version counter, requiring grad
        as asked: how a subclass's ``__new__`` makes its object in PyTorch."""
        made = object.__new__(cls)
        _init(made, data._data)
        made._vc = data._vc
        if require_grad:
            made.requires_grad_(True)
        return made

    def as_subclass(self, cls: type) -> Tensor:
        """This tensor as a ``cls`` object (a subclass of Tensor): the same values, and
        still in the graph."""
        from ._torch_function import DisableTorchFunctionSubclass
        from ._torch_function import as_subclass as converted

        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError("as_subclass(): argument 'cls' (position 1) must be a subclass "
                            f"of Tensor, not {python_type_name(cls)}")
        with DisableTorchFunctionSubclass():
            return converted(self, cls)

    def __new__(cls, *args: Any, **kwargs: Any) -> Tensor:
        # A subclass with an __init__ of its own, taking other arguments, makes its
        # object with super().__new__(cls, data) (PyTorch's idiom): the values are
        # filled in here, as Tensor.__init__ will not run. (Tensor itself, and a
        # subclass without an __init__, are filled in by __init__ below.)
        tensor = object.__new__(cls)
        if cls.__init__ is not Tensor.__init__:
            Tensor.__init__(tensor, *args)
        return tensor

    def __init__(self, *args: Any) -> None:
        default = _dtypes._Defaults.floating  # float32 unless set_default_dtype changed it
        if not args:
            data = np.zeros((0,), dtype=default.numpy)
        elif len(args) == 1 and not isinstance(args[0], int):
            source = args[0]
            from ._creation import list_of_tensors_values  # (imports this module)

            if isinstance(source, Tensor):  # an alias: the same memory and dtype
                data = source._data
            else:
                data = list_of_tensors_values(source, default)
                if data is None:
                    data = np.array(source, dtype=default.numpy)
        else:
            shape = args
            data = np.zeros(tuple(int(s) for s in shape), dtype=default.numpy)
        _init(self, data)

    # ------------------------------------------------------------------------------------
    # The five attributes of the lessons
    # ------------------------------------------------------------------------------------
    @property
    def data(self) -> Tensor:
        """The values, as a tensor that shares storage but is cut off from autograd.

        Changing ``x.data`` in place changes ``x`` without autograd noticing (that is why
        PyTorch recommends ``detach()`` or ``no_grad()`` instead).
        """
        out = _make(self._data)
        if type(self._vc) is not list:  # .data of an inference tensor is one too
            out._vc = inference.detached_version(self)
        return out

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {python_type_name(value)}"
                            + real_pytorch_hint(value))
        self._data = value._data

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded so gradients can flow to it."""
        if self._requires_grad:
            return True
        if self._base is not None and (gained_history(self) or views_late_leaf(self)):
            # its base got a history in place: so has it (see grad_fn); or its base is a
            # leaf made to require grad after the view was taken
            return True
        # (an inference tensor may say True and still be recorded by nothing, as PyTorch's)
        return type(self._vc) is not list and inference.requires_grad(self)

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if type(value) is not bool:  # (PyTorch refuses 1, None, numpy.bool_ ...)
            raise RuntimeError("requires_grad must be a bool\nHint: write True or False.")
        if self._grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables." + (
                    "" if value else " If you want to use a computed variable in a subgraph "
                    "that doesn't require differentiation use var_no_grad = var.detach().")
            )
        if value and self._data.dtype.kind != "f":
            raise RuntimeError(
                "only Tensors of floating point dtype can require gradients\n"
                f"Hint: this tensor is {self.dtype}; make it a float first, "
                "e.g. x = x.float()."
            )
        if type(self._vc) is not list:  # an inference tensor (autograd/inference.py)
            inference.check_requires_grad(self, value)
            inference.set_requires_grad(self, value)
            return
        if self._base is not None and is_no_grad_view(self):  # (see graph.NO_GRAD_VIEW)
            set_no_grad_view_requires_grad(self, value)
            return
        self._requires_grad = value

    @property
    def grad(self) -> Tensor | None:
        """The gradient ``backward()`` accumulated here (``None`` until one arrives)."""
        if self._grad_fn is not None and not self.retains_grad and self._grad is None:
            warn_user(_NON_LEAF_GRAD_WARNING, UserWarning)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{_shape_list(value.shape)}' "
                    f"to a tensor of size '{_shape_list(self.shape)}'. Please ensure that "
                    "the gradient and the tensor are the same size"
                )
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    "attempting to assign a gradient with dtype "
                    f"'{_CPP_TYPE_NAMES[value._data.dtype.name]}' to a tensor with grad_dtype "
                    f"'{self.dtype._legacy[:-6]}'. The gradient must match the tensor's "
                    "grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
                    "grad_dtype attribute with a specific dtype, or None to allow any dtype. "
                    "Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                    "gradient may break downstream systems that assume they match."
                )
        self._grad = value

    @property
    def grad_fn(self):
        """The graph node that produced this tensor (``None`` for leaves)."""
        if self._base is not None:
            if self._grad_fn is not None:
                if is_stale_view(self):  # its base was changed in place since (graph.py)
                    return rebuild_view(self)
            elif gained_history(self):  # ... and given a history, where it had none
                return rebuild_view(self)
            elif self._extra is not None and is_no_grad_view(self):
                check_no_grad_view(self)  # (a stale one has no history PyTorch can give)
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        """True for tensors not produced by a recorded op (``grad_fn is None``)."""
        if self._base is not None:
            return self.grad_fn is None  # (a view's history may have to be rebuilt first)
        return self._grad_fn is None

    # ------------------------------------------------------------------------------------
    # Shape and type
    # ------------------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        """The size of each dimension, e.g. ``teachgrad.Size([2, 3])``."""
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        """``size()`` is the shape; ``size(d)`` the length of dimension ``d``."""
        if dim is None:
            return Size(self._data.shape)
        try:
            return self._data.shape[_wrap_dim(dim, self._data.ndim)]
        except IndexError:
            if self._data.ndim:  # out of range: _wrap_dim's message is PyTorch's
                raise
            # A 0-d tensor has no dimension to measure (dims 0 and -1 wrap for its reductions).
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions") from None

    @property
    def dtype(self) -> DType:
        """The element type, e.g. ``teachgrad.float32``."""
        return _dtypes._FROM_NUMPY[self._data.dtype]

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def dim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def ndimension(self) -> int:
        """``dim()``, by its older name: the number of dimensions."""
        return self._data.ndim

    def numel(self) -> int:
        """The number of elements."""
        return self._data.size

    def nelement(self) -> int:
        """``numel()``, by its older name: the number of elements."""
        return self._data.size

    def element_size(self) -> int:
        """Bytes per element."""
        return self._data.itemsize

    @property
    def device(self) -> _device.device:
        """Always ``device(type='cpu')``: teachgrad computes with NumPy."""
        return _device.CPU

    @property
    def is_cuda(self) -> bool:
        """Always ``False``: there is no GPU."""
        return False

    def is_floating_point(self) -> bool:
        """True for float16/32/64 tensors."""
        return self._data.dtype.kind == "f"

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    @property
    def _version(self) -> int:
        """How many times this tensor (or a view of it) was changed in place."""
        if type(self._vc) is not list and not inference.counts_versions(self):
            raise RuntimeError(inference.NO_VERSION)  # (an inference tensor keeps none)
        return self._vc[0]

    # ------------------------------------------------------------------------------------
    # Leaving teachgrad: Python numbers, lists, NumPy
    # ------------------------------------------------------------------------------------
    def item(self) -> float | int | bool:
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self):
        """The values as (nested) Python lists."""
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The underlying NumPy array (shared: changing one changes the other)."""
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead."
            )
        return self._data

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        if self._requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead."
            )
        return self._data if dtype is None else self._data.astype(dtype)

    def __float__(self) -> float:
        self._check_python_scalar()
        return float(self.item())

    def _check_python_scalar(self) -> None:
        """What float(t) and complex(t) (and torch.tensor([a, b])) check before converting."""
        if self._requires_grad and _grad_state.enabled and not _float_warning["given"]:
            # PyTorch warns once per process (float(loss) is fine for printing; it is a
            # trap only when the number is meant to carry a gradient on), and not under
            # no_grad (where nothing would be recorded anyway: LBFGS reads its loss so).
            _float_warning["given"] = True
            warn_user(
                "Converting a tensor with requires_grad=True to a scalar may lead to "
                "unexpected behavior.\nConsider using tensor.detach() first.",
                UserWarning,
            )
        if self._data.size != 1:  # (after the warning, as PyTorch)
            raise ValueError(_NOT_ONE_ELEMENT)

    def __int__(self) -> int:
        if self._data.size != 1:
            raise ValueError(_NOT_ONE_ELEMENT)
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                "Boolean value of Tensor with no values is ambiguous" if self._data.size == 0
                else "Boolean value of Tensor with more than one value is ambiguous"
            )
        return bool(self._data.reshape(()).item())

    def __complex__(self) -> complex:
        self._check_python_scalar()
        return complex(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        # As PyTorch: the rows of unbind(0) (one node for them all, UnbindBackward0)
        return iter(self.unbind(0))

    def __repr__(self, *, tensor_contents: str | None = None) -> str:
        from ._printing import tensor_repr

        return tensor_repr(self, tensor_contents)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        # As PyTorch: a 0-d tensor formats as its Python number (f"{x}" gives "1.0"),
        # anything else as str(); a format spec on a non-scalar is a TypeError.
        if self._data.ndim == 0:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, protocol):
        if type(self) is not Tensor:  # a subclass: rebuilt as one (see _subclass_copy)
            from ._subclass_copy import rebuild_from_type, subclass_state

            return (rebuild_from_type, (_rebuild, type(self),
                                        (self._data, self._requires_grad),
                                        subclass_state(self)))
        attributes = self.__dict__  # the user's attributes travel with the values
        if attributes:
            return (_rebuild, (self._data, self._requires_grad), attributes)
        return (_rebuild, (self._data, self._requires_grad))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
                "module, this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        if type(self) is not Tensor:  # (see _subclass_copy)
            from ._subclass_copy import deepcopy_subclass

            return deepcopy_subclass(self, memo)
        new = _new(Tensor)
        _init(new, self._data.copy(), self._requires_grad)
        if self._grad is not None:
            new._grad = _make(self._grad._data.copy())
        memo[id(self)] = new
        if self.__dict__:  # the user's attributes, deep-copied as PyTorch does
            import copy

            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    # ------------------------------------------------------------------------------------
    # Autograd
    # ------------------------------------------------------------------------------------
    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Sequence[Tensor] | Tensor | None = None,
    ) -> None:
        """Compute d(self)/d(leaf) for every leaf in the graph and add it to ``leaf.grad``.

        ``self`` must be a scalar unless you pass ``gradient`` (the vector ``v`` of the
        vector-Jacobian product ``v @ J``). The graph is freed afterwards unless
        ``retain_graph=True``; ``create_graph=True`` records the backward pass itself, so
        the gradients can be differentiated again.

        >>> import teachgrad as torch
        >>> x = torch.tensor(2.0, requires_grad=True)
        >>> (x ** 3).backward()
        >>> x.grad
        tensor(12.)
        """
        _engine.backward(
            self, gradient, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs
        )

    def detach(self) -> Tensor:
        """A new leaf sharing this tensor's storage, cut off from the graph."""
        out = _make(self._data)
        if type(self._vc) is list:
            out._vc = self._vc  # shares memory: in-place changes show up in both, and count
        else:  # of an inference tensor: one too, which counts its own versions (as PyTorch)
            out._vc = inference.detached_version(self)
        return out

    def detach_(self) -> Tensor:
        """Cut this tensor off from the graph, in place: it becomes a leaf."""
        if self._base is not None:  # (its history is its base's: PyTorch refuses)
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is "
                "set as True, gradients are views of DDP buckets, and hence detach_() cannot "
                "be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
                "\nHint: this tensor is a view (of a slice, a reshape...); write "
                "v = v.detach() instead."
            )
        self._grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        return self

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place and return ``self``.

        >>> import teachgrad as torch
        >>> torch.ones(2).requires_grad_()
        tensor([1., 1.], requires_grad=True)
        """
        if type(requires_grad) is not bool:
            raise TypeError(
                "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                f"{python_type_name(requires_grad)}\nHint: write requires_grad_(True) or "
                "requires_grad_(False)."
            )
        if requires_grad and self._grad_fn is not None:
            return self  # a computed tensor requires grad already (PyTorch: no error, no-op)
        self.requires_grad = requires_grad
        return self

    def retain_grad(self) -> None:
        """Keep ``.grad`` on this non-leaf tensor after backward (leaves always keep it)."""
        if not self.requires_grad:  # (the property: an inference tensor may say True)
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self.retains_grad:
            return
        self._grad_fn.hooks().retained[self._output_nr] = weakref.ref(self)
        self._extras()["retains_grad"] = True

    @property
    def retains_grad(self) -> bool:
        """True when this non-leaf keeps its ``.grad`` (see :meth:`retain_grad`)."""
        return bool(self._extra and self._extra.get("retains_grad"))

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Call ``hook(grad)`` when this tensor's gradient is computed.

        The hook may return a new gradient to use instead. Returns a handle with
        ``.remove()``.

        >>> import teachgrad as torch
        >>> x = torch.ones(2, requires_grad=True)
        >>> h = x.register_hook(lambda g: g * 2)
        >>> (x * 3).sum().backward()
        >>> x.grad
        tensor([6., 6.])
        """
        if not self.requires_grad:  # (the property: an inference tensor may say True)
            raise RuntimeError(
                "cannot register a hook on a tensor that doesn't require gradient"
            )
        if self._grad_fn is None:  # a leaf: its AccumulateGrad runs the hooks
            hooks = self._extras().setdefault("hooks", {})
        else:
            hooks = self._grad_fn.hooks().tensor.setdefault(self._output_nr, {})
        return RemovableHandle(hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]):
        """Call ``hook(tensor)`` after a gradient was accumulated into this leaf's ``.grad``."""
        if self._grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if not self.requires_grad:  # (the property: an inference tensor may say True)
            raise RuntimeError(
                "cannot register a hook on a tensor that doesn't require gradient"
            )
        return RemovableHandle(self._extras().setdefault("post_accumulate_hooks", {}), hook)

    def _extras(self) -> dict:
        if self._extra is None:
            self._extra = {}
        return self._extra

    # ------------------------------------------------------------------------------------
    # In-place changes
    # ------------------------------------------------------------------------------------
    def _check_inplace(self) -> None:
        """Refuse in-place changes autograd could not follow (PyTorch's errors)."""
        # An inference tensor (autograd/inference.py); PyTorch's autograd checks come first
        # only for a leaf that requires grad.
        if type(self._vc) is not list and not (
                _grad_state.enabled and self._requires_grad and self._grad_fn is None):
            inference.check_inplace(self)
        if not _grad_state.enabled:
            return
        base = self._base
        if base is not None and self._extra is not None:  # (before the leaf checks)
            if (self._requires_grad or base._requires_grad) and is_no_grad_view(self):
                raise no_grad_view_error(self)  # made under no_grad, changed with grad on
            if self._requires_grad and is_multi_output_view(self):  # a piece of split & co.
                raise multi_output_view_error(self, indirect=False)
        # A view of a leaf (PyTorch asks first): also a leaf made by requires_grad_() on a
        # view, e.g. torch.tensor([...]).reshape(2, 2).requires_grad_()
        if base is not None and base._grad_fn is None and (self._requires_grad
                                                           or views_late_leaf(self)):
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation.\nHint: to update the leaf itself, do it under `with torch.no_grad():`; "
                "to compute a new tensor that stays in the graph, change a copy: x.clone()."
            )
        if base is not None and self._grad_fn is None and gained_history(self):
            # A view taken before its base got a history in place: PyTorch counts it as a
            # leaf that requires grad until its history is rebuilt (by reading grad_fn or
            # using it in an op), and refuses to change it in place.
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
                "\nHint: this view was taken before its base was changed in place by an op "
                "that needs a gradient; take the view again after that change (or change a "
                "copy: y = x.clone())."
            )
        if self._grad_fn is None and self._requires_grad:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
                "\nHint: to update the tensor itself (as an optimizer step does), do it under "
                "`with torch.no_grad():`; to compute a new tensor that stays in the graph, use "
                "the out-of-place op (x + 1, not x.add_(1)) or change a copy: y = x.clone()."
            )

    def _bump_version(self) -> None:
        self._vc[0] += 1


# --------------------------------------------------------------------------------------
# Fast construction: every op makes tensors, so this must cost as little as possible.
# --------------------------------------------------------------------------------------
_new = object.__new__


# float(t) and int(t) say this (a ValueError); t.item() raises a RuntimeError of its own.
_NOT_ONE_ELEMENT = (
    "only one element tensors can be converted to Python scalars"
    "\nHint: this tensor has more than one element; reduce it first (t.sum(), t.mean()) "
    "or pick one (t[0])."
)
_float_warning = {"given": False}  # float(t) of a tensor that requires grad warns once


def _make(data: np.ndarray, requires_grad: bool = False, grad_fn=None) -> Tensor:
    """Wrap a NumPy array as a tensor, without copying or checking (internal)."""
    t = _new(Tensor)
    t._data = data
    t._requires_grad = requires_grad
    t._grad = None
    t._grad_fn = grad_fn
    t._output_nr = 0
    # (made inside inference_mode: an inference tensor, see autograd/inference.py)
    t._vc = inference.new_version() if _grad_state.inference else [0]
    t._base = None
    t._accumulator = None
    t._extra = None
    return t


def _make_gradient(data: np.ndarray) -> Tensor:
    """``_make(data)`` without asking whether inference mode is on: for the gradients the
    engine hands to leaves on every backward pass, where that one question costs ~0.2 %
    of a small op's forward and backward. (So a backward run inside ``inference_mode``
    leaves ordinary gradients; PyTorch's would be inference tensors.)"""
    t = _new(Tensor)
    t._data = data
    t._requires_grad = False
    t._grad = t._grad_fn = t._base = t._accumulator = t._extra = None
    t._output_nr = 0
    t._vc = [0]
    return t


def _init(t: Tensor, data: np.ndarray, requires_grad: bool = False) -> None:
    t._data = data
    t._requires_grad = requires_grad
    t._grad = None
    t._grad_fn = None
    t._output_nr = 0
    t._vc = inference.new_version() if _grad_state.inference else [0]
    t._base = None
    t._accumulator = None
    t._extra = None


# ``type(x)`` prints the public name, <class 'teachgrad.Tensor'> (and, once
# install_as_torch() has run, <class 'torch.Tensor'>, as PyTorch prints it).
Tensor.__module__ = "teachgrad"
PRINTED_AS_TENSOR.add(Tensor)  # (a subclass prints its own name: MyTensor([1.]))


def _rebuild(data: np.ndarray, requires_grad: bool) -> Tensor:
    return _make(data, requires_grad)


def python_type_name(value) -> str:
    """A value's type as PyTorch's argument parser names it: ``int``, ``Tensor``,
    ``numpy.bool`` (the module too, outside Python's builtins)."""
    if isinstance(value, Tensor):
        return "Tensor"
    kind = type(value)
    if kind.__module__ == "builtins":
        return kind.__name__
    if kind.__name__ in _TORCH_TYPES and kind.__module__.startswith("teachgrad."):
        return "torch." + kind.__name__  # (teachgrad's dtype is PyTorch's torch.dtype)
    return f"{kind.__module__}.{kind.__name__}"


_TORCH_TYPES = frozenset({"dtype", "device", "layout", "memory_format", "Generator", "Size"})


def _shape_list(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _dim_as_int(dim) -> int:
    """A dim given as a NumPy integer or a 0-d integer tensor, as an int (PyTorch takes
    both); a bool, a float, a string ... is a TypeError (ops that declare their signatures
    turn it into PyTorch's message, see ``_arguments.checks_types``)."""
    if isinstance(dim, Tensor) and dim._data.ndim == 0 and dim._data.dtype.kind in "iu":
        return int(dim._data)
    if isinstance(dim, (int, np.integer)) and not isinstance(dim, (bool, np.bool_)):
        return int(dim)
    raise TypeError(f"argument 'dim' must be int, not {python_type_name(dim)}")


def _wrap_dim(dim: int, ndim: int) -> int:
    """Turn a possibly negative ``dim`` into an index, with PyTorch's error when out of range."""
    if dim.__class__ is not int:
        dim = _dim_as_int(dim)
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim + n if dim < 0 else dim


__all__ = ["Tensor", "Size", "tensor_method", "accumulator_of"]

# Imported last: the engine works on tensors, so it needs this module first. (A function-level
# import would cost more than the rest of ``backward``'s set-up on a small graph.)
from .autograd import engine as _engine  # noqa: E402
