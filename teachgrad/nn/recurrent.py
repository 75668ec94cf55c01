"""Recurrent networks as functions: one time step of a cell, and whole layers over a sequence.

A recurrent layer reads a sequence one step at a time and carries a *state* from each step
to the next: ``h_t = cell(x_t, h_{t-1})``. The same weights are used at every step, so the
backward pass — "backpropagation through time" — adds up each weight's gradient over all
the steps. Here that is nothing special: every cell is built from ordinary differentiable
ops (``linear``, ``sigmoid``, ``tanh``, ``chunk``, ``*``, ``+``), so the engine's chain rule
does it, and gradients of any order work.

PyTorch's CPU kernels (ATen's ``RNN.cpp``) are composed the same way, so the outputs'
``grad_fn`` are the same as PyTorch's: a cell ends in ``TanhBackward0`` (RNN),
``MulBackward0`` / ``AddBackward0`` (LSTM's ``h`` / ``c``) or ``AddBackward0`` (GRU); a
layer's output is a ``StackBackward0`` of its steps (``CatBackward0`` when bidirectional).
One exception: PyTorch runs a float32 LSTM layer (unpacked, no projection) as one oneDNN
kernel, so its output's node is ``MkldnnRnnLayerBackward0``; here that is the same stack of
the steps under that name (``MkldnnRnnLayerBackward0`` below).

The cells, with gates in PyTorch's order (``W_ih`` stacks the gates' input weights)::

    RNN:  h' = tanh(W_ih x + b_ih + W_hh h + b_hh)                    (or relu)
    LSTM: i, f, g, o = split(W_ih x + b_ih + W_hh h + b_hh)           input, forget, cell, output
          c' = σ(f) * c + σ(i) * tanh(g);   h' = σ(o) * tanh(c')      (then h' W_hr^T, if projected)
    GRU:  r = σ(W_ir x + b_ir + W_hr h + b_hr);   z = σ(W_iz x + b_iz + W_hz h + b_hz)
          n = tanh(W_in x + b_in + r * (W_hn h + b_hn));   h' = (1 - z) * n + z * h

>>> import teachgrad as torch
>>> from teachgrad.nn import recurrent
>>> w_ih, w_hh = torch.ones(1, 1), torch.zeros(1, 1)
>>> recurrent.rnn_tanh_cell(torch.tensor([[0.5]]), torch.zeros(1, 1), w_ih, w_hh)
tensor([[0.4621]])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .. import _creation, _dtypes
from .._tensor import Tensor
from ..ops import shape as _shape
from . import functional as F

State = tuple[Tensor, ...]  # (h,) for RNN and GRU, (h, c) for LSTM
Step = Callable[..., State]


# ----------------------------------------------------------------------------------------
# One time step. ``gates_x`` is the input's share of the gates, W_ih x + b_ih, already
# computed: a layer computes it for every time step at once (one big matrix product
# instead of one per step), a cell just before its step.
# ----------------------------------------------------------------------------------------
def _simple_step(activation: Callable[[Tensor], Tensor]) -> Step:
    def step(gates_x: Tensor, state: State, w_hh: Tensor, b_hh: Tensor | None,
             w_hr: Tensor | None = None) -> State:
        (h,) = state
        return (activation(F.linear(h, w_hh, b_hh) + gates_x),)

    return step


_rnn_tanh_step = _simple_step(F.tanh)
_rnn_relu_step = _simple_step(F.relu)


def _lstm_step(gates_x: Tensor, state: State, w_hh: Tensor, b_hh: Tensor | None,
               w_hr: Tensor | None = None) -> State:
    h, c = state
    gates = F.linear(h, w_hh, b_hh) + gates_x
    i, f, g, o = gates.chunk(4, 1)
    # The forget gate decides how much of the old cell to keep, the input gate how much of
    # the candidate g to write; the output gate how much of the cell to show as h.
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr is not None:  # a projected LSTM shows a smaller h: h W_hr^T
        h = h.matmul(w_hr.t())
    return h, c


def _gru_step(gates_x: Tensor, state: State, w_hh: Tensor, b_hh: Tensor | None,
              w_hr: Tensor | None = None) -> State:
    (h,) = state
    x_r, x_z, x_n = gates_x.chunk(3, 1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, 1)
    reset = (h_r + x_r).sigmoid()
    update = (h_z + x_z).sigmoid()
    # The reset gate scales the hidden part *including* b_hn, as in PyTorch (and cuDNN).
    candidate = (x_n + reset * h_n).tanh()
    # (1 - z) * n + z * h, written as PyTorch computes it (one op fewer).
    return ((h - candidate) * update + candidate,)


_STEPS: dict[str, Step] = {
    "RNN_TANH": _rnn_tanh_step, "RNN_RELU": _rnn_relu_step, "LSTM": _lstm_step,
    "GRU": _gru_step,
}


# ----------------------------------------------------------------------------------------
# Cells: one step from the raw input, with the checks of PyTorch's cell kernels
# ----------------------------------------------------------------------------------------
def _check_cell_input(input: Tensor, w_ih: Tensor) -> None:
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(
            f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}"
        )


def _check_cell_hidden(input: Tensor, hx: Tensor, hidden_size: int, label: int) -> None:
    if input.shape[0] != hx.shape[0]:
        raise RuntimeError(
            f"Input batch size {input.shape[0]} doesn't match hidden{label} batch size "
            f"{hx.shape[0]}"
        )
    if hx.dim() >= 2 and hx.shape[1] != hidden_size:
        raise RuntimeError(
            f"hidden{label} has inconsistent hidden_size: got {hx.shape[1]}, expected "
            f"{hidden_size}"
        )
    if hx.dim() != 2:  # PyTorch fails here with an IndexError from deep inside
        raise RuntimeError(
            f"hidden{label} must be 2-D (batch, hidden_size) as the input is 2-D, but got a "
            f"{hx.dim()}-D tensor"
        )


def _simple_cell(step: Step, input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                 b_ih: Tensor | None, b_hh: Tensor | None) -> Tensor:
    _check_cell_input(input, w_ih)
    _check_cell_hidden(input, hx, w_hh.shape[1], 0)
    return step(F.linear(input, w_ih, b_ih), (hx,), w_hh, b_hh)[0]


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """One step of an Elman RNN: ``tanh(input W_ih^T + b_ih + hx W_hh^T + b_hh)``.

    ``input`` is ``(batch, input_size)``, ``hx`` ``(batch, hidden_size)``.
    """
    return _simple_cell(_rnn_tanh_step, input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """One step of an Elman RNN with ReLU: ``relu(input W_ih^T + b_ih + hx W_hh^T + b_hh)``."""
    return _simple_cell(_rnn_relu_step, input, hx, w_ih, w_hh, b_ih, b_hh)


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
             b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> Tensor:
    """One step of a GRU (gates reset, update, new in PyTorch's order); returns the new h."""
    return _simple_cell(_gru_step, input, hx, w_ih, w_hh, b_ih, b_hh)


def lstm_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor,
              b_ih: Tensor | None = None, b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """One step of an LSTM (gates input, forget, cell, output); ``hx = (h, c)``, returns
    the new ``(h, c)``."""
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    h, c = hx
    _check_cell_input(input, w_ih)
    _check_cell_hidden(input, h, w_hh.shape[1], 0)
    _check_cell_hidden(input, c, w_hh.shape[1], 1)
    return _lstm_step(F.linear(input, w_ih, b_ih), (h, c), w_hh, b_hh)


# ----------------------------------------------------------------------------------------
# A layer: the cell applied along the whole sequence, one direction at a time
# ----------------------------------------------------------------------------------------
class MkldnnRnnLayerBackward0(_shape.StackBackward0):
    """A float32 LSTM layer's output: the stack of its steps' ``h``, named as PyTorch's CPU
    build names it (PyTorch runs such a layer as one oneDNN kernel, ``mkldnn_rnn_layer``,
    so ``print(lstm(x)[0])`` shows ``grad_fn=<MkldnnRnnLayerBackward0>``). The gradient
    is the stack's: each step's ``h`` gets its slice."""


def _layer_output(mode: str, steps_out: list[Tensor], packed: bool,
                  w_hr: Tensor | None) -> Tensor:
    """One direction's outputs joined in time order: a stack, or for packed data a cat.
    The stack is an ``MkldnnRnnLayerBackward0`` where PyTorch uses its oneDNN LSTM kernel:
    mode LSTM, float32, not packed, no projection."""
    if packed:
        return _shape.cat(steps_out)
    if mode == "LSTM" and w_hr is None and steps_out[0].dtype is _dtypes.float32:
        return MkldnnRnnLayerBackward0.apply(*steps_out, dim=0, dtype=steps_out[0]._data.dtype)
    return _shape.stack(steps_out)


def _forward_pass(step: Step, steps_x: Sequence[Tensor], state: State, weights: tuple,
                  sizes: Sequence[int]) -> tuple[list[Tensor], State]:
    """Steps ``0, 1, ..., T-1``. With packed sequences the batch shrinks as sequences end
    (``sizes`` is non-increasing): the rows that finish are set aside with their last state
    and put back together at the end, as PyTorch does."""
    outputs: list[Tensor] = []
    finished: list[State] = []
    for x_t, size in zip(steps_x, sizes):
        if size < state[0].shape[0]:
            finished.append(tuple(s[size:] for s in state))
            state = tuple(s[:size] for s in state)
        state = step(x_t, state, *weights)
        outputs.append(state[0])
    if finished:
        parts = [state, *reversed(finished)]  # rows in order: still running first
        state = tuple(_shape.cat([part[k] for part in parts]) for k in range(len(state)))
    return outputs, state


def _reverse_pass(step: Step, steps_x: Sequence[Tensor], initial: State, weights: tuple,
                  sizes: Sequence[int]) -> tuple[list[Tensor], State]:
    """Steps ``T-1, ..., 1, 0``. With packed sequences the batch grows as we walk back:
    a sequence joins, from its initial state, at its own last step."""
    outputs: list[Tensor] = []
    rows = initial[0].shape[0]
    state = initial if sizes[-1] == rows else tuple(s[:sizes[-1]] for s in initial)
    for x_t, size in zip(reversed(steps_x), reversed(sizes)):
        running = state[0].shape[0]
        if size > running:
            state = tuple(_shape.cat([s, h0[running:size]]) for s, h0 in zip(state, initial))
        state = step(x_t, state, *weights)
        outputs.append(state[0])
    outputs.reverse()  # back in time order
    return outputs, state


def recurrent_layers(mode: str, input: Tensor, batch_sizes: Sequence[int] | None,
                     hx: State, weights: Sequence[tuple], num_layers: int, dropout: float,
                     training: bool, bidirectional: bool) -> tuple[Tensor, State]:
    """Run a stack of recurrent layers over a sequence: what ``nn.RNN/LSTM/GRU`` compute.

    ``mode`` is ``'RNN_TANH'``, ``'RNN_RELU'``, ``'LSTM'`` or ``'GRU'``. ``input`` is
    time-major ``(L, N, H_in)``, or, with ``batch_sizes`` (a packed sequence), the packed
    data ``(sum(batch_sizes), H_in)``. ``hx`` holds the initial states, each
    ``(num_layers * num_directions, N, ·)``. ``weights`` has one tuple
    ``(w_ih, w_hh, b_ih, b_hh, w_hr)`` per layer and direction (layer 0 forward, layer 0
    reverse, layer 1 ...), ``None`` for what is absent.

    Returns the last layer's output (``(L, N, D * H_out)`` or packed data) and the final
    states, stacked like ``hx``. Dropout (probability ``dropout``, only when ``training``)
    is applied to each layer's output except the last.
    """
    step = _STEPS[mode]
    directions = 2 if bidirectional else 1
    initial = [h.unbind(0) for h in hx]
    finals: list[list[Tensor]] = [[] for _ in hx]
    layer_input = input
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            w_ih, w_hh, b_ih, b_hh, w_hr = weights[index]
            # The input's part of the gates, for every time step in one matrix product.
            gates_x = F.linear(layer_input, w_ih, b_ih)
            if batch_sizes is None:
                steps_x = gates_x.unbind(0)
                sizes = [gates_x.shape[1]] * len(steps_x)
            else:
                steps_x, sizes = gates_x.split(list(batch_sizes), 0), batch_sizes
            if not steps_x:
                raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
            run = _reverse_pass if direction == 1 else _forward_pass
            steps_out, final = run(step, steps_x, tuple(h[index] for h in initial),
                                   (w_hh, b_hh, w_hr), sizes)
            outputs.append(_layer_output(mode, steps_out, batch_sizes is not None, w_hr))
            for k, state in enumerate(final):
                finals[k].append(state)
        # Both directions side by side: the next layer sees the past and the future.
        layer_input = outputs[0] if directions == 1 else _shape.cat(outputs, -1)
        if dropout > 0 and training and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, training=True)
    return layer_input, tuple(_shape.stack(states) for states in finals)


def zeros_state(like: Tensor, *shape: int) -> Tensor:
    """The default initial state: zeros of ``shape`` in ``like``'s dtype."""
    return _creation.zeros(*shape, dtype=like.dtype)


__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "recurrent_layers"]
