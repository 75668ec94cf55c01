"""``teachgrad.device``: where a tensor lives; ``teachgrad.accelerator``: no GPU (and
``teachgrad.cuda``, a package of its own, says the same).

teachgrad computes with NumPy, so every tensor is on ``device(type='cpu')``. A device is
still a real object, as in PyTorch, because tutorial code builds and inspects them:

>>> import teachgrad as torch
>>> dev = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
>>> dev, str(dev), dev.type, dev.index
(device(type='cpu'), 'cpu', 'cpu', None)
>>> torch.device("cuda:1")
device(type='cuda', index=1)

Naming a GPU is allowed (``torch.device('cuda').index`` is None, as in the tensors
tutorial); moving a tensor there is the error.
"""

from __future__ import annotations

import builtins
import re

# The device types PyTorch's parser knows, in the order of its error message.
_DEVICE_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)


def _parse(name: str) -> tuple[str, int | None]:
    """``'cuda:1'`` -> ``('cuda', 1)``, with PyTorch's errors for anything else."""
    if not name:
        raise RuntimeError("Device string must not be empty")
    # PyTorch's pattern: letters or underscores, then optionally ":" and an index without
    # leading zeros; only then is the type looked up.
    match = re.fullmatch(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?", name)
    if match is None:
        raise RuntimeError(f"Invalid device string: '{name}'")
    kind, number = match.groups()
    if kind not in _DEVICE_TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
            f"string: {kind}"
        )
    return kind, None if number is None else int(number)


class device:
    """A device: a ``type`` (``'cpu'``, ``'cuda'`` ...) and an optional ``index``.

    ``device('cuda:1')`` and ``device('cuda', 1)`` name the same device. Devices compare
    equal to devices, never to strings, as in PyTorch.
    """

    __slots__ = ("_type", "_index")

    def __init__(self, type: str | int | device, index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index  # noqa: A001
        elif isinstance(type, int) and not isinstance(type, bool):
            # torch.device(0) means "accelerator 0", and there is no accelerator.
            raise RuntimeError("Cannot access accelerator device when none is available.")
        elif not isinstance(type, str):
            raise TypeError(
                "device() received an invalid combination of arguments - got "
                f"({builtins.type(type).__name__})"
            )
        else:
            type, parsed = _parse(type)  # noqa: A001
            if parsed is not None:
                if index is not None:
                    raise RuntimeError(
                        "type (string) must not include an index because index was passed "
                        f"explicitly: {type}:{parsed}"
                    )
                index = parsed
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self._type, self._index = type, index

    @property
    def type(self) -> str:
        """The kind of device: ``'cpu'``, ``'cuda'``, ``'mps'`` ..."""
        return self._type

    @property
    def index(self) -> int | None:
        """Which device of that kind (``None``: the current one)."""
        return self._index

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, device):
            return NotImplemented
        return (self._type, self._index) == (other._type, other._index)

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __reduce__(self):  # pickling (torch.save of an object holding a device)
        return (device, (self._type, self._index))


CPU = device("cpu")  # the device of every teachgrad tensor


class _Accelerator:
    """``teachgrad.accelerator``: PyTorch's device-neutral GPU queries; there is none here.

    The tutorials choose their device with
    ``torch.accelerator.current_accelerator().type if torch.accelerator.is_available()
    else "cpu"``, which gives ``"cpu"``.
    """

    @staticmethod
    def is_available() -> bool:
        """False: teachgrad has no accelerator."""
        return False

    @staticmethod
    def current_accelerator(check_available: bool = False) -> device | None:
        """None: there is no accelerator."""
        return None

    @staticmethod
    def device_count() -> int:
        """0 accelerators."""
        return 0


accelerator = _Accelerator()
