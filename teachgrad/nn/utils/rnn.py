"""``teachgrad.nn.utils.rnn``: batches of sequences of different lengths.

A batch needs one tensor, but sentences (or time series) have different lengths. Two ways:

* **padding** — :func:`pad_sequence` fills the short ones up to the longest with a
  ``padding_value``: one ``(L, N, *)`` tensor (``(N, L, *)`` with ``batch_first=True``);
* **packing** — :func:`pack_padded_sequence` keeps only the real steps, time step by time
  step: a :class:`PackedSequence` whose ``batch_sizes[t]`` says how many sequences are
  still running at step ``t``. A recurrent layer given a packed sequence never runs over
  padding, so each sequence's final state is its own last step's.
  :func:`pad_packed_sequence` turns the packed output back into a padded tensor.

>>> import teachgrad as torch
>>> from teachgrad.nn.utils.rnn import pack_sequence, pad_sequence
>>> a, b = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0])
>>> pad_sequence([a, b], batch_first=True)
tensor([[1., 2., 3.],
        [4., 0., 0.]])
>>> packed = pack_sequence([a, b])
>>> packed.data, packed.batch_sizes
(tensor([1., 4., 2., 3.]), tensor([2, 1, 1]))

Gradients flow through all of them: they are built from indexing, ``cat`` and ``stack``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from ... import _creation, _dtypes
from ..._tensor import Tensor, _make
from ...ops import shape as _shape


class _PackedSequenceFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedSequenceFields):
    """Sequences of different lengths, stored time step by time step without padding.

    * ``data`` — the steps of all sequences, ``(sum(batch_sizes), *)``: step 0 of every
      sequence, then step 1 of those still running, and so on (longest sequences first);
    * ``batch_sizes`` — how many sequences run at each step (an int64 tensor);
    * ``sorted_indices`` / ``unsorted_indices`` — the permutation that sorted the batch by
      length, and its inverse (``None`` when the batch was already sorted).

    Make one with :func:`pack_padded_sequence` or :func:`pack_sequence`, not by hand.
    """

    def __new__(cls, data: Tensor, batch_sizes: Tensor | None = None,
                sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> PackedSequence:
        """The four fields; ``unsorted_indices`` defaults to ``sorted_indices`` inverted."""
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence((data, batch_sizes)), PyTorch's old form
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """``data.to(...)``; the sizes and permutations stay as they are."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self) -> PackedSequence:
        """Nothing to do: teachgrad lives on the CPU."""
        return self

    def double(self) -> PackedSequence:
        """``to(dtype=torch.float64)``: ``data`` in float64."""
        return self.to(dtype=_dtypes.float64)

    def float(self) -> PackedSequence:
        """``to(dtype=torch.float32)``: ``data`` in float32."""
        return self.to(dtype=_dtypes.float32)

    def half(self) -> PackedSequence:
        """``to(dtype=torch.float16)``: ``data`` in float16."""
        return self.to(dtype=_dtypes.float16)

    def long(self) -> PackedSequence:
        """``to(dtype=torch.int64)``: ``data`` in int64."""
        return self.to(dtype=_dtypes.int64)

    def int(self) -> PackedSequence:
        """``to(dtype=torch.int32)``: ``data`` in int32."""
        return self.to(dtype=_dtypes.int32)

    def short(self) -> PackedSequence:
        """``to(dtype=torch.int16)``: ``data`` in int16."""
        return self.to(dtype=_dtypes.int16)

    def char(self) -> PackedSequence:
        """``to(dtype=torch.int8)``: ``data`` in int8."""
        return self.to(dtype=_dtypes.int8)

    def byte(self) -> PackedSequence:
        """``to(dtype=torch.uint8)``: ``data`` in uint8."""
        return self.to(dtype=_dtypes.uint8)

    @property
    def is_cuda(self) -> bool:
        """Always ``False``: there is no GPU."""
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse permutation: ``out[permutation[i]] = i`` (``None`` stays ``None``)."""
    if permutation is None:
        return None
    return _make(np.argsort(permutation._data, kind="stable").astype(np.int64))


def _lengths_array(lengths: Tensor | Sequence[int]) -> np.ndarray:
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(
                "'lengths' argument should be a 1D CPU int64 tensor, but got "
                f"{lengths.dim()}D cpu {lengths.dtype._legacy.removesuffix('Tensor')} tensor"
            )
        return lengths._data.astype(np.int64)
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def pack_padded_sequence(input: Tensor, lengths: Tensor | Sequence[int],
                         batch_first: bool = False, enforce_sorted: bool = True
                         ) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` if ``batch_first``) whose sequence
    ``b`` is ``lengths[b]`` steps long.

    With ``enforce_sorted=True`` the lengths must already be in decreasing order; otherwise
    the batch is sorted here and the permutation kept, so that everything handed back (by
    a layer, by :func:`pad_packed_sequence`) is in your original order again.

    >>> import teachgrad as torch
    >>> padded = torch.tensor([[1.0, 3.0], [2.0, 0.0]])   # (T=2, B=2); 2nd sequence: 1 step
    >>> pack_padded_sequence(padded, [2, 1]).data
    tensor([1., 3., 2.])
    """
    lengths = _lengths_array(lengths)
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-lengths, kind="stable")  # longest first; ties keep their order
        lengths = lengths[order]
        sorted_indices = _make(order.astype(np.int64))
    time_dim, batch_dim = (1, 0) if batch_first else (0, 1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch_size = input.shape[batch_dim]
    if len(lengths) != batch_size:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
            f"(batch_size={batch_size})"
        )
    if lengths[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    if np.any(lengths[1:] > lengths[:-1]):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX "
            "exportability."
        )
    if lengths[0] > input.shape[time_dim]:
        # PyTorch reads past the end of the tensor here; we refuse.
        raise RuntimeError(
            f"Expected every length to be at most the padded length {input.shape[time_dim]}, "
            f"but got a length of {lengths[0]}"
            "\nHint: lengths count the real steps of each sequence in the padded batch."
        )
    # batch_sizes[t]: how many sequences are longer than t.
    batch_sizes = (lengths[None, :] > np.arange(lengths[0])[:, None]).sum(1)
    # The packed rows, step by step: (t, sequence) for every sequence still running at t.
    steps = np.repeat(np.arange(len(batch_sizes)), batch_sizes)
    rows = np.concatenate([np.arange(size) for size in batch_sizes])
    if sorted_indices is not None:  # row j of the sorted batch is sequence order[j]
        rows = sorted_indices._data[rows]
    key = (rows, steps) if batch_first else (steps, rows)
    data = input[tuple(_make(k) for k in key)]  # one gather: IndexBackward0
    return PackedSequence(data, _make(batch_sizes.astype(np.int64)), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length: int | None = None
                        ) -> tuple[Tensor, Tensor]:
    """Undo :func:`pack_padded_sequence`: ``(padded, lengths)``, in the original order.

    ``padded`` is ``(T, B, *)`` (``(B, T, *)`` if ``batch_first``), filled with
    ``padding_value`` after each sequence's end; ``T`` is the longest length, or
    ``total_length`` if given. ``lengths`` is an int64 tensor.
    """
    data, batch_sizes = sequence.data, sequence.batch_sizes._data.astype(np.int64)
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
        steps = total_length
    batch = int(batch_sizes[0])
    sorted_lengths = (batch_sizes[None, :] > np.arange(batch)[:, None]).sum(1)
    # Where each (t, sorted row j) lives in data; padding points at one extra row.
    starts = np.concatenate([[0], np.cumsum(batch_sizes)[:-1]])
    padding_row = int(batch_sizes.sum())
    where = np.full((steps, batch), padding_row, dtype=np.int64)
    for t, (start, size) in enumerate(zip(starts, batch_sizes)):
        where[t, :size] = start + np.arange(size)
    lengths = sorted_lengths
    if sequence.unsorted_indices is not None:  # back to the caller's order
        unsorted = sequence.unsorted_indices._data
        where, lengths = where[:, unsorted], sorted_lengths[unsorted]
    if batch_first:
        where = where.T
    padding = _creation.full((1, *data.shape[1:]), padding_value, dtype=data.dtype)
    padded = _shape.cat([data, padding])[_make(np.ascontiguousarray(where))]
    return padded, _make(lengths.astype(np.int64))


def _check_like_first(first: Tensor, seq: Tensor) -> None:
    """Every sequence of a batch must have the first's sizes after its length."""
    if seq.dim() == 0:
        raise RuntimeError(
            "pad_sequence: every sequence needs at least one dimension (its length), "
            "got a 0-d tensor"
        )
    a, b = first.shape[1:], seq.shape[1:]
    if a == b:
        return
    if len(a) != len(b):
        raise RuntimeError(
            f"pad_sequence: expected every sequence to have {first.dim()} dimensions, as the "
            f"first one has, but got one with {seq.dim()}"
        )
    dim = next(d for d in range(len(a)) if a[d] != b[d])
    raise RuntimeError(
        f"The size of tensor a ({a[dim]}) must match the size of tensor b ({b[dim]}) at "
        f"non-singleton dimension {dim + 1}"
        "\nHint: all sequences must have the same sizes after their first dimension (their "
        "length)."
    )


def pad_sequence(sequences: Tensor | Iterable[Tensor], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Tensor:
    """Stack sequences ``(L_i, *)`` into one ``(L, N, *)`` tensor (``(N, L, *)`` if
    ``batch_first``), padding each up to the longest with ``padding_value`` — at the end,
    or at the start with ``padding_side='left'``.

    >>> import teachgrad as torch
    >>> pad_sequence([torch.ones(2), torch.ones(1)], padding_value=-1, padding_side="left")
    tensor([[ 1., -1.],
            [ 1.,  1.]])
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}"
        )
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    first = sequences[0]
    for seq in sequences:
        _check_like_first(first, seq)
    longest = max(seq.shape[0] for seq in sequences)
    # As PyTorch: a tensor full of padding_value (the first sequence's dtype), each sequence
    # copied into its slice, so the graph ends in CopySlices
    batch = (len(sequences), longest) if batch_first else (longest, len(sequences))
    out = _creation.full((*batch, *first.shape[1:]), padding_value, dtype=first.dtype)
    for i, seq in enumerate(sequences):
        n = seq.shape[0]
        start = 0 if padding_side == "right" else longest - n
        if batch_first:
            out.select(0, i).narrow(0, start, n).copy_(seq)
        else:
            out.narrow(0, start, n).select(1, i).copy_(seq)
    return out


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor | Sequence[int],
                   batch_first: bool = False) -> list[Tensor]:
    """Undo :func:`pad_sequence`: the list of sequences, each cut to its length."""
    lengths = _lengths_array(lengths)
    if batch_first:
        return [padded_sequences[i, :int(n)] for i, n in enumerate(lengths)]
    return [padded_sequences[:int(n), i] for i, n in enumerate(lengths)]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences ``(L_i, *)``: :func:`pad_sequence`, then
    :func:`pack_padded_sequence` (with ``enforce_sorted``, longest first)."""
    lengths = [seq.shape[0] for seq in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """Undo :func:`pack_sequence`: the list of sequences, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


__all__ = [
    "PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
    "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence",
]
