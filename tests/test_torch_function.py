"""The ``__torch_function__`` protocol: Tensor subclasses and Tensor-like types.

The expectations are PyTorch 2.13's (the note "Extending torch" and what its code prints,
see also fixtures/tutorial_programs/extending_torch_function.py); where PyTorch is
installed, ``test_same_as_pytorch`` runs the same snippets with both and compares.
"""

from __future__ import annotations

import functools
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import teachgrad as torch
import teachgrad.nn.functional as F
from teachgrad.overrides import (
    BaseTorchFunctionMode,
    TorchFunctionMode,
    _get_current_function_mode,
    _get_current_function_mode_stack,
    _pop_mode,
    get_ignored_functions,
    get_overridable_functions,
    handle_torch_function,
    has_torch_function,
    resolve_name,
)

REPO = Path(__file__).resolve().parent.parent


class Sub(torch.Tensor):
    pass


class Sub2(Sub):
    pass


class Other(torch.Tensor):
    pass


class Logging(torch.Tensor):
    calls: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is not torch.Tensor.__repr__:
            cls.calls.append((func.__name__, kwargs))
        return super().__torch_function__(func, types, args, kwargs or {})


# ----------------------------------------------------------------------------------------
# Subclasses keep their type
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("compute", [
    lambda x: x + 1,
    lambda x: 1 + x,
    lambda x: torch.ones(2) * x,  # (Python asks the subclass's __rmul__ first)
    lambda x: x.exp(),
    lambda x: x.sum(),
    lambda x: x[0],
    lambda x: x.reshape(2, 1),
    lambda x: x.detach(),
    lambda x: x.data,
    lambda x: torch.add(x, 1),
    lambda x: torch.add(torch.ones(2), x),
    lambda x: torch.stack([torch.ones(2), x]),
    lambda x: F.relu(x),
    lambda x: F.softmax(x, dim=0),
    lambda x: torch.linalg.vector_norm(x),
    lambda x: torch.special.expit(x),
], ids=["add", "radd", "rmul", "exp", "sum", "getitem", "reshape", "detach", "data",
        "torch.add", "torch.add-second", "stack", "F.relu", "F.softmax", "linalg", "special"])
def test_results_are_of_the_subclass(compute):
    result = compute(Sub([1.0, 2.0]))
    assert type(result) is Sub


def test_tuples_and_lists_of_results_are_converted():
    x = Sub([1.0, 3.0, 2.0])
    values, indices = x.max(0)
    assert type(values) is Sub and type(indices) is Sub
    assert type(x.max(0)).__name__ == "max"  # (still the named tuple)
    assert [type(part) for part in x.split(2)] == [Sub, Sub]
    assert type(x.split(2)) is tuple
    assert [type(row) for row in Sub([[1.0], [2.0]])] == [Sub, Sub]  # (iterating too)


def test_the_lowest_subclass_wins_and_unrelated_ones_fail():
    assert type(torch.add(Sub2([0.0]), Sub([1.0]))) is Sub2
    assert type(torch.add(Sub([0.0]), Sub2([1.0]))) is Sub2
    with pytest.raises(TypeError) as error:
        torch.add(Sub([0.0]), Other([1.0]))
    assert str(error.value) == (
        "Multiple dispatch failed for 'torch.add'; all __torch_function__ handlers returned "
        "NotImplemented:\n\n"
        f"  - tensor subclass {Sub}\n  - tensor subclass {Other}\n\n"
        "For more information, try re-running with TORCH_LOGS=not_implemented")
    # An operator gives Python's own error: both sides said NotImplemented.
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Sub' and "
                                        r"'Other'"):
        Sub([0.0]) + Other([1.0])


def test_plain_tensors_and_their_methods_are_untouched():
    x = torch.ones(2)
    assert type(x + 1) is torch.Tensor
    assert type(torch.add(x, 1)) is torch.Tensor
    # Subclasses inherit Tensor's (dispatching) methods, nn.Parameter too
    assert Sub.__mul__ is torch.Tensor.__mul__


def test_tensor_keeps_the_plain_ops_until_the_protocol_is_used():
    """In a fresh interpreter, Tensor's methods are the ops' own functions (nothing of the
    protocol on the plain path); nn.Parameter (which takes no part) changes nothing; the
    first subclass that takes part gives Tensor its dispatching methods."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import teachgrad as torch
        from teachgrad.ops.pointwise import mul
        print(torch.Tensor.mul is mul, torch.Tensor.__mul__ is mul)
        torch.nn.Linear(2, 2)
        class P(torch.nn.Parameter):
            pass
        print(torch.Tensor.mul is mul)
        class Sub(torch.Tensor):
            pass
        print(torch.Tensor.mul is mul, torch.Tensor.mul.__wrapped__ is mul)
    """)], capture_output=True, text=True, cwd=REPO, env={"PYTHONPATH": str(REPO)})
    assert result.stdout.split() == ["True", "True", "True", "False", "True"], result.stderr


def test_a_subclass_keeps_the_methods_it_defines():
    class Own(torch.Tensor):
        def __add__(self, other):
            return "own"

        def exp(self):
            return "own exp"

    class Below(Own):
        pass

    assert Own([1.0]) + 1 == "own" and Own([1.0]).exp() == "own exp"
    assert Below([1.0]) + 1 == "own" and Below([1.0]).exp() == "own exp"
    assert type(Below([1.0]) * 2) is Below


def test_a_subclass_with_slots_of_its_own_is_aliased():
    class Slotted(torch.Tensor):
        __slots__ = ("tag",)

    x = Slotted([1.0, 2.0])
    y = x * 2
    assert type(y) is Slotted
    assert y.tolist() == [2.0, 4.0]


def test_an_argument_handed_back_keeps_its_own_type():
    t = torch.zeros(2)
    result = torch.add(torch.ones(2), Sub([1.0, 2.0]), out=t)
    assert type(result) is Sub and type(t) is torch.Tensor
    assert t.tolist() == [2.0, 3.0] and result.tolist() == [2.0, 3.0]


def test_gradients_flow_through_subclasses():
    x = Sub([1.0, 2.0, 3.0])
    w = Sub([0.5, -1.0, 2.0]).requires_grad_()
    loss = (w * x).sum()
    assert type(loss) is Sub and loss.item() == 4.5
    assert type(loss.grad_fn).__name__ == "AliasBackward0"  # (PyTorch's as_subclass)
    loss.backward()
    assert type(w.grad) is torch.Tensor  # (.grad is handed back as it is)
    assert w.grad.tolist() == [1.0, 2.0, 3.0]
    out = torch.nn.Linear(3, 2)(x)
    assert type(out) is Sub


def test_subclasses_print_their_name():
    assert repr(Sub([1.0, 2.0])) == "Sub([1., 2.])"
    assert repr(Sub([[1.0, 2.0], [3.0, 4.0]])) == "Sub([[1., 2.],\n     [3., 4.]])"
    assert repr(Sub([1.0]).requires_grad_()) == "Sub([1.], requires_grad=True)"


def test_parameter_takes_no_part():
    p = torch.nn.Parameter(torch.ones(2))
    assert repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    assert type(p * 2) is torch.Tensor and type(torch.add(p, 1)) is torch.Tensor
    assert torch.nn.Parameter.__torch_function__ is torch._C._disabled_torch_function_impl
    assert torch.nn.Parameter.__mul__ is torch.Tensor.__mul__
    assert not has_torch_function((p,))


def test_as_subclass_and_make_subclass():
    x = torch.tensor([1.0, 2.0])
    s = x.as_subclass(Sub)
    assert type(s) is Sub and s.is_leaf and type(x) is torch.Tensor
    s.add_(1)  # the same memory
    assert x.tolist() == [2.0, 3.0]
    m = torch.Tensor._make_subclass(Sub, x, True)
    assert type(m) is Sub and m.requires_grad and m.is_leaf and not x.requires_grad
    with pytest.raises(TypeError, match="must be a subclass of Tensor"):
        x.as_subclass(int)


# ----------------------------------------------------------------------------------------
# Overriding __torch_function__
# ----------------------------------------------------------------------------------------
def test_logging_tensor_sees_each_call_once():
    Logging.calls.clear()
    x = Logging([1.0, 2.0])
    x + 1
    torch.ones(2) * x
    torch.ones(2) - x
    x.sum(dim=0)
    torch.add(x, 1, alpha=2)
    repr(x)
    x.shape  # noqa: B018 - a property's getter is handed over too
    assert Logging.calls == [("add", None), ("mul", None), ("sub", None),
                             ("sum", {"dim": 0}), ("add", {"alpha": 2}), ("__get__", None)]


def test_disable_torch_function_subclass():
    x = Sub([1.0])
    with torch._C.DisableTorchFunctionSubclass():
        assert type(x + 1) is torch.Tensor
        assert type(torch.add(x, 1)) is torch.Tensor
    assert type(x + 1) is Sub
    with pytest.raises(ValueError), torch._C.DisableTorchFunctionSubclass():
        raise ValueError  # (left on an exception: switched back on)
    assert type(x + 1) is Sub
    with torch._C.DisableTorchFunction():
        assert type(x * 2) is torch.Tensor


# ----------------------------------------------------------------------------------------
# Tensor-likes that are no tensors
# ----------------------------------------------------------------------------------------
HANDLED_FUNCTIONS: dict = {}


class ScalarTensor:
    def __init__(self, N, value):
        self._N = N
        self._value = value

    def __repr__(self):
        return f"DiagonalTensor(N={self._N}, value={self._value})"

    def tensor(self):
        return self._value * torch.eye(self._N)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func not in HANDLED_FUNCTIONS or not all(
                issubclass(t, (torch.Tensor, ScalarTensor)) for t in types):
            return NotImplemented
        return HANDLED_FUNCTIONS[func](*args, **(kwargs or {}))


def implements(torch_function):
    @functools.wraps(torch_function)
    def decorator(func):
        HANDLED_FUNCTIONS[torch_function] = func
        return func
    return decorator


@implements(torch.mean)
def _mean(input):
    return float(input._value) / input._N


@implements(torch.add)
def _add(input, other):
    if isinstance(input, ScalarTensor) and isinstance(other, ScalarTensor):
        return ScalarTensor(input._N, input._value + other._value)
    as_tensor = [a.tensor() if isinstance(a, ScalarTensor) else a for a in (input, other)]
    return torch.add(*as_tensor)


def test_tensor_likes_are_handed_the_call():
    d = ScalarTensor(5, 2)
    assert torch.mean(d) == 0.4
    s = ScalarTensor(2, 2)
    assert repr(torch.add(s, s)) == "DiagonalTensor(N=2, value=4)"
    assert torch.add(s, torch.tensor([[1, 1], [1, 1]])).tolist() == [[3.0, 1.0], [1.0, 3.0]]
    assert torch.add(torch.tensor([[1, 1], [1, 1]]), s).tolist() == [[3.0, 1.0], [1.0, 3.0]]
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpha'"):
        torch.add(s, s, alpha=2)


def test_unhandled_calls_say_so():
    s = ScalarTensor(2, 2)
    with pytest.raises(TypeError) as error:
        torch.mul(s, 3)
    assert str(error.value).startswith(
        "Multiple dispatch failed for 'torch.mul'; all __torch_function__ handlers returned "
        f"NotImplemented:\n\n  - tensor subclass {ScalarTensor}\n")
    with pytest.raises(TypeError) as error:  # (a Python function in PyTorch: its words)
        F.relu(s)
    assert str(error.value) == ("no implementation found for 'torch.nn.functional.relu' on "
                                f"types that implement __torch_function__: [{ScalarTensor}]")
    with pytest.raises(TypeError) as error:
        torch.cat([s, s])
    assert "'torch.cat'" in str(error.value)


def test_a_tensor_like_is_not_asked_inside_disable_torch_function():
    s = ScalarTensor(2, 2)
    with torch._C.DisableTorchFunction(), pytest.raises(TypeError, match="must be Tensor"):
        torch.mean(s)


# ----------------------------------------------------------------------------------------
# torch.overrides
# ----------------------------------------------------------------------------------------
def test_has_and_handle_torch_function():
    def my_function(input, other):
        if has_torch_function((input, other)):
            return handle_torch_function(my_function, (input, other), input, other)
        return input * 10 + other

    assert my_function(torch.ones(1), torch.ones(1)).tolist() == [11.0]
    assert type(my_function(Sub([1.0]), torch.ones(1))) is Sub
    assert has_torch_function((ScalarTensor(1, 1),))
    assert not has_torch_function((torch.ones(1), 1, [torch.ones(1)]))
    assert has_torch_function(([torch.ones(1), Sub([1.0])],))  # (inside a list too)


def test_overridable_and_ignored_functions():
    overridable = get_overridable_functions()
    assert torch.add in overridable[torch] and F.relu in overridable[torch.nn.functional]
    assert torch.Tensor.add in overridable[torch.Tensor]
    assert [f.__name__ for f in overridable[torch.nn.functional][:5]] == [
        "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
        "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices"]
    ignored = get_ignored_functions()
    assert torch.zeros in ignored and torch.tensor in ignored and torch.add not in ignored
    assert type(torch.zeros_like(Sub([1.0]))) is Sub
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        assert type(torch.tensor(Sub([1.0]))) is torch.Tensor  # (a factory takes no part)


def test_resolve_name():
    assert resolve_name(torch.add) == "torch.add"
    assert resolve_name(torch.Tensor.add) == "torch.Tensor.add"
    assert resolve_name(F.relu) == "torch.nn.functional.relu"
    assert resolve_name(torch.einsum) == "torch.functional.einsum"


def test_no_subclass_means_no_dispatch_state():
    """A fresh interpreter with no subclass defined leaves the flag every torch.* call asks
    off; the first subclass switches it on."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import teachgrad as torch
        from teachgrad._torch_function import STATE
        print(STATE.armed)
        class Sub(torch.Tensor):
            pass
        print(STATE.armed)
    """)], capture_output=True, text=True, cwd=REPO, env={"PYTHONPATH": str(REPO)})
    assert result.stdout.split() == ["False", "True"], result.stderr


def test_same_as_pytorch():
    real = pytest.importorskip("torch")
    program = textwrap.dedent("""
        import torch.nn.functional as F
        class Sub(torch.Tensor):
            pass
        class Log(torch.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                if func is not torch.Tensor.__repr__:
                    print(func.__name__, kwargs)
                return super().__torch_function__(func, types, args, kwargs or {})
        x = Sub([[1.0, -2.0], [3.0, 4.0]])
        for value in (x + 1, 2 - x, x @ x, x.t(), x.sum(1), torch.where(x > 0, x, 0.0),
                      F.relu(x), x.max(1), x.unbind(0), torch.cat([x, torch.ones(1, 2)])):
            print(type(value).__name__, value)
        y = Log([1.0, 2.0])
        z = (y * y).sum()
        print(z)
        print(type(torch.tensor([1.0]) + Log([1.0])).__name__)
    """)
    assert real is not torch
    expected = subprocess.run([sys.executable, "-c", "import torch\n" + program],
                              capture_output=True, text=True, cwd=REPO)
    got = subprocess.run(
        [sys.executable, "-c", "import teachgrad\nteachgrad.install_as_torch()\nimport torch\n"
         + program],
        capture_output=True, text=True, cwd=REPO, env={"PYTHONPATH": str(REPO)})
    assert got.returncode == 0, got.stderr
    assert got.stdout == expected.stdout


def test_a_subclass_with_its_own_new_and_init():
    # PyTorch's idiom for a subclass carrying extra data (what PyTorch prints, by hand)
    class MyTensor(torch.Tensor):
        @staticmethod
        def __new__(cls, x, extra_data, *args, **kwargs):
            return super().__new__(cls, x, *args, **kwargs)

        def __init__(self, x, extra_data):
            self.extra_data = extra_data

    m = MyTensor([1.0, 2.0], "extra")
    assert repr(m) == "MyTensor([1., 2.])" and m.extra_data == "extra"
    n = m * 2
    assert repr(n) == "MyTensor([2., 4.])" and not hasattr(n, "extra_data")
    base = torch.tensor([3.0, 4.0])
    MyTensor(base, None).add_(1)  # (made from a tensor: an alias of its memory)
    assert base.tolist() == [4.0, 5.0]
    assert repr(torch.Tensor([1, 2])) == "tensor([1., 2.])"  # (the legacy constructor)
    assert torch.Tensor(2, 3).shape == (2, 3) and torch.Tensor().shape == (0,)


# ----------------------------------------------------------------------------------------
# Modes (fixtures/tutorial_programs/torch_function_modes.py compares a whole program
# with PyTorch's output; these pin the stack's rules, as PyTorch 2.13 behaves)
# ----------------------------------------------------------------------------------------
class Recording(TorchFunctionMode):
    def __init__(self):
        self.seen = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append(resolve_name(func))
        return func(*args, **(kwargs or {}))


def test_a_mode_sees_plain_tensors_calls_and_leaves_the_stack_as_it_was():
    mode = Recording()
    assert _get_current_function_mode() is None
    with mode as entered:
        assert entered is mode and _get_current_function_mode() is mode
        assert has_torch_function((1,))  # (under a mode, every call is handed over)
        y = (torch.ones(2) * 3).sum()
    assert mode.seen == ["torch.ones", "torch.Tensor.mul", "torch.Tensor.sum"]
    assert y.item() == 6.0 and type(y) is torch.Tensor
    assert _get_current_function_mode() is None and not has_torch_function((1,))
    with mode, mode:  # (one mode may be entered twice)
        assert len(_get_current_function_mode_stack()) == 2
    assert _get_current_function_mode_stack() == []


def test_an_error_in_a_mode_propagates_and_the_mode_is_left():
    class Boom(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"), Boom():
        torch.ones(1) + 1
    assert _get_current_function_mode_stack() == []
    with pytest.raises(NotImplementedError), TorchFunctionMode():  # (a bare mode)
        torch.ones(1)
    with pytest.raises(RuntimeError, match="trying to pop from empty mode stack"):
        _pop_mode()


def test_disable_torch_function_switches_modes_off():
    mode = Recording()
    with mode, torch._C.DisableTorchFunction():
        assert not has_torch_function((torch.ones(1),))
        assert not torch._C._is_torch_function_mode_enabled()
        torch.ones(2).exp()
    assert mode.seen == []
    with BaseTorchFunctionMode():  # (runs every call unchanged)
        assert torch._C._len_torch_function_stack() == 1
        assert (torch.ones(2) + 1).tolist() == [2.0, 2.0]


def test_functional_calls_are_spelled_as_pytorchs_python_functions():
    seen = []

    class Spy(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append((resolve_name(func), len(args), kwargs))
            return func(*args, **(kwargs or {}))

    x = torch.tensor([[1.0, 2.0]])
    with Spy():
        F.softmax(x, 1)
        F.dropout(x, training=False)
        F.linear(x, torch.ones(3, 2))  # (a C++ function in PyTorch: as the caller wrote it)
    assert seen == [
        ("torch.nn.functional.softmax", 1, {"dim": 1, "_stacklevel": 3, "dtype": None}),
        ("torch.nn.functional.dropout", 1, {"p": 0.5, "training": False, "inplace": False}),
        ("torch.ones", 2, None),
        ("torch.nn.functional.linear", 2, None),
    ]


def test_a_plain_tensors_method_hands_a_subclass_argument_over():
    Logging.calls.clear()
    result = torch.tensor([1.0, 2.0]).mul(Logging([3.0, 4.0]))
    assert Logging.calls == [("mul", None)]
    assert type(result) is Logging and result.tolist() == [3.0, 8.0]
    Logging.calls.clear()
    plain = torch.tensor([1.0, 2.0])
    plain.data = Logging([5.0, 6.0])  # (a setter dispatches on the tensor set only)
    assert Logging.calls == [] and type(plain) is torch.Tensor
    Logging([1.0]).requires_grad = True
    assert Logging.calls == [("__set__", None)]
