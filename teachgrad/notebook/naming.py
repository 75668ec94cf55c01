"""Which variable name belongs to which part of the graph.

``draw(out, names=locals())`` wants to label the boxes with the names the student used
(``x``, ``y``, ``z``...). The graph itself only knows nodes; a name belongs to a node when

* the named tensor is a leaf: its AccumulateGrad node (``node.variable is tensor``);
* the named tensor was computed: the node that produced it, i.e. its ``grad_fn``
  (and, for ops with several outputs, its ``output_nr``).

``names`` may be ``locals()`` / ``globals()`` (name -> value), or a dict the other way round
(tensor -> name). Names that start with ``_`` are skipped: IPython keeps every output in
``_``, ``_27`` ... and those are not what the student called things. Objects with
``named_parameters()`` (an ``nn.Module``) name their parameters ``model.weight``.
"""

from __future__ import annotations

from collections.abc import Mapping

from .._tensor import Tensor
from .short_traceback import ArgumentError


class Names:
    """Look-ups from graph objects to the names the user gave them."""

    def __init__(self, names: Mapping | None = None) -> None:
        self._by_tensor: dict[int, list[str]] = {}
        self._tensors: dict[int, Tensor] = {}   # keeps what we looked up alive and findable
        self._by_output: dict[tuple[int, int], list[str]] = {}
        self._tensor_of_output: dict[tuple[int, int], Tensor] = {}
        if names is not None and not isinstance(names, Mapping):
            message = ("names= expects a dict such as locals() (name -> tensor) or "
                       f"{{tensor: name}}, got {type(names).__name__}")
            if names is locals or names is globals:  # the usual slip: names=locals
                message += f"\nHint: call it: names={names.__name__}() (with the parentheses)."
            raise ArgumentError(message)
        if names:
            for name, value in _pairs(names):
                self._add(name, value)

    def _add(self, name: str, tensor: Tensor) -> None:
        key = id(tensor)
        self._tensors[key] = tensor
        listed = self._by_tensor.setdefault(key, [])
        if name not in listed:
            listed.append(name)
        fn = tensor._grad_fn
        if fn is not None:
            out = (id(fn), tensor._output_nr)
            self._by_output[out] = listed
            self._tensor_of_output[out] = tensor

    # --- look-ups ------------------------------------------------------------------------
    def of_tensor(self, tensor) -> str:
        """``'x'`` (or ``'x, x_alias'``) for a named tensor, ``''`` otherwise."""
        return _join(self._by_tensor.get(id(tensor), ()))

    def of_output(self, node, output_nr: int = 0) -> str:
        """The name of the tensor that ``node`` produced as its output ``output_nr``."""
        return _join(self._by_output.get((id(node), output_nr), ()))

    def of_node(self, node) -> str:
        """The name shown on a node's box: the leaf's name, or its output(s)' names."""
        variable = getattr(node, "variable", None)
        if variable is not None:  # AccumulateGrad: the leaf it accumulates into
            return self.of_tensor(variable)
        n = max(len(getattr(node, "_meta", ())), 1)
        return _join([self.of_output(node, nr) for nr in range(n) if self.of_output(node, nr)])

    def tensor_of_output(self, node, output_nr: int = 0) -> Tensor | None:
        """The named tensor ``node`` produced (to show its data or retained grad)."""
        return self._tensor_of_output.get((id(node), output_nr))


def _pairs(names: Mapping):
    """(name, tensor) pairs from ``locals()``-style or ``{tensor: name}`` mappings."""
    for key, value in names.items():
        if isinstance(key, Tensor) and isinstance(value, str):
            key, value = value, key
        if not isinstance(key, str) or key.startswith("_"):
            continue
        if isinstance(value, Tensor):
            yield key, value
        elif callable(getattr(value, "named_parameters", None)) and not isinstance(value, type):
            try:
                parameters = list(value.named_parameters())
            except Exception:  # someone else's object: a name is not worth a crash
                continue
            for pname, p in parameters:
                if isinstance(p, Tensor):
                    yield f"{key}.{pname}", p


def _join(names, limit: int = 2) -> str:
    names = list(names)
    text = ", ".join(names[:limit])
    if len(names) > limit:
        text += ", …"
    return text


__all__ = ["Names"]
