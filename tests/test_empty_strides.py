"""Strides of empty tensors (a dimension of size 0), and the layout of ``*_like`` results.

NumPy gives every empty array it allocates all-zero strides; PyTorch gives an empty tensor
the strides of a row-major tensor of its shape (a size-0 dim counted as 1), and its views
compute theirs from those: ``zeros(4, 4, 2, 0).permute(3, 0, 1, 2)`` has strides
(1, 8, 2, 1). The expected values below are derived by hand in the comments; the random
view chains at the end are checked against PyTorch when it is installed.
"""

from __future__ import annotations

import random

import pytest

import teachgrad

# Each case: (expression, expected shape, expected strides). Row-major strides of
# (2, 0, 3) are (3, 3, 1): dim 2 steps 1, dim 1 steps 3, dim 0 steps 3 * max(0, 1) = 3.
HAND_DERIVED = [
    # (4, 4, 2, 0) row-major: (8, 2, 1, 1); permuting moves the strides with their dims
    ("zeros(4, 4, 2, 0).permute(3, 0, 1, 2)", (0, 4, 4, 2), (1, 8, 2, 1)),
    ("zeros(2, 0, 3)", (2, 0, 3), (3, 3, 1)),
    ("zeros(2, 0, 3).transpose(0, 2)", (3, 0, 2), (1, 3, 3)),
    ("zeros(0, 3).t()", (3, 0), (1, 3)),
    ("zeros(2, 0, 3).mT", (2, 3, 0), (3, 1, 3)),
    # a step of 2 along dim 2 doubles its stride (even though no element is read)
    ("zeros(2, 0, 3)[:, :, ::2]", (2, 0, 2), (3, 3, 2)),
    ("zeros(0, 3)[::2]", (0, 3), (6, 1)),
    # an empty slice of a non-empty tensor keeps the tensor's strides
    ("zeros(4, 3).narrow(1, 0, 0)", (4, 0), (3, 1)),
    ("zeros(4, 3)[:, 3:]", (4, 0), (3, 1)),
    ("zeros(2, 0, 3).select(2, 1)", (2, 0), (3, 3)),
    ("zeros(2, 0, 3).permute(2, 1, 0).select(0, 1)", (0, 2), (3, 3)),
    # unsqueeze(d): the new dim's stride is size[d] * stride[d] (1 at the end)
    ("zeros(2, 0, 3).unsqueeze(0)", (1, 2, 0, 3), (6, 3, 3, 1)),
    ("zeros(2, 0, 3).unsqueeze(1)", (2, 1, 0, 3), (3, 0, 3, 1)),
    ("zeros(2, 0, 3).unsqueeze(3)", (2, 0, 3, 1), (3, 3, 1, 1)),
    ("zeros(2, 0, 3).permute(2, 1, 0).unsqueeze(1)", (3, 1, 0, 2), (1, 0, 3, 3)),
    # view/reshape to another shape: row-major strides of the new shape; to the same
    # shape: the old strides
    ("zeros(2, 0, 3).view(6, 0)", (6, 0), (1, 1)),
    ("zeros(2, 0, 3).permute(2, 1, 0).reshape(0, 6)", (0, 6), (6, 1)),
    ("zeros(2, 0, 3).permute(2, 1, 0).view(3, 0, 2)", (3, 0, 2), (1, 3, 3)),
    ("zeros(2, 0, 3).permute(2, 1, 0).flatten()", (0,), (1,)),
    ("zeros(1, 0, 1).permute(2, 1, 0).squeeze()", (0,), (1,)),
    # expand: stride 0 where a size-1 dim grows (to 0 too), the rest kept
    ("zeros(1, 0).expand(5, 0)", (5, 0), (0, 1)),
    ("zeros(0, 1).expand(0, 3)", (0, 3), (1, 0)),
    ("zeros(3, 0).expand(1, 3, 0)", (1, 3, 0), (3, 1, 1)),
    # all-zero strides a view was given on purpose are kept
    ("tensor(1.).expand(3, 0)", (3, 0), (0, 0)),
    ("zeros(0).as_strided((2, 0, 3), (5, 7, 1))", (2, 0, 3), (5, 7, 1)),
    ("zeros(0).as_strided((2, 0), (0, 0))", (2, 0), (0, 0)),
    # expand keeps (0, 1), empty_like those strides, select the column's 0
    ("empty_like(zeros(2).expand(0, 2)).select(1, 1)", (0,), (0,)),
    # diagonal: the sum of the two dims' strides, the others kept
    ("zeros(0, 3).diagonal()", (0,), (4,)),
    ("zeros(2, 0, 3).diagonal(0, 0, 2)", (0, 2), (3, 4)),  # dim 1 kept, then the diagonal
    ("zeros(0, 3).unfold(1, 2, 1)", (0, 2, 2), (3, 1, 1)),
    ("zeros(0, 4).split(2, 1)[1]", (0, 2), (4, 1)),
    ("zeros(3, 0).unbind(0)[2]", (0,), (1,)),
    # clone and empty_like keep an empty tensor's strides exactly (it is "contiguous")
    ("zeros(2, 0, 3).permute(2, 1, 0).clone()", (3, 0, 2), (1, 3, 3)),
    ("zeros(2, 0, 3)[:, :, ::2].clone()", (2, 0, 2), (3, 3, 2)),
    ("empty_like(zeros(2, 0, 3).permute(2, 1, 0))", (3, 0, 2), (1, 3, 3)),
    ("zeros(2, 0, 3).permute(2, 1, 0).contiguous()", (3, 0, 2), (1, 3, 3)),
    # flip keeps the strides (never negative), and so does a dtype conversion
    ("zeros(2, 0, 3).permute(2, 1, 0).flip(0)", (3, 0, 2), (1, 3, 3)),
    ("zeros(3, 4, 2)[:, :0].flip(0)", (3, 0, 2), (8, 2, 1)),
    ("zeros(3, 4, 2)[:, :0].double()", (3, 0, 2), (8, 2, 1)),
    ("zeros(2, 0, 3).permute(2, 1, 0).to(int32)", (3, 0, 2), (1, 3, 3)),
    # channels_last of (2, 3, 0, 4): C innermost (1), then W (3), H (3 * 4), N (12 * 0)
    ("zeros(2, 3, 0, 4).contiguous(memory_format=channels_last)", (2, 3, 0, 4),
     (0, 1, 12, 3)),
    ("empty_like(zeros(2, 3, 0, 4), memory_format=channels_last)", (2, 3, 0, 4),
     (0, 1, 12, 3)),
]


def _eval(expression: str, module=teachgrad):
    return eval(expression, {name: getattr(module, name) for name in dir(module)})


@pytest.mark.parametrize(("expression", "shape", "strides"), HAND_DERIVED,
                         ids=[case[0] for case in HAND_DERIVED])
def test_empty_strides_by_hand(expression, shape, strides):
    t = _eval(expression)
    assert tuple(t.shape) == shape
    assert t.stride() == strides
    assert t.stride(-1) == strides[-1]
    assert t.is_contiguous()  # PyTorch: a tensor with no elements always is


@pytest.mark.parametrize(("expression", "shape", "strides"), HAND_DERIVED,
                         ids=[case[0] for case in HAND_DERIVED])
def test_empty_strides_match_torch(expression, shape, strides):
    torch = pytest.importorskip("torch")
    assert _eval(expression, torch).stride() == strides


def test_channels_last_of_an_empty_tensor_reads_its_strides():
    # is_contiguous(channels_last) of an empty tensor asks its strides: C innermost (stride
    # 1), then W (stride C = 3), H (3 * 4), N (12 * 0 = 0).
    x = teachgrad.zeros(2, 3, 0, 4)
    assert not x.is_contiguous(memory_format=teachgrad.channels_last)  # (12, 4, 4, 1)
    cl = x.contiguous(memory_format=teachgrad.channels_last)
    assert cl.is_contiguous(memory_format=teachgrad.channels_last)
    assert cl.is_contiguous()
    # contiguous and channels-last at once: dim_order sorts by the strides
    assert cl.dim_order() == (0, 2, 3, 1)
    assert x.dim_order() == (0, 1, 2, 3)


def test_empty_views_still_work_as_values_and_in_backward():
    x = teachgrad.zeros(2, 0, 3, requires_grad=True)
    y = x.permute(2, 1, 0).unsqueeze(1)[:, :, :, ::2]
    assert y.shape == (3, 1, 0, 1) and y.stride() == (1, 0, 3, 6)
    y.sum().backward()
    assert x.grad.shape == (2, 0, 3)
    assert x.grad.stride() == (3, 3, 1)
    # writing through an empty view changes nothing and does not fail
    z = teachgrad.ones(2, 0, 3)
    z.permute(2, 1, 0)[::2].zero_()
    assert teachgrad.equal(z, teachgrad.ones(2, 0, 3))


def test_expand_gives_a_new_leading_dim_of_size_1_a_real_stride():
    # PyTorch: a new leading dim of size 1 steps over the whole dim inside it
    assert teachgrad.zeros(3).expand(1, 3).stride() == (3, 1)
    assert teachgrad.zeros(3).expand(1, 1, 3).stride() == (3, 3, 1)
    assert teachgrad.zeros(3, 1).expand(1, 3, 4).stride() == (3, 1, 0)
    assert teachgrad.zeros(2, 3).t().expand(1, 3, 2).stride() == (3, 1, 3)
    assert teachgrad.zeros(3).expand(2, 3).stride() == (0, 1)
    assert teachgrad.tensor(1.0).expand(1, 3).stride() == (0, 0)
    assert teachgrad.tensor(1.0).expand(1, 1).stride() == (0, 0)


LIKE_FUNCTIONS = {
    "zeros_like": lambda m, x, **kw: m.zeros_like(x, **kw),
    "ones_like": lambda m, x, **kw: m.ones_like(x, **kw),
    "empty_like": lambda m, x, **kw: m.empty_like(x, **kw),
    "full_like": lambda m, x, **kw: m.full_like(x, 7, **kw),
}
LIKE_VALUES = {"zeros_like": 0, "ones_like": 1, "empty_like": 0, "full_like": 7}


@pytest.mark.parametrize("name", sorted(LIKE_FUNCTIONS))
def test_like_functions_keep_the_layout_by_default(name):
    make = LIKE_FUNCTIONS[name]
    x = teachgrad.zeros(3, 4, 5)
    # transposed (0, 2): strides (1, 5, 20) — kept (preserve_format is the default)
    out = make(teachgrad, x.transpose(0, 2))
    assert out.shape == (5, 4, 3) and out.stride() == (1, 5, 20)
    assert (out == LIKE_VALUES[name]).all()
    # a slice with gaps: dense again, in the same dim order
    assert make(teachgrad, x[:, ::2]).stride() == (10, 5, 1)
    assert make(teachgrad, x.transpose(0, 2), memory_format=teachgrad.contiguous_format
                ).stride() == (12, 3, 1)
    cl = make(teachgrad, teachgrad.zeros(2, 3, 4, 5), memory_format=teachgrad.channels_last)
    assert cl.stride() == (60, 1, 15, 3)
    assert make(teachgrad, x, dtype=teachgrad.int32).dtype == teachgrad.int32
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last"):
        make(teachgrad, x, memory_format=teachgrad.channels_last)
    with pytest.raises(TypeError, match="must be torch.memory_format, not str"):
        make(teachgrad, x, memory_format="channels_last")


# ----------------------------------------------------------------------------------------
# Random chains of views of empty tensors, against PyTorch
# ----------------------------------------------------------------------------------------
def _random_step(rng: random.Random, shape: list) -> tuple[str, object]:
    """One view op (or clone/contiguous/empty_like) valid for a tensor of ``shape``: its
    name and a function of (module, tensor)."""
    n = len(shape)
    ops = [("contiguous", lambda m, t: t.contiguous()), ("clone", lambda m, t: t.clone()),
           ("empty_like", lambda m, t: m.empty_like(t))]
    d = rng.randint(-n - 1, n)
    ops.append((f"unsqueeze({d})", lambda m, t, d=d: t.unsqueeze(d)))
    if n <= 2:
        ops.append(("t()", lambda m, t: t.t()))
    if n:
        p = list(range(n))
        rng.shuffle(p)
        ops.append((f"permute{tuple(p)}", lambda m, t, p=p: t.permute(*p)))
        a, b = rng.randrange(n), rng.randrange(n)
        ops.append((f"transpose({a}, {b})", lambda m, t, a=a, b=b: t.transpose(a, b)))
        d = rng.randrange(n)
        start = rng.randint(0, shape[d])
        length = rng.randint(0, shape[d] - start)
        ops.append((f"narrow({d}, {start}, {length})",
                    lambda m, t, d=d, s=start, k=length: t.narrow(d, s, k)))
        key = (slice(None),) * d + (slice(rng.randint(0, shape[d]), None, rng.randint(1, 3)),)
        ops.append((f"[{key}]", lambda m, t, k=key: t[k]))
        if shape[d]:
            i = rng.randrange(shape[d])
            ops.append((f"select({d}, {i})", lambda m, t, d=d, i=i: t.select(d, i)))
        if 1 in shape:
            ops.append(("squeeze()", lambda m, t: t.squeeze()))
        sizes = [rng.choice([s, -1]) if s != 1 else rng.choice([0, 1, 3]) for s in shape]
        sizes = [rng.randint(0, 2)] * rng.randint(0, 1) + sizes
        ops.append((f"expand{tuple(sizes)}", lambda m, t, s=sizes: t.expand(*s)))
        ops.append(("flatten()", lambda m, t: t.flatten()))
        new = [rng.randint(0, 3) for _ in range(rng.randint(1, 3))]
        new[rng.randrange(len(new))] = 0
        ops.append((f"reshape{tuple(new)}", lambda m, t, s=new: t.reshape(*s)))
        ops.append((f"view{tuple(shape)}", lambda m, t, s=shape: t.view(*s)))
        if n >= 2:
            ops.append(("mT", lambda m, t: t.mT))
            if a != b:
                ops.append((f"diagonal(0, {a}, {b})", lambda m, t, a=a, b=b: t.diagonal(0, a, b)))
        k = rng.randint(1, 2)
        ops.append((f"unfold({d}, {min(k, shape[d])}, {k})",
                    lambda m, t, d=d, k=k: t.unfold(d, min(k, t.shape[d]), k)))
        ops.append((f"split({k}, {d})[0]", lambda m, t, d=d, k=k: t.split(k, d)[0]))
    return rng.choice(ops)


def _facts(t) -> tuple:
    return tuple(t.shape), t.stride(), t.is_contiguous(), t.dim_order()


@pytest.mark.parametrize("seed", range(8))
def test_random_empty_view_chains_match_torch(seed):
    torch = pytest.importorskip("torch")
    rng = random.Random(seed)
    for _ in range(40):
        shape = [rng.randint(0, 3) for _ in range(rng.randint(1, 4))]
        shape[rng.randrange(len(shape))] = 0
        ours, theirs = teachgrad.zeros(*shape), torch.zeros(*shape)
        chain = [f"zeros{tuple(shape)}"]
        for _ in range(rng.randint(1, 5)):
            name, step = _random_step(rng, list(theirs.shape))
            chain.append(name)
            ours, theirs = step(teachgrad, ours), step(torch, theirs)
            assert _facts(ours) == _facts(theirs), ".".join(chain)


# ----------------------------------------------------------------------------------------
# Size-1 dims of non-empty tensors: NumPy may choose another stride for them
# ----------------------------------------------------------------------------------------
SIZE_ONE_CASES = [
    # (2, 3)[:1] is (1, 3) with strides (3, 1); [::2] doubles dim 0's stride to 6;
    # unsqueeze(0) puts size * stride = 1 * 6 before it
    ("zeros(2, 3)[:1][::2]", (6, 1)),
    ("zeros(2, 3)[:1][::2].unsqueeze(0)", (6, 6, 1)),
    # unfold(1, 1, 1) of (2, 3, 3): (2, 3, 3, 1), strides (9, 3, 1, 3): the window dim
    # steps as dim 1 did; unsqueeze(1) adds 3 * 3 = 9 and keeps the window's 3
    ("zeros(2, 3, 3).unfold(1, 1, 1).unsqueeze(1)", (9, 9, 3, 1, 3)),
    # view to the same shape: PyTorch's computeStride gives the size-1 dim of mT of
    # (3, 2, 2, 1) (shape (3, 2, 1, 2), strides (4, 2, 1, 1)) the stride 2 * 1 = 2
    ("zeros(3, 2, 2, 1).mT.view(3, 2, 1, 2)", (4, 2, 2, 1)),
    # (1,) with stride 3 (every third element) viewed as (1, 1): both dims step 3
    ("zeros(3, 1, 2).view(-1)[4::3].reshape(1, 1)", (3, 3)),
    # a one-element tensor, and a (2, 1) one that is contiguous in PyTorch's sense, keep
    # their strides in clone and the *_like functions
    ("zeros(3)[:1][::2].clone()", (2,)),
    ("tensor([5.]).flip(0)", (1,)),  # (NumPy's flipped view has stride -1)
    ("ones(1, 3).flip(0)", (3, 1)),
    ("zeros(3, 4, 2)[:1].diagonal(-2, 1, 0).clone()", (1, 10)),
    ("zeros_like(zeros(2, 1).t())", (1, 1)),
    # channels_last by PyTorch's formula: C 1, W C, H W*C, N H*W*C
    ("zeros(3, 1, 3, 2).clone(memory_format=channels_last)", (6, 1, 2, 1)),
    ("zeros(1, 2, 1, 1).clone(memory_format=channels_last)", (2, 1, 2, 2)),
]


@pytest.mark.parametrize(("expression", "strides"), SIZE_ONE_CASES,
                         ids=[case[0] for case in SIZE_ONE_CASES])
def test_size_one_dims_get_pytorch_strides(expression, strides):
    assert _eval(expression).stride() == strides


@pytest.mark.parametrize(("expression", "strides"), SIZE_ONE_CASES,
                         ids=[case[0] for case in SIZE_ONE_CASES])
def test_size_one_dims_match_torch(expression, strides):
    torch = pytest.importorskip("torch")
    assert _eval(expression, torch).stride() == strides


def test_views_with_size_one_dims_keep_values_and_sharing():
    x = teachgrad.arange(12.0).reshape(3, 4)
    v = x[:1].t().reshape(4, 1).unsqueeze(0)
    assert v.stride() == (4, 1, 4)
    assert v.flatten().tolist() == [0.0, 1.0, 2.0, 3.0]
    v[0, 2, 0] = 20.0  # a view: writes into x
    assert x[0, 2].item() == 20.0
    c = x[:1, ::2].t().clone()  # (2, 1) from strides (2, 4): dense in the same order
    assert c.tolist() == [[0.0], [20.0]] and c.stride() == (1, 2)


@pytest.mark.parametrize("fmt", ["contiguous_format", "channels_last", "preserve_format"])
def test_clone_in_a_format_never_shares_memory(fmt):
    # x is already in the format asked for: the clone is still a copy (it was a view of x
    # for contiguous_format, and for channels_last of a channels-last x)
    x = teachgrad.ones(2, 3, 4, 5)
    if fmt == "channels_last":
        x = x.contiguous(memory_format=teachgrad.channels_last)
    y = x.clone(memory_format=getattr(teachgrad, fmt))
    y[0, 0, 0, 0] = 5.0
    assert x[0, 0, 0, 0].item() == 1.0
    assert y.stride() == x.stride()
