"""Creation and random functions given bad arguments refuse them as PyTorch does: an
arange running backwards or to infinity (an empty tensor before), linspace's steps of 2.5,
a generator that is not one (AttributeError: '_engine' before), a float seed, sizes,
dtypes and bounds that do not fit.

Expected messages are PyTorch 2.13's, written out, so these tests run without PyTorch;
with PyTorch installed each is also compared with what PyTorch says."""

from __future__ import annotations

import pytest

import teachgrad as tg

_FACTORY = ("torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
            "bool pin_memory = False, bool requires_grad = False")
_LINSPACE = "".join(
    f" * ({start} start, {end} end, int steps, *, Tensor out = None, {_FACTORY})\n"
    for start, end in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                       ("Number", "Number")))
_RANDN = (f" * (tuple of ints size, *, torch.Generator generator, Tensor out = None, {_FACTORY})\n"
          f" * (tuple of ints size, *, Tensor out = None, {_FACTORY})\n")

CASES = {
    "torch.zeros(2, -3)": (RuntimeError, "zeros: Dimension size must be non-negative."),
    # arange: PyTorch's checks, in its order
    "torch.arange(10, 0)": (RuntimeError, "upper bound and lower bound inconsistent with step "
                                          "sign"),
    "torch.arange(0, 10, -1)": (RuntimeError, "upper bound and lower bound inconsistent with "
                                              "step sign"),
    "torch.arange(-1.5)": (RuntimeError, "upper bound and lower bound inconsistent with step "
                                         "sign"),
    "torch.arange(0, float('inf'))": (RuntimeError, "unsupported range: 0 -> inf"),
    "torch.arange(1.5, float('-inf'), -1)": (RuntimeError, "unsupported range: 1.5 -> -inf"),
    "torch.arange(float('nan'))": (RuntimeError, "unsupported range: 0 -> nan"),
    "torch.arange(1e20)": (RuntimeError, "invalid size, possible overflow?"),
    "torch.arange(0, 1, 0)": (RuntimeError, "step must be nonzero"),
    "torch.arange(0, 1, 0.1, dtype=torch.long)": (ValueError, "step must be nonzero"),
    "torch.arange(0, 5, dtype=torch.bool)": (NotImplementedError,
                                             "\"arange_cpu\" not implemented for 'Bool'"),
    # linspace / logspace: an int number of steps, not negative
    "torch.linspace(0, 1, 2.5)": (TypeError, "linspace() received an invalid combination of "
                                  "arguments - got (int, int, float), but expected one of:\n"
                                  + _LINSPACE),
    "torch.linspace(0, 1, True)": (TypeError, "linspace() received an invalid combination of "
                                   "arguments - got (int, int, bool), but expected one of:\n"
                                   + _LINSPACE),
    "torch.logspace(0, 1, -1)": (RuntimeError, "number of steps must be non-negative"),
    # a generator that is not one; a seed that is not an int
    "torch.randn(2, generator=5)": (TypeError, "randn() received an invalid combination of "
                                    "arguments - got (int, generator=int), but expected one "
                                    "of:\n" + _RANDN),
    "torch.Generator().manual_seed(1.5)": (RuntimeError,
                                           "manual_seed expected a long, but got float"),
    "torch.Generator().manual_seed(True)": (RuntimeError,
                                            "manual_seed expected a long, but got bool"),
    # randint's bounds must fit the dtype drawn in (uint8 wrapped -5 and 299 around)
    "torch.randint(0, 5, (2,), dtype=torch.bool)": (RuntimeError,
                                                    "to - 1 is out of bounds for bool"),
    "torch.randint(0, 300, (2,), dtype=torch.uint8)": (
        RuntimeError, "to - 1 is out of bounds for unsigned char"),
    "torch.randint(-5, 5, (2,), dtype=torch.uint8)": (
        RuntimeError, "from is out of bounds for unsigned char"),
    "torch.randint(-200, 5, (2,), dtype=torch.int8)": (
        RuntimeError, "from is out of bounds for signed char"),
    "torch.randint_like(torch.ones(3), 5, dtype=torch.bool)": (
        RuntimeError, "to - 1 is out of bounds for bool"),
    "torch.randint(0, 2**63, (2,))": (ValueError, "Overflow when unpacking long long"),
    "torch.randint(0, 5, 2)": (TypeError, "randint() received an invalid combination of "
                               "arguments - got (int, int, int), but expected one of:\n"
                               + "".join(f" * ({low}int high, tuple of ints size, *, {gen}"
                                         f"Tensor out = None, {_FACTORY})\n"
                                         for low in ("", "int low, ")
                                         for gen in ("torch.Generator generator, ", ""))),
    # randperm's dtype must hold n - 1
    "torch.randperm(5, dtype=torch.bool)": (NotImplementedError,
                                            "\"randperm\" not implemented for 'Bool'"),
    "torch.randperm(257, dtype=torch.uint8)": (
        RuntimeError, "value cannot be converted to type uint8_t without overflow"),
    "torch.randperm(5000, dtype=torch.float16)": (
        RuntimeError, "n cannot be greater than 2049 for Half type."),
    # Python numbers an integer dtype cannot hold (NumPy wrapped 300 around to 44)
    "torch.tensor([300], dtype=torch.uint8)": (
        RuntimeError, "value cannot be converted to type uint8 without overflow"),
    "torch.tensor([1, 200], dtype=torch.int8)": (
        RuntimeError, "value cannot be converted to type int8 without overflow"),
    "torch.tensor([255.9], dtype=torch.uint8)": (
        RuntimeError, "value cannot be converted to type uint8 without overflow"),
    "torch.tensor([1e30], dtype=torch.long)": (
        RuntimeError, "value cannot be converted to type int64 without overflow"),
    "torch.tensor([float('nan')], dtype=torch.int32)": (
        RuntimeError, "value cannot be converted to type int32 without overflow"),
    "torch.empty(2, 3, dtype=5)": (TypeError,
                                   "empty(): argument 'dtype' must be torch.dtype, not int"),
}


def _raised(source: str, library) -> Exception:
    with pytest.raises(Exception) as caught:  # (the type is compared by the caller)
        eval(source, {"torch": library})
    return caught.value


@pytest.mark.parametrize("source", sorted(CASES))
def test_refused_as_pytorch_says(source):
    error = _raised(source, tg)
    kind, message = CASES[source]
    assert type(error) is kind
    assert str(error).split("Hint: ")[0].rstrip("\n") == message.rstrip("\n")


@pytest.mark.torch
@pytest.mark.parametrize("source", sorted(CASES))
def test_refused_as_pytorch(source):
    real = pytest.importorskip("torch")
    error = _raised(source, real)
    assert (type(error), str(error)) == CASES[source]


def test_arange_counting_down_is_hinted():
    with pytest.raises(RuntimeError, match=r"Hint: to count down, give a negative step"):
        tg.arange(5, 0)


@pytest.mark.parametrize("args, dtype, expected", [
    ((5, 0, -1), None, [5, 4, 3, 2, 1]),
    ((0, 0), None, []),
    # an int64 range counts in int64s: the bounds are truncated first (C++'s conversion)
    ((-0.5, 3), "int64", [0, 1, 2]),
    ((0.5, 3), "int64", [0, 1, 2]),
    # the other integer dtypes count in doubles and step by the truncated step
    ((-0.5, 3), "int32", [0, 1, 2, 3]),
    ((0, 1, 0.5), "int32", [0, 0]),
])
def test_arange_values(args, dtype, expected):
    kwargs = {} if dtype is None else {"dtype": getattr(tg, dtype)}
    assert tg.arange(*args, **kwargs).tolist() == expected


def test_manual_seed_takes_what_int_takes():
    # torch.manual_seed is Python calling int(seed); Generator.manual_seed wants an int
    tg.manual_seed(1.5)
    first = tg.rand(3).tolist()
    tg.manual_seed(1)
    assert tg.rand(3).tolist() == first


def test_a_generator_still_draws():
    g = tg.Generator().manual_seed(3)
    a = tg.randn(4, generator=g)
    assert tg.equal(a, tg.randn(4, generator=tg.Generator().manual_seed(3)))


@pytest.mark.torch
@pytest.mark.parametrize("args, dtype", [
    ((-0.5, 3), "int64"), ((0.5, 3), "int64"), ((-0.5, 3), "int32"), ((0, 1, 0.5), "int32"),
    ((0, 1, 0.1), "float32"), ((1, 2.5, 0.5), "float64"),
])
def test_arange_values_as_pytorch(args, dtype):
    real = pytest.importorskip("torch")
    ours = tg.arange(*args, dtype=getattr(tg, dtype))
    theirs = real.arange(*args, dtype=getattr(real, dtype))
    assert ours.tolist() == theirs.tolist() and str(ours.dtype) == str(theirs.dtype).replace(
        "torch", "teachgrad")


@pytest.mark.parametrize("source, expected", [
    ("torch.tensor([-1], dtype=torch.uint8)", [255]),  # (PyTorch's cast wraps a negative int)
    ("torch.tensor([-255, 255], dtype=torch.uint8)", [1, 255]),
    ("torch.tensor([2.7, -3.2], dtype=torch.int32)", [2, -3]),
    ("torch.randperm(256, dtype=torch.uint8).sort().values[-1:]", [255]),
    ("torch.randint(0, 2, (3,), dtype=torch.bool).logical_or(torch.tensor(True))",
     [True, True, True]),
])
def test_what_fits_is_taken(source, expected):
    assert eval(source, {"torch": tg}).tolist() == expected


def test_randint_warns_beyond_a_floats_exact_integers():
    with pytest.warns(UserWarning, match=r"to - 1 is out of bounds \[-\(2\^24\), 2\^24\]"):
        tg.randint(0, 2**25 + 1, (2,), dtype=tg.float32)
