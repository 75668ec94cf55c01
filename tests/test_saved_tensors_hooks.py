"""Hooks for saved tensors (``torch.autograd.graph.saved_tensors_hooks``, PyTorch's autograd
notes): what is packed, what backward gets back, and PyTorch's errors.

Gradients are checked against hand derivatives; what is packed against PyTorch when it
is installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch
from teachgrad.autograd.graph import (
    disable_saved_tensors_hooks,
    save_on_cpu,
    saved_tensors_hooks,
)


def test_the_notes_example_packs_the_saved_inputs_and_unpacks_them_in_backward():
    a = torch.ones(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True) * 2
    log = []

    def pack(x):
        log.append(("pack", x))
        return x

    def unpack(x):
        log.append(("unpack", x))
        return x

    with saved_tensors_hooks(pack, unpack):
        y = a * b
    assert [kind for kind, _ in log] == ["pack", "pack"]
    # the tensors themselves, other before self (the order PyTorch's docs print)
    assert [id(x) for _, x in log] == [id(b), id(a)]
    y.sum().backward()
    assert [kind for kind, _ in log[2:]] == ["unpack", "unpack"]
    assert [id(x) for _, x in log[2:]] == [id(b), id(a)]
    assert a.grad.tolist() == [2.0] * 5  # d(a·b)/da = b


def test_only_tensors_are_packed_and_the_graph_keeps_only_what_pack_returned():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    stored = {}

    def pack(t):  # "save to disk": keep a NumPy copy and a key, drop the tensor
        key = len(stored)
        stored[key] = t.detach().numpy().copy()
        return key

    def unpack(key):
        return torch.tensor(stored[key])

    with saved_tensors_hooks(pack, unpack):
        y = (x * 3).exp()  # x * 3 saves nothing packable (3 is a number); exp its result
    assert len(stored) == 1
    np.testing.assert_allclose(stored[0], np.exp(3 * np.array([0.5, -1.0, 2.0])), rtol=1e-6)
    y.sum().backward()
    # d exp(3x)/dx = 3·exp(3x)
    np.testing.assert_allclose(x.grad.numpy(), 3 * stored[0], rtol=1e-6)


def test_the_innermost_hooks_pack_and_the_grad_fn_attribute_unpacks():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    with saved_tensors_hooks(lambda t: seen.append("outer") or t, lambda t: t):
        with saved_tensors_hooks(lambda t: seen.append("inner") or t,
                                 lambda t: seen.append("unpacked") or t):
            y = x.sin()
        z = x.cos()
    assert seen == ["inner", "outer"]
    # (a new tensor with x's values and gradient edge, not x itself: PyTorch's unpack
    # rebuilds it so whenever hooks are involved)
    saved = y.grad_fn._saved_self
    assert saved is not x and saved.tolist() == x.tolist() and seen[-1] == "unpacked"
    (y + z).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([1.0, 2.0]) - np.sin([1.0, 2.0]),
                               rtol=1e-6)


def test_higher_order_gradients_through_packed_tensors():
    x = torch.tensor([0.3, -0.7], dtype=torch.float64, requires_grad=True)
    with saved_tensors_hooks(lambda t: ("kept", t), lambda packed: packed[1]):
        y = (x * x).exp().sum()
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        (gg,) = torch.autograd.grad(g.sum(), x)
    e = np.exp(np.array([0.3, -0.7]) ** 2)
    xs = np.array([0.3, -0.7])
    np.testing.assert_allclose(g.detach().numpy(), 2 * xs * e)  # d e^{x²}/dx = 2x·e^{x²}
    np.testing.assert_allclose(gg.numpy(), (2 + 4 * xs**2) * e)  # and its derivative


def test_save_on_cpu_and_a_custom_function_keep_gradients_right():
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x**2 * grad

    x = torch.tensor([1.0, -2.0], requires_grad=True)
    packed = []
    with saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        Cube.apply(x).sum().backward()
    assert packed == [x] and x.grad.tolist() == [3.0, 12.0]
    x.grad = None
    with save_on_cpu(pin_memory=True):
        (x.tanh() * x).sum().backward()
    t = np.tanh([1.0, -2.0])
    np.testing.assert_allclose(x.grad.numpy(), t + np.array([1.0, -2.0]) * (1 - t**2),
                               rtol=1e-6)


def test_pytorchs_errors():
    x = torch.ones(2, requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = x.exp()
    with pytest.raises(TypeError, match="^Output of saved tensor unpack_hook expected to be a "
                                        "Tensor but got result of type int$"):
        y.sum().backward()
    with (disable_saved_tensors_hooks("no hooks in this block"),
          pytest.raises(RuntimeError, match="^no hooks in this block$"),
          saved_tensors_hooks(lambda t: t, lambda t: t)):
        pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):  # allowed again afterwards
        z = x.exp()
    z.sum().backward()
    assert x.grad.tolist() == pytest.approx([np.e, np.e])


PROGRAMS = {
    "mul": lambda m, a, b: a * b,
    "exp": lambda m, a, b: a.exp(),
    "tanh": lambda m, a, b: a.tanh(),
    "relu": lambda m, a, b: m.relu(a),
    "div": lambda m, a, b: a / b,
    "pow": lambda m, a, b: a**3,
    "matmul": lambda m, a, b: a.reshape(2, 2) @ b.reshape(2, 2),
    "sum of a scaled": lambda m, a, b: (a * 2).sum(),
    "softmax": lambda m, a, b: m.softmax(a, 0),
    "linear": lambda m, a, b: m.nn.functional.linear(a.reshape(1, 4), b.reshape(1, 4)),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", PROGRAMS)
def test_the_same_tensors_are_packed_as_in_pytorch(name):
    torch_ = pytest.importorskip("torch")
    packed = []
    for m in (torch_, torch):
        a = m.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        b = m.tensor([0.5, 1.5, 2.5, 3.5], requires_grad=True)
        values = []
        with m.autograd.graph.saved_tensors_hooks(
                lambda x, values=values: values.append(x.detach().numpy().round(4).tolist())
                or x, lambda x: x):
            PROGRAMS[name](m, a, b)
        packed.append(sorted(map(str, values)))  # (the order of one op's saves may differ)
    assert packed[1] == packed[0]


@pytest.mark.torch
def test_mul_packs_in_pytorchs_order():
    torch_ = pytest.importorskip("torch")
    orders = []
    for m in (torch_, torch):
        a = m.ones(2, requires_grad=True)
        b = m.ones(2, requires_grad=True) * 2
        values = []
        with m.autograd.graph.saved_tensors_hooks(
                lambda x, values=values: values.append(x.tolist()) or x, lambda x: x):
            a * b
        orders.append(values)
    assert orders[1] == orders[0]


# ---------------------------------------------------------------- one saved tensor's hooks
# The autograd notes: ``y.grad_fn._raw_saved_self.register_hooks(pack_hook, unpack_hook)``
# gives just that saved tensor a pair of hooks. Messages are PyTorch 2.13's.


def test_raw_saved_register_hooks_packs_now_and_unpacks_in_backward():
    calls = []
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(
        lambda t: calls.append("pack") or t.tolist(),  # kept as a list: a compression
        lambda packed: calls.append("unpack") or torch.tensor(packed))
    assert calls == ["pack"]
    y.sum().backward()
    assert calls == ["pack", "unpack"]
    assert x.grad.tolist() == [2.0, -4.0, 6.0]  # d(x²)/dx = 2x


def test_raw_saved_hooks_leave_the_other_saved_tensors_checked_and_connected():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    z = a * b
    z.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    ga, gb = torch.autograd.grad(z.sum(), (a, b), create_graph=True)
    assert ga.tolist() == [3.0, 4.0] and gb.tolist() == [1.0, 2.0]
    assert torch.autograd.grad(gb.sum(), a)[0].tolist() == [1.0, 1.0]  # d(Σa)/da
    z = a * b
    z.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    with torch.no_grad():
        b.mul_(2)  # b is saved as "other", which has no hooks: still version-checked
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_raw_saved_register_hooks_errors():
    x = torch.ones(3, requires_grad=True)
    y = x.exp()
    raw = y.grad_fn._raw_saved_result
    raw.register_hooks(lambda t: t, lambda t: t)
    with pytest.raises(RuntimeError, match=r"^Calling register_hooks on a saved tensor whose "
                       r"hooks have already been set. Hint: only one pair of hooks is allowed"):
        raw.register_hooks(lambda t: t, lambda t: t)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = x.exp()
    with pytest.raises(RuntimeError, match="whose hooks have already been set"):
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
    y = x.exp()
    y.sum().backward()
    with pytest.raises(RuntimeError, match=r"^Calling register_hooks on a saved tensor after "
                                           r"it has been freed. Saved intermediate values"):
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
    y = x.exp()
    with pytest.raises(TypeError, match=r"^register_hooks\(\): incompatible function"):
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, 3)
    y.grad_fn._raw_saved_result.register_hooks(lambda t: 3, lambda t: t)
    with pytest.raises(TypeError, match="^Output of saved tensor unpack_hook expected to be a "
                                        "Tensor but got result of type int"):
        _ = y.grad_fn._saved_result


@pytest.mark.torch
def test_raw_saved_hooks_run_as_pytorchs():
    real = pytest.importorskip("torch")
    results = []
    for lib in (torch, real):
        calls = []
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        y = x.sin()
        y.grad_fn._raw_saved_self.register_hooks(
            lambda t, calls=calls: calls.append(("pack", t.tolist())) or t * 2,
            lambda t, calls=calls: calls.append(("unpack", t.tolist())) or t / 2)
        y.sum().backward()
        results.append((calls, x.grad.tolist(), hasattr(y.grad_fn, "_raw_saved_result")))
    assert results[0] == results[1]


def _counting_hooks(log: list):
    """A (pack, unpack) pair that records the shape of each tensor it sees."""
    def pack(t):
        log.append(("pack", tuple(t.shape)))
        return t

    def unpack(t):
        log.append(("unpack", tuple(t.shape)))
        return t

    return pack, unpack


def _reads_and_backward(lib) -> list:
    """Read saved values one at a time, then backward: which tensors get unpacked when."""
    log, steps = [], []
    a = lib.ones(2, requires_grad=True)
    b = lib.ones(3, 1, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(*_counting_hooks(log)):
        y = a * b
    steps.append(("forward", log[:]))
    for name in ("self", "other", "self"):
        log.clear()
        getattr(y.grad_fn, f"_saved_{name}")
        steps.append((name, log[:]))
    log.clear()
    y.sum().backward()
    steps.append(("backward", log[:]))
    return steps


def test_reading_one_saved_tensor_unpacks_only_that_one():
    # a (shape (2,)) is saved as self, b (shape (3, 1)) as other
    steps = dict((what, log) for what, log in _reads_and_backward(torch)[1:3])
    assert steps == {"self": [("unpack", (2,))], "other": [("unpack", (3, 1))]}
    # backward needs both
    assert _reads_and_backward(torch)[-1] == ("backward", [("unpack", (3, 1)), ("unpack", (2,))])


def test_reading_a_saved_value_checks_only_its_own_version():
    a = torch.ones(2, requires_grad=True) * 1
    b = torch.ones(2, requires_grad=True) * 3
    y = a * b
    b.add_(1)
    assert y.grad_fn._saved_self.tolist() == [1.0, 1.0]  # a is unchanged
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[torch."
                                           r"FloatTensor \[2\]\], which is output 0 of Add"):
        _ = y.grad_fn._saved_other
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()  # backward needs b's old value


def test_a_failing_unpack_hook_fails_only_the_read_of_its_tensor():
    def pack(t):
        return "lost" if t.shape == (3,) else t

    def unpack(packed):
        if isinstance(packed, str):
            raise ValueError("cannot unpack")
        return packed

    x = torch.ones(3, requires_grad=True)
    w = torch.full((3,), 2.0, requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = x.sum() * w  # saves x.sum() (shape ()) and w (shape (3,))
    assert y.grad_fn._saved_self.tolist() == 3.0  # x.sum() unpacks
    with pytest.raises(ValueError, match="cannot unpack"):
        _ = y.grad_fn._saved_other


@pytest.mark.torch
def test_unpack_calls_per_read_and_per_backward_match_pytorch():
    real = pytest.importorskip("torch")
    assert _reads_and_backward(torch) == _reads_and_backward(real)


def test_what_a_pack_hook_does_not_keep_is_freed():
    """The autograd notes' point of the hooks: memory. A pack hook that keeps only a copy
    on disk (here: a dict) leaves no reference to the saved input's data in the graph."""
    import gc
    import weakref

    store = {}

    def pack(x):
        store[len(store)] = x.detach().numpy().copy()
        return len(store) - 1

    def unpack(key):
        return torch.from_numpy(store[key])

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        middle = x * 3
        y = middle * middle  # saves middle (twice)
    data = weakref.ref(middle._data)
    del middle
    gc.collect()
    assert data() is None
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [18.0, 36.0])  # d(9x²)/dx = 18x
