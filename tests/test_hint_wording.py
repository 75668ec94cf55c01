"""The learner hints name the library as learners write it: ``torch.`` (``import teachgrad as
torch`` in every lesson), as PyTorch's own sentences before them do."""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

import teachgrad

_PACKAGE = pathlib.Path(teachgrad.__file__).parent


def _message_texts(tree: ast.AST):
    """Each string expression in the code (adjacent literals are one), f-strings joined."""
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            yield node.lineno, "".join(
                v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def test_no_hint_names_teachgrad_where_torch_is_meant():
    found = []
    for path in sorted(_PACKAGE.rglob("*.py")):
        for line, text in _message_texts(ast.parse(path.read_text(encoding="utf-8"))):
            # ("... with teachgrad." ending a sentence names the library: that is fine, and
            # so is teachgrad's own install_as_torch(), which PyTorch does not have)
            if "Hint:" in text and re.search(r"teachgrad\.(?!install_as_torch\b)\w",
                                             text.split("Hint:", 1)[1]):
                found.append(f"{path.relative_to(_PACKAGE)}:{line}: {text[:80]!r}")
    assert not found, "\n".join(found)


def test_in_place_on_a_leaf_hint_says_when_each_alternative_applies():
    w = teachgrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as error:
        w.add_(1)
    first, hint = str(error.value).split("\n")
    assert first == "a leaf Variable that requires grad is being used in an in-place operation."
    assert "to update the tensor itself" in hint and "`with torch.no_grad():`" in hint
    assert "new tensor that stays in the graph" in hint and "clone()" in hint


def test_modified_saved_tensor_is_named_as_torch_names_it():
    # PyTorch 2.13: "... modified by an inplace operation: [torch.FloatTensor [2]], ..."
    x = teachgrad.ones(2, requires_grad=True)
    y = x.sigmoid()
    y.add_(1)
    with pytest.raises(RuntimeError, match=r"inplace operation: \[torch\.FloatTensor \[2\]\], "):
        y.sum().backward()


def test_integer_requires_grad_hint_names_torch_float32():
    with pytest.raises(RuntimeError, match=r"dtype=torch\.float32\.$"):
        teachgrad.tensor([1, 2], requires_grad=True)


def test_non_scalar_backward_hint_names_the_shape_as_torch_prints_it():
    # The shape is filled in when the error is raised, so the source scan above cannot see
    # it: lesson 7 printed "this output has shape teachgrad.Size([3])".
    y = teachgrad.ones(3, requires_grad=True) * 2
    with pytest.raises(RuntimeError) as error:
        y.backward()
    first, hint = str(error.value).split("\n")
    assert first == "grad can be implicitly created only for scalar outputs"
    assert hint.startswith("Hint: this output has shape torch.Size([3]), so backward()")
