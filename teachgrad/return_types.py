"""``teachgrad.return_types``: the named tuples some functions return, as in PyTorch.

``x.max(dim=1)`` returns ``teachgrad.return_types.max(values=..., indices=...)``: a tuple
(so ``values, indices = x.max(1)`` unpacks it) whose items also have names. Each function
has its own type, named after it, with its own field names (``aminmax`` has ``min`` and
``max``, ``frexp`` has ``mantissa`` and ``exponent``)::

    >>> import teachgrad as torch
    >>> torch.tensor([3., 1., 2.]).cummax(0).indices
    tensor([0, 0, 0])

The types are made by :func:`structseq` when an ops module first needs one, and are then
attributes of this module (``teachgrad.return_types.max``).
"""

from __future__ import annotations

from ._package_name import qualified


class _StructSeq(tuple):
    """Base of the named tuples: a tuple whose fields print by name, as PyTorch prints them."""

    __slots__ = ()
    _name = ""
    _fields: tuple = ()

    def __new__(cls, *items):
        if len(items) != len(cls._fields):
            raise TypeError(
                f"{qualified('return_types.' + cls._name)}() takes a {len(cls._fields)}-sequence "
                f"({len(items)}-sequence given)"
            )
        return tuple.__new__(cls, items)

    def __repr__(self) -> str:
        fields = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
        return qualified(f"return_types.{self._name}(\n{fields})")

    def __reduce__(self):  # pickles as PyTorch's do: the type and the items
        return (type(self), tuple(self))


def _field(index: int, name: str) -> property:
    return property(lambda self: self[index], doc=f"Item {index} of the tuple: ``{name}``.")


def structseq(name: str, fields: tuple[str, ...] = ("values", "indices")) -> type:
    """The return type ``teachgrad.return_types.<name>`` with these field names.

    Made once per name: asking again returns the same class.
    """
    existing = globals().get(name)
    if isinstance(existing, type) and issubclass(existing, _StructSeq):
        return existing
    namespace = {"__slots__": (), "_name": name, "_fields": tuple(fields), "__module__": __name__}
    for i, field in enumerate(fields):
        namespace[field] = _field(i, field)
    cls = type(name, (_StructSeq,), namespace)
    globals()[name] = cls
    return cls


__all__: list = []  # the types are reached as attributes, teachgrad.return_types.max
