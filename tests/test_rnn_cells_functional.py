"""``torch.lstm_cell`` & co. (one step) and ``torch.lstm``/``gru``/``rnn_tanh``/``rnn_relu``
(a stack of layers from a flat weight list), teachgrad/_aten_nn.py."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as tg
from teachgrad import nn
from teachgrad.autograd import gradcheck

rng = np.random.default_rng(1)


def t(*shape, requires_grad=False):
    return tg.tensor(rng.standard_normal(shape), requires_grad=requires_grad)


# --- cells, by hand and by finite differences ----------------------------------------------
def test_rnn_tanh_cell_by_hand():
    x, h = tg.tensor([[1.0, 2.0]]), tg.tensor([[0.5]])
    w_ih, w_hh = tg.tensor([[0.1, 0.2]]), tg.tensor([[0.3]])
    b_ih, b_hh = tg.tensor([0.05]), tg.tensor([-0.05])
    expected = np.tanh(0.1 + 0.4 + 0.15 + 0.05 - 0.05)
    assert tg.rnn_tanh_cell(x, h, w_ih, w_hh, b_ih, b_hh).item() == pytest.approx(expected)
    assert tg.rnn_relu_cell(x, -h, -w_ih, w_hh).item() == 0.0  # relu of a negative


def test_lstm_cell_by_hand():
    # One unit; every gate's pre-activation is the same number z = x·w.
    x, h, c = tg.tensor([[2.0]]), tg.tensor([[0.0]]), tg.tensor([[1.0]])
    w_ih, w_hh = tg.full((4, 1), 0.5), tg.zeros(4, 1)
    z = 1.0
    sig = 1 / (1 + np.exp(-z))
    c_new = sig * 1.0 + sig * np.tanh(z)  # forget·c + input·cell
    h_new = sig * np.tanh(c_new)
    h1, c1 = tg.lstm_cell(x, (h, c), w_ih, w_hh)
    assert c1.item() == pytest.approx(c_new) and h1.item() == pytest.approx(h_new)


@pytest.mark.parametrize("name", ["rnn_tanh_cell", "rnn_relu_cell", "gru_cell"])
def test_cells_gradcheck(name):
    gates = 3 if name == "gru_cell" else 1
    args = (t(3, 2, requires_grad=True), t(3, 4, requires_grad=True),
            t(4 * gates, 2, requires_grad=True), t(4 * gates, 4, requires_grad=True),
            t(4 * gates, requires_grad=True), t(4 * gates, requires_grad=True))
    assert gradcheck(getattr(tg, name), args)


def test_lstm_cell_gradcheck():
    x, h, c = t(2, 3, requires_grad=True), t(2, 4, requires_grad=True), \
        t(2, 4, requires_grad=True)
    w_ih, w_hh = t(16, 3, requires_grad=True), t(16, 4, requires_grad=True)
    assert gradcheck(lambda x, h, c, a, b: tg.lstm_cell(x, (h, c), a, b), (x, h, c, w_ih, w_hh))


def test_cell_input_size_error():
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 3 expected 2"):
        tg.rnn_tanh_cell(t(1, 3), t(1, 4), t(4, 2), t(4, 4))


# --- whole layers from flat weights: the same as the modules ------------------------------
@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_flat_weight_layers_equal_the_module(mode, bias, bidirectional, batch_first):
    kwargs = dict(num_layers=2, bias=bias, bidirectional=bidirectional, batch_first=batch_first)
    if mode == "LSTM":
        module = nn.LSTM(3, 4, **kwargs).double()
    elif mode == "GRU":
        module = nn.GRU(3, 4, **kwargs).double()
    else:
        module = nn.RNN(3, 4, nonlinearity=mode[4:].lower(), **kwargs).double()
    x = t(2, 5, 3) if batch_first else t(5, 2, 3)  # batch of 2, 5 steps
    layers = 2 * (2 if bidirectional else 1)
    h0 = t(layers, 2, 4)
    flags = (bias, 2, 0.0, False, bidirectional, batch_first)
    if mode == "LSTM":
        c0 = t(layers, 2, 4)
        out, h, c = tg.lstm(x, [h0, c0], module._flat_weights, *flags)
        expected_out, (expected_h, expected_c) = module(x, (h0, c0))
        assert tg.allclose(c, expected_c)
    else:
        out, h = getattr(tg, mode.lower())(x, h0, module._flat_weights, *flags)
        expected_out, expected_h = module(x, h0)
    assert tg.allclose(out, expected_out) and tg.allclose(h, expected_h)


def test_lstm_with_projections():
    module = nn.LSTM(3, 5, proj_size=2).double()
    x, h0, c0 = t(4, 2, 3), t(1, 2, 2), t(1, 2, 5)
    out, h, c = tg.lstm(x, [h0, c0], module._flat_weights, True, 1, 0.0, False, False, False)
    expected_out, (expected_h, expected_c) = module(x, (h0, c0))
    assert tg.allclose(out, expected_out) and tg.allclose(h, expected_h)
    assert tg.allclose(c, expected_c)


def test_packed_form_equals_the_module():
    module = nn.GRU(3, 4).double()
    packed = nn.utils.rnn.pack_sequence([t(4, 3), t(2, 3)])
    h0 = t(1, 2, 4)
    out, h = tg.gru(packed.data, packed.batch_sizes, h0, module._flat_weights, True, 1, 0.0,
                    False, False)
    expected_out, expected_h = module(packed, h0)
    assert tg.allclose(out, expected_out.data) and tg.allclose(h, expected_h)


def test_flat_layers_gradcheck():
    w = [t(12, 2, requires_grad=True), t(12, 4, requires_grad=True),
         t(12, requires_grad=True), t(12, requires_grad=True)]
    x, h0 = t(3, 2, 2, requires_grad=True), t(1, 2, 4, requires_grad=True)

    def run(x, h0, *w):
        return tg.gru(x, h0, list(w), True, 1, 0.0, False, False, False)[0]

    assert gradcheck(run, (x, h0, *w))


def test_wrong_number_of_weights():
    with pytest.raises(RuntimeError, match="expected 4 weights"):
        tg.rnn_tanh(t(3, 2, 2), t(1, 2, 4), [t(4, 2), t(4, 4)], True, 1, 0.0, False, False,
                    False)


# --- against PyTorch -------------------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("name", ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"])
def test_cells_match_torch(name):
    torch = pytest.importorskip("torch")
    gates = {"lstm_cell": 4, "gru_cell": 3}.get(name, 1)
    arrays = [rng.standard_normal(s) for s in
              [(3, 2), (3, 4), (4 * gates, 2), (4 * gates, 4), (4 * gates,), (4 * gates,)]]
    cell_state = rng.standard_normal((3, 4))
    results = []
    for lib in (tg, torch):
        ts = [lib.tensor(a, requires_grad=True) for a in arrays]
        hx = [ts[1], lib.tensor(cell_state)] if name == "lstm_cell" else ts[1]
        out = getattr(lib, name)(ts[0], hx, *ts[2:])
        first = out[0] if isinstance(out, tuple) else out
        first.sum().backward()
        results.append(([o.detach().numpy() for o in (out if isinstance(out, tuple) else
                                                      (out,))],
                        [x.grad.numpy() for x in ts]))
    for ours, theirs in zip(results[0][0] + results[0][1], results[1][0] + results[1][1]):
        assert np.allclose(ours, theirs)


@pytest.mark.torch
@pytest.mark.parametrize("name", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
def test_layers_match_torch(name):
    torch = pytest.importorskip("torch")
    gates = {"lstm": 4, "gru": 3}.get(name, 1)
    shapes = []
    for layer in range(2):
        for _direction in range(2):
            shapes += [(4 * gates, 3 if layer == 0 else 8), (4 * gates, 4), (4 * gates,),
                       (4 * gates,)]
    weights = [rng.standard_normal(s) for s in shapes]
    x, h0, c0 = (rng.standard_normal(s) for s in [(2, 5, 3), (4, 2, 4), (4, 2, 4)])
    results = []
    for lib in (tg, torch):
        w = [lib.tensor(a, requires_grad=True) for a in weights]
        hx = [lib.tensor(h0), lib.tensor(c0)] if name == "lstm" else lib.tensor(h0)
        out = getattr(lib, name)(lib.tensor(x), hx, w, True, 2, 0.0, False, True, True)
        out[0].sum().backward()
        results.append(([o.detach().numpy() for o in out], [p.grad.numpy() for p in w]))
    assert len(results[0][0]) == len(results[1][0])
    for ours, theirs in zip(results[0][0] + results[0][1], results[1][0] + results[1][1]):
        assert ours.shape == theirs.shape and np.allclose(ours, theirs)


def _gru_weights(layers: int) -> list:
    first = [tg.ones(12, 3), tg.ones(12, 4), tg.ones(12), tg.ones(12)]
    return first + [tg.ones(12, 4), tg.ones(12, 4), tg.ones(12), tg.ones(12)] * (layers - 1)


@pytest.mark.parametrize("hx, layers", [((2, 2, 4), 1), ((1, 2, 4), 2), ((2, 4), 1)])
def test_layers_check_the_number_of_initial_states(hx, layers):
    # One initial state per layer and direction: extra ones were ignored, missing ones
    # raised an IndexError from deep inside.
    with pytest.raises(RuntimeError, match="Expected more hidden states in stacked_rnn"):
        tg.gru(tg.ones(5, 2, 3), tg.zeros(hx), _gru_weights(layers), True, layers, 0.0,
               False, False, False)


@pytest.mark.parametrize("batch_first", [False, True])
def test_layers_refuse_initial_states_of_another_batch(batch_first):
    # Three initial states for two sequences were broadcast into three outputs.
    x = tg.ones(2, 5, 3) if batch_first else tg.ones(5, 2, 3)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size "
                       r"of tensor b \(2\) at non-singleton dimension 0"):
        tg.gru(x, tg.zeros(1, 3, 4), _gru_weights(1), True, 1, 0.0, False, False, batch_first)


def test_lstm_cell_wants_two_hidden_states():
    with pytest.raises(RuntimeError, match="lstm_cell expects two hidden states"):
        tg.lstm_cell(tg.ones(2, 3), [tg.zeros(2, 4)], tg.ones(16, 3), tg.ones(16, 4))
