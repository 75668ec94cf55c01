"""Tensor contraction, ``einsum``: sums of products written as index equations, and its gradient.

``einsum("ij,jk->ik", a, b)`` multiplies matrices: every letter is an index; letters
missing from the output (after ``->``) are summed over. The gradient with respect to one
operand is again an einsum: the output's gradient times the *other* operands, written
into that operand's letters. For ``ij,jk->ik``: ``grad_a = einsum("ik,jk->ij", grad, b)``.

Two details make that rule general:

- a letter repeated in an operand (``ii->i`` reads a diagonal) gets its gradient only on
  the diagonal: the backward einsum writes into a fresh letter and multiplies by an
  identity matrix that ties the two;
- a letter that only that operand has (``ij->i`` sums over j) does not appear among the
  backward inputs at all (or only with size 1, if the others broadcast along it): a
  vector of ones with that letter spreads the gradient along it.
"""

from __future__ import annotations

import string

import numpy as np

from .._arguments import Signatures
from .._tensor import Tensor, _make
from . import numpy_protocol
from .op import Op

_LETTERS = string.ascii_letters


class EinsumBackward0(Op):
    """One node for the whole einsum.

    PyTorch decomposes einsum into permutes, views and a batched matrix product, so its
    ``grad_fn`` is whichever of those ran last (``ViewBackward0``, ``SumBackward1``...).
    teachgrad records the einsum itself: one node whose gradient is the rule above.
    """

    formula = "∂einsum/∂operandₖ = einsum(grad, other operands → operandₖ's indices)"

    @staticmethod
    def forward(ctx, *operands, inputs, output, sizes):
        ctx.save_for_backward(*operands)
        ctx.inputs, ctx.output, ctx.sizes = inputs, output, sizes
        equation = ",".join(inputs) + "->" + output
        out = np.einsum(equation, *operands, optimize=len(operands) > 2)
        if not set("".join(inputs)) - set(output):
            out = _signed_zero_products(out, equation, operands)
        # NumPy returns a view for pure transpositions and diagonals (ij->ji, ii->i):
        # PyTorch's result is a tensor of its own, so writing to it must not change the input.
        return out.copy() if isinstance(out, np.ndarray) and out.base is not None else out

    @staticmethod
    def backward(ctx, grad):
        operands = ctx.saved_tensors
        return tuple(
            _operand_gradient(k, grad, operands, ctx.inputs, ctx.output, ctx.sizes)
            if needed else None
            for k, needed in enumerate(ctx.needs_input_grad)
        )


def _signed_zero_products(out, equation: str, operands: tuple):
    """An einsum that sums nothing (``i,j->ij``) is one product per element, whose zero
    has the sign of the product, as PyTorch's (-0·1 = -0); NumPy's einsum adds each
    product to +0, so its zeros all came out +0 (found comparing with PyTorch)."""
    if not isinstance(out, np.ndarray) or out.dtype.kind != "f" or not (out == 0).any():
        return out
    signs = [np.where(np.signbit(a), -1, 1).astype(np.int8) for a in operands]
    negative = np.einsum(equation, *signs) < 0
    return np.where(out == 0, np.where(negative, -0.0, 0.0).astype(out.dtype), out)


def _operand_gradient(k: int, grad, operands, inputs: tuple, output: str, sizes: dict):
    """einsum(grad, the other operands, and helpers -> operand k's indices)."""
    terms = [output] + [s for i, s in enumerate(inputs) if i != k]
    values = [grad] + [v for i, v in enumerate(operands) if i != k]
    dtype = np.asarray(_array(grad)).dtype
    target = ""
    unused = iter(c for c in _LETTERS if c not in sizes)
    for letter in inputs[k]:
        if letter in target:  # a diagonal: write into a fresh letter, tied by an identity
            fresh = next(unused)
            terms.append(letter + fresh)
            values.append(np.eye(sizes[letter], dtype=dtype))
            letter = fresh
        target += letter
    # A letter only this operand has (summed away), or that the others have only with
    # size 1 (broadcast): a vector of ones spreads the gradient along it.
    full = {letter for term, value in zip(terms, values)
            for letter, size in zip(term, np.shape(value)) if size == sizes.get(letter)}
    for letter in dict.fromkeys(inputs[k]):
        if letter not in full:
            terms.append(letter)
            values.append(np.ones(sizes[letter], dtype=dtype))
    return np.einsum(",".join(terms) + "->" + target, *values, optimize=len(values) > 2)


def _array(x):
    return x._data if isinstance(x, Tensor) else x


# (what PyTorch's einsum hands the equation and the operands to)
_EINSUM = Signatures("einsum",
                     "(str equation, tuple of Tensors tensors, *, tuple of ints path = None)")


def einsum(equation: str, *operands) -> Tensor:
    """Sum of products over the indices of ``equation`` (NumPy's and PyTorch's notation).

    Operands may also be given as one list. Letters left out of the output are summed;
    without ``->`` the output is the letters that appear once, in alphabetical order.

    >>> import teachgrad as torch
    >>> a = torch.tensor([[1., 2.], [3., 4.]])
    >>> torch.einsum("ij,jk->ik", a, a)     # matrix product
    tensor([[ 7., 10.],
            [15., 22.]])
    >>> torch.einsum("ii", a)               # trace
    tensor(5.)

    PyTorch's sublist form also works: ``torch.einsum(a, [0, 1], a, [1, 2], [0, 2])``.
    """
    if not operands and isinstance(equation, (str, Tensor)):  # one argument only
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at "
            "least one operand and its subscripts list\nHint: e.g. torch.einsum('ii', A), or "
            "torch.einsum(A, [0, 0]).")
    if isinstance(equation, Tensor):  # the sublist form: operand, sublist, operand, ...
        equation, operands = _from_sublists((equation, *operands))
    elif not isinstance(equation, str):
        _EINSUM.check((equation, operands))
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    operands = tuple(x if isinstance(x, Tensor) else _make(np.asarray(x)) for x in operands)
    inputs, output, sizes = _parse(equation, [x._data.shape for x in operands])
    dtypes = {x._data.dtype for x in operands}
    if len(dtypes) > 1:
        first = operands[0].dtype._legacy.removesuffix("Tensor")
        other = next(x for x in operands if x._data.dtype != operands[0]._data.dtype)
        raise RuntimeError(
            f"expected scalar type {first} but found {other.dtype._legacy.removesuffix('Tensor')}"
        )
    if len(operands) == 1 and _is_permutation(inputs[0], output):
        # (nothing multiplied or summed: PyTorch returns a permuted view, PermuteBackward0)
        return operands[0].permute(*[inputs[0].index(letter) for letter in output])
    return EinsumBackward0.apply(*operands, inputs=inputs, output=output, sizes=sizes)


def _is_permutation(letters: str, output: str) -> bool:
    """Is ``letters -> output`` a reordering of distinct letters (no diagonal, no sum)?"""
    return len(set(letters)) == len(letters) == len(output) and set(letters) == set(output)


numpy_protocol.register(np.einsum)(
    lambda equation, *operands, optimize=False, **_: einsum(equation, *operands)
)


def _from_sublists(args: tuple) -> tuple[str, tuple]:
    """``(op, [0, 1], op, [1, 2], [0, 2])`` as ``("AB,BC->AC", ops)``: subscript ``i`` is a
    letter (0-25 upper case, 26-51 lower case, as PyTorch), ``...`` is kept."""

    def letters(sublist) -> str:
        # PyTorch's own parsing (torch/functional.py), comparisons and chr() included: so a
        # tensor given as a sublist fails as it does there (a float subscript in chr(), a
        # row of a 2-D tensor in `and`), and an int tensor's elements are subscripts
        out = []
        for s in sublist:
            if s is Ellipsis:
                out.append("...")
            elif s >= 0 and s < 26:
                out.append(chr(ord("A") + s))
            elif s >= 26 and s < 52:
                out.append(chr(ord("a") + s - 26))
            else:
                raise ValueError(
                    "einsum(): subscript in subscript list is not within the valid range "
                    "[0, 52)")
        return "".join(out)

    operands, sublists = args[0::2], args[1::2]
    output = None
    if len(args) % 2:  # an odd count: the last one is the output's sublist
        output, operands = operands[-1], operands[:-1]
    equation = ",".join(letters(s) for s in sublists)
    if output is not None:
        equation += "->" + letters(output)
    return equation, tuple(operands)


def _parse(equation: str, shapes: list) -> tuple[tuple, str, dict]:
    """The equation with explicit letters only (``...`` replaced), and each letter's size."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    for index, char in enumerate(equation):
        if char not in _LETTERS and char not in ".,->" or (char in "->" and arrow == ""):
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {index} in the equation string, "
                "subscripts must be in [a-zA-Z]"
            )
    terms = lhs.split(",")
    if len(terms) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    # "..." stands for as many dimensions as the operand has beyond its letters, aligned
    # from the right across operands (as in broadcasting); give them unused letters.
    spare = [c for c in _LETTERS if c not in equation]
    widths = [len(shape) - len(term.replace("...", "")) for term, shape in zip(terms, shapes)]
    ellipsis = "".join(spare[: max([w for w, t in zip(widths, terms) if "..." in t], default=0)])
    inputs = []
    for index, (term, shape, width) in enumerate(zip(terms, shapes, widths)):
        if "..." not in term and width != 0:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(term)}) does not "
                f"match the number of dimensions ({len(shape)}) for operand {index} and no "
                "ellipsis was given"
            )
        if width < 0:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation "
                f"({len(term.replace('...', ''))}) is more than the number of dimensions "
                f"({len(shape)}) for operand {index}"
            )
        inputs.append(term.replace("...", ellipsis[len(ellipsis) - width:]))
    if arrow:
        output = rhs.replace("...", ellipsis)
    else:  # implicit output: the ellipsis, then the letters seen once, sorted
        letters = lhs.replace("...", "").replace(",", "")
        output = ellipsis + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    sizes: dict[str, int] = {}
    for index, (term, shape) in enumerate(zip(inputs, shapes)):
        for letter, size in zip(term, shape):
            seen = sizes.get(letter, 1)
            if size != seen and size != 1 and seen != 1:
                raise RuntimeError(
                    f"einsum(): subscript {letter} has size {size} for operand {index} which "
                    f"does not broadcast with previously seen size {seen}"
                )
            sizes[letter] = max(seen, size)
    for letter in output:
        if letter not in sizes:
            raise RuntimeError(
                f"einsum(): output subscript {letter} does not appear in the equation for "
                "any input operand"
            )
        if output.count(letter) > 1:
            raise RuntimeError(
                f"einsum(): output subscript {letter} appears more than once in the output"
            )
    return tuple(inputs), output, sizes


__all__ = ["einsum"]
