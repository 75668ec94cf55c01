"""``import torch`` that means teachgrad: for code that imports PyTorch's submodules.

``import teachgrad as torch`` names teachgrad ``torch`` for your code only. A statement
such as ``from torch import nn``, ``import torch.nn.functional as F`` or
``from torch.utils.data import DataLoader`` asks Python's import system for the package
called ``torch``, and that is the real PyTorch (or, where it is not installed, nothing).
:func:`install_as_torch` registers teachgrad under that name, as ``pymysql`` does with
``pymysql.install_as_MySQLdb()``::

    import teachgrad
    teachgrad.install_as_torch()

    import torch                        # teachgrad
    import torch.nn.functional as F     # teachgrad.nn.functional
    from torch.func import grad, vmap   # teachgrad.func's

How it works: Python asks each *finder* on ``sys.meta_path`` in turn where a module's code
is. The finder below answers for ``torch`` and every ``torch.<name>``: the module is
``teachgrad.<name>``, already made or imported now. The names are the same because each
teachgrad submodule sits where PyTorch's does (``nn/functional``, ``utils/data`` ...).

Without it, teachgrad adds one more finder at the *end* of ``sys.meta_path`` while the real
PyTorch is not installed: ``from torch import nn`` would fail with "No module named
'torch'", and that finder says why, and what to write instead (see :class:`_MissingTorch`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
from typing import Any

from . import _package_name

__all__ = ["install_as_torch"]

TORCH = "torch"

# Objects that PyTorch has as modules and teachgrad as plain objects (``torch.accelerator``'s
# questions): ``from torch.accelerator import is_available`` must still work.
_MODULE_LIKE = ("accelerator",)


def install_as_torch() -> None:
    """Make ``import torch`` (and ``from torch.nn import ...``) import teachgrad.

    For this Python process only. Call it before the first ``import torch``; calling it
    again does nothing. ``import teachgrad as torch`` keeps working as before::

        import teachgrad
        teachgrad.install_as_torch()
        import torch.nn.functional as F
        F.relu(torch.tensor([-1.0, 2.0]))   # tensor([0., 2.]), made by teachgrad

    From then on dtypes and sizes print as ``torch.float32`` and ``torch.Size([2])``, so
    a PyTorch program prints exactly what it prints with PyTorch.

    Raises ``RuntimeError`` if the real PyTorch was imported already: the two cannot share
    one name (objects made by one are refused by the other), so restart first.
    """
    teachgrad = sys.modules["teachgrad"]
    loaded = sys.modules.get(TORCH)
    if loaded is teachgrad:  # installed already
        return
    real = sorted(name for name in sys.modules if _is_torch_name(name))
    if real:
        raise RuntimeError(
            f"the real PyTorch is already imported in this process ({real[0]!r}), so "
            "'torch' cannot also mean teachgrad.\nHint: restart the kernel (or the "
            "interpreter) and call teachgrad.install_as_torch() before any import torch."
        )
    sys.meta_path.insert(0, _TeachgradAsTorch())
    sys.modules[TORCH] = teachgrad
    _package_name.printed = TORCH  # reprs now say torch.float32, torch.Size([2]), as PyTorch's
    _name_classes_as_pytorch(teachgrad)


# Where teachgrad keeps a class in a module of another name than PyTorch's (one of
# PyTorch's modules split in two, or a class kept next to its relatives): teachgrad's
# module -> PyTorch's. Classes not listed take their own path with torch for teachgrad.
_PYTORCH_HOMES = {
    "teachgrad.nn.modules.dropout_variants": "torch.nn.modules.dropout",
    "teachgrad.nn.modules.bilinear": "torch.nn.modules.linear",
    "teachgrad.nn.modules.parameter_containers": "torch.nn.modules.container",
    "teachgrad.nn.modules.rms_norm": "torch.nn.modules.normalization",
    "teachgrad.nn.modules.softmax2d": "torch.nn.modules.activation",
    "teachgrad.nn.modules.attention": "torch.nn.modules.activation",
    "teachgrad.nn.modules.unflatten": "torch.nn.modules.flatten",
    "teachgrad.nn.modules.linear_cross_entropy": "torch.nn.modules.loss",
    "teachgrad.autograd.saved_hooks": "torch.autograd.graph",
    "teachgrad.profiler.record_function": "torch.autograd.profiler",
}
# The same for single classes.
_PYTORCH_CLASS_HOMES = {
    "teachgrad.autograd.graph.RemovableHandle": "torch.utils.hooks",
    "teachgrad.nn.modules.lazy.UninitializedParameter": "torch.nn.parameter",
    "teachgrad.nn.modules.lazy.UninitializedBuffer": "torch.nn.parameter",
    "teachgrad.optim.adafactor.Adafactor": "torch.optim",  # (PyTorch's own choice)
    "teachgrad.optim.muon.Muon": "torch.optim",
}


def _name_classes_as_pytorch(teachgrad: types.ModuleType) -> None:
    """``type(x)`` prints as PyTorch's: <class 'torch.Tensor'>, <class
    'torch.nn.modules.linear.Linear'>, <class 'torch.optim.sgd.SGD'>, <class 'torch.dtype'>.

    A class prints its ``__module__``. teachgrad's modules sit where PyTorch's do, so a
    class of a public module is renamed by its prefix (``teachgrad.optim.sgd`` ->
    ``torch.optim.sgd``), with the exceptions above; one of a private module is named
    where the package exports it (``teachgrad._dtypes.dtype`` is ``torch.dtype``). Each
    new name leads back to the class, so pickle (``torch.save(model)``) finds it there.
    The ``grad_fn`` classes keep their modules: they print as PyTorch's C++ ones by
    themselves (see ``graph._NodeClass``).
    """
    from .autograd.graph import Node

    teachgrad.Tensor.__module__ = TORCH
    for name, module in list(sys.modules.items()):
        if name != "teachgrad" and not name.startswith("teachgrad."):
            continue
        for cls in list(vars(module).values()):
            if not isinstance(cls, type) or cls.__module__ != name:
                continue  # (not a class, or one imported from elsewhere)
            if issubclass(cls, Node) and cls is not Node:  # (they print themselves)
                continue
            torch_name = _pytorch_module_name(cls, name, teachgrad)
            if torch_name is not None and _leads_back(torch_name, cls):
                cls.__module__ = torch_name


def _pytorch_module_name(cls: type, module: str, teachgrad: types.ModuleType) -> str | None:
    """The module PyTorch's ``cls`` prints, or None where there is no such name."""
    home = _PYTORCH_CLASS_HOMES.get(f"{module}.{cls.__qualname__}") or _PYTORCH_HOMES.get(module)
    if home is not None:
        return home
    cls_to_become = getattr(cls, "cls_to_become", None)  # LazyLinear: Linear's module
    if module == "teachgrad.nn.modules.lazy" and isinstance(cls_to_become, type):
        return cls_to_become.__module__.replace("teachgrad", TORCH, 1)
    parts = module.split(".")[1:]
    if not any(part.startswith("_") for part in parts) and parts[:1] not in (["ops"], ["notebook"]):
        return TORCH + module[len("teachgrad"):]
    for namespace in (teachgrad, teachgrad.nn, teachgrad.autograd):  # a private module's
        if getattr(namespace, cls.__name__, None) is cls:
            return TORCH + namespace.__name__[len("teachgrad"):]
    return None


def _leads_back(torch_name: str, cls: type) -> bool:
    """Does ``torch_name.<cls's name>`` find ``cls`` (as pickle will look it up)?

    A module PyTorch has and teachgrad does not (``torch.nn.modules.channelshuffle``)
    keeps teachgrad's name. Where teachgrad's module of that name exists but keeps the
    class elsewhere (``dropout_variants``), the class is added to it, as PyTorch has it."""
    module = _teachgrad_module(_teachgrad_name(torch_name))
    if module is None:
        return False
    found = getattr(module, cls.__qualname__, None)
    if found is None and "." not in cls.__qualname__:
        setattr(module, cls.__qualname__, cls)
        return True
    return found is cls


def teachgrad_class(torch_module: str, name: str) -> Any:
    """The teachgrad class a pickle names ``torch_module.name``: a file that
    ``teachgrad.save`` wrote after ``install_as_torch()`` names classes as PyTorch does
    (see :func:`_name_classes_as_pytorch`), and reads back without the alias too.

    Raises ``AttributeError`` (pickle's own error for a missing class) if teachgrad has
    no such class."""
    module = _teachgrad_module(_teachgrad_name(torch_module))
    found = getattr(module, name, None) if module is not None else None
    if found is not None:
        return found
    # A class kept in a module of another name (the tables above), or a lazy module
    # (kept in teachgrad.nn.modules.lazy, named after its non-lazy class's module).
    homes = [home for home, pytorchs in _PYTORCH_HOMES.items() if pytorchs == torch_module]
    homes += [path.rpartition(".")[0] for path, pytorchs in _PYTORCH_CLASS_HOMES.items()
              if pytorchs == torch_module and path.endswith("." + name)]
    for home in [*homes, "teachgrad.nn.modules.lazy"]:
        found = getattr(importlib.import_module(home), name, None)
        if isinstance(found, type):
            return found
    raise AttributeError(f"Can't get attribute {name!r} on <module {torch_module!r}>")


def _is_torch_name(name: str) -> bool:
    return name == TORCH or name.startswith(TORCH + ".")


def _teachgrad_name(torch_name: str) -> str:
    """``torch.nn.functional`` -> ``teachgrad.nn.functional``."""
    return "teachgrad" + torch_name[len(TORCH):]


class _TeachgradAsTorch(importlib.abc.MetaPathFinder):
    """The finder :func:`install_as_torch` puts first on ``sys.meta_path``."""

    def find_spec(self, fullname, path=None, target=None):
        """A spec for ``torch`` or ``torch.<name>`` whose module is teachgrad's; else None."""
        if not _is_torch_name(fullname):
            return None  # (any other module: the next finder's business)
        module = _teachgrad_module(_teachgrad_name(fullname))
        if module is None:
            # ``torch.<name>`` where teachgrad has no <name>: the usual error, named as the
            # code named it (not left to the next finder: it must never find real PyTorch).
            from . import _NOT_HERE  # (what the part is for, where teachgrad knows it)

            part = fullname.split(".")[1]
            raise ModuleNotFoundError(
                f"No module named {fullname!r}\nHint: 'torch' is teachgrad here (see "
                "teachgrad.install_as_torch), which has no such module."
                + (f" {_NOT_HERE[part]}" if part in _NOT_HERE else ""),
                name=fullname,
            )
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module))


def _teachgrad_module(name: str):
    """teachgrad's module ``name`` (imported now if need be), or None if there is none."""
    parent_name, _, last = name.rpartition(".")
    if parent_name:
        parent = sys.modules.get(parent_name)
        attribute = getattr(parent, last, None)
        if isinstance(attribute, types.ModuleType) and attribute.__name__ == name:
            return attribute  # (made already: ``teachgrad.nn`` is imported with teachgrad)
        if parent_name == "teachgrad" and last in _MODULE_LIKE and attribute is not None:
            return attribute
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:  # a module that exists failed to import something else
            raise
        return None


class _AliasLoader(importlib.abc.Loader):
    """Hands the import system the teachgrad module instead of making a new one.

    The import system first makes an empty module and calls ``exec_module`` on it; then it
    returns whatever ``sys.modules[name]`` holds. Putting teachgrad's module there keeps it
    one object (and leaves its own ``__name__`` and ``__spec__`` alone).
    """

    def __init__(self, module) -> None:
        self.module = module

    def create_module(self, spec):
        """The default: a placeholder module, replaced in ``exec_module``."""
        return None

    def exec_module(self, module) -> None:
        """Put the teachgrad module where the import system will look for the result."""
        sys.modules[module.__name__] = self.module


class _MissingTorch(importlib.abc.MetaPathFinder):
    """Last on ``sys.meta_path``: asked for ``torch`` only when no finder found PyTorch.

    ``import teachgrad as torch`` followed by ``from torch import nn`` fails there, and a
    learner reading "No module named 'torch'" cannot tell why ``torch.nn`` worked a line
    earlier. The error stays the same type (code that probes for PyTorch with
    ``try: import torch`` is unaffected), with a hint.
    """

    def find_spec(self, fullname, path=None, target=None):
        """Raise ModuleNotFoundError with a hint for ``torch``; None for any other name."""
        if fullname != TORCH:
            return None
        raise ModuleNotFoundError(
            "No module named 'torch'\nHint: PyTorch is not installed here; teachgrad "
            "stands in for it. `import teachgrad as torch` names it torch in your code "
            "only: write `torch.nn.functional.relu`, not `from torch.nn.functional import "
            "relu`, or call teachgrad.install_as_torch() first to make `import torch` "
            "and `from torch... import` mean teachgrad.",
            name=TORCH,
        )


def add_missing_torch_hint() -> None:
    """Put :class:`_MissingTorch` last on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _MissingTorch) for finder in sys.meta_path):
        sys.meta_path.append(_MissingTorch())
