"""``teachgrad.utils.data``: datasets, samplers, default_collate and DataLoader.

Expected batches are written out by hand; shuffling is checked for being a permutation
and for reproducibility under ``teachgrad.manual_seed`` (its numbers differ from PyTorch's
generator by design). With torch installed, the deterministic parts (collated structure
and dtypes, lengths, error messages) are compared with PyTorch's own DataLoader.
"""

from __future__ import annotations

import doctest
import warnings
from collections import OrderedDict, namedtuple

import numpy as np
import pytest

import teachgrad as torch
from teachgrad.utils import data as data_module
from teachgrad.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    default_collate,
    default_convert,
    random_split,
)

Point = namedtuple("Point", ["x", "y"])


@pytest.mark.parametrize("module", ["collate", "dataloader", "dataset", "sampler"])
def test_docstring_examples(module):
    import importlib

    mod = importlib.import_module(f"teachgrad.utils.data.{module}")
    assert doctest.testmod(mod).failed == 0
    assert doctest.testmod(data_module).failed == 0


def test_reachable_under_pytorchs_spelling():
    import teachgrad

    assert teachgrad.utils.data.DataLoader is DataLoader
    assert teachgrad.utils.data.TensorDataset is TensorDataset


# ----------------------------------------------------------------------------------------
# default_collate
# ----------------------------------------------------------------------------------------
def test_collate_stacks_tensors_and_converts_numbers():
    batch = default_collate([(torch.tensor([1.0, 2.0]), 3, 0.5, "a"),
                             (torch.tensor([4.0, 5.0]), 6, 1.5, "b")])
    assert isinstance(batch, list) and len(batch) == 4
    np.testing.assert_array_equal(batch[0].numpy(), [[1, 2], [4, 5]])
    assert batch[1].dtype == torch.int64 and batch[1].tolist() == [3, 6]
    assert batch[2].dtype == torch.float64 and batch[2].tolist() == [0.5, 1.5]
    assert batch[3] == ("a", "b")
    assert default_collate([True, False]).dtype == torch.bool


def test_collate_numpy_dicts_namedtuples_and_lists():
    batch = default_collate([{"x": np.zeros(2, np.float32), "n": np.int32(1)},
                             {"x": np.ones(2, np.float32), "n": np.int32(2)}])
    assert batch["x"].dtype == torch.float32 and batch["x"].shape == (2, 2)
    assert batch["n"].dtype == torch.int32 and batch["n"].tolist() == [1, 2]

    ordered = default_collate([OrderedDict(a=1.0), OrderedDict(a=2.0)])
    assert type(ordered) is OrderedDict

    points = default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert type(points) is Point and points.x.tolist() == [1, 3]

    lists = default_collate([[1, 2], [3, 4]])
    assert isinstance(lists, list) and [t.tolist() for t in lists] == [[1, 3], [2, 4]]


def test_collate_errors():
    with pytest.raises(TypeError, match=r"^default_collate: batch must contain tensors, "
                       r"numpy arrays, numbers, dicts or lists; found <class 'object'>$"):
        default_collate([object()])
    with pytest.raises(TypeError, match="found <U1$"):
        default_collate([np.array(["a"])])
    with pytest.raises(RuntimeError, match="^each element in list of batch should be of "
                       "equal size$"):
        default_collate([[1, 2], [1]])
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        default_collate([torch.zeros(2), torch.zeros(3)])


def test_default_convert_leaves_batching_alone():
    out = default_convert((np.array([1, 2]), "s", 3))
    assert isinstance(out, list) and out[0].tolist() == [1, 2] and out[1:] == ["s", 3]


# ----------------------------------------------------------------------------------------
# Datasets
# ----------------------------------------------------------------------------------------
def test_tensor_dataset():
    X, y = torch.arange(6.0).reshape(3, 2), torch.tensor([0, 1, 0])
    ds = TensorDataset(X, y)
    assert len(ds) == 3
    x1, y1 = ds[1]
    assert x1.tolist() == [2.0, 3.0] and y1.item() == 1
    with pytest.raises(AssertionError, match="^Size mismatch between tensors\nHint: "):
        TensorDataset(torch.zeros(3), torch.zeros(4))


def test_dataset_base_subset_and_concat():
    with pytest.raises(NotImplementedError):
        Dataset()[0]
    sub = Subset(list("abcdef"), [5, 1, 3])
    assert [sub[i] for i in range(len(sub))] == ["f", "b", "d"]
    both = TensorDataset(torch.arange(2)) + TensorDataset(torch.arange(10, 13))
    assert isinstance(both, ConcatDataset) and len(both) == 5
    assert [both[i][0].item() for i in range(-5, 5)] == [0, 1, 10, 11, 12] * 2
    with pytest.raises(ValueError, match="absolute value of index should not exceed"):
        both[-6]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])


def test_random_split_lengths_and_reproducibility():
    torch.manual_seed(3)
    parts = random_split(range(10), [0.5, 0.3, 0.2])
    assert [len(p) for p in parts] == [5, 3, 2]
    everything = [i for p in parts for i in p]
    assert sorted(everything) == list(range(10))
    torch.manual_seed(3)
    assert [i for p in random_split(range(10), [5, 3, 2]) for i in p] == everything
    # Rounding down leaves 2 items, given to the first two subsets.
    assert [len(p) for p in random_split(range(7), [0.4, 0.3, 0.3])] == [3, 2, 2]
    g = torch.Generator().manual_seed(0)
    first = [list(p) for p in random_split(range(6), [3, 3], generator=g)]
    g.manual_seed(0)
    assert [list(p) for p in random_split(range(6), [3, 3], generator=g)] == first


def test_random_split_errors():
    with pytest.raises(ValueError, match="^Sum of input lengths does not equal the length "
                       "of the input dataset!\nHint: "):
        random_split(range(10), [3, 3])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(range(2), [1.0, 0.0])


# ----------------------------------------------------------------------------------------
# Samplers
# ----------------------------------------------------------------------------------------
def test_samplers():
    assert list(SequentialSampler(range(3))) == [0, 1, 2]
    torch.manual_seed(0)
    once = list(RandomSampler(range(20)))
    again = list(RandomSampler(range(20)))
    assert sorted(once) == list(range(20)) and once != again  # a new order each pass
    torch.manual_seed(0)
    assert list(RandomSampler(range(20))) == once
    drawn = list(RandomSampler(range(3), replacement=True, num_samples=50))
    assert len(drawn) == 50 and set(drawn) <= {0, 1, 2}
    more = list(RandomSampler(range(4), num_samples=10))  # two full passes + 2
    assert sorted(more[:4]) == sorted(more[4:8]) == [0, 1, 2, 3] and len(more) == 10
    assert sorted(SubsetRandomSampler([7, 8, 9])) == [7, 8, 9]
    batches = BatchSampler(range(7), 3, drop_last=True)
    assert list(batches) == [[0, 1, 2], [3, 4, 5]] and len(batches) == 2
    assert len(BatchSampler(range(7), 3, drop_last=False)) == 3


def test_sampler_errors():
    with pytest.raises(ValueError, match="^batch_size should be a positive integer value, "
                       "but got batch_size=0$"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="^drop_last should be a boolean value"):
        BatchSampler(range(3), 2, 1)
    with pytest.raises(TypeError, match="^replacement should be a boolean value"):
        RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="^num_samples should be a positive integer value"):
        RandomSampler([])


# ----------------------------------------------------------------------------------------
# DataLoader
# ----------------------------------------------------------------------------------------
def make_dataset(n=10):
    return TensorDataset(torch.arange(2.0 * n).reshape(n, 2), torch.arange(n))


def test_loader_batches_in_order_with_a_short_last_batch():
    loader = DataLoader(make_dataset(), batch_size=4)
    batches = list(loader)
    assert len(loader) == len(batches) == 3
    assert [yb.tolist() for _, yb in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert batches[0][0].shape == (4, 2) and batches[0][0].dtype == torch.float32
    assert len(DataLoader(make_dataset(), batch_size=4, drop_last=True)) == 2
    assert [yb.tolist() for _, yb in DataLoader(make_dataset(), batch_size=4,
                                                drop_last=True)] == [[0, 1, 2, 3],
                                                                     [4, 5, 6, 7]]


def test_default_batch_size_is_one():
    xb, yb = next(iter(DataLoader(make_dataset())))
    assert xb.shape == (1, 2) and yb.tolist() == [0]


def test_shuffle_is_a_new_permutation_each_epoch_and_reproducible():
    loader = DataLoader(make_dataset(12), batch_size=5, shuffle=True)
    torch.manual_seed(1)
    epoch1 = [i for _, yb in loader for i in yb.tolist()]
    epoch2 = [i for _, yb in loader for i in yb.tolist()]
    assert sorted(epoch1) == sorted(epoch2) == list(range(12))
    assert epoch1 != epoch2
    torch.manual_seed(1)
    assert [i for _, yb in loader for i in yb.tolist()] == epoch1
    # With a generator, independently of the global seed.
    g = torch.Generator().manual_seed(5)
    loader = DataLoader(make_dataset(12), batch_size=5, shuffle=True, generator=g)
    first = [i for _, yb in loader for i in yb.tolist()]
    g.manual_seed(5)
    torch.manual_seed(99)
    assert [i for _, yb in loader for i in yb.tolist()] == first


def test_custom_collate_sampler_batch_sampler_and_no_batching():
    ds = make_dataset(6)
    loader = DataLoader(ds, batch_size=3, collate_fn=lambda samples: len(samples))
    assert list(loader) == [3, 3]
    loader = DataLoader(ds, batch_size=2, sampler=[5, 4, 3, 2, 1, 0])
    assert [yb.tolist() for _, yb in loader] == [[5, 4], [3, 2], [1, 0]]
    loader = DataLoader(ds, batch_sampler=[[0, 5], [1]])
    assert [yb.tolist() for _, yb in loader] == [[0, 5], [1]] and len(loader) == 2
    singles = list(DataLoader([np.float32(1.5), np.float32(2.5)], batch_size=None))
    assert [s.item() for s in singles] == [1.5, 2.5] and singles[0].shape == ()


def test_iterable_dataset():
    class Stream(IterableDataset):
        def __iter__(self):
            return iter(range(5))

        def __len__(self):
            return 5

    loader = DataLoader(Stream(), batch_size=2)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3], [4]] and len(loader) == 3
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got "
                       "shuffle=True"):
        DataLoader(Stream(), shuffle=True)


def test_loader_argument_errors():
    ds = make_dataset()
    with pytest.warns(UserWarning, match="num_workers=2 is ignored") as record:
        loader = DataLoader(ds, batch_size=2, num_workers=2, persistent_workers=True)
    assert record[0].filename == __file__  # points at the user's line
    # the batches are those of a loader without workers
    assert [b[0].tolist() for b in loader] == [b[0].tolist() for b in DataLoader(ds, 2)]
    with pytest.raises(ValueError, match="^num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)
    with pytest.raises(ValueError, match="^sampler option is mutually exclusive with "
                       "shuffle$"):
        DataLoader(ds, sampler=[0, 1], shuffle=True)
    with pytest.raises(ValueError, match="^batch_sampler option is mutually exclusive"):
        DataLoader(ds, batch_sampler=[[0]], batch_size=2)
    with pytest.raises(ValueError, match="^batch_size=None option disables auto-batching"):
        DataLoader(ds, batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match="^persistent_workers option needs num_workers > 0$"):
        DataLoader(ds, persistent_workers=True)


def test_a_training_loop_with_a_loader_learns():
    torch.manual_seed(0)
    X = torch.randn(64, 2)
    y = X @ torch.tensor([2.0, -1.0]) + 0.5
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(X, y), batch_size=16, shuffle=True)
    for _ in range(30):
        for xb, yb in loader:
            opt.zero_grad()
            loss = ((model(xb).squeeze(1) - yb) ** 2).mean()
            loss.backward()
            opt.step()
    np.testing.assert_allclose(model.weight.detach().numpy(), [[2.0, -1.0]], atol=1e-3)
    np.testing.assert_allclose(model.bias.detach().numpy(), [0.5], atol=1e-3)


# ----------------------------------------------------------------------------------------
# Against real PyTorch
# ----------------------------------------------------------------------------------------
def structure(batch):
    """What a batch is made of: containers, and (shape, dtype name, values) for tensors."""
    if hasattr(batch, "dtype") and hasattr(batch, "shape"):
        return ("tensor", tuple(batch.shape), str(batch.dtype).split(".")[-1],
                batch.tolist())
    if isinstance(batch, dict):
        return (type(batch).__name__, {k: structure(v) for k, v in batch.items()})
    if isinstance(batch, (list, tuple)):
        return (type(batch).__name__, [structure(b) for b in batch])
    return batch


SAMPLES = {
    "tuples": lambda lib: [(lib.tensor([1.0, 2.0]), 3, 0.5, "a"),
                           (lib.tensor([4.0, 5.0]), 6, 1.5, "b")],
    "dicts of numpy": lambda lib: [{"x": np.zeros(2, np.float32), "n": np.int32(1)},
                                   {"x": np.ones(2, np.float32), "n": np.int32(2)}],
    "lists": lambda lib: [[1, 2.0], [3, 4.0]],
    "bools and numpy floats": lambda lib: [(True, np.float64(1)), (False, np.float64(2))],
    "nested": lambda lib: [{"a": [lib.zeros(2, 2), (1,)]}, {"a": [lib.ones(2, 2), (2,)]}],
}


@pytest.mark.torch
@pytest.mark.parametrize("name", SAMPLES)
def test_collate_matches_torch(name):
    real = pytest.importorskip("torch")
    ours = default_collate(SAMPLES[name](torch))
    theirs = real.utils.data.default_collate(SAMPLES[name](real))
    assert structure(ours) == structure(theirs)


@pytest.mark.torch
@pytest.mark.parametrize("kwargs", [dict(batch_size=3), dict(batch_size=3, drop_last=True),
                                    dict(), dict(batch_size=None),
                                    dict(batch_size=4, sampler=[6, 0, 3, 3, 1])])
def test_sequential_loader_matches_torch(kwargs):
    real = pytest.importorskip("torch")
    results = []
    for lib in (torch, real):
        ds = lib.utils.data.TensorDataset(lib.arange(14.0).reshape(7, 2), lib.arange(7))
        loader = lib.utils.data.DataLoader(ds, **kwargs)
        results.append((len(loader), [structure(b) for b in loader]))
    assert results[0] == results[1]


@pytest.mark.torch
def test_error_messages_match_torch():
    real = pytest.importorskip("torch")
    cases = [
        lambda lib: lib.utils.data.DataLoader(range(3), sampler=[0], shuffle=True),
        lambda lib: lib.utils.data.DataLoader(range(3), batch_sampler=[[0]], drop_last=True),
        lambda lib: lib.utils.data.DataLoader(range(3), batch_size=None, drop_last=True),
        lambda lib: lib.utils.data.DataLoader(range(3), num_workers=-1),
        lambda lib: lib.utils.data.DataLoader(range(3), timeout=-1),
        lambda lib: lib.utils.data.DataLoader(range(3), prefetch_factor=2),
        lambda lib: lib.utils.data.default_collate([{1, 2}]),
        lambda lib: lib.utils.data.BatchSampler(range(3), -1, False),
        lambda lib: lib.utils.data.ConcatDataset([lib.utils.data.TensorDataset(
            lib.zeros(2))])[-3],
    ]
    for case in cases:
        outcomes = []
        for lib in (torch, real):
            with pytest.raises(Exception) as info, warnings.catch_warnings():
                warnings.simplefilter("ignore")
                case(lib)
            outcomes.append((type(info.value), str(info.value)))
        assert outcomes[0] == outcomes[1]
    # Ours add one hint line after PyTorch's sentence.
    for case in [lambda lib: lib.utils.data.TensorDataset(lib.zeros(2), lib.zeros(3)),
                 lambda lib: lib.utils.data.random_split(range(4), [1, 1])]:
        outcomes = []
        for lib in (torch, real):
            with pytest.raises(Exception) as info:
                case(lib)
            outcomes.append((type(info.value), str(info.value).split("\nHint: ")[0]))
        assert outcomes[0] == outcomes[1]


def test_datasets_samplers_and_loaders_take_a_type_parameter_as_in_pytorch():
    from teachgrad.utils.data import DataLoader, Dataset, Sampler, TensorDataset

    class Lengths(Dataset[int]):  # PyTorch's docstring examples annotate like this
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return i

    class Backwards(Sampler[int]):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n - 1, -1, -1))

    assert list(DataLoader(Lengths(), sampler=Backwards(3), batch_size=None)) == [2, 1, 0]
    assert DataLoader[int] is not None
    with pytest.raises(TypeError, match="is not a generic class"):  # as in PyTorch
        TensorDataset[int]


# PyTorch's DataLoader draws a seed for its worker processes from its generator (else the
# default generator) each time iter() starts an epoch, workers or not; a shuffling
# RandomSampler then draws its own seed at the first batch. The random numbers a program
# draws after a loop over a loader depend on those draws, so teachgrad makes them too.

def _draws_after(lib, make_loader, consume) -> list:
    """``rand(3)`` after seeding 0 and running ``consume`` on a fresh loader."""
    lib.manual_seed(0)
    consume(make_loader(lib))
    return lib.rand(3).tolist()


def _int64_seed_draws(lib, count: int) -> list:
    lib.manual_seed(0)
    for _ in range(count):
        lib.empty((), dtype=lib.int64).random_()
    return lib.rand(3).tolist()


LOADER_DRAWS = {
    # name: (make loader, consume it, how many int64 seeds PyTorch draws meanwhile)
    "iter() of a plain loader": (lambda lib: lib.utils.data.DataLoader(range(4)), iter, 1),
    "a whole epoch": (lambda lib: lib.utils.data.DataLoader(range(4), batch_size=2), list, 1),
    "two epochs": (lambda lib: lib.utils.data.DataLoader(range(4)),
                   lambda dl: (list(dl), list(dl)), 2),
    "a shuffled epoch": (lambda lib: lib.utils.data.DataLoader(range(4), shuffle=True),
                         list, 2),
    "iter() of a shuffled loader": (
        lambda lib: lib.utils.data.DataLoader(range(4), shuffle=True), iter, 1),
    "an iterable dataset": (
        lambda lib: lib.utils.data.DataLoader(_Stream(lib)), list, 1),
}


def _Stream(lib):
    """A three-sample IterableDataset of ``lib``."""
    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(3))
    return Stream()


@pytest.mark.parametrize("name", LOADER_DRAWS)
def test_each_epoch_draws_pytorchs_worker_seed(name):
    make, consume, seeds = LOADER_DRAWS[name]
    assert _draws_after(torch, make, consume) == _int64_seed_draws(torch, seeds)


def test_the_worker_seed_comes_from_the_loaders_generator():
    g = torch.Generator().manual_seed(5)
    torch.manual_seed(0)
    list(DataLoader(range(4), generator=g))
    assert torch.rand(3).tolist() == _int64_seed_draws(torch, 0)  # default untouched
    expected = torch.Generator().manual_seed(5)
    torch.empty((), dtype=torch.int64).random_(generator=expected)
    assert g.get_state().tolist() == expected.get_state().tolist()


@pytest.mark.torch
@pytest.mark.parametrize("name", LOADER_DRAWS)
def test_pytorch_draws_those_seeds(name):
    real = pytest.importorskip("torch")
    make, consume, seeds = LOADER_DRAWS[name]
    assert _draws_after(real, make, consume) == _int64_seed_draws(real, seeds)


def test_iter_of_a_loader_is_pytorchs_single_process_iterator():
    # PyTorch's iter(loader) is a _SingleProcessDataLoaderIter (with num_workers=0): it
    # prints so, and len() of it is the number of batches of the epoch.
    loader = torch.utils.data.DataLoader(torch.arange(5.0), batch_size=2)
    batches = iter(loader)
    assert type(batches).__name__ == "_SingleProcessDataLoaderIter"
    assert repr(batches).startswith(
        "<teachgrad.utils.data.dataloader._SingleProcessDataLoaderIter object at 0x")
    assert len(batches) == 3
    assert iter(batches) is batches
    got = [b.tolist() for b in batches]
    assert got == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    with pytest.raises(StopIteration):
        next(batches)
