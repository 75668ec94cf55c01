"""The five seed lessons run verbatim with ``import teachgrad as torch`` and print what
PyTorch prints.

Every code cell of every lesson in ../shared/seeds is run in order, in one namespace per
lesson (tests/seed_lessons.py), and compared with fixtures/seed_outputs.json: what the
very same cells printed with real PyTorch (fixtures/make_seed_outputs.py). Compared are
the output lines, the error a cell raised (type and PyTorch's sentence; teachgrad may add
one "Hint:" line after it) and the warnings. Lines that depend on random numbers were
masked by the generator (see its docstring): only their non-numeric text is compared.
teachgrad prints ``teachgrad.`` where PyTorch prints ``torch.`` (e.g. ``teachgrad.Size``).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
import seed_lessons

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "seed_outputs.json").read_text())
LESSONS = sorted(FIXTURE["lessons"])
GRAD_4_5 = ["tensor([[4.5000, 4.5000],", "        [4.5000, 4.5000]])"]

pytestmark = pytest.mark.skipif(
    not seed_lessons.SEEDS.is_dir(),
    reason=f"the seed lessons are not there: {seed_lessons.SEEDS} (the shared/ folder is "
    "expected beside the repository checkout)",
)


def as_torch_prints(text: str) -> str:
    return seed_lessons.sanitize(text).replace("teachgrad.", "torch.")


def assert_same_message(got: str, expected: str, what: str) -> None:
    """PyTorch's message exactly, optionally followed by ONE teachgrad hint line."""
    got = as_torch_prints(got)
    assert got.startswith(expected), f"{what}:\n got: {got!r}\nwant: {expected!r}"
    rest = got[len(expected):]
    assert rest == "" or (rest.startswith("\nHint: ") and "\n" not in rest[1:]), (
        f"{what}: after PyTorch's message only one 'Hint:' line may follow, got {rest!r}"
    )


def assert_lines(got: list[str], expected, what: str) -> None:
    if expected == {"any": True}:
        return
    got = [as_torch_prints(line) for line in got]
    assert len(got) == len(expected), f"{what}: got\n" + "\n".join(got)
    for n, (line, want) in enumerate(zip(got, expected)):
        if isinstance(want, str):
            assert line == want, f"{what}, line {n}:\n got: {line!r}\nwant: {want!r}"
        elif "masked" in want:  # depends on random numbers: compare all but the numbers
            masked = seed_lessons.mask_numbers(line)
            assert masked == want["masked"], f"{what}, line {n} (numbers masked): {line!r}"


@pytest.fixture(scope="module")
def lesson_runs() -> dict:
    """Each lesson run once with teachgrad: name -> (cells, results, namespace)."""
    return {}


def run(name: str, cache: dict):
    if name not in cache:
        cells = seed_lessons.code_cells((seed_lessons.SEEDS / name).read_text())
        namespace: dict = {"__name__": "__main__"}
        results = [
            seed_lessons.run_cell(seed_lessons.for_teachgrad(c.code), namespace) for c in cells
        ]
        cache[name] = (cells, results, namespace)
    return cache[name]


def test_every_lesson_has_expectations():
    assert [p.name for p in seed_lessons.lesson_files()] == LESSONS


@pytest.mark.parametrize("name", LESSONS)
def test_cells_are_extracted_as_recorded(name):
    """The cells we run are the cells PyTorch ran (else: regenerate the fixture)."""
    cells = seed_lessons.code_cells((seed_lessons.SEEDS / name).read_text())
    recorded = FIXTURE["lessons"][name]
    assert [(c.label, c.code) for c in cells] == [(r["label"], r["code"]) for r in recorded]
    for cell in cells:
        compile(cell.code, cell.label, "exec")


@pytest.mark.parametrize("name", LESSONS)
def test_lesson_prints_what_pytorch_prints(name, lesson_runs):
    cells, results, _ = run(name, lesson_runs)
    for cell, result, want in zip(cells, results, FIXTURE["lessons"][name]):
        what = f"{name} {cell.label}"
        if want["error"] is None:
            assert result.error is None, f"{what} raised {result.error}"
        else:
            assert result.error is not None, f"{what} should raise {want['error']}"
            assert_same_message(result.error, want["error"], what)
        assert_lines(result.output, want["output"], what)
        assert len(result.warnings) == len(want["warnings"]), f"{what}: {result.warnings}"
        for got, expected in zip(result.warnings, want["warnings"]):
            if isinstance(expected, str):
                assert_same_message(got, expected, f"{what} warning")


def test_lesson_000_gradient_of_cube(lesson_runs):
    cells, results, _ = run("000_9bba31ecf2e830dc.txt", lesson_runs)
    assert results[-1].output == ["tensor(3.)"]  # d(x**3)/dx at x = 1


def test_lesson_001_and_004_gradient_is_4_5(lesson_runs):
    """out = mean(3 (x + 2)^2) over 4 elements: d out/dx = 6 (x + 2) / 4 = 4.5 at x = 1."""
    _, _, namespace = run("001_6260b20a9b8b3ca4.txt", lesson_runs)
    assert namespace["x"].grad.tolist() == [[4.5, 4.5], [4.5, 4.5]]
    assert namespace["z"].grad.tolist() == [[0.25, 0.25], [0.25, 0.25]]  # retain_grad
    cells, results, _ = run("004_bb287e56a286f6f7.txt", lesson_runs)
    by_label = dict(zip([c.label for c in cells], results))
    assert by_label["In [48]:"].output == GRAD_4_5


def test_lesson_004_second_backward_raises_and_keeps_grad(lesson_runs):
    cells, results, _ = run("004_bb287e56a286f6f7.txt", lesson_runs)
    by_label = dict(zip([c.label for c in cells], results))
    assert by_label["In [77]:"].error.startswith(
        "RuntimeError: Trying to backward through the graph a second time"
    )
    # The failed backward accumulated nothing: x.grad is still 4.5, not 9.
    assert by_label["In [78]:"].output == GRAD_4_5


def test_lesson_004_vector_jacobian_product(lesson_runs):
    """y = x * 2**k, so y.backward(v) gives x.grad = v * 2**k, whatever k the loop reached."""
    _, _, namespace = run("004_bb287e56a286f6f7.txt", lesson_runs)
    x, y = namespace["x"], namespace["y"]
    factor = (y.detach() / x.detach()).tolist()[0]
    assert factor == 2 ** round(math.log2(factor))
    assert x.grad.allclose(namespace["v"] * factor)


def test_lesson_003_regression_reaches_w2_b3(lesson_runs):
    cells, results, namespace = run("003_a8a95e424a178e1a.txt", lesson_runs)
    by_label = dict(zip([c.label for c in cells], results))
    printed = by_label["In [39]:"].output  # print(w), print(b) after 200 epochs
    w, b = (float(re.fullmatch(r"tensor\(\[(.*)\], requires_grad=True\)", line)[1])
            for line in printed)
    assert abs(w - 2) < 5e-5 and abs(b - 3) < 5e-5  # printed as 2.0000 and 3.0000
    assert namespace["a"].grad.tolist() == [242.0]  # dL/da = 2 d (w1 w3 + w2 w4) = 2*11*11


def test_lesson_002_gradient_of_mean_square(lesson_runs):
    """out = mean(t * t) over 4 elements: d out/dt = t / 2."""
    _, _, namespace = run("002_0ec28737b0a10d0a.txt", lesson_runs)
    assert namespace["tensor"].grad.tolist() == [[1.5, 2.0], [3.5, 2.5]]
