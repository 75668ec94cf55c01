"""Containers: modules that hold other modules (``Sequential``, ``ModuleList``, ``ModuleDict``).

A plain Python list of layers would hide them from ``parameters()``; these containers
register every layer they hold (under the names ``"0"``, ``"1"``, ... or your keys).
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from typing import Any

from ..._warn import warn_user
from .module import Module, _addindent


class Sequential(Module):
    """Run modules one after the other, each on the previous one's output.

    >>> import teachgrad as torch
    >>> torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.ReLU())
    Sequential(
      (0): Linear(in_features=2, out_features=16, bias=True)
      (1): ReLU()
    )

    ``Sequential(OrderedDict([("fc", ...), ("act", ...)]))`` names the layers.
    """

    def __init__(self, *args: Module) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def forward(self, input: Any) -> Any:
        for module in self._modules.values():
            input = module(input)
        return input

    def _index(self, idx: int) -> int:
        size = len(self._modules)
        idx = operator.index(idx)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        return idx % size

    def __getitem__(self, idx: int | slice) -> Module:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[self._index(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules)[self._index(idx)]
        setattr(self, key, module)

    def __delitem__(self, idx: int | slice) -> None:
        keys = list(self._modules)
        for key in keys[idx] if isinstance(idx, slice) else [keys[self._index(idx)]]:
            del self._modules[key]
        # Renumber, as PyTorch does, so the names stay 0, 1, 2 ...
        self._modules = dict(zip(map(str, range(len(self._modules))), self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        """Add ``module`` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> Sequential:
        """Add several modules at the end."""
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Insert ``module`` before position ``index``."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        values = list(self._modules.values())
        values.insert(index, module)
        self._modules = {}
        for i, m in enumerate(values):
            self.add_module(str(i), m)
        return self

    def pop(self, key: int) -> Module:
        """Remove and return the module at position ``key``."""
        module = self[key]
        del self[key]
        return module

    # ``+`` and ``*`` join the same layer objects (not copies): ``Sequential(lin) * 2`` runs
    # ``lin`` twice, with one set of parameters.
    def __add__(self, other: Sequential) -> Sequential:
        """A new ``Sequential`` with this one's layers, then ``other``'s."""
        _check_sequential(other)
        return Sequential(*self, *other)

    def __iadd__(self, other: Sequential) -> Sequential:
        """Append ``other``'s layers (numbered after this one's)."""
        _check_sequential(other)
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def __mul__(self, other: int) -> Sequential:
        """A new ``Sequential`` with this one's layers ``other`` times over."""
        self._check_factor(other)
        return Sequential(*(list(self) * other))

    def __rmul__(self, other: int) -> Sequential:
        return self.__mul__(other)

    def __imul__(self, other: int) -> Sequential:
        """Repeat this one's layers ``other`` times over, in place."""
        self._check_factor(other)
        return self.extend(list(self) * (other - 1))

    def _check_factor(self, other: Any) -> None:
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")


def _check_sequential(other: Any) -> None:
    """``Sequential + other`` takes only another ``Sequential`` (PyTorch's ValueError)."""
    if not isinstance(other, Sequential):
        raise ValueError(
            f"add operator supports only objects of Sequential class, but {type(other)} is given."
        )


class ModuleList(Module):
    """A list of modules whose parameters the parent module can see.

    It has no ``forward``: you decide how to use the layers (loop over them, index them).

    >>> import teachgrad as torch
    >>> layers = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])
    >>> len(list(layers.parameters()))
    6
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _index(self, idx: int) -> str:
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return str(idx % len(self))

    def __getitem__(self, idx: int | slice) -> Module | ModuleList:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._index(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._index(idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        keys = list(self._modules)
        for key in keys[idx] if isinstance(idx, slice) else [self._index(idx)]:
            del self._modules[key]
        self._modules = dict(zip(map(str, range(len(self._modules))), self._modules.values()))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return type(self)([*self, *other])

    def append(self, module: Module) -> ModuleList:
        """Add ``module`` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Add several modules at the end."""
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index``."""
        values = list(self._modules.values())
        values.insert(index, module)
        self._modules = {}
        for i, m in enumerate(values):
            self.add_module(str(i), m)

    def pop(self, key: int) -> Module:
        """Remove and return the module at position ``key``."""
        module = self[key]
        del self[key]
        return module

    def __repr__(self) -> str:
        # PyTorch folds runs of identical layers: "(0-2): 3 x Linear(...)".
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs: list[list[Any]] = []  # [first index, last index, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = []
        for start, end, r in runs:
            if start == end:
                line = f"({start}): {r}"
            else:
                line = f"({start}-{end}): {end - start + 1} x {r}"
            lines.append(_addindent(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules whose parameters the parent module can see (keys are strings)."""

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self) -> KeysView[str]:
        """The names of the modules, in order."""
        return self._modules.keys()

    def values(self) -> ValuesView[Module]:
        """The modules, in order."""
        return self._modules.values()

    def items(self) -> ItemsView[str, Module]:
        """``(name, module)`` pairs, in order."""
        return self._modules.items()

    def pop(self, key: str) -> Module:
        """Remove the module called ``key`` and return it."""
        module = self._modules[key]
        del self[key]
        return module

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        """Add (or replace) modules from a dict or from ``(key, module)`` pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value "
                            f"pairs, but got {type(modules).__name__}")
        if isinstance(modules, (Mapping, ModuleDict)):
            pairs = list(modules.items())
        else:
            pairs = []
            for j, pair in enumerate(modules):  # (all checked first: no half-done update)
                if not isinstance(pair, Iterable):
                    raise TypeError(f"ModuleDict update sequence element #{j} should be "
                                    f"Iterable; is{type(pair).__name__}")
                if len(pair) != 2:
                    raise ValueError(f"ModuleDict update sequence element #{j} has length "
                                     f"{len(pair)}; 2 is required")
                pairs.append(tuple(pair))
        for key, module in pairs:
            self[key] = module


class Container(Module):
    """The old base class of containers (deprecated: subclass :class:`Module`). Warns, then
    registers each keyword argument as a submodule: ``Container(fc=nn.Linear(2, 1))``."""

    def __init__(self, **kwargs: Any) -> None:
        warn_user(
            "`nn.Container` is deprecated. All of its functionality is now implemented in "
            "`nn.Module`. Subclass that instead.", FutureWarning)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


__all__ = ["Sequential", "ModuleList", "ModuleDict", "Container"]
