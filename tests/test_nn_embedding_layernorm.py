"""``nn.Embedding`` / ``F.embedding`` and ``nn.LayerNorm`` / ``F.layer_norm``.

Gradients are checked with finite differences (gradcheck / gradgradcheck in float64)
and by hand; values, gradients, module reprs, default init and error messages against
PyTorch when it is installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch
import teachgrad.nn.functional as F
from teachgrad import nn
from teachgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(5)


def f64(*shape, requires_grad=True):
    return torch.tensor(RNG.normal(size=shape), dtype=torch.float64,
                        requires_grad=requires_grad)


# ----------------------------------------------------------------------------------------
# Embedding
# ----------------------------------------------------------------------------------------
def test_embedding_looks_up_rows_and_adds_gradients_of_repeats():
    weight = torch.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], requires_grad=True)
    ids = torch.tensor([[2, 0], [2, 2]])
    out = F.embedding(ids, weight)
    assert out.shape == (2, 2, 2)
    np.testing.assert_array_equal(out.detach().numpy()[1, 1], [4.0, 5.0])
    assert type(out.grad_fn).__name__ == "EmbeddingBackward0"
    assert [type(f).__name__ for f, _ in out.grad_fn.next_functions] == ["AccumulateGrad"]
    out.sum().backward()
    # row 2 read three times, row 0 once, row 1 never
    np.testing.assert_array_equal(weight.grad.numpy(), [[1, 1], [0, 0], [3, 3]])


def test_embedding_padding_idx_and_scale_grad_by_freq_by_hand():
    weight = torch.ones(4, 2, requires_grad=True)
    ids = torch.tensor([1, 1, 3, 0])
    upstream = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    F.embedding(ids, weight, padding_idx=-1, scale_grad_by_freq=True).backward(upstream)
    # row 1: (1+3, 2+4) / 2 reads; row 3 is padding (-1 -> 3): none; row 0: once.
    np.testing.assert_array_equal(weight.grad.numpy(), [[7, 8], [2, 3], [0, 0], [0, 0]])


def test_embedding_gradcheck_and_gradgradcheck():
    # (padding_idx and scale_grad_by_freq change the gradient on purpose, so finite
    # differences cannot check them: they are checked by hand above and against torch.)
    ids = torch.tensor([[0, 3, 3], [1, 0, 4]])
    assert gradcheck(lambda w: F.embedding(ids, w), (f64(5, 2),))
    assert gradgradcheck(lambda w: F.embedding(ids, w) ** 2, (f64(5, 2),))


def test_embedding_max_norm_renormalizes_looked_up_rows_in_place():
    weight = torch.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    F.embedding(torch.tensor([0, 1]), weight, max_norm=1.0)
    expected = [[3 / (5 + 1e-7), 4 / (5 + 1e-7)], [0.3, 0.4], [6.0, 8.0]]  # row 2 unread
    np.testing.assert_allclose(weight.numpy(), expected, rtol=1e-6)


def test_embedding_module_init_repr_and_from_pretrained():
    torch.manual_seed(0)
    emb = nn.Embedding(1000, 8, padding_idx=-1)
    assert repr(emb) == "Embedding(1000, 8, padding_idx=999)"
    w = emb.weight.detach().numpy()
    assert np.all(w[999] == 0)
    assert abs(w[:999].mean()) < 0.05 and abs(w[:999].std() - 1) < 0.05  # N(0, 1)
    assert repr(nn.Embedding(5, 2, max_norm=1.0, norm_type=1, scale_grad_by_freq=True)) == (
        "Embedding(5, 2, max_norm=1.0, norm_type=1, scale_grad_by_freq=True)")

    table = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    frozen = nn.Embedding.from_pretrained(table, padding_idx=0)
    assert not frozen.weight.requires_grad
    np.testing.assert_array_equal(frozen.weight.detach().numpy(), table.numpy())
    trainable = nn.Embedding.from_pretrained(table, freeze=False)
    trainable(torch.tensor([1, 1])).sum().backward()
    np.testing.assert_array_equal(trainable.weight.grad.numpy(), [[0, 0], [2, 2]])


def test_embedding_errors():
    weight = torch.zeros(5, 3)
    with pytest.raises(IndexError, match="^index out of range in self\nHint: "):
        F.embedding(torch.tensor([5]), weight)
    with pytest.raises(IndexError, match="^index out of range in self"):
        F.embedding(torch.tensor([-1]), weight)
    with pytest.raises(IndexError, match="but an index is -1[.]$"):  # names the bad one
        F.embedding(torch.tensor([3, -1]), weight)
    with pytest.raises(RuntimeError, match=r"^Expected tensor for argument #1 'indices' to "
                       r"have one of the following scalar types: Long, Int; but got "
                       r"torch.FloatTensor instead \(while checking arguments for embedding\)"):
        F.embedding(torch.tensor([1.0]), weight)
    with pytest.raises(AssertionError, match="^Padding_idx must be within num_embeddings$"):
        nn.Embedding(5, 3, padding_idx=5)
    with pytest.raises(AssertionError, match="^Embeddings parameter is expected to be "
                       "2-dimensional$"):
        nn.Embedding.from_pretrained(torch.zeros(3))
    with pytest.raises(AssertionError, match="^Shape of weight does not match"):
        nn.Embedding(5, 3, _weight=torch.zeros(4, 3))


# ----------------------------------------------------------------------------------------
# LayerNorm
# ----------------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the deliberate 0/0 below
def test_layer_norm_by_hand():
    x = torch.tensor([[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]])
    out = F.layer_norm(x, (3,), weight=torch.tensor([1.0, 2.0, 3.0]),
                       bias=torch.tensor([0.0, 0.0, 1.0]), eps=0.0)
    # row 0: mean 2, biased var 2/3 -> (x - 2) / sqrt(2/3) = [-1.2247, 0, 1.2247]
    s = 1 / np.sqrt(2 / 3)
    expected = [[-s, 0.0, 3 * s + 1], [np.nan, np.nan, np.nan]]  # row 1: 0/0 with eps=0
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    out = F.layer_norm(torch.tensor([[2.0, 2.0]]), [2])  # eps keeps a constant row finite
    np.testing.assert_array_equal(out.numpy(), [[0.0, 0.0]])


def test_layer_norm_of_float16_is_computed_in_float32():
    # Squares of values above 256 overflow float16 (inf variance gave a row of zeros);
    # PyTorch's kernel computes in float32 and rounds the result to float16.
    values = np.array([[300.0, 10.0, -280.0, 5.0]])
    x = torch.tensor(values, dtype=torch.float16, requires_grad=True)
    out = F.layer_norm(x, (4,))
    centered = values - values.mean()
    expected = centered / np.sqrt((centered**2).mean() + 1e-5)  # in float64, by hand
    assert out.dtype is torch.float16
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-3)
    out.sum().backward()
    assert x.grad.dtype is torch.float16


def test_layer_norm_gradcheck_and_gradgradcheck():
    x = f64(2, 3, 4)
    w, b = f64(3, 4), f64(3, 4)
    assert gradcheck(lambda x, w, b: F.layer_norm(x, (3, 4), w, b), (x, w, b))
    assert gradgradcheck(lambda x, w, b: F.layer_norm(x, (3, 4), w, b), (x, w, b))
    assert gradcheck(lambda x: F.layer_norm(x, (4,), eps=1e-3), (x,))
    assert gradgradcheck(lambda x: F.layer_norm(x, (4,), eps=1e-3), (x,))


def test_layer_norm_module_init_repr_and_parameters():
    norm = nn.LayerNorm(4)
    assert repr(norm) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"
    np.testing.assert_array_equal(norm.weight.detach().numpy(), np.ones(4))
    np.testing.assert_array_equal(norm.bias.detach().numpy(), np.zeros(4))
    plain = nn.LayerNorm([2, 3], eps=1e-6, elementwise_affine=False)
    assert repr(plain) == "LayerNorm((2, 3), eps=1e-06, elementwise_affine=False, bias=False)"
    assert list(plain.parameters()) == [] and plain.normalized_shape == (2, 3)
    no_bias = nn.LayerNorm(3, bias=False)
    assert [name for name, _ in no_bias.named_parameters()] == ["weight"]
    out = norm(torch.randn(5, 4))
    np.testing.assert_allclose(out.detach().numpy().mean(axis=1), 0, atol=1e-6)
    np.testing.assert_allclose(out.detach().numpy().var(axis=1), 1, rtol=1e-4)


def test_layer_norm_errors():
    with pytest.raises(RuntimeError, match=r"^Given normalized_shape=\[4\], expected input "
                       r"with shape \[\*, 4\], but got input of size\[2, 3\]$"):
        F.layer_norm(torch.zeros(2, 3), (4,))
    with pytest.raises(RuntimeError, match=r"expected input with shape \[\*, 2, 3, 4\]"):
        nn.LayerNorm((2, 3, 4))(torch.zeros(2, 3))
    with pytest.raises(RuntimeError, match=r"^Expected weight to be of same shape as "
                       r"normalized_shape, but got weight of shape \[4\] and "
                       r"normalized_shape = \[3\]$"):
        F.layer_norm(torch.zeros(2, 3), (3,), weight=torch.ones(4))
    with pytest.raises(NotImplementedError, match="\"LayerNormKernelImpl\" not implemented "
                       "for 'Long'"):
        F.layer_norm(torch.zeros(2, 3, dtype=torch.int64), (3,))


# ----------------------------------------------------------------------------------------
# Against real PyTorch
# ----------------------------------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("kwargs", [dict(), dict(padding_idx=2), dict(padding_idx=-1,
                                    scale_grad_by_freq=True), dict(max_norm=1.5)])
def test_embedding_matches_torch(kwargs):
    real = pytest.importorskip("torch")
    table = RNG.normal(size=(6, 3)).astype(np.float32)
    ids = np.array([[0, 2, 2], [5, 1, 2]])
    upstream = RNG.normal(size=(2, 3, 3)).astype(np.float32)
    results = []
    for lib in (torch, real):
        w = lib.tensor(table.copy(), requires_grad=True)
        out = lib.nn.functional.embedding(lib.tensor(ids), w, **kwargs)
        out.backward(lib.tensor(upstream))
        results.append((out.detach().numpy(), w.grad.numpy(), w.detach().numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)


@pytest.mark.torch
@pytest.mark.parametrize("shape", [(4,), (3, 4)])
def test_layer_norm_matches_torch(shape):
    real = pytest.importorskip("torch")
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32) * 3 + 1
    w = RNG.normal(size=shape).astype(np.float32)
    b = RNG.normal(size=shape).astype(np.float32)
    upstream = RNG.normal(size=x.shape).astype(np.float32)
    results = []
    for lib in (torch, real):
        tensors = [lib.tensor(a.copy(), requires_grad=True) for a in (x, w, b)]
        out = lib.nn.functional.layer_norm(tensors[0], shape, tensors[1], tensors[2])
        out.backward(lib.tensor(upstream))
        results.append([out.detach().numpy()] + [t.grad.numpy() for t in tensors])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


@pytest.mark.torch
def test_module_reprs_and_errors_match_torch():
    real = pytest.importorskip("torch")
    for make in [lambda lib: lib.nn.Embedding(10, 3, padding_idx=-2),
                 lambda lib: lib.nn.Embedding(10, 3, max_norm=2.0, sparse=False),
                 lambda lib: lib.nn.LayerNorm([2, 5], eps=1e-3, bias=False),
                 lambda lib: lib.nn.Sequential(lib.nn.Embedding(4, 2), lib.nn.LayerNorm(2))]:
        assert repr(make(torch)) == repr(make(real))
    cases = [
        lambda lib: lib.nn.functional.embedding(lib.tensor([1.0]), lib.zeros(3, 2)),
        lambda lib: lib.nn.functional.embedding(lib.tensor([3]), lib.zeros(3, 2)),
        lambda lib: lib.nn.Embedding(3, 2, padding_idx=-4),
        lambda lib: lib.nn.functional.layer_norm(lib.zeros(2, 3), (2, 3, 4)),
        lambda lib: lib.nn.functional.layer_norm(lib.zeros(2, 3), []),
        lambda lib: lib.nn.functional.layer_norm(lib.zeros(2, 3), (3,), bias=lib.zeros(2)),
        lambda lib: lib.nn.functional.layer_norm(lib.zeros(2, 3, dtype=lib.int64), (3,)),
    ]
    for case in cases:
        outcomes = []
        for lib in (torch, real):
            with pytest.raises(Exception) as info:
                case(lib)
            outcomes.append((type(info.value), str(info.value).split("\nHint: ")[0]))
        assert outcomes[0] == outcomes[1]
