"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` over whole sequences, and their one-step
cells ``RNNCell``, ``LSTMCell``, ``GRUCell``.

The arithmetic lives in :mod:`teachgrad.nn.recurrent`; these modules own the weights (with
PyTorch's names, shapes, order and initialisation) and turn the many input layouts
(batched or not, ``batch_first``, packed sequences) into the one it computes on.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from ..._creation import _check_device, empty
from ..._tensor import Tensor
from ..._warn import warn_user
from ...ops.order_statistics import TransposeBackward1
from ...ops.shape import TransposeBackward0
from .. import init, recurrent
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}  # gate blocks stacked in W


def _reject_other_arguments(kwargs: dict) -> None:
    """RNN and GRU take every argument LSTM does but ``proj_size``; say so as PyTorch does."""
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    if kwargs:
        raise TypeError(
            f"RNNBase.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'"
        )


class RNNBase(Module):
    """What ``RNN``, ``LSTM`` and ``GRU`` share: the parameters of every layer and
    direction, the input checks, and ``forward``.

    Layer ``k`` has ``weight_ih_lk`` ``(gates·hidden_size, input)``, ``weight_hh_lk``
    ``(gates·hidden_size, hidden)``, and with ``bias`` ``bias_ih_lk``, ``bias_hh_lk``
    (two biases where one would do: PyTorch keeps both, as cuDNN does). A bidirectional
    layer has a second set ending in ``_reverse``. All start uniform in ``±1/√hidden_size``.
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        _check_device(device)
        float(dropout)  # (PyTorch converts it first: None or 1j get float()'s TypeError)
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warn_user(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}", UserWarning,
            )
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                                f"{type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(
                f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size

        # (a plain RNN's gate size is hidden_size itself, as in PyTorch: hidden_size=True
        # then reaches empty() as a bool and is refused, where 1 * True would be 1)
        gate_size = hidden_size if _GATES[mode] == 1 else _GATES[mode] * hidden_size
        output_size = proj_size or hidden_size  # what h holds (and the layer outputs)
        directions = 2 if bidirectional else 1
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else output_size * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = {"weight_ih": (gate_size, layer_input_size),
                          "weight_hh": (gate_size, output_size)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                names = []
                for kind, shape in shapes.items():
                    setattr(self, kind + suffix, Parameter(empty(shape, dtype=dtype)))
                    names.append(kind + suffix)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias uniform in ``±1/√hidden_size``, as in PyTorch."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def flatten_parameters(self) -> None:
        """Nothing to do: PyTorch packs the weights into one block for cuDNN (GPUs only)."""

    @property
    def _flat_weights(self) -> list[Parameter]:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters, one list per layer and direction (in ``state_dict`` order)."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def _layer_weights(self) -> list[tuple]:
        """``(w_ih, w_hh, b_ih, b_hh, w_hr)`` per layer and direction, ``None`` if absent."""
        kinds = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")
        result = []
        for names in self._all_weights:
            by_kind = {name.split("_l")[0]: getattr(self, name) for name in names}
            result.append(tuple(by_kind.get(kind) for kind in kinds))
        return result

    # ------------------------------------------------------------------------------------
    # Checks, with PyTorch's names and messages
    # ------------------------------------------------------------------------------------
    def check_input(self, input: Tensor, batch_sizes: Tensor | list | None) -> None:
        """The input's dtype (the weights'), number of dimensions and feature size."""
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: "
                f"model.to({input.dtype})"
            )
        expected_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {input.shape[-1]}"
            )

    def _mini_batch(self, input: Tensor, batch_sizes: Tensor | list | None) -> int:
        if batch_sizes is not None:
            return int(batch_sizes[0])
        return input.shape[0] if self.batch_first else input.shape[1]

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: Tensor | list | None
                                 ) -> tuple[int, int, int]:
        """``(num_layers * num_directions, batch, proj_size or hidden_size)``."""
        directions = 2 if self.bidirectional else 1
        return (self.num_layers * directions, self._mini_batch(input, batch_sizes),
                self.proj_size or self.hidden_size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple[int, int, int],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        """Raise PyTorch's RuntimeError unless ``hx`` has shape ``expected_hidden_size``."""
        if tuple(hx.shape) != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.shape)))

    def check_forward_args(self, input: Tensor, hidden: Any,
                           batch_sizes: Tensor | list | None) -> None:
        """Check the input's and the hidden state's shapes, with PyTorch's errors."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Any, permutation: Tensor | None) -> Any:
        """Reorder the batch dimension of the state(s) (for packed, sorted batches)."""
        if permutation is None:
            return hx
        if isinstance(hx, (tuple, list)):
            return tuple(h.index_select(1, permutation) for h in hx)
        return hx.index_select(1, permutation)

    def _check_hx_dims(self, hx: Tensor, batched: bool) -> Tensor:
        """RNN and GRU: ``hx`` has one dimension more for batched input; unsqueeze it if not."""
        want, kind = (3, "batched 3-D") if batched else (2, "unbatched 2-D")
        if hx.dim() != want:
            raise RuntimeError(
                f"For {kind} input, hx should also be {want}-D but got {hx.dim()}-D tensor")
        return hx if batched else hx.unsqueeze(1)

    def _input_dims_message(self, dims: int) -> str:
        return f"RNN: Expected input to be 2D or 3D, got {dims}D tensor instead"

    # ------------------------------------------------------------------------------------
    # forward
    # ------------------------------------------------------------------------------------
    def forward(self, input: Tensor | PackedSequence, hx: Any = None) -> tuple[Any, Any]:
        """``(output, h_n)`` (LSTM: ``(output, (h_n, c_n))``).

        ``input`` is ``(L, N, H_in)`` (``(N, L, H_in)`` with ``batch_first``), an unbatched
        ``(L, H_in)``, or a :class:`~teachgrad.nn.utils.rnn.PackedSequence`. ``hx``
        defaults to zeros, shaped ``(num_layers * num_directions, N, H_out)``. ``output``
        holds the last layer's ``h`` at every step (both directions side by side);
        ``h_n`` every layer's ``h`` after its last step.
        """
        is_lstm = self.mode == "LSTM"
        packed = isinstance(input, PackedSequence)
        batch_dim = 0 if self.batch_first else 1
        batched = True
        if packed:
            input, batch_sizes_tensor, sorted_indices, unsorted_indices = input
            batch_sizes = [int(size) for size in batch_sizes_tensor.tolist()]
        else:
            batch_sizes = sorted_indices = unsorted_indices = None
            if input.dim() not in (2, 3):
                raise ValueError(self._input_dims_message(input.dim()))
            batched = input.dim() == 3
            if not batched:
                input = input.unsqueeze(batch_dim)
            if hx is not None:
                hx = self._check_hx_dims(hx, batched)
        if hx is None:
            directions = 2 if self.bidirectional else 1
            batch = self._mini_batch(input, batch_sizes)
            layers = self.num_layers * directions
            h0 = recurrent.zeros_state(input, layers, batch, self.proj_size or self.hidden_size)
            hx = (h0, recurrent.zeros_state(input, layers, batch, self.hidden_size)) \
                if is_lstm else h0
        self.check_forward_args(input, hx, batch_sizes)
        hx = self.permute_hidden(hx, sorted_indices)
        if not packed and self.batch_first:
            input = input.transpose(0, 1)  # the computation runs time-major
        output, final = recurrent.recurrent_layers(
            self.mode, input, batch_sizes, hx if is_lstm else (hx,), self._layer_weights(),
            self.num_layers, self.dropout, self.training, self.bidirectional,
        )
        if packed:
            output = PackedSequence(output, batch_sizes_tensor, sorted_indices, unsorted_indices)
        else:
            if self.batch_first:
                # PyTorch's RNN and GRU kernels end in an in-place transpose_ (its node is
                # TransposeBackward1); its LSTM returns a plain transpose
                flip = TransposeBackward0 if is_lstm else TransposeBackward1
                output = flip.apply(output, dim0=0, dim1=1)
            if not batched:
                output = output.squeeze(batch_dim)
                final = tuple(state.squeeze(1) for state in final)
        final = self.permute_hidden(final, unsorted_indices)
        return output, (final if is_lstm else final[0])

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """An Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` at every
    step (``nonlinearity='relu'`` for ReLU), stacked ``num_layers`` deep.

    >>> import teachgrad as torch
    >>> rnn = torch.nn.RNN(10, 20, num_layers=2)
    >>> output, h_n = rnn(torch.randn(5, 3, 10))        # (L, N, H_in)
    >>> output.shape, h_n.shape
    (teachgrad.Size([5, 3, 20]), teachgrad.Size([2, 3, 20]))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device: Any = None,
                 dtype: Any = None, **kwargs: Any) -> None:
        _reject_other_arguments(kwargs)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory: besides ``h``, a cell state ``c`` that gates update.

    At every step, from ``W_ih x_t + b_ih + W_hh h_{t-1} + b_hh`` split into four gates
    (PyTorch's order: input ``i``, forget ``f``, cell ``g``, output ``o``)::

        c_t = σ(f) * c_{t-1} + σ(i) * tanh(g)        h_t = σ(o) * tanh(c_t)

    Because ``c`` is carried by ``*`` and ``+`` only, gradients survive many steps. With
    ``proj_size > 0``, ``h_t`` is projected down by ``weight_hr_lk`` ``(proj_size, hidden)``.

    >>> import teachgrad as torch
    >>> lstm = torch.nn.LSTM(10, 20, num_layers=2, batch_first=True)
    >>> lstm
    LSTM(10, 20, num_layers=2, batch_first=True)
    >>> output, (h_n, c_n) = lstm(torch.randn(3, 5, 10))  # (N, L, H_in)
    >>> output.shape, h_n.shape, c_n.shape
    (teachgrad.Size([3, 5, 20]), teachgrad.Size([2, 3, 20]), teachgrad.Size([2, 3, 20]))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device=device, dtype=dtype)

    def get_expected_cell_size(self, input: Tensor, batch_sizes: Tensor | list | None
                               ) -> tuple[int, int, int]:
        """``(num_layers * num_directions, batch, hidden_size)``: ``c`` is never projected."""
        directions = 2 if self.bidirectional else 1
        return (self.num_layers * directions, self._mini_batch(input, batch_sizes),
                self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden: Any,
                           batch_sizes: Tensor | list | None) -> None:
        """Check the input's, ``h_0``'s and ``c_0``'s shapes, with PyTorch's errors."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def _check_hx_dims(self, hx: Any, batched: bool) -> tuple[Tensor, Tensor]:
        want, kind = (3, "batched 3-D") if batched else (2, "unbatched 2-D")
        if hx[0].dim() != want or hx[1].dim() != want:
            raise RuntimeError(
                f"For {kind} input, hx and cx should also be {want}-D but got "
                f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
            )
        return (hx[0], hx[1]) if batched else (hx[0].unsqueeze(1), hx[1].unsqueeze(1))

    def _input_dims_message(self, dims: int) -> str:
        return f"LSTM: Expected input to be 2D or 3D, got {dims}D instead"


class GRU(RNNBase):
    """Gated recurrent unit: an update gate ``z`` chooses between keeping ``h`` and a new
    candidate ``n``, whose hidden part a reset gate ``r`` scales (PyTorch's order r, z, n)::

        r = σ(W_ir x + b_ir + W_hr h + b_hr)      z = σ(W_iz x + b_iz + W_hz h + b_hz)
        n = tanh(W_in x + b_in + r * (W_hn h + b_hn))      h' = (1 - z) * n + z * h

    >>> import teachgrad as torch
    >>> gru = torch.nn.GRU(4, 8, bidirectional=True)
    >>> output, h_n = gru(torch.randn(6, 4))          # unbatched (L, H_in)
    >>> output.shape, h_n.shape
    (teachgrad.Size([6, 16]), teachgrad.Size([2, 8]))
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, device: Any = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        _reject_other_arguments(kwargs)
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)

    def _input_dims_message(self, dims: int) -> str:
        return f"GRU: Expected input to be 2D or 3D, got {dims}D instead"


# ----------------------------------------------------------------------------------------
# Cells: one time step
# ----------------------------------------------------------------------------------------
class RNNCellBase(Module):
    """What the cells share: ``weight_ih`` ``(chunks·hidden, input)``, ``weight_hh``
    ``(chunks·hidden, hidden)``, ``bias_ih`` and ``bias_hh``, all uniform in
    ``±1/√hidden_size``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        _check_device(device)
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), dtype=dtype))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias uniform in ``±1/√hidden_size``, as in PyTorch."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _batched(self, input: Tensor, hx: Tensor | None, label: str) -> tuple[bool, Tensor]:
        """Check the dimensions (1-D means one unbatched sample) and add the batch one."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(
                f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {hx.dim()}D instead")
        batched = input.dim() == 2
        return batched, input if batched else input.unsqueeze(0)

    def _zeros(self, input: Tensor) -> Tensor:
        return recurrent.zeros_state(input, input.shape[0], self.hidden_size)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    >>> import teachgrad as torch
    >>> cell = torch.nn.RNNCell(10, 20)
    >>> h = torch.zeros(3, 20)
    >>> for x in torch.randn(6, 3, 10):       # you write the loop over time
    ...     h = cell(x, h)
    >>> h.shape
    teachgrad.Size([3, 20])
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        batched, input = self._batched(input, hx, "hidden")
        if hx is None:
            hx = self._zeros(input)
        elif not batched:
            hx = hx.unsqueeze(0)
        if self.nonlinearity == "tanh":
            cell = recurrent.rnn_tanh_cell
        elif self.nonlinearity == "relu":
            cell = recurrent.rnn_relu_cell
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        h = cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One step of an LSTM: ``(h', c') = cell(x, (h, c))``, gates i, f, g, o (see
    :class:`LSTM`).

    >>> import teachgrad as torch
    >>> cell = torch.nn.LSTMCell(10, 20)
    >>> h, c = cell(torch.randn(3, 10))       # state defaults to zeros
    >>> h.shape, c.shape
    (teachgrad.Size([3, 20]), teachgrad.Size([3, 20]))
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
                ) -> tuple[Tensor, Tensor]:
        batched, input = self._batched(input, None, "hidden")
        if hx is not None:
            for index, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(
                        f"LSTMCell: Expected hx[{index}] to be 1D or 2D, got {value.dim()}D "
                        "instead"
                    )
        if hx is None:
            zeros = self._zeros(input)
            hx = (zeros, zeros)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = recurrent.lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                                   self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One step of a GRU: ``h' = cell(x, h)``, gates r, z, n (see :class:`GRU`).

    >>> import teachgrad as torch
    >>> torch.nn.GRUCell(10, 20)(torch.randn(10)).shape   # unbatched
    teachgrad.Size([20])
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        batched, input = self._batched(input, hx, "hidden")
        if hx is None:
            hx = self._zeros(input)
        elif not batched:
            hx = hx.unsqueeze(0)
        h = recurrent.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih,
                               self.bias_hh)
        return h if batched else h.squeeze(0)


__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
