"""Plain values on ``grad_fn._saved_<name>``, shown as PyTorch shows them.

An op's node keeps the numbers its backward needs (dims, sizes, flags) and shows them
through properties made from its class's ``saved_attributes`` (see ``Op.__init_subclass__``).
Two details of PyTorch's own getters are copied here:

* PyTorch keeps an argument as the user gave it (``dim=-1``, not the dimension it means),
  and its generated getters read a saved 64-bit integer as *unsigned*: ``-1`` shows as
  18446744073709551615 (2⁶⁴ − 1), ``-100`` as 2⁶⁴ − 100. :func:`shown` does the same.
* teachgrad's public functions turn ``dim=-1`` into the dimension it means before the op
  runs, so the op never sees the ``-1``. :func:`keep_given` puts the arguments as given on
  the node afterwards, only when a node was recorded (nothing is done in ``no_grad``, or
  for inputs that need no gradient): the forward pass itself pays nothing.

>>> shown(-1), shown((0, -1)), shown(2), shown(True)
(18446744073709551615, (0, 18446744073709551615), 2, True)
"""

from __future__ import annotations

_UINT64 = 1 << 64


def shown(value):
    """``value`` as PyTorch's getter shows it: a negative int as unsigned 64-bit (2⁶⁴ + n),
    a tuple (or list) element by element as a tuple; anything else as it is."""
    if type(value) is int:  # (not bool: True stays True)
        return value + _UINT64 if value < 0 else value
    if type(value) in (tuple, list):
        return tuple(shown(v) for v in value)
    return value


def negative(dim) -> bool:
    """Whether a dim (or any of a tuple's) is negative: only then does PyTorch's shown value
    differ from the dimension teachgrad keeps, so only then is :func:`keep_given` needed."""
    if type(dim) in (tuple, list):
        return any(d < 0 for d in dim)
    return dim is not None and dim < 0


def keep_given(out, op: type, **given) -> None:
    """Keep the arguments as the user gave them on ``out``'s node, if ``op`` recorded one.

    They are read by the node's ``grad_fn._saved_<name>`` properties (see :func:`given`);
    backward never uses them. ``out`` may also be a tuple of outputs (one node). One
    attribute, ``_given`` (a dict; its underscore keeps it out of the notebook's notes).
    """
    if type(out) is tuple:
        out = out[0]
    node = out._grad_fn
    if node is not None and isinstance(node, op):
        node._given = given


def given(name: str, default=None):
    """A ``saved_attributes`` entry: the argument ``name`` as given (see :func:`keep_given`),
    shown as PyTorch shows it; ``default(node)`` (or ``default``) when it was not kept."""

    def read(node):
        kept = node.__dict__.get("_given")
        if kept is not None and name in kept:
            return shown(kept[name])
        return shown(default(node) if callable(default) else default)

    read.__name__ = f"given_{name}"
    return read
