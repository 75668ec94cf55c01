"""Recurrent layers (RNN, LSTM, GRU and their cells) and nn.utils.rnn: gradients by finite
differences, values by a NumPy re-derivation of the equations, and PyTorch parity."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
from parity import raises_as_torch

import teachgrad
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck
from teachgrad.nn import recurrent
from teachgrad.nn.utils import rnn as rnn_utils


def leaf(shape, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    return teachgrad.tensor(rng.standard_normal(shape) * scale, requires_grad=True)


def double(module):
    teachgrad.manual_seed(0)
    return module.double()


def as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


# ----------------------------------------------------------------------------------------
# Gradients of every order, by finite differences (float64)
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("cell", [
    nn.RNNCell(2, 3, dtype=teachgrad.float64),
    nn.RNNCell(2, 3, nonlinearity="relu", dtype=teachgrad.float64),
    nn.RNNCell(2, 3, bias=False, dtype=teachgrad.float64),
    nn.GRUCell(2, 3, dtype=teachgrad.float64),
    nn.LSTMCell(2, 3, dtype=teachgrad.float64),
], ids=["rnn_tanh", "rnn_relu", "rnn_no_bias", "gru", "lstm"])
def test_cells_gradcheck_and_gradgradcheck(cell):
    x, h = leaf((2, 2), 1), leaf((2, 3), 2, 0.5)
    params = tuple(cell.parameters())
    if isinstance(cell, nn.LSTMCell):
        c = leaf((2, 3), 3, 0.5)
        inputs = (x, h, c, *params)

        def fn(x, h, c, *_):
            return cell(x, (h, c))
    else:
        inputs = (x, h, *params)

        def fn(x, h, *_):
            return cell(x, h)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("name,kwargs,shape", [
    ("RNN", {"num_layers": 2, "bidirectional": True}, (3, 2, 2)),
    ("RNN", {"nonlinearity": "relu", "batch_first": True}, (2, 3, 2)),
    ("GRU", {"num_layers": 2}, (3, 2, 2)),
    ("GRU", {"bidirectional": True, "bias": False}, (3, 2)),  # unbatched
    ("LSTM", {"bidirectional": True}, (3, 2, 2)),
    ("LSTM", {"num_layers": 2, "batch_first": True}, (2, 2, 2)),
    ("LSTM", {"proj_size": 1}, (3, 2, 2)),
])
def test_layers_gradcheck_and_gradgradcheck(name, kwargs, shape):
    layer = getattr(nn, name)(2, 2, dtype=teachgrad.float64, **kwargs)
    x = leaf(shape, 1)
    params = tuple(layer.parameters())

    def fn(x, *_):
        output, hidden = layer(x)
        return (output, *as_tuple(hidden[0] if isinstance(hidden, tuple) else hidden))

    assert gradcheck(fn, (x, *params))
    # Second order: through the input and the recurrent weights (all of them is slow).
    assert gradgradcheck(fn, (x, layer.weight_hh_l0))


def test_initial_state_gradcheck():
    lstm = nn.LSTM(2, 2, num_layers=2, dtype=teachgrad.float64)
    x, h0, c0 = leaf((2, 2, 2), 1), leaf((2, 2, 2), 2), leaf((2, 2, 2), 3)

    def fn(x, h0, c0):
        output, (h_n, c_n) = lstm(x, (h0, c0))
        return output, h_n, c_n

    assert gradcheck(fn, (x, h0, c0))
    assert gradgradcheck(fn, (x, h0, c0))


def test_packed_sequence_gradcheck():
    gru = nn.GRU(1, 2, bidirectional=True, dtype=teachgrad.float64)
    x, h0 = leaf((3, 3, 1), 1), leaf((2, 3, 2), 2)
    lengths = [2, 3, 1]

    def fn(x, h0, *_):
        packed = rnn_utils.pack_padded_sequence(x, lengths, enforce_sorted=False)
        output, h_n = gru(packed, h0)
        return rnn_utils.pad_packed_sequence(output, padding_value=3.0)[0], h_n

    assert gradcheck(fn, (x, h0, *gru.parameters()))
    assert gradgradcheck(fn, (x, h0, gru.weight_hh_l0_reverse))


def test_pad_sequence_gradcheck():
    a, b = leaf((3, 2), 1), leaf((1, 2), 2)

    def fn(a, b):
        return rnn_utils.pad_sequence([a, b], padding_value=-1.0, padding_side="left")

    assert gradcheck(fn, (a, b))
    assert gradgradcheck(fn, (a, b))


# ----------------------------------------------------------------------------------------
# Values: the equations re-derived in NumPy (PyTorch's documented gate order)
# ----------------------------------------------------------------------------------------
def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def numpy_weights(cell):
    return [p.detach().numpy() for p in (cell.weight_ih, cell.weight_hh, cell.bias_ih,
                                         cell.bias_hh)]


def test_cells_follow_pytorch_equations_and_gate_order():
    x, h, c = (leaf(shape, seed).detach() for seed, shape in
               enumerate([(2, 3), (2, 4), (2, 4)]))
    xn, hn, cn = x.numpy(), h.numpy(), c.numpy()

    cell = double(nn.LSTMCell(3, 4))
    w_ih, w_hh, b_ih, b_hh = numpy_weights(cell)
    i, f, g, o = np.split(xn @ w_ih.T + b_ih + hn @ w_hh.T + b_hh, 4, axis=1)
    c_new = sigmoid(f) * cn + sigmoid(i) * np.tanh(g)
    h_new = sigmoid(o) * np.tanh(c_new)
    ours_h, ours_c = cell(x.double(), (h.double(), c.double()))
    np.testing.assert_allclose(ours_h.detach().numpy(), h_new, rtol=1e-12)
    np.testing.assert_allclose(ours_c.detach().numpy(), c_new, rtol=1e-12)

    cell = double(nn.GRUCell(3, 4))
    w_ih, w_hh, b_ih, b_hh = numpy_weights(cell)
    gi, gh = np.split(xn @ w_ih.T + b_ih, 3, 1), np.split(hn @ w_hh.T + b_hh, 3, 1)
    r, z = sigmoid(gi[0] + gh[0]), sigmoid(gi[1] + gh[1])
    n = np.tanh(gi[2] + r * gh[2])  # r multiplies W_hn h + b_hn, bias included
    np.testing.assert_allclose(cell(x, h).detach().numpy(), (1 - z) * n + z * hn, rtol=1e-12)

    cell = double(nn.RNNCell(3, 4, nonlinearity="relu"))
    w_ih, w_hh, b_ih, b_hh = numpy_weights(cell)
    expected = np.maximum(xn @ w_ih.T + b_ih + hn @ w_hh.T + b_hh, 0)
    np.testing.assert_allclose(cell(x, h).detach().numpy(), expected, rtol=1e-12)


def test_layer_is_the_cell_run_along_the_sequence():
    teachgrad.manual_seed(3)
    gru = nn.GRU(3, 4, num_layers=2, bidirectional=True).double()
    x, h0 = leaf((5, 2, 3), 1).detach(), leaf((4, 2, 4), 2).detach()
    output, h_n = gru(x, h0)

    def run(layer, direction, inputs, h):
        suffix = f"_l{layer}" + ("_reverse" if direction else "")
        weights = [getattr(gru, f"{kind}{suffix}")
                   for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        steps = range(len(inputs) - 1, -1, -1) if direction else range(len(inputs))
        outs = [None] * len(inputs)
        for t in steps:
            h = recurrent.gru_cell(inputs[t], h, *weights)
            outs[t] = h
        return teachgrad.stack(outs), h

    layer0 = [run(0, d, x, h0[d]) for d in (0, 1)]
    middle = teachgrad.cat([layer0[0][0], layer0[1][0]], 2)
    layer1 = [run(1, d, middle, h0[2 + d]) for d in (0, 1)]
    expected = teachgrad.cat([layer1[0][0], layer1[1][0]], 2)
    np.testing.assert_allclose(output.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    finals = [layer0[0][1], layer0[1][1], layer1[0][1], layer1[1][1]]
    np.testing.assert_allclose(h_n.detach().numpy(), teachgrad.stack(finals).detach().numpy(),
                               rtol=1e-12)


def test_unbatched_and_batch_first_agree_with_batched():
    lstm = double(nn.LSTM(3, 4, num_layers=2))
    first = double(nn.LSTM(3, 4, num_layers=2, batch_first=True))
    first.load_state_dict(lstm.state_dict())
    x = leaf((5, 3), 1).detach()
    with teachgrad.no_grad():
        out, (h, c) = lstm(x)
        out_b, (h_b, c_b) = lstm(x.unsqueeze(1))
        out_f, (h_f, c_f) = first(x.unsqueeze(0))
    assert out.shape == (5, 4) and h.shape == (2, 4) and c.shape == (2, 4)
    np.testing.assert_array_equal(out.numpy(), out_b[:, 0].numpy())
    np.testing.assert_array_equal(out.numpy(), out_f[0].numpy())
    np.testing.assert_array_equal(h.numpy(), h_b[:, 0].numpy())
    np.testing.assert_array_equal(c.numpy(), c_f[:, 0].numpy())


def test_packed_sequence_final_state_is_each_sequences_last_step():
    rnn = double(nn.RNN(2, 3, bidirectional=True)).requires_grad_(False)
    sequences = [leaf((n, 2), n).detach() for n in (2, 4, 1)]
    packed = rnn_utils.pack_sequence(sequences, enforce_sorted=False)
    output, h_n = rnn(packed)
    padded, lengths = rnn_utils.pad_packed_sequence(output, batch_first=True)
    assert lengths.tolist() == [2, 4, 1] and lengths.dtype == teachgrad.int64
    for b, seq in enumerate(sequences):  # each sequence alone, unbatched: no padding at all
        alone, h_alone = rnn(seq)
        np.testing.assert_allclose(padded[b, :len(seq)].numpy(), alone.numpy(), rtol=1e-12)
        assert np.all(padded[b, len(seq):].numpy() == 0)
        np.testing.assert_allclose(h_n[:, b].numpy(), h_alone.numpy(), rtol=1e-12)


def test_dropout_between_layers_only_while_training():
    teachgrad.manual_seed(0)
    both = nn.GRU(2, 3, num_layers=2, dropout=1.0)
    top = nn.GRU(3, 3)  # the second layer alone
    top.load_state_dict({k.replace("_l1", "_l0"): v
                         for k, v in both.state_dict().items() if "_l1" in k})
    x = leaf((4, 2, 2), 1).float()
    # p=1 zeroes everything the first layer hands up: the second layer sees zeros.
    out, h_n = both(x)
    expected, h_top = top(teachgrad.zeros(4, 2, 3))
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(h_n[1].detach().numpy(), h_top[0].detach().numpy(), rtol=1e-6)
    both.eval()  # no dropout: the second layer sees the first's output, not zeros
    assert not np.allclose(both(x)[0].detach().numpy(), expected.detach().numpy())
    one = nn.GRU(2, 3, num_layers=2, dropout=0.5).eval()
    np.testing.assert_array_equal(one(x)[0].detach().numpy(), one(x)[0].detach().numpy())


def test_init_bounds_and_generator():
    teachgrad.manual_seed(7)
    first = nn.LSTM(3, 25, num_layers=2, bidirectional=True, proj_size=4)
    teachgrad.manual_seed(7)
    second = nn.LSTM(3, 25, num_layers=2, bidirectional=True, proj_size=4)
    for p, q in zip(first.parameters(), second.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
        assert np.abs(p.detach().numpy()).max() <= 1 / 5  # 1/√hidden_size
        assert np.abs(p.detach().numpy()).max() > 0.15  # uniform: reaches near the bound
    cell = nn.GRUCell(3, 100)
    assert 0.09 < np.abs(cell.weight_hh.detach().numpy()).max() <= 0.1


def test_parameter_names_all_weights_and_flatten_parameters():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, bias=False)
    assert list(lstm.state_dict()) == [
        "weight_ih_l0", "weight_hh_l0", "weight_ih_l0_reverse", "weight_hh_l0_reverse",
        "weight_ih_l1", "weight_hh_l1", "weight_ih_l1_reverse", "weight_hh_l1_reverse"]
    assert lstm.weight_ih_l1.shape == (16, 8)
    assert [[p.shape for p in layer] for layer in lstm.all_weights][1] == [(16, 3), (16, 4)]
    assert lstm.all_weights[3][0] is lstm.weight_ih_l1_reverse
    assert lstm.flatten_parameters() is None
    assert list(nn.GRUCell(2, 3, bias=False).state_dict()) == ["weight_ih", "weight_hh"]


def test_dtype_conversion_and_save_load_round_trip():
    gru = nn.GRU(2, 3).double()
    output, _ = gru(leaf((4, 1, 2)).detach())
    assert output.dtype == teachgrad.float64
    buffer = io.BytesIO()
    teachgrad.save(gru.state_dict(), buffer)
    buffer.seek(0)
    other = nn.GRU(2, 3).double()
    other.load_state_dict(teachgrad.load(buffer))
    x = leaf((4, 1, 2), 5).detach()
    np.testing.assert_array_equal(gru(x)[0].detach().numpy(), other(x)[0].detach().numpy())


def test_errors():
    lstm = nn.LSTM(10, 20)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. "
                                           "Expected 10, got 5"):
        lstm(teachgrad.zeros(3, 2, 5))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 3, 20\), got "
                                           r"\[1, 2, 20\]"):
        lstm(teachgrad.zeros(4, 3, 10), (teachgrad.zeros(1, 2, 20), teachgrad.zeros(1, 3, 20)))
    with pytest.raises(ValueError, match="RNN input dtype"):
        lstm(teachgrad.zeros(4, 3, 10, dtype=teachgrad.float64))
    with pytest.raises(RuntimeError, match="hidden0 has inconsistent hidden_size: got 21, "
                                           "expected 20"):
        nn.GRUCell(10, 20)(teachgrad.zeros(3, 10), teachgrad.zeros(3, 21))
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        nn.GRU(10, 20, proj_size=5)
    with pytest.raises(RuntimeError, match="received an empty list of sequences"):
        rnn_utils.pad_sequence([])
    with pytest.raises(RuntimeError, match="at most the padded length 4"):
        rnn_utils.pack_padded_sequence(teachgrad.zeros(4, 2, 1), [5, 2])
    with pytest.raises(RuntimeError, match="hidden0 must be 2-D"):
        nn.GRUCell(10, 20)(teachgrad.zeros(20, 10), teachgrad.zeros(20))


def test_pad_and_pack_by_hand():
    a, b, c = teachgrad.tensor([1.0, 2.0]), teachgrad.tensor([3.0]), teachgrad.tensor(
        [4.0, 5.0, 6.0])
    padded = rnn_utils.pad_sequence([a, b, c], batch_first=True, padding_value=9)
    assert padded.tolist() == [[1, 2, 9], [3, 9, 9], [4, 5, 6]]
    left = rnn_utils.pad_sequence([a, b, c], padding_side="left")
    assert left.tolist() == [[0, 0, 4], [1, 0, 5], [2, 3, 6]]
    packed = rnn_utils.pack_sequence([a, b, c], enforce_sorted=False)
    # sorted by length: c, a, b; then time step by time step
    assert packed.data.tolist() == [4, 1, 3, 5, 2, 6]
    assert packed.batch_sizes.tolist() == [3, 2, 1]
    assert packed.sorted_indices.tolist() == [2, 0, 1]
    assert packed.unsorted_indices.tolist() == [1, 2, 0]
    assert [s.tolist() for s in rnn_utils.unpack_sequence(packed)] == [[1, 2], [3], [4, 5, 6]]
    back, lengths = rnn_utils.pad_packed_sequence(packed, batch_first=True, total_length=4)
    assert back.tolist() == [[1, 2, 0, 0], [3, 0, 0, 0], [4, 5, 6, 0]]
    assert lengths.tolist() == [2, 1, 3]
    unpadded = rnn_utils.unpad_sequence(padded, teachgrad.tensor([2, 1, 3]), batch_first=True)
    assert [s.tolist() for s in unpadded] == [[1, 2], [3], [4, 5, 6]]
    assert packed.double().data.dtype == teachgrad.float64 and not packed.is_cuda


def test_lstm_learns_to_remember_the_first_step():
    # The target is the sequence's first value (±1); the last output must carry it across
    # five more random steps, which only a memory can do (without: loss stays about 1).
    teachgrad.manual_seed(0)
    lstm, head = nn.LSTM(1, 8, batch_first=True), nn.Linear(8, 1)
    optimizer = teachgrad.optim.Adam([*lstm.parameters(), *head.parameters()], lr=0.05)
    x = teachgrad.randint(0, 2, (64, 6, 1)).float() * 2 - 1
    target = x[:, 0]
    losses = []
    for _ in range(80):
        output, _ = lstm(x)
        loss = nn.functional.mse_loss(head(output[:, -1]), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[0] > 0.5
    assert losses[-1] < 0.02 * losses[0]


def test_namespaces_and_docstring_examples():
    import doctest

    from teachgrad.nn.modules import rnn as rnn_modules

    for name in ("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "RNNBase",
                 "RNNCellBase"):
        assert name in nn.__all__ and getattr(nn, name) is getattr(rnn_modules, name)
    assert "rnn" in nn.utils.__all__ and nn.utils.rnn is rnn_utils
    for module in (recurrent, rnn_modules, rnn_utils):
        assert doctest.testmod(module).failed == 0


# ----------------------------------------------------------------------------------------
# PyTorch parity
# ----------------------------------------------------------------------------------------
def copy_parameters(ours, theirs):
    for (name, p), (their_name, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert name == their_name and p.shape == tuple(q.shape)
        with teachgrad.no_grad():
            p.copy_(teachgrad.tensor(q.detach().numpy()))


def both_tensors(torch, data):
    return (teachgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True))


def assert_close(ours, theirs, atol=1e-12):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=atol,
                               rtol=0)


LAYER_CASES = [
    ("RNN", {}, (5, 3, 4), False),
    ("RNN", {"nonlinearity": "relu", "num_layers": 2}, (5, 3, 4), True),
    ("RNN", {"bias": False, "bidirectional": True, "batch_first": True}, (3, 5, 4), True),
    ("LSTM", {}, (5, 3, 4), True),
    ("LSTM", {"num_layers": 2, "bidirectional": True}, (5, 3, 4), True),
    ("LSTM", {"batch_first": True, "bias": False}, (3, 5, 4), False),
    ("LSTM", {"proj_size": 2, "num_layers": 2, "bidirectional": True}, (5, 3, 4), True),
    ("LSTM", {"num_layers": 2}, (5, 4), True),  # unbatched
    ("GRU", {}, (5, 3, 4), True),
    ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True}, (3, 5, 4), True),
    ("GRU", {"bias": False}, (5, 4), False),  # unbatched
]


@pytest.mark.torch
@pytest.mark.parametrize("name,kwargs,shape,with_hx", LAYER_CASES)
def test_layers_match_pytorch(name, kwargs, shape, with_hx):
    torch = pytest.importorskip("torch")
    ours = getattr(nn, name)(4, 3, dtype=teachgrad.float64, **kwargs)
    theirs = getattr(torch.nn, name)(4, 3, dtype=torch.float64, **kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    copy_parameters(ours, theirs)
    rng = np.random.default_rng(0)
    x, tx = both_tensors(torch, rng.standard_normal(shape))
    hx = thx = None
    if with_hx:
        directions = 2 if kwargs.get("bidirectional") else 1
        batch = () if len(shape) == 2 else (shape[0] if kwargs.get("batch_first") else shape[1],)
        layers = kwargs.get("num_layers", 1) * directions
        shapes = [(layers, *batch, kwargs.get("proj_size") or 3)]
        if name == "LSTM":
            shapes.append((layers, *batch, 3))
        pairs = [both_tensors(torch, rng.standard_normal(s)) for s in shapes]
        hx, thx = (tuple(p[0] for p in pairs), tuple(p[1] for p in pairs))
        if name != "LSTM":
            hx, thx = hx[0], thx[0]
    output, hidden = ours(x, hx)
    their_output, their_hidden = theirs(tx, thx)
    assert output.shape == tuple(their_output.shape)
    assert_close(output, their_output)
    for h, th in zip(as_tuple(hidden), as_tuple(their_hidden)):
        assert h.shape == tuple(th.shape)
        assert_close(h, th)
        assert h.grad_fn.name() == th.grad_fn.name()
    # (with batch_first PyTorch's RNN and GRU end in an in-place transpose_, its LSTM not)
    assert output.grad_fn.name() == their_output.grad_fn.name()
    weights = [rng.standard_normal(t.shape) for t in (their_output, *as_tuple(their_hidden))]
    loss = sum((t * teachgrad.tensor(w)).sum()
               for t, w in zip((output, *as_tuple(hidden)), weights))
    their_loss = sum((t * torch.tensor(w)).sum()
                     for t, w in zip((their_output, *as_tuple(their_hidden)), weights))
    loss.backward()
    their_loss.backward()
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert_close(p.grad, q.grad)
    assert_close(x.grad, tx.grad)
    if with_hx:
        for h, th in zip(as_tuple(hx), as_tuple(thx)):
            assert_close(h.grad, th.grad)


def test_float32_lstm_output_node_is_pytorchs_onednn_layer():
    # PyTorch's CPU build runs a float32 LSTM layer (no projection, not packed) as one
    # oneDNN kernel: the output prints grad_fn=<MkldnnRnnLayerBackward0>. Same values and
    # gradient as the float64 layer's plain stack of steps.
    teachgrad.manual_seed(0)
    lstm = nn.LSTM(3, 4)
    x = teachgrad.randn(5, 2, 3, requires_grad=True)
    output, (h, c) = lstm(x)
    assert output.grad_fn.name() == "MkldnnRnnLayerBackward0"
    assert (h.grad_fn.name(), c.grad_fn.name()) == ("StackBackward0", "StackBackward0")
    x64 = x.detach().double().requires_grad_()
    output64, _ = lstm.double()(x64)
    assert output64.grad_fn.name() == "StackBackward0"
    np.testing.assert_allclose(output.detach().numpy(), output64.detach().numpy(), atol=1e-6)
    weights = np.random.default_rng(1).standard_normal((5, 2, 4))
    (output * teachgrad.tensor(weights, dtype=teachgrad.float32)).sum().backward()
    (output64 * teachgrad.tensor(weights)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x64.grad.numpy(), atol=1e-5)


@pytest.mark.torch
@pytest.mark.parametrize("kwargs,packed", [
    ({}, False), ({"num_layers": 2}, False), ({"num_layers": 2, "dropout": 0.5}, False),
    ({"bidirectional": True}, False), ({"batch_first": True}, False),
    ({"proj_size": 2}, False), ({}, True),
])
def test_float32_lstm_grad_fn_names_match_pytorch(kwargs, packed):
    torch = pytest.importorskip("torch")
    ours, theirs = nn.LSTM(3, 4, **kwargs), torch.nn.LSTM(3, 4, **kwargs)
    data = np.random.default_rng(0).standard_normal((5, 2, 3)).astype(np.float32)
    x, tx = teachgrad.tensor(data), torch.tensor(data)
    if packed:
        x = rnn_utils.pack_padded_sequence(x, [5, 3])
        tx = torch.nn.utils.rnn.pack_padded_sequence(tx, [5, 3])
    with warnings.catch_warnings():  # PyTorch: "LSTM with projections is not supported ..."
        warnings.simplefilter("ignore")
        (output, hidden), (their_output, their_hidden) = ours(x), theirs(tx)
    if packed:
        output, their_output = output.data, their_output.data
    assert output.grad_fn.name() == their_output.grad_fn.name()
    assert [t.grad_fn.name() for t in hidden] == [t.grad_fn.name() for t in their_hidden]


@pytest.mark.torch
@pytest.mark.parametrize("name,kwargs", [
    ("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu", "bias": False}),
    ("LSTMCell", {}), ("LSTMCell", {"bias": False}), ("GRUCell", {}),
])
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_pytorch(name, kwargs, batched):
    torch = pytest.importorskip("torch")
    ours = getattr(nn, name)(4, 3, dtype=teachgrad.float64, **kwargs)
    theirs = getattr(torch.nn, name)(4, 3, dtype=torch.float64, **kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    copy_parameters(ours, theirs)
    rng = np.random.default_rng(1)
    batch = (2,) if batched else ()
    x, tx = both_tensors(torch, rng.standard_normal((*batch, 4)))
    states = [both_tensors(torch, rng.standard_normal((*batch, 3)))
              for _ in range(2 if name == "LSTMCell" else 1)]
    hx, thx = tuple(s[0] for s in states), tuple(s[1] for s in states)
    if name != "LSTMCell":
        hx, thx = hx[0], thx[0]
    for state, their_state in ((hx, thx), (None, None)):
        out = as_tuple(ours(x, state))
        their_out = as_tuple(theirs(tx, their_state))
        for o, t in zip(out, their_out):
            assert_close(o, t)
            if batched:  # unbatched ones end in PyTorch's squeeze
                assert o.grad_fn.name() == t.grad_fn.name()
        sum(o.sum() for o in out).backward()
        sum(t.sum() for t in their_out).backward()
        for p, q in zip(ours.parameters(), theirs.parameters()):
            assert_close(p.grad, q.grad)
        assert_close(x.grad, tx.grad)


@pytest.mark.torch
@pytest.mark.parametrize("name,kwargs", [
    ("RNN", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("GRU", {"batch_first": True, "bidirectional": True}),
    ("LSTM", {"proj_size": 2, "batch_first": True}),
])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequences_match_pytorch(name, kwargs, enforce_sorted):
    torch = pytest.importorskip("torch")
    from torch.nn.utils import rnn as their_utils

    ours = getattr(nn, name)(2, 3, dtype=teachgrad.float64, **kwargs)
    theirs = getattr(torch.nn, name)(2, 3, dtype=torch.float64, **kwargs)
    copy_parameters(ours, theirs)
    batch_first = kwargs.get("batch_first", False)
    lengths = [5, 4, 4, 2, 1] if enforce_sorted else [3, 5, 1, 5, 2]
    rng = np.random.default_rng(2)
    x, tx = both_tensors(torch, rng.standard_normal((5, 6, 2) if batch_first else (6, 5, 2)))
    packed = rnn_utils.pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
    their_packed = their_utils.pack_padded_sequence(tx, lengths, batch_first, enforce_sorted)
    assert_close(packed.data, their_packed.data, 0)
    for field in ("batch_sizes", "sorted_indices", "unsorted_indices"):
        mine, theirs_ = getattr(packed, field), getattr(their_packed, field)
        assert (mine is None and theirs_ is None) or mine.tolist() == theirs_.tolist()
    output, hidden = ours(packed)
    their_output, their_hidden = theirs(their_packed)
    assert isinstance(output, rnn_utils.PackedSequence)
    assert_close(output.data, their_output.data)
    assert output.data.grad_fn.name() == their_output.data.grad_fn.name()
    padded, out_lengths = rnn_utils.pad_packed_sequence(output, batch_first, -1.0, 7)
    their_padded, their_lengths = their_utils.pad_packed_sequence(their_output, batch_first,
                                                                  -1.0, 7)
    assert_close(padded, their_padded)
    assert out_lengths.tolist() == their_lengths.tolist()
    weights = rng.standard_normal(their_padded.shape)
    loss = (padded * teachgrad.tensor(weights)).sum()
    their_loss = (their_padded * torch.tensor(weights)).sum()
    for h, th in zip(as_tuple(hidden), as_tuple(their_hidden)):
        assert_close(h, th)
        loss = loss + (h * h).sum()
        their_loss = their_loss + (th * th).sum()
    loss.backward()
    their_loss.backward()
    assert_close(x.grad, tx.grad)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert_close(p.grad, q.grad)


@pytest.mark.torch
@pytest.mark.parametrize("kwargs", [
    {}, {"batch_first": True, "padding_value": -2.0}, {"padding_side": "left"},
])
def test_pad_sequence_matches_pytorch(kwargs):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    data = [rng.standard_normal((n, 2, 3)) for n in (2, 4, 1)]
    ours = [teachgrad.tensor(d, requires_grad=True) for d in data]
    theirs = [torch.tensor(d, requires_grad=True) for d in data]
    padded = rnn_utils.pad_sequence(ours, **kwargs)
    their_padded = torch.nn.utils.rnn.pad_sequence(theirs, **kwargs)
    assert_close(padded, their_padded, 0)
    assert padded.grad_fn.name() == their_padded.grad_fn.name()  # CopySlices
    weights = rng.standard_normal(their_padded.shape)
    (padded * teachgrad.tensor(weights)).sum().backward()
    (their_padded * torch.tensor(weights)).sum().backward()
    for a, b in zip(ours, theirs):
        assert_close(a.grad, b.grad, 0)


ERROR_CASES = [
    # module construction
    lambda lib: lib.nn.RNN(10, 20, nonlinearity="sigmoid"),
    lambda lib: lib.nn.RNN(10, 20, proj_size=2),
    lambda lib: lib.nn.LSTM(10, 20, proj_size=20),
    lambda lib: lib.nn.LSTM(10, 20, proj_size=-1),
    lambda lib: lib.nn.LSTM(10, 20, dropout=1.5),
    lambda lib: lib.nn.GRU(10, 20, dropout=True),
    lambda lib: lib.nn.LSTM(10, 0),
    lambda lib: lib.nn.LSTM(0, 10),
    lambda lib: lib.nn.LSTM(10, 10, 0),
    lambda lib: lib.nn.LSTM(10.0, 10),
    lambda lib: lib.nn.GRU(10, 10, bias=1),
    lambda lib: lib.nn.RNN(10, 10, batch_first=1),
    lambda lib: lib.nn.GRU(10, 10, foo=1),
    # layers' forward
    lambda lib: lib.nn.LSTM(10, 20)(lib.zeros(3, 4, 5)),
    lambda lib: lib.nn.LSTM(10, 20)(lib.zeros(3, 4, 10, dtype=lib.float64)),
    lambda lib: lib.nn.RNN(10, 20)(lib.zeros(3, 4, 10, dtype=lib.int64)),
    lambda lib: lib.nn.LSTM(10, 20, 2, batch_first=True)(
        lib.zeros(3, 4, 10), (lib.zeros(1, 3, 20), lib.zeros(2, 3, 20))),
    lambda lib: lib.nn.LSTM(10, 20, 2, batch_first=True)(
        lib.zeros(3, 4, 10), (lib.zeros(2, 3, 20), lib.zeros(2, 2, 20))),
    lambda lib: lib.nn.LSTM(10, 20)(lib.zeros(3, 4, 10), (lib.zeros(1, 4, 20), lib.zeros(4, 20))),
    lambda lib: lib.nn.LSTM(10, 20)(lib.zeros(4, 10), (lib.zeros(1, 1, 20), lib.zeros(1, 20))),
    lambda lib: lib.nn.LSTM(10, 20)(lib.zeros(3, 4, 10, 1)),
    lambda lib: lib.nn.LSTM(3, 4, proj_size=2)(
        lib.zeros(5, 2, 3), (lib.zeros(1, 2, 4), lib.zeros(1, 2, 4))),
    lambda lib: lib.nn.RNN(10, 20)(lib.zeros(3, 4, 10), lib.zeros(1, 3, 20)),
    lambda lib: lib.nn.RNN(10, 20)(lib.zeros(3, 4, 10), lib.zeros(4, 20)),
    lambda lib: lib.nn.RNN(10, 20)(lib.zeros(3, 10), lib.zeros(1, 1, 20)),
    lambda lib: lib.nn.RNN(10, 20)(lib.zeros(3, 10), lib.zeros(2, 20)),
    lambda lib: lib.nn.RNN(10, 20)(lib.zeros(3, 4, 10, 1)),
    lambda lib: lib.nn.GRU(10, 20)(lib.zeros(5)),
    lambda lib: lib.nn.GRU(10, 20)(lib.zeros(0, 4, 10)),
    lambda lib: lib.nn.GRU(3, 3)(lib.nn.utils.rnn.pack_sequence([lib.ones(3, 2), lib.ones(1, 2)])),
    lambda lib: lib.nn.GRU(2, 3)(lib.nn.utils.rnn.pack_sequence([lib.ones(3, 2), lib.ones(1, 2)]),
                                 lib.zeros(1, 3, 3)),
    # cells
    lambda lib: lib.nn.LSTMCell(10, 20)(lib.zeros(3, 5)),
    lambda lib: lib.nn.LSTMCell(10, 20)(lib.zeros(3, 10), (lib.zeros(2, 20), lib.zeros(3, 20))),
    lambda lib: lib.nn.LSTMCell(10, 20)(lib.zeros(3, 10), (lib.zeros(3, 21), lib.zeros(3, 20))),
    lambda lib: lib.nn.LSTMCell(10, 20)(lib.zeros(3, 10), (lib.zeros(3, 20), lib.zeros(3, 21))),
    lambda lib: lib.nn.LSTMCell(10, 20)(lib.zeros(3, 10), (lib.zeros(3, 20), lib.zeros(2, 20))),
    lambda lib: lib.nn.LSTMCell(10, 20)(lib.zeros(10), (lib.zeros(20), lib.zeros(1, 20))),
    lambda lib: lib.nn.LSTMCell(10, 20)(lib.zeros(3, 10), (lib.zeros(3, 20), lib.zeros(1, 3, 20))),
    lambda lib: lib.nn.LSTMCell(10, 20)(lib.zeros(3, 10, 1)),
    lambda lib: lib.nn.GRUCell(10, 20)(lib.zeros(3, 10), lib.zeros(2, 20)),
    lambda lib: lib.nn.GRUCell(10, 20)(lib.zeros(3, 10, 1)),
    lambda lib: lib.nn.GRUCell(10, 20)(lib.zeros(3, 10), lib.zeros(1, 3, 20)),
    lambda lib: lib.nn.GRUCell(10, 20)(lib.zeros(3, 10), lib.zeros(3, 20, dtype=lib.float64)),
    lambda lib: lib.nn.RNNCell(10, 20, nonlinearity="foo")(lib.zeros(3, 10)),
    lambda lib: lib.nn.RNNCell(10, 20)(lib.zeros(3, 5)),
    lambda lib: lib.nn.RNNCell(10, 20)(lib.zeros(10, dtype=lib.int64)),
    # nn.utils.rnn
    lambda lib: lib.nn.utils.rnn.pad_sequence([]),
    lambda lib: lib.nn.utils.rnn.pad_sequence(5),
    lambda lib: lib.nn.utils.rnn.pad_sequence([lib.ones(2)], padding_side="middle"),
    lambda lib: lib.nn.utils.rnn.pad_sequence([lib.ones(3, 2), lib.ones(1, 3)]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 2, 3]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 3, 0]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 3]),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 3, 2), lib.tensor([[4, 3, 1]])),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(0, 3, 2), [4, 3, 1]),
    lambda lib: lib.nn.utils.rnn.pad_packed_sequence(
        lib.nn.utils.rnn.pack_sequence([lib.ones(3), lib.ones(1)]), total_length=2),
    lambda lib: lib.nn.utils.rnn.pack_sequence([lib.ones(1), lib.ones(2)]),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", ERROR_CASES)
def test_errors_match_pytorch(case):
    raises_as_torch(case)


@pytest.mark.torch
def test_dropout_warning_matches_pytorch():
    torch = pytest.importorskip("torch")
    for lib in (torch, teachgrad):
        with pytest.warns(UserWarning) as record:
            lib.nn.GRU(10, 20, dropout=0.5)
        assert str(record[0].message) == (
            "dropout option adds dropout after all but last recurrent layer, so non-zero "
            "dropout expects num_layers greater than 1, but got dropout=0.5 and num_layers=1")
    with pytest.warns(UserWarning) as record:
        nn.LSTM(10, 20, dropout=0.5)
    assert record[0].filename == __file__  # points at the caller's line


@pytest.mark.torch
@pytest.mark.parametrize("name,args,kwargs", [
    ("RNN", (10, 20), {"nonlinearity": "relu"}),
    ("RNN", (3, 4, 2, "relu", False, True, 0.2, True), {}),
    ("LSTM", (10, 20), {"num_layers": 2, "batch_first": True}),
    ("LSTM", (3, 4), {"proj_size": 2, "bidirectional": True, "num_layers": 3}),
    ("GRU", (10, 20), {"dropout": 0.5, "num_layers": 2, "bias": False}),
    ("RNNCell", (10, 20), {"bias": False, "nonlinearity": "relu"}),
    ("LSTMCell", (3, 4), {"bias": False}),
    ("GRUCell", (3, 4), {}),
])
def test_repr_parameters_and_init_match_pytorch(name, args, kwargs):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert [(n, p.shape) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert ours.state_dict().keys() == theirs.state_dict().keys()
    for attribute in ("_flat_weights_names", "_all_weights", "mode", "input_size",
                      "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                      "bidirectional", "proj_size", "nonlinearity"):
        if hasattr(theirs, attribute):
            assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    bound = 1 / np.sqrt(ours.hidden_size)
    for p in ours.parameters():
        assert p.dtype == teachgrad.float32 and np.abs(p.detach().numpy()).max() <= bound
