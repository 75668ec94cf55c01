"""Nested containers of tensors ("pytrees"): flatten them to a list, rebuild them after.

The transforms of :mod:`teachgrad.func` accept and return tuples, lists and dicts of
tensors, nested any way. They all work the same way: flatten the structure to its leaves,
compute with the leaves, and rebuild the structure around the results.

>>> leaves, spec = tree_flatten({"w": 1, "b": (2, 3)})
>>> leaves
[1, 2, 3]
>>> tree_unflatten([4, 5, 6], spec)
{'w': 4, 'b': (5, 6)}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class TreeSpec:
    """The shape of a pytree without its leaves: a container type and its children."""

    def __init__(self, kind: type | None, context: Any, children: list) -> None:
        self.kind = kind  # tuple, list, dict, or None for a leaf
        self.context = context  # a dict's keys (or a namedtuple's class), else None
        self.children = children

    @property
    def num_leaves(self) -> int:
        return 1 if self.kind is None else sum(c.num_leaves for c in self.children)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TreeSpec) and self.kind is other.kind
            and self.context == other.context and self.children == other.children
        )

    def __str__(self) -> str:  # the short form: ``(*, [*, *])``
        if self.kind is None:
            return "*"
        parts = [str(c) for c in self.children]
        if self.kind is dict:
            return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(self.context, parts)) + "}"
        if self.kind is list:
            return "[" + ", ".join(parts) + "]"
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"

    def __repr__(self) -> str:
        if self.kind is None:
            return "*"
        children = ", ".join(map(repr, self.children))
        return f"TreeSpec({self.kind.__name__}, {self.context!r}, [{children}])"


LEAF = TreeSpec(None, None, [])


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def tree_flatten(tree: Any) -> tuple[list, TreeSpec]:
    """``(leaves, spec)``: the leaves in order, and what is needed to rebuild ``tree``."""
    leaves: list = []

    def walk(node: Any) -> TreeSpec:
        if _is_namedtuple(node):
            return TreeSpec(tuple, type(node), [walk(v) for v in node])
        if type(node) in (tuple, list):
            return TreeSpec(type(node), None, [walk(v) for v in node])
        if type(node) is dict:
            keys = list(node)
            return TreeSpec(dict, keys, [walk(node[k]) for k in keys])
        leaves.append(node)
        return LEAF

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves: list, spec: TreeSpec) -> Any:
    """Rebuild the tree ``spec`` describes, with ``leaves`` in place of the old ones."""
    items = iter(leaves)

    def build(s: TreeSpec) -> Any:
        if s.kind is None:
            return next(items)
        values = [build(c) for c in s.children]
        if s.kind is dict:
            return dict(zip(s.context, values))
        if s.context is not None:  # a namedtuple
            return s.context(*values)
        return s.kind(values)

    return build(spec)


def tree_map(fn: Callable, tree: Any) -> Any:
    """Apply ``fn`` to every leaf, keeping the structure."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix: Any, tree: Any) -> list | None:
    """One value of ``prefix`` per leaf of ``tree``, where ``prefix`` is a tree of the same
    structure or a prefix of it (``0`` for "all leaves", as vmap's ``in_dims``).

    Returns None when the structures do not match.
    """
    result: list = []

    def walk(p: Any, node: Any) -> bool:
        node_is_container = type(node) in (tuple, list, dict) or _is_namedtuple(node)
        if not (type(p) in (tuple, list, dict) or _is_namedtuple(p)):
            result.extend([p] * tree_flatten(node)[1].num_leaves)
            return True
        if not node_is_container or len(p) != len(node):
            return False
        if type(node) is dict:
            if type(p) is not dict or set(p) != set(node):
                return False
            return all(walk(p[k], node[k]) for k in node)
        return all(walk(a, b) for a, b in zip(p, node))

    return result if walk(prefix, tree) else None
