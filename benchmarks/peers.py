"""The implementations teachgrad is compared with, each an optional import.

Hand-written NumPy is always there (teachgrad runs on it). PyTorch, HIPS ``autograd`` and
``micrograd`` are used when installed and left out (with a note) when not, so the runner
works with NumPy and teachgrad alone.
"""

from __future__ import annotations

import importlib
from importlib import metadata
from types import ModuleType

OPTIONAL = ("torch", "autograd", "micrograd")
ALL = ("teachgrad", "numpy", *OPTIONAL)


class Peers:
    """The peer libraries this run may use (``None`` where missing or not wanted)."""

    def __init__(self, wanted: set[str] | None = None) -> None:
        self.wanted = set(ALL) if wanted is None else set(wanted) | {"teachgrad", "numpy"}
        self.missing: dict[str, str] = {}
        self.torch: ModuleType | None = self._load("torch", "torch")
        self.autograd: ModuleType | None = self._load("autograd", "autograd")
        self.anp: ModuleType | None = self._load("autograd", "autograd.numpy")
        engine = self._load("micrograd", "micrograd.engine")
        self.Value = engine.Value if engine is not None else None
        if self.torch is not None:
            self.torch.manual_seed(0)

    def _load(self, name: str, module: str) -> ModuleType | None:
        if name not in self.wanted:
            self.missing.setdefault(name, "not asked for (--peers)")
            return None
        try:
            return importlib.import_module(module)
        except ImportError as error:
            self.missing.setdefault(name, f"not installed ({error})")
            return None

    def has(self, name: str) -> bool:
        return {
            "teachgrad": True, "numpy": True, "torch": self.torch is not None,
            "autograd": self.autograd is not None, "micrograd": self.Value is not None,
        }[name]

    def versions(self) -> dict[str, str]:
        """The installed version of every library this run uses."""
        found = {}
        for name in ALL:
            if self.has(name):
                try:
                    found[name] = metadata.version(name)
                except metadata.PackageNotFoundError:
                    found[name] = "unknown"
        return found
