"""Errors meant for the learner show the cell and the message, not teachgrad's own lines.

Run in a real IPython InteractiveShell: what it would print for the error is collected
from ``_showtraceback`` (where IPython hands over the finished lines).
"""

import re
import traceback

import pytest

pytest.importorskip("IPython")

from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

from teachgrad.notebook.exercises import NotYet  # noqa: E402
from teachgrad.notebook.short_traceback import FoldedFrames, fold  # noqa: E402

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def shown(monkeypatch):
    """Run a cell in IPython; return the traceback text it prints (colours removed)."""
    shell = InteractiveShell.instance()
    printed = []
    monkeypatch.setattr(shell, "_showtraceback",
                        lambda etype, value, stb: printed.append("\n".join(stb)))

    def run(code: str) -> str:
        printed.clear()
        shell.run_cell(code)
        assert printed, "the cell did not raise"
        return _ANSI.sub("", printed[-1])

    yield run
    shell.run_line_magic("xmode", "Context")


def test_a_wrong_exercise_answer_shows_the_checking_line_and_the_message(shown):
    text = shown("from teachgrad.notebook import check\n"
                 "answer = 27\n"
                 "check(answer, 54.0, 'dg/dx', hint='dg/dw = 3w².')")
    assert "----> 3 check(answer, 54.0, 'dg/dx', hint='dg/dw = 3w².')" in text
    assert text.rstrip().endswith(
        "NotYet: ✘ Not yet: 27 is not the right dg/dx: the value differs from the expected "
        "one.\nHint: dg/dw = 3w².")
    assert "exercises.py" not in text  # check()'s own code: 10 lines, before the fix
    assert "raise NotYet" not in text


def test_the_learners_own_functions_stay_in_the_traceback(shown):
    text = shown("from teachgrad.notebook import check\n"
                 "def grade(a):\n"
                 "    check(a, 1.0, 'x')\n"
                 "grade(2.0)")
    assert "----> 4 grade(2.0)" in text
    assert "----> 3     check(a, 1.0, 'x')" in text
    assert "exercises.py" not in text


def test_running_a_stepper_cell_twice_shows_the_cell_and_the_hint(shown):
    pytest.importorskip("graphviz")
    shown("import teachgrad as torch\n"
          "from teachgrad.notebook import step_backward\n"
          "x = torch.tensor(1.5, requires_grad=True)\n"
          "L = torch.sin(x ** 2) * 3\n"
          "0 / 0")  # a cell must raise for `shown`; this one builds the graph first
    first = InteractiveShell.instance().run_cell("step_backward(L, names=locals())")
    assert first.success
    text = shown("step_backward(L, names=locals())")
    assert "----> 1 step_backward(L, names=locals())" in text
    assert "RuntimeError: Trying to backward through the graph a second time" in text
    assert "Hint: step_backward() calls backward(), and the graph of L was already used" in text
    assert "stepper.py" not in text


def test_xmode_minimal_still_prints_the_message_alone(shown):
    shown("%xmode Minimal\n0 / 0")
    text = shown("from teachgrad.notebook import check\ncheck(3, 4.0, 'x')")
    assert text.strip() == "NotYet: ✘ Not yet: 3 is not the right x: the value differs from " \
                           "the expected one."


def test_outside_ipython_the_traceback_is_complete_and_the_error_keeps_its_type():
    from teachgrad.notebook import check

    with pytest.raises(AssertionError) as caught:  # NotYet is an AssertionError
        check(3, 4.0, "x")
    assert isinstance(caught.value, NotYet)
    full = "".join(traceback.format_exception(caught.value))
    assert "exercises.py" in full  # plain Python (and pytest) keep every frame


def test_fold_merges_the_frames_inside_teachgrad_into_one_record():
    from teachgrad.notebook import check

    def learner():
        check(3, 4.0, "x")

    try:
        learner()
    except NotYet as error:
        tb = error.__traceback__
    records = traceback.extract_tb(tb)
    shown = fold(records)
    assert [r.name for r in shown[:2]] == [
        "test_fold_merges_the_frames_inside_teachgrad_into_one_record", "learner"]
    (folded,) = shown[2:]
    assert isinstance(folded, FoldedFrames)
    assert folded.records == records[2:]  # check() and what it called
    assert all("teachgrad" in r.filename for r in folded.records)


@pytest.mark.parametrize("call, message", [
    ("draw(3)", "TypeError: draw() expects a Tensor or a list of Tensors, got int"),
    ("step_backward([x, 2])",
     "TypeError: step_backward() expects a Tensor or a list of Tensors, got int"),
    ("inspect(3)", "TypeError: inspect() expected tensors or a dict of them (argument 1), "
                   "but got int"),
    ("draw(x, names=[x])", "TypeError: names= expects a dict such as locals()"),
])
def test_a_wrong_argument_shows_the_call_and_the_message(shown, call, message):
    text = shown("import teachgrad as torch\n"
                 "from teachgrad.notebook import draw, inspect, step_backward\n"
                 "x = torch.ones(2, requires_grad=True)\n"
                 f"{call}")
    assert f"----> 4 {call}" in text
    assert message in text
    assert "teachgrad/notebook" not in text  # graph_model.py, inspector.py: 39 lines before


def test_a_wrong_argument_is_still_a_type_error():
    from teachgrad.notebook import draw

    with pytest.raises(TypeError, match=r"^draw\(\) expects a Tensor"):
        draw(3)


def test_a_run_goes_through_the_libraries_teachgrad_calls_and_stops_at_the_learners_code():
    import types

    import numpy

    import teachgrad
    from teachgrad.notebook import short_traceback

    package = teachgrad.__file__.rsplit("__init__.py", 1)[0]
    cell, engine, numpy_file = "/tmp/ipykernel_1/2.py", package + "autograd/engine.py", \
        numpy.__file__
    records = [types.SimpleNamespace(filename=f, lineno=i) for i, f in enumerate(
        [numpy_file, cell, engine, numpy_file, cell, engine, package + "my_extra/x.py"])]
    shown = fold(records)
    # NumPy called by the learner stays; NumPy called by teachgrad folds with it
    assert shown[:2] == records[:2]
    assert isinstance(shown[2], FoldedFrames) and shown[2].records == records[2:4]
    assert shown[3] is records[4]
    assert isinstance(shown[4], FoldedFrames) and shown[4].records == records[5:]
    assert not short_traceback.inside_teachgrad(package.rstrip("/") + "_extra/x.py")
