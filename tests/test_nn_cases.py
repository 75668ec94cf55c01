"""teachgrad.nn / optim against PyTorch's recorded behaviour (no torch needed).

Each case in fixtures/nn_cases.json is a snippet of Python that was run with real PyTorch
(see fixtures/make_nn_cases.py). Here the very same text runs with ``torch``, ``nn`` and
``F`` bound to teachgrad, and must give PyTorch's values, gradients, ``grad_fn`` names,
printed text, exception types and messages, and warnings.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import teachgrad
import teachgrad.nn.functional as F
from teachgrad import nn

DATA = json.loads((Path(__file__).parent / "fixtures" / "nn_cases.json").read_text())
CASES = DATA["cases"]


def by_kind(kind: str) -> list:
    return [pytest.param(c, id=c["name"]) for c in CASES if c["kind"] == kind]


def namespace() -> dict:
    return {"torch": teachgrad, "nn": nn, "F": F}


def pytorch_words(text: str) -> str:
    """teachgrad's text as PyTorch would print it: its module name, and no hint line."""
    return text.split("\nHint:")[0].replace("teachgrad.", "torch.")


def graph(fn, depth: int = 5):
    """``[name, [inputs...]]`` for a grad_fn, as the generator records PyTorch's."""
    if fn is None:
        return None
    if depth == 0:
        return [fn.name(), "..."]
    return [fn.name(), [graph(f, depth - 1) for f, _ in fn.next_functions]]


def run(code: str) -> dict:
    ns = namespace()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code, ns)
    return ns


@pytest.mark.parametrize("case", by_kind("value"))
def test_values_gradients_and_graph(case):
    ns = run(case["code"])
    out = ns["out"]
    assert isinstance(out, teachgrad.Tensor)
    assert out.dtype.name == case["dtype"]
    assert list(out.shape) == case["shape"]
    np.testing.assert_allclose(
        out.detach().double().numpy(), np.array(case["values"], dtype=np.float64),
        rtol=1e-5, atol=1e-6, equal_nan=True,
    )
    grad_fn = out.grad_fn
    assert (None if grad_fn is None else grad_fn.name()) == case["grad_fn"]
    assert graph(grad_fn) == case["graph"]
    if case["grads"]:
        weights = teachgrad.linspace(0.5, 1.5, out.numel(), dtype=out.dtype).reshape(out.shape)
        inputs = [eval(expr, ns) for expr in case["grads"]]
        grads = teachgrad.autograd.grad((out * weights).sum(), inputs)
        for expr, got, expected in zip(case["grads"], grads, case["grad_values"]):
            np.testing.assert_allclose(
                got.double().numpy(), np.array(expected, dtype=np.float64),
                rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=f"gradient of {expr}",
            )


@pytest.mark.parametrize("case", by_kind("python"))
def test_printed_text_and_structure(case):
    out = run(case["code"])["out"]
    normalized = json.loads(pytorch_words(json.dumps(out)))
    assert normalized == case["expected"]


@pytest.mark.parametrize("case", by_kind("error"))
def test_errors_in_pytorch_words(case):
    with pytest.raises(Exception) as info, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(case["code"], namespace())
    assert type(info.value).__name__ == case["type"]
    assert pytorch_words(str(info.value)) == case["message"]


@pytest.mark.parametrize("case", by_kind("warning"))
def test_warnings_in_pytorch_words(case):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(case["code"], namespace())
    assert [pytorch_words(str(w.message)) for w in caught] == case["messages"]


def test_every_hint_follows_pytorchs_sentence():
    """A hint is one extra line after PyTorch's text, never a replacement of it."""
    hinted = 0
    for case in CASES:
        if case["kind"] != "error":
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(case["code"], namespace())
        except Exception as e:  # noqa: BLE001 - any type; the other test checks which
            text = str(e)
            if "\nHint:" in text:
                hinted += 1
                head, hint = text.split("\nHint:", 1)
                assert "\n" not in hint.strip(), case["name"]
    assert hinted >= 5  # the common mistakes carry a hint
