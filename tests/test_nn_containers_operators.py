"""Sequential's + and * (the same layers joined, not copies), ModuleDict.update's checks and
ParameterDict.popitem on an empty dict: PyTorch's results and messages."""

from __future__ import annotations

import numpy as np
import pytest

import teachgrad as torch
from teachgrad import nn


def layers():
    lin, act = nn.Linear(1, 1), nn.ReLU()
    return lin, act, nn.Sequential(lin, act)


def test_adding_sequentials_joins_their_layers_in_a_new_one():
    lin, act, s = layers()
    other = nn.Sequential(nn.Tanh())
    joined = s + other
    assert joined is not s and [type(m).__name__ for m in joined] == ["Linear", "ReLU", "Tanh"]
    assert joined[0] is lin and len(s) == 2
    s += other
    assert list(s._modules) == ["0", "1", "2"] and s[2] is other[0]


def test_multiplying_repeats_the_same_layers():
    lin, act, s = layers()
    for repeated in (s * 3, 3 * s):
        assert list(repeated._modules) == [str(i) for i in range(6)]
        assert repeated[4] is lin and repeated[5] is act
        # one set of parameters, used three times
        assert len(list(repeated.parameters())) == 2
    x = torch.tensor([[0.5]])
    assert torch.equal((s * 2)(x), s(s(x)))
    same = s
    s *= 2
    assert s is same and len(s) == 4 and s[2] is lin


@pytest.mark.parametrize("expr, error, message", [
    (lambda s: s + 3, ValueError,
     "add operator supports only objects of Sequential class, but <class 'int'> is given."),
    (lambda s: s.__iadd__([nn.ReLU()]), ValueError,
     "add operator supports only objects of Sequential class, but <class 'list'> is given."),
    (lambda s: s * 0, ValueError,
     "Non-positive multiplication factor 0 for <class 'teachgrad.nn.modules.container."
     "Sequential'>"),
    (lambda s: s.__imul__(-2), ValueError,
     "Non-positive multiplication factor -2 for <class 'teachgrad.nn.modules.container."
     "Sequential'>"),
    (lambda s: s.__mul__(2.0), TypeError,
     "unsupported operand type(s) for *: <class 'teachgrad.nn.modules.container.Sequential'> "
     "and <class 'float'>"),
])
def test_sequential_operator_errors_are_pytorchs(expr, error, message):
    _, _, s = layers()
    with pytest.raises(error) as info:
        expr(s)
    assert str(info.value) == message
    assert len(s) == 2


@pytest.mark.parametrize("pairs, error, message", [
    (3, TypeError, "ModuleDict.update should be called with an iterable of key/value pairs, "
                   "but got int"),
    ([("a", nn.ReLU()), 3], TypeError, "ModuleDict update sequence element #1 should be "
                                       "Iterable; isint"),
    ([("a", nn.ReLU(), 1)], ValueError, "ModuleDict update sequence element #0 has length 3; "
                                        "2 is required"),
])
def test_module_dict_update_errors_are_pytorchs_and_change_nothing(pairs, error, message):
    d = nn.ModuleDict({"x": nn.Tanh()})
    with pytest.raises(error) as info:
        d.update(pairs)
    assert str(info.value) == message
    assert list(d.keys()) == ["x"]


def test_module_dict_update_takes_pairs_a_dict_and_another_module_dict():
    d = nn.ModuleDict()
    d.update([("b", nn.ReLU()), ["a", nn.Tanh()]])
    d.update(nn.ModuleDict({"c": nn.ELU()}))
    assert list(d.keys()) == ["b", "a", "c"]


def test_popitem_of_an_empty_parameter_dict_is_a_key_error():
    p = nn.ParameterDict({"a": torch.ones(1)})
    assert p.popitem()[0] == "a"
    with pytest.raises(KeyError) as info:
        p.popitem()
    assert info.value.args == ("popitem(): dictionary is empty",)


def test_same_as_pytorch():
    real = pytest.importorskip("torch")

    def run(lib):
        lib.manual_seed(0)
        s = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Tanh())
        x = lib.tensor([[0.3, -0.7]])
        texts = [repr(s + s), repr(2 * s)]
        values = (s * 3)(x).detach().numpy()
        s += lib.nn.Sequential(lib.nn.ReLU())
        s *= 2
        texts.append(repr(s))
        return [text.replace("teachgrad", "torch") for text in texts], values

    (ours, our_values), (theirs, their_values) = run(torch), run(real)
    assert ours == theirs
    np.testing.assert_allclose(our_values, their_values, rtol=1e-6)
