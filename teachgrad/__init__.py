"""teachgrad: automatic differentiation you can watch.

A complete autograd library on NumPy with PyTorch's API, so that lessons written for
PyTorch run unchanged with ``import teachgrad as torch``::

    >>> import teachgrad as torch
    >>> x = torch.tensor(1.0, requires_grad=True)
    >>> z = x ** 3
    >>> z.backward()
    >>> x.grad
    tensor(3.)

In Jupyter, ``%load_ext teachgrad`` shows every tensor as a table of its autograd state,
and :mod:`teachgrad.notebook` draws the backward graph and steps through ``backward()``.
This package itself needs NumPy only; nothing here imports Jupyter.
"""

# The order matters a little: the Tensor class first, then the ops that register its
# methods, then everything built on both.
import warnings as _warnings

from . import _dtypes
from ._dtypes import (  # noqa: F401 - PyTorch's dtype names
    bool,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    promote_types,
    set_default_dtype,
    short,
    uint8,
)
from ._tensor import Size, Tensor  # noqa: I001
from ._layout import (  # noqa: F401 - torch.layout, torch.strided ...
    layout,
    sparse_bsc,
    sparse_bsr,
    sparse_coo,
    sparse_csc,
    sparse_csr,
    strided,
)
from . import ops  # noqa: F401 - registers the Tensor methods
from .ops import *  # noqa: F403
from ._creation import *  # noqa: F403
from ._range import range  # noqa: F401, A004 - torch.range (deprecated, inclusive)
from ._random import *  # noqa: F403
from . import random  # noqa: E402, F401 - torch.random: the seed, the state and fork_rng
from ._sampling import *  # noqa: F403 - in-place random fills, binomial, poisson
from ._legacy_types import *  # noqa: F403 - FloatTensor, LongTensor ...
from ._flags import *  # noqa: F403 - use_deterministic_algorithms & co.
from ._windows import *  # noqa: F403 - hann_window & co.
from ._torch_functions import *  # noqa: F403 - torch.relu_, torch.dropout, torch.kl_div ...
from . import _tensor_extras  # noqa: F401 - data_ptr, storage_offset, new, apply_ ...
from ._tensor_extras import is_inference  # noqa: F401
from . import storage  # noqa: F401 - tensor.storage(), tensor.untyped_storage()
from .storage import TypedStorage, UntypedStorage  # noqa: F401
from ._real_only import *  # noqa: F403 - conj, real, mH ... for real CPU tensors
from ._memory import *  # noqa: F403 - frombuffer, empty_permuted, new_empty_strided
from ._dlpack import from_dlpack, to_dlpack  # noqa: F401 - memory shared with other libraries
from ._runtime import *  # noqa: F403
from ._printing import get_printoptions, set_printoptions  # noqa: F401
from . import autograd  # noqa: F401
from . import return_types  # noqa: F401
from . import linalg  # noqa: F401
from . import special  # noqa: F401 - torch.special's functions
from . import serialization  # noqa: F401
from . import amp  # noqa: F401 - autocast and GradScaler, off as on a machine without CUDA
from .amp import GradScaler, autocast, is_autocast_enabled  # noqa: F401
from . import testing  # noqa: F401 - torch.testing.assert_close
from .serialization import load, save  # noqa: F401
from .autograd.anomaly_mode import (  # noqa: F401
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from .autograd import engine as _engine  # noqa: F401 - loads the engine eagerly
from .autograd.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)

autograd._bind_functions()  # gradcheck & co., now that the Tensor exists

__version__ = "0.1.0"

# NumPy warns about 1/0, log(0), sqrt(-1) ...; PyTorch silently gives inf/nan. Ignore those
# floating-point RuntimeWarnings when they come from teachgrad's own ops, and nowhere else.
# (A filter costs nothing until a warning happens; np.errstate around every op would not.)
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"teachgrad\.")


def is_tensor(obj) -> bool:
    """True if ``obj`` is a teachgrad tensor."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    """The number of elements of ``input``."""
    return input.numel()


def is_floating_point(input: Tensor) -> bool:
    """True for float16/32/64 tensors."""
    return input.is_floating_point()


def result_type(tensor1, tensor2) -> dtype:
    """The dtype PyTorch's promotion gives an op on these two operands."""
    return _dtypes.result_type(tensor1, tensor2)


def can_cast(from_: dtype, to: dtype) -> bool:
    """Whether ``from_`` casts to ``to`` under PyTorch's same-kind rule."""
    import numpy as _np

    for position, (name, value) in enumerate((("from_", from_), ("to", to)), 1):
        if not isinstance(value, dtype):
            raise _dtypes.must_be_dtype("can_cast", name, position, value)
    return _np.can_cast(from_.numpy, to.numpy, "same_kind")


from . import backends  # noqa: E402 - torch.backends.cudnn / .mps: no GPU, switches kept
from ._device import accelerator, device  # noqa: E402 - torch.device, .accelerator
from . import cuda  # noqa: E402 - torch.cuda's questions, answered without a GPU; cuda.amp
from . import cpu, version  # noqa: E402 - torch.cpu (device-agnostic code), torch.version


def load_ipython_extension(ipython) -> None:
    """``%load_ext teachgrad``: rich tensor display in Jupyter (see teachgrad.notebook)."""
    from .notebook.extension import load_ipython_extension as load_extension

    load_extension(ipython)


def unload_ipython_extension(ipython) -> None:
    """``%unload_ext teachgrad``: back to plain tensor display."""
    from .notebook.extension import unload_ipython_extension as unload

    unload(ipython)


# Built on everything above: layers and losses, optimizers, the lessons' data sets,
# torch.utils.data (Dataset, DataLoader) and torch.distributions.
from . import datasets, nn, optim, utils  # noqa: E402
from . import func  # noqa: E402 - torch.func (grad, jvp, vmap ...), built on autograd
from .func import vmap  # noqa: E402, F401 - torch.vmap
from . import compiler  # noqa: E402 - torch.compiler: is_compiling(), disable ...
from . import profiler  # noqa: E402 - torch.profiler (swaps Op.apply only while it records)

# torch.conv1d & co.: the convolutions are top-level functions too, as in PyTorch.
conv1d, conv2d, conv3d = nn.functional.conv1d, nn.functional.conv2d, nn.functional.conv3d
conv_transpose1d = nn.functional.conv_transpose1d
conv_transpose2d = nn.functional.conv_transpose2d
conv_transpose3d = nn.functional.conv_transpose3d
from ._aten_nn import *  # noqa: E402, F403 - torch.convolution, torch.lstm_cell, native_* ...
from . import distributions  # noqa: E402 - torch.distributions, built on nn.functional
from ._lowrank import pca_lowrank, svd_lowrank  # noqa: E402, F401 - randomized SVD and PCA
from ._lobpcg import lobpcg  # noqa: E402, F401 - a few eigenpairs of a large symmetric matrix

# Last, once every function is in place: PyTorch's out= argument on the namespace functions
# (teachgrad.mul(a, b, out=c)); the Tensor methods stay unwrapped.
from . import _out  # noqa: E402

_out.add_out_arguments(globals(), special.__dict__)
_out.add_tuple_out_arguments(globals(), linalg.__dict__)  # torch.sort(x, out=(v, i))
_out.add_linalg_out_arguments(linalg.__dict__)  # torch.linalg.det(A, out=d)
# torch.sum([1, 2]) gets PyTorch's "argument 'input' (position 1) must be Tensor, not list"
from ._input_check import add_input_checks as _add_input_checks  # noqa: E402

_add_input_checks(globals(), torch_functions=True)
_add_input_checks(special.__dict__, prefix="special_")
# torch.zeros(2, pin_memory=False): every factory takes the argument, True is refused
from ._pin_memory import add_pin_memory_arguments as _add_pin_memory_arguments  # noqa: E402

_add_pin_memory_arguments(globals(), Tensor)
# Last wrapper of all: the __torch_function__ protocol (Tensor subclasses, Tensor-likes),
# so that the function a user sees as torch.add is the one handed to __torch_function__.
# (imported under private names: these helpers are no part of the torch namespace)
from . import _torch_function  # noqa: E402

_torch_function.add_dispatch(globals(), "torch", _torch_function.IGNORED_TORCH)
_torch_function.add_dispatch(nn.functional.__dict__, "torch.nn.functional",
                             _torch_function.IGNORED_NN)
_torch_function.add_dispatch(special.__dict__, "torch.special")
_torch_function.add_dispatch(linalg.__dict__, "torch.linalg")
from . import _C, overrides  # noqa: E402, F401 - torch._C's protocol names, torch.overrides
from . import functional  # noqa: E402 - torch.functional: some namespace functions again

# `import torch` meaning teachgrad, on request (teachgrad.install_as_torch()); without it,
# a failed `from torch import nn` says why (see _as_torch.py: this only adds a finder
# that runs after every other one has failed to find PyTorch).
from ._as_torch import add_missing_torch_hint as _add_missing_torch_hint  # noqa: E402
from ._as_torch import install_as_torch  # noqa: E402, F401

_add_missing_torch_hint()

# PyTorch names that exist only for complex numbers, which teachgrad does not have: asking
# for one says so, where Python alone would only say "no attribute".
_COMPLEX_ONLY = frozenset({
    "complex32", "complex64", "complex128", "chalf", "cfloat", "cdouble", "complex", "polar",
    "view_as_complex", "view_as_real", "fft", "is_complex_dtype", "stft", "istft",
    "view_as_complex_copy", "view_as_real_copy",
})


# PyTorch's parts that a learner meets in tutorials but that teachgrad, an eager autograd
# on NumPy for learning, does not have: asking for one says what it is for and what to do.
_NOT_HERE = {
    "jit": "torch.jit compiles models (TorchScript) for deployment; teachgrad runs "
           "eagerly, line by line. Remove torch.jit.script/trace: the model runs as it is.",
    "bfloat16": "NumPy, which teachgrad computes with, has no bfloat16; use torch.float16 "
                "or torch.float32.",
    "sparse": "teachgrad's tensors are dense NumPy arrays; it has no sparse layouts.",
    "quantization": "teachgrad's tensors are floating point, integer or bool NumPy arrays; "
                    "it has no quantized dtypes.",
    "distributed": "teachgrad runs in one process on the CPU; it has no torch.distributed.",
    "multiprocessing": "teachgrad runs in one process on the CPU; use Python's own "
                       "multiprocessing module if you need processes.",
    "hub": "teachgrad downloads nothing; torch.hub loads models from the internet.",
    "onnx": "teachgrad has no exporters (torch.onnx, torch.export): it is for learning.",
    "export": "teachgrad has no exporters (torch.onnx, torch.export): it is for learning.",
    "fx": "teachgrad has no graph tracing for transformations (torch.fx); its graph is the "
          "autograd graph, which teachgrad.notebook.draw shows.",
}


def __getattr__(name: str):
    """Module attributes that are not there: complex-only names and PyTorch's parts that
    teachgrad does not have get a hint (see above)."""
    message = f"module {__name__!r} has no attribute {name!r}"
    if name in _COMPLEX_ONLY:
        message += (
            "\nHint: teachgrad has no complex dtypes (its tensors are real: floating point, "
            "integer or bool), so it has no complex numbers, complex functions or torch.fft."
        )
    elif name in _NOT_HERE:
        message += f"\nHint: {_NOT_HERE[name]}"
    else:
        raise AttributeError(message)  # (Python may add "Did you mean: ...?": welcome)
    # With a hint, Python's own guess from the names it finds ("...internet.. Did you
    # mean: 'sub'?" for torch.hub) would only mislead. It guesses when the interpreter
    # fills in the error's ``obj``, which it does only if nobody has: we have.
    raise AttributeError(message, obj=None)
