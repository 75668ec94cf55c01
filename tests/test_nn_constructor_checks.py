"""Constructor and argument checks that PyTorch's own Python makes, in its order and words:
Hardtanh's interval, RNN dropout converted first, embedding's padding_idx compared as
PyTorch compares it."""

from __future__ import annotations

import warnings

import pytest

import teachgrad as torch
from teachgrad import nn


@pytest.mark.parametrize("low, high", [(1.0, 1.0), (2.0, 1.0)])
def test_hardtanh_module_wants_an_interval_of_some_width(low, high):
    with pytest.raises(AssertionError) as info:
        nn.Hardtanh(low, high)
    assert str(info.value) == f"max_val ({high}) must be greater than min_val ({low})"
    # (the function takes min == max: every value becomes it)
    assert torch.nn.functional.hardtanh(torch.tensor([-3.0, 5.0]), 1.0, 1.0).tolist() == [
        1.0, 1.0]


def test_hardtanh_takes_the_deprecated_names_with_a_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = nn.Hardtanh(min_value=-2.0, max_value=3.0)
    assert [w.category for w in caught] == [FutureWarning, FutureWarning]
    assert str(caught[0].message) == (
        "keyword argument `min_value` is deprecated and renamed to `min_val`")
    assert caught[0].filename == __file__
    assert (m.min_val, m.max_val) == (-2.0, 3.0)
    assert m(torch.tensor([-5.0, 0.5, 5.0])).tolist() == [-2.0, 0.5, 3.0]


@pytest.mark.parametrize("value, error, message", [
    (None, TypeError, "float() argument must be a string or a real number, not 'NoneType'"),
    (1j, TypeError, "float() argument must be a string or a real number, not 'complex'"),
    ("a", ValueError, "could not convert string to float: 'a'"),
    ("0.5", ValueError, "dropout should be a number in range [0, 1] representing the "
                        "probability of an element being zeroed"),
])
def test_rnn_dropout_is_converted_first(value, error, message):
    with pytest.raises(error) as info:
        nn.LSTM(2, 3, 2, dropout=value)
    assert str(info.value).split("\nHint:")[0] == message


@pytest.mark.parametrize("padding_idx, ok", [(2, True), (3, False), (-3, True), (-4, False)])
def test_embedding_padding_idx_range(padding_idx, ok):
    weight = torch.ones(3, 2)
    if ok:
        out = torch.nn.functional.embedding(torch.tensor([0]), weight, padding_idx=padding_idx)
        assert out.tolist() == [[1.0, 1.0]]
    else:
        with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
            torch.nn.functional.embedding(torch.tensor([0]), weight, padding_idx=padding_idx)


def test_embedding_complex_padding_idx_fails_at_pytorchs_first_comparison():
    with pytest.raises(TypeError) as info:
        torch.nn.functional.embedding(torch.tensor([0]), torch.ones(3, 2), padding_idx=1j)
    assert str(info.value) == "'>' not supported between instances of 'complex' and 'int'"


def test_same_as_pytorch():
    real = pytest.importorskip("torch")

    def outcome(call, lib):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = call(lib)
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            return type(error).__name__, str(error).split("\nHint:")[0]
        return "ok", repr(result).replace("teachgrad", "torch")

    calls = [
        lambda L: L.nn.Hardtanh(0.5, 0.5),
        lambda L: L.nn.Hardtanh(1j),
        lambda L: L.nn.Hardtanh(min_value=0.0, max_value=2.0),
        lambda L: L.nn.GRU(2, 2, 2, dropout=None),
        lambda L: L.nn.RNN(2, 2, 2, dropout="0.5"),
        lambda L: L.nn.functional.embedding(L.tensor([0]), L.ones(3, 2), padding_idx=1j),
    ]
    for call in calls:
        assert outcome(call, torch) == outcome(call, real)


@pytest.mark.parametrize("shape, size, error, message", [
    ((1, 2, 3), 0, RuntimeError, "kernel size should be greater than zero, but got kH: 0 kW: 1"),
    ((1, 2, 3, 3), -1, RuntimeError,
     "kernel size should be greater than zero, but got kT: -1 kH: 1 kW: 1"),
    ((1, 2, 3), 2.5, TypeError, "pad(): argument 'pad' failed to unpack the object at pos 3 "
                                'with error "type must be tuple of ints,but got float"'),
    ((1, 2, 3, 3, 3), 2.5, TypeError, "pad(): argument 'pad' failed to unpack the object at "
                                      'pos 5 with error "type must be tuple of ints,but got '
                                      'float"'),
])
def test_local_response_norm_window_must_be_a_positive_int(shape, size, error, message):
    with pytest.raises(error) as info:
        nn.LocalResponseNorm(size)(torch.ones(*shape))
    assert str(info.value).split("\nHint:")[0] == message


def test_local_response_norm_of_nothing_checks_no_window():
    # (PyTorch returns an empty input before it looks at the size)
    assert torch.nn.functional.local_response_norm(torch.ones(0, 2, 3), 0).shape == (0, 2, 3)
