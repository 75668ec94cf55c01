"""teachgrad's random numbers are PyTorch's (CPU): same generator, same sampling kernels.

The engine is checked against the C++ standard's own figure for mt19937 (no PyTorch
needed); everything else against the installed PyTorch, value for value (bit-equal),
for many seeds, sizes, dtypes and orders of calls.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import teachgrad
from teachgrad._mt19937 import DEFAULT_SEED, STATE_SIZE, MT19937Engine

SEEDS = [0, 1, 42, 2024, 123456789, 2**32 + 5, 67280421310721]
SIZES = [1, 2, 3, 7, 8, 15, 16, 17, 23, 31, 32, 33, 40, 47, 48, 49, 64, 65, 1000]


def test_engine_is_the_standard_mt19937():
    # The C++ standard ([rand.predef]): the 10000th number of a default-constructed
    # std::mt19937 (seed 5489) is 4123659995.
    assert int(MT19937Engine(5489).random(10000)[-1]) == 4123659995


def test_random64_puts_the_first_draw_high():
    words = MT19937Engine(7).random(4)
    pair = MT19937Engine(7).random64(2)
    assert int(pair[0]) == (int(words[0]) << 32) | int(words[1])
    assert int(pair[1]) == (int(words[2]) << 32) | int(words[3])


def test_state_round_trip_replays_the_numbers():
    teachgrad.manual_seed(3)
    teachgrad.randn(5)  # (leaves a cached normal sample behind)
    state = teachgrad.get_rng_state()
    assert state.shape == (STATE_SIZE,) and state.dtype == teachgrad.uint8
    first = [teachgrad.randn(1), teachgrad.rand(3), teachgrad.randint(0, 9, (4,))]
    teachgrad.set_rng_state(state)
    again = [teachgrad.randn(1), teachgrad.rand(3), teachgrad.randint(0, 9, (4,))]
    for a, b in zip(first, again):
        assert np.array_equal(a.numpy(), b.numpy())


def test_bad_state_is_refused_with_pytorchs_message():
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056"):
        teachgrad.set_rng_state(teachgrad.zeros(10, dtype=teachgrad.uint8))
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        teachgrad.set_rng_state(teachgrad.zeros(STATE_SIZE, dtype=teachgrad.uint8))


def test_default_seed_and_initial_seed():
    assert teachgrad.Generator().initial_seed() == DEFAULT_SEED == 67280421310721
    assert teachgrad.Generator().manual_seed(-1).initial_seed() == 2**64 - 1
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        teachgrad.manual_seed(2**64)
    chosen = teachgrad.Generator()
    new_seed = chosen.seed()
    assert chosen.initial_seed() == new_seed and 0 <= new_seed < 2**64
    replay = teachgrad.Generator().manual_seed(new_seed)
    assert np.array_equal(teachgrad.rand(4, generator=chosen).numpy(),
                          teachgrad.rand(4, generator=replay).numpy())


# ---------------------------------------------------------------------------------------
# Against PyTorch
# ---------------------------------------------------------------------------------------
@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def same(ours, theirs) -> None:
    a, b = ours.numpy(), theirs.numpy()
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    assert np.array_equal(a, b, equal_nan=True), (
        f"\nteachgrad {a.ravel()[:6]}\npytorch   {b.ravel()[:6]}")


def both(torch, seed: int):
    teachgrad.manual_seed(seed)
    torch.manual_seed(seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_rand_and_randn_equal_pytorchs(torch, seed, dtype):
    for size in [(), *[(n,) for n in SIZES], (3, 5), (4, 4), (2, 3, 7)]:
        both(torch, seed)
        same(teachgrad.randn(size, dtype=getattr(teachgrad, dtype)),
             torch.randn(size, dtype=getattr(torch, dtype)))
        same(teachgrad.rand(size, dtype=getattr(teachgrad, dtype)),
             torch.rand(size, dtype=getattr(torch, dtype)))
        if size:  # (randn() with no size is an error in both)
            same(teachgrad.randn(*size, dtype=getattr(teachgrad, dtype)),
                 torch.randn(*size, dtype=getattr(torch, dtype)))


def test_the_cached_normal_sample_carries_over_between_calls(torch):
    both(torch, 11)
    for n in [1, 1, 3, 2, 1, 16, 1, 5]:  # odd sizes leave Box–Muller's second value cached
        same(teachgrad.randn(n, dtype=teachgrad.float64), torch.randn(n, dtype=torch.float64))
    same(teachgrad.get_rng_state(), torch.get_rng_state())
    both(torch, 11)  # manual_seed forgets the cached value
    same(teachgrad.randn(1), torch.randn(1))


def test_a_big_randn_equals_pytorchs(torch):
    both(torch, 5)
    same(teachgrad.randn(1000, 1000), torch.randn(1000, 1000))
    same(teachgrad.randn(100003, dtype=teachgrad.float64), torch.randn(100003, dtype=torch.float64))


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_interleaved_calls_follow_pytorchs_stream(torch, seed):
    rng = np.random.default_rng(seed)
    both(torch, seed)
    for _ in range(60):
        n = int(rng.integers(1, 40))
        kind = int(rng.integers(9))
        if kind == 0:
            same(teachgrad.randn(n), torch.randn(n))
        elif kind == 1:
            same(teachgrad.rand(n, dtype=teachgrad.float64), torch.rand(n, dtype=torch.float64))
        elif kind == 2:
            same(teachgrad.randint(-3, 50, (n,)), torch.randint(-3, 50, (n,)))
        elif kind == 3:
            same(teachgrad.randperm(n), torch.randperm(n))
        elif kind == 4:
            same(teachgrad.empty(n).uniform_(-2, 3), torch.empty(n).uniform_(-2, 3))
        elif kind == 5:
            same(teachgrad.empty(n, dtype=teachgrad.float64).normal_(1.5, 0.25),
                 torch.empty(n, dtype=torch.float64).normal_(1.5, 0.25))
        elif kind == 6:
            same(teachgrad.randn(n, dtype=teachgrad.float64), torch.randn(n, dtype=torch.float64))
        elif kind == 7:
            same(teachgrad.empty(n).exponential_(2.0), torch.empty(n).exponential_(2.0))
        else:
            same(teachgrad.randint(0, 2**40, (n,)), torch.randint(0, 2**40, (n,)))
    same(teachgrad.get_rng_state(), torch.get_rng_state())


def test_generator_objects_and_the_default_stream(torch):
    ours, theirs = teachgrad.Generator().manual_seed(9), torch.Generator().manual_seed(9)
    both(torch, 1)
    same(teachgrad.randn(20, generator=ours), torch.randn(20, generator=theirs))
    same(teachgrad.rand(3), torch.rand(3))  # the default generator was not touched
    same(teachgrad.randint(0, 5, (6,), generator=ours), torch.randint(0, 5, (6,), generator=theirs))
    same(teachgrad.randperm(9, generator=ours), torch.randperm(9, generator=theirs))
    same(teachgrad.empty(4).normal_(generator=ours), torch.empty(4).normal_(generator=theirs))
    same(ours.get_state(), theirs.get_state())
    fresh_ours, fresh_theirs = teachgrad.Generator(), torch.Generator()
    same(fresh_ours.get_state(), fresh_theirs.get_state())
    same(teachgrad.rand(5, generator=fresh_ours), torch.rand(5, generator=fresh_theirs))


def test_states_move_between_pytorch_and_teachgrad(torch):
    torch.manual_seed(4)
    torch.randn(3)
    teachgrad.set_rng_state(teachgrad.tensor(torch.get_rng_state().numpy()))
    same(teachgrad.randn(7), torch.randn(7))
    same(teachgrad.rand(700), torch.rand(700))
    torch.set_rng_state(torch.from_numpy(teachgrad.get_rng_state().numpy()))
    same(teachgrad.randn(3), torch.randn(3))


@pytest.mark.parametrize("low,high", [(0, 10), (-5, 5), (3, 4), (0, 2**28 - 1), (0, 2**28),
                                      (-(2**62), 2**62), (10, 2**40)])
def test_randint_ranges(torch, low, high):
    both(torch, 8)
    same(teachgrad.randint(low, high, (50,)), torch.randint(low, high, (50,)))
    same(teachgrad.randint(high, (2, 3)) if low == 0 else teachgrad.randint(low, high, (2, 3)),
         torch.randint(high, (2, 3)) if low == 0 else torch.randint(low, high, (2, 3)))


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "float32",
                                   "float64", "bool"])
def test_random_fills_per_dtype(torch, dtype):
    both(torch, 12)
    same(teachgrad.empty(30, dtype=getattr(teachgrad, dtype)).random_(),
         torch.empty(30, dtype=getattr(torch, dtype)).random_())
    if dtype != "bool":
        same(teachgrad.randint(0, 7, (9,), dtype=getattr(teachgrad, dtype)),
             torch.randint(0, 7, (9,), dtype=getattr(torch, dtype)))
        same(teachgrad.empty(9, dtype=getattr(teachgrad, dtype)).random_(5),
             torch.empty(9, dtype=getattr(torch, dtype)).random_(5))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 100, 5000])
def test_randperm(torch, n):
    both(torch, n)
    same(teachgrad.randperm(n), torch.randperm(n))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_other_distributions(torch, dtype):
    t, d = getattr(teachgrad, dtype), getattr(torch, dtype)
    for seed in SEEDS[:3]:
        both(torch, seed)
        for n in (1, 5, 16, 33):
            for fill, args in [("exponential_", ()), ("cauchy_", (1.0, 0.5)), ("log_normal_", ()),
                               ("geometric_", (0.2,))]:
                same(getattr(teachgrad.empty(n, dtype=t), fill)(*args),
                     getattr(torch.empty(n, dtype=d), fill)(*args))
            p = np.linspace(0, 1, n).astype(dtype)
            same(teachgrad.bernoulli(teachgrad.tensor(p)), torch.bernoulli(torch.from_numpy(p)))
            same(teachgrad.empty(n, dtype=t).bernoulli_(teachgrad.tensor(p)),
                 torch.empty(n, dtype=d).bernoulli_(torch.from_numpy(p)))
        same(teachgrad.get_rng_state(), torch.get_rng_state())


def test_normal_overloads(torch):
    both(torch, 6)
    for shape in [(3,), (20,), (4, 5)]:
        mean, std = np.arange(np.prod(shape), dtype=np.float32).reshape(shape), np.float32(0.5)
        spread = np.linspace(0.1, 2, np.prod(shape), dtype=np.float32).reshape(shape)
        same(teachgrad.normal(teachgrad.tensor(mean), teachgrad.tensor(spread)),
             torch.normal(torch.from_numpy(mean), torch.from_numpy(spread)))
        same(teachgrad.normal(teachgrad.tensor(mean), float(std)),
             torch.normal(torch.from_numpy(mean), float(std)))
        same(teachgrad.normal(2.0, teachgrad.tensor(spread)),
             torch.normal(2.0, torch.from_numpy(spread)))
        same(teachgrad.normal(2.0, 3.0, shape), torch.normal(2.0, 3.0, shape))
    for name in ["rand_like", "randn_like"]:
        like = np.zeros((3, 7), dtype=np.float64)
        same(getattr(teachgrad, name)(teachgrad.tensor(like)),
             getattr(torch, name)(torch.from_numpy(like)))
    same(teachgrad.randint_like(teachgrad.zeros(6), 3, 9), torch.randint_like(torch.zeros(6), 3, 9))


def test_fills_of_a_transposed_tensor_follow_memory_order(torch):
    both(torch, 2)
    same(teachgrad.empty(4, 6).t().uniform_(), torch.empty(4, 6).t().uniform_())
    same(teachgrad.empty(4, 6).t().normal_(), torch.empty(4, 6).t().normal_())  # (one at a time)
    same(teachgrad.empty(6, 4).t().normal_(2, 3), torch.empty(6, 4).t().normal_(2, 3))


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial(torch, replacement):
    both(torch, 13)
    weights = np.array([[0.1, 0.0, 2.0, 0.7, 1.2], [1, 1, 1, 1, 1]], dtype=np.float32)
    for rows, count in [(weights, 4), (weights[0], 3), (weights[1], 1)]:
        same(teachgrad.multinomial(teachgrad.tensor(rows), count, replacement),
             torch.multinomial(torch.from_numpy(rows), count, replacement))


def test_layers_start_with_pytorchs_weights(torch):
    def made(lib):
        lib.manual_seed(0)
        return [lib.nn.Linear(3, 2), lib.nn.Linear(20, 7), lib.nn.Conv2d(3, 4, 3),
                lib.nn.Embedding(10, 3), lib.nn.Conv1d(2, 3, 5, bias=False)]

    for ours, theirs in zip(made(teachgrad), made(torch)):
        for (_, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
            same(a.detach(), b.detach())
    both(torch, 42)
    same(teachgrad.randn(1, requires_grad=True).detach(),
         torch.randn(1, requires_grad=True).detach())


@pytest.mark.parametrize("init_name,args", [
    ("uniform_", (-0.5, 0.5)), ("normal_", (0.1, 2.0)), ("xavier_uniform_", ()),
    ("xavier_normal_", ()), ("kaiming_uniform_", ()), ("kaiming_normal_", ()),
    ("trunc_normal_", ()), ("trunc_normal_", (0.0, 1.0, 0.5, 0.6)), ("sparse_", (0.5,)),
])
def test_nn_init_equals_pytorchs(torch, init_name, args):
    for shape in [(5, 3), (8, 6), (16, 16), (3, 4, 2, 2)]:
        if init_name == "sparse_" and len(shape) != 2:
            continue
        both(torch, 21)
        same(getattr(teachgrad.nn.init, init_name)(teachgrad.empty(shape), *args),
             getattr(torch.nn.init, init_name)(torch.empty(shape), *args))
    ours = teachgrad.nn.init.orthogonal_(teachgrad.empty(4, 6))
    theirs = torch.nn.init.orthogonal_(torch.empty(4, 6))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-5)  # (LAPACK's QR)


def test_distributions_sample_pytorchs_numbers(torch):
    def draws(lib):
        lib.manual_seed(17)
        d = lib.distributions
        zeros, ones = lib.zeros(3), lib.ones(3)
        return [d.Normal(zeros, ones).sample((2,)), d.Normal(zeros, ones).rsample((20,)),
                d.Uniform(zeros, ones).sample((4,)), d.Exponential(ones).sample((2,)),
                d.Cauchy(zeros, ones).sample((2,)), d.Bernoulli(lib.full((5,), 0.3)).sample((2,)),
                d.Categorical(lib.tensor([0.1, 0.5, 0.4])).sample((7,))]

    for a, b in zip(draws(teachgrad), draws(torch)):
        same(a, b)


def test_dataloader_shuffles_like_pytorch(torch):
    def order(lib):
        lib.manual_seed(7)
        data = lib.utils.data.TensorDataset(lib.arange(20))
        loader = lib.utils.data.DataLoader(data, batch_size=6, shuffle=True)
        return [batch[0].tolist() for _ in range(2) for batch in loader]

    assert order(teachgrad) == order(torch)


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                    reason="PyTorch's CPU capabilities are x86's")
@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_each_cpu_capability(torch, capability):
    """PyTorch's float32 normal fill and its fused multiply-adds depend on the CPU code it
    runs (``ATEN_CPU_CAPABILITY``): teachgrad follows the same switch. With ``default``
    PyTorch calls the C library's logf/sinf/cosf, which teachgrad rounds from float64: equal
    to the last bit nearly always, and to 1e-6 relative always."""
    code = textwrap.dedent("""
        import numpy as np, sys, teachgrad, torch
        out = []
        for lib in (teachgrad, torch):
            lib.manual_seed(3)
            out.append(np.concatenate([lib.randn(5000).numpy(),
                                       lib.empty(999).normal_(1, 2).numpy(),
                                       lib.empty(99).uniform_(-3, 2).numpy()]))
        ours, theirs = out
        assert np.array_equal(ours[5000 + 999:], theirs[5000 + 999:])
        far = np.abs(ours - theirs) > 1e-6 * np.maximum(np.abs(theirs), 1e-2)
        print(int(far.sum()), float(np.mean(ours == theirs)))
    """)
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability,
               PYTHONPATH=os.path.dirname(os.path.dirname(teachgrad.__file__)))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    far, equal_share = result.stdout.split()
    assert int(far) == 0
    assert float(equal_share) == 1.0 if capability == "avx2" else float(equal_share) > 0.95


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_poisson_and_gamma_draws(torch, dtype):
    rates = np.array([0, 0.5, 3, 9.9, 10, 12.5, 50, 1000, 1e5], dtype=dtype)
    shapes = np.array([1e-3, 0.1, 0.5, 0.99, 1.0, 1.5, 3.7, 10.0, 100.0], dtype=dtype)
    for seed in SEEDS[:4]:
        both(torch, seed)
        same(teachgrad.poisson(teachgrad.tensor(rates)), torch.poisson(torch.from_numpy(rates)))
        ours = teachgrad.distributions.Gamma(teachgrad.tensor(shapes), teachgrad.tensor(2.0))
        theirs = torch.distributions.Gamma(torch.from_numpy(shapes), torch.tensor(2.0))
        same(ours.sample(), theirs.sample())
        same(teachgrad.get_rng_state(), torch.get_rng_state())


def test_gamma_based_distributions(torch):
    def draws(lib):
        lib.manual_seed(23)
        d = lib.distributions
        return [d.Poisson(lib.tensor([0.5, 3.0, 20.0])).sample((3,)),
                d.Chi2(lib.tensor([0.5, 3.0])).sample((3,)),
                d.StudentT(lib.tensor([2.5, 3.0])).sample((3,))]

    for a, b in zip(draws(teachgrad), draws(torch)):
        same(a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binomial_draws(torch, dtype):
    counts = np.array([0, 5, 10, 10, 20, 50, 100, 1000, 1e4, 7, 30, 200, 1e6], dtype=dtype)
    probs = np.array([0.5, 0.3, 0.5, 0.9, 0.6, 0.2, 0.05, 0.5, 0.99, 1, 0, 0.75, 0.3], dtype=dtype)
    for seed in SEEDS[:5]:  # (inversion, BTRS, and both on 1 - p)
        both(torch, seed)
        same(teachgrad.binomial(teachgrad.tensor(counts), teachgrad.tensor(probs)),
             torch.binomial(torch.from_numpy(counts), torch.from_numpy(probs)))
        same(teachgrad.get_rng_state(), torch.get_rng_state())


def test_dropout_rrelu_and_bernoulli_with_a_number(torch):
    """PyTorch 2.13's CPU ``bernoulli_(p)`` (a number) is its plain kernel, a 53-bit uniform
    below p, which dropout uses too; RReLU draws a slope for each element ≤ 0 only."""
    x = np.linspace(-3, 3, 60).astype(np.float32).reshape(3, 4, 5)

    def draws(lib):
        lib.manual_seed(9)
        f, data = lib.nn.functional, lib.tensor(x)
        return [f.dropout(data, 0.3), lib.nn.Dropout(0.5)(data),
                f.dropout2d(data.reshape(3, 4, 5, 1), 0.4), f.alpha_dropout(data, 0.2, True),
                f.feature_alpha_dropout(data, 0.2, True), f.rrelu(data, training=True),
                f.rrelu(data.double(), 0.1, 0.6, training=True), lib.nn.RReLU()(data),
                lib.bernoulli(lib.zeros(30), 0.25),
                lib.empty(40, dtype=lib.float64).bernoulli_(0.5), lib.rand(2)]

    for a, b in zip(draws(teachgrad), draws(torch)):
        same(a, b)


def test_a_generator_prints_as_pytorchs_c_class():
    # manual_seed returns the generator, so `torch.manual_seed(0)` in a notebook shows it
    shown = repr(teachgrad.manual_seed(0))
    assert shown.startswith("<teachgrad._C.Generator object at 0x")
    real = pytest.importorskip("torch")
    assert repr(real.manual_seed(0)).split(" at ")[0] == shown.split(" at ")[0].replace(
        "teachgrad", "torch")


@pytest.mark.parametrize("kwargs", [
    dict(dtype="float32", low=-1, high=1), dict(dtype="float64"), dict(dtype="int64"),
    dict(dtype="uint8"), dict(dtype="bool"), dict(dtype="float32", noncontiguous=True),
    dict(dtype="int32", exclude_zero=True, low=-2, high=2), dict(dtype="int8", low=-100),
])
def test_make_tensor_draws_pytorchs_numbers(kwargs):
    real = pytest.importorskip("torch")

    def made(lib):
        lib.manual_seed(0)
        options = dict(kwargs, dtype=getattr(lib, kwargs["dtype"]))
        t = lib.testing.make_tensor(3, 4, device="cpu", **options)
        return t.tolist(), t.is_contiguous()

    assert made(teachgrad) == made(real)
