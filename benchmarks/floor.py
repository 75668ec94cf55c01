"""The floor: the least Python work any reverse-mode autograd on NumPy arrays does per op.

micrograd's engine, with NumPy arrays where micrograd has floats: each op makes one small
object holding its value, its parents and a closure that pushes the gradient back, and
``backward()`` sorts the graph topologically and calls the closures. Nothing else: no
dtype rules, no broadcasting of gradients, no version counters or in-place checks, no
hooks, no graph freeing, no PyTorch names or errors.

It is not a library to use, and it has no targets of its own. It answers one question for
the per-op benchmarks: how far below teachgrad's time could *any* autograd written in
Python on NumPy go? If this floor itself is above a target (deep_chain's 1.5 x hand
NumPy, say), no Python design reaches that target; ``teachgrad ÷ floor`` is then what
PyTorch's semantics cost on top of the bare minimum.
"""

from __future__ import annotations

import numpy as np


class Value:
    """An array that remembers how it was made (micrograd's ``Value``, on arrays).

    >>> a = Value(np.array([2.0])); b = a * a + a
    >>> b.backward(); a.grad
    array([5.])
    """

    __slots__ = ("data", "grad", "_parents", "_backward")

    def __init__(self, data: np.ndarray, parents: tuple = ()) -> None:
        self.data = data
        self.grad = None
        self._parents = parents
        self._backward = None

    def _add_grad(self, g: np.ndarray) -> None:
        self.grad = g if self.grad is None else self.grad + g

    def __mul__(self, other: Value | float) -> Value:
        if isinstance(other, Value):
            out = Value(self.data * other.data, (self, other))

            def backward() -> None:
                self._add_grad(out.grad * other.data)
                other._add_grad(out.grad * self.data)
        else:
            out = Value(self.data * other, (self,))

            def backward() -> None:
                self._add_grad(out.grad * other)
        out._backward = backward
        return out

    def __add__(self, other: Value | float) -> Value:
        if isinstance(other, Value):
            out = Value(self.data + other.data, (self, other))

            def backward() -> None:
                self._add_grad(out.grad)
                other._add_grad(out.grad)
        else:
            out = Value(self.data + other, (self,))

            def backward() -> None:
                self._add_grad(out.grad)
        out._backward = backward
        return out

    def __sub__(self, other: float) -> Value:
        return self + (-other)

    def __pow__(self, n: int) -> Value:
        out = Value(self.data ** n, (self,))

        def backward() -> None:
            self._add_grad(out.grad * n * self.data ** (n - 1))
        out._backward = backward
        return out

    def relu(self) -> Value:
        out = Value(np.maximum(self.data, 0), (self,))

        def backward() -> None:
            self._add_grad(out.grad * (self.data > 0))
        out._backward = backward
        return out

    def tanh(self) -> Value:
        out = Value(np.tanh(self.data), (self,))

        def backward() -> None:
            self._add_grad(out.grad * (1 - out.data * out.data))
        out._backward = backward
        return out

    def sum(self) -> Value:
        out = Value(self.data.sum(), (self,))

        def backward() -> None:
            self._add_grad(np.broadcast_to(out.grad, self.data.shape).copy())
        out._backward = backward
        return out

    def backward(self, grad: np.ndarray | None = None) -> None:
        """Gradients of this value with respect to every value it was made from."""
        order, seen = [], set()
        stack = [(self, False)]
        while stack:  # iterative depth-first search: deep_chain's graph is 30,000 deep
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
            elif id(node) not in seen:
                seen.add(id(node))
                stack.append((node, True))
                stack.extend((p, False) for p in node._parents)
        self.grad = np.ones_like(self.data) if grad is None else grad
        for node in reversed(order):
            if node._backward is not None:
                node._backward()


def tape_chain(x0: np.ndarray, steps: int, scale: float, shift: float):
    """deep_chain on a flat tape: the bare minimum of reverse-mode bookkeeping.

    No object per op at all: forward appends each result to a list and one
    ``(kind, input index, constant)`` tuple to the tape; backward walks the tape from the
    end. Below this sits only hand-written NumPy (which knows the chain's shape and needs
    no tape). A library whose users hold tensors with a ``grad_fn`` cannot be this lean:
    it shows what remains of a target once even the per-op object is gone.
    Returns ``(x, d sum(x)/d x0)``.
    """
    values, tape = [x0], []
    x = 0  # index of the current value
    for _ in range(steps):
        values.append(values[x] * scale)
        tape.append((0, x, scale))
        values.append(values[-1] + shift)
        tape.append((1, len(values) - 2, shift))
        values.append(np.tanh(values[-1]))
        tape.append((2, len(values) - 2, None))
        x = len(values) - 1
    grads = [None] * len(values)
    grads[x] = np.ones_like(values[x])
    for k in range(len(tape) - 1, -1, -1):
        kind, i, constant = tape[k]
        g = grads[k + 1]
        grads[k + 1] = None  # freed as backward passes it
        if kind == 0:
            grads[i] = g * constant
        elif kind == 1:
            grads[i] = g
        else:
            y = values[k + 1]
            grads[i] = g * (1 - y * y)
    return values[x], grads[0]
