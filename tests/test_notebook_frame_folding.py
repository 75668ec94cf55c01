"""With ``%load_ext teachgrad``, an error shows the learner's code and the message, with
each run of teachgrad's own frames folded into one line.

Run in a real IPython InteractiveShell: what it would print is collected from
``_showtraceback`` (where IPython hands over the finished lines), colours removed.
"""

import re
import sys

import pytest

pytest.importorskip("IPython")

from IPython.core.error import UsageError  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
FOLD = re.compile(r"\[\.\.\. (\d+) frames? inside teachgrad hidden; %teachgrad frames shows "
                  r"(?:them|it)\]")
#: Files of teachgrad's core that the errors below go through (never shown folded).
CORE_FILES = ("engine.py", "_tensor.py", "op.py", "graph.py", "module.py")


@pytest.fixture
def shell(monkeypatch):
    """The IPython shell with the extension loaded; unloaded and back to Context after."""
    ip = InteractiveShell.instance()
    printed = []
    monkeypatch.setattr(ip, "_showtraceback",
                        lambda etype, value, stb: printed.append(ip.InteractiveTB.stb2text(stb)))
    ip.printed = printed
    ip.run_line_magic("xmode", "Context")
    ip.run_line_magic("load_ext", "teachgrad")
    ip.run_cell("import teachgrad as torch\nimport teachgrad.nn as nn")
    yield ip
    if "teachgrad" in ip.extension_manager.loaded:
        ip.run_line_magic("unload_ext", "teachgrad")
    ip.run_line_magic("xmode", "Context")


def shown(ip, code: str) -> str:
    """Run a cell that raises; return the traceback text IPython prints for it."""
    ip.printed.clear()
    ip.run_cell(code)
    assert ip.printed, "the cell did not raise"
    return _ANSI.sub("", ip.printed[-1])


def folds(text: str) -> list[int]:
    """The frame counts of the fold lines in ``text``."""
    return [int(count) for count in FOLD.findall(text)]


BACKWARD_TWICE = ("x = torch.ones(3, requires_grad=True)\n"
                  "out = (x * x).sum()\n"
                  "out.backward()\n"
                  "out.backward()")


def assert_no_core_frames(text: str) -> None:
    for name in CORE_FILES:
        assert name not in text, name


def test_backward_twice_shows_the_cell_line_one_fold_and_the_message(shell):
    text = shown(shell, BACKWARD_TWICE)
    assert "----> 4 out.backward()" in text
    assert len(folds(text)) == 1 and folds(text)[0] >= 2
    assert "RuntimeError: Trying to backward through the graph a second time" in text
    assert "Hint: this graph was already used by a backward pass." in text
    assert_no_core_frames(text)
    assert len(text.splitlines()) < 15, text  # 40-50 lines before


def test_one_folded_frame_is_spoken_of_in_the_singular():
    # Lesson 12's gradcheck error read "[... 1 frame inside teachgrad hidden; %teachgrad
    # frames shows them]".
    from collections import namedtuple

    from teachgrad.notebook.short_traceback import FoldedFrames

    Record = namedtuple("Record", "filename lineno")
    one = FoldedFrames([Record("teachgrad/autograd/gradcheck.py", 10)])
    assert one.line() == "[... 1 frame inside teachgrad hidden; %teachgrad frames shows it]\n"
    two = FoldedFrames([Record("teachgrad/a.py", 1), Record("teachgrad/b.py", 2)])
    assert two.line() == "[... 2 frames inside teachgrad hidden; %teachgrad frames shows them]\n"


@pytest.mark.parametrize("code, line, message", [
    ("y = torch.ones(3, requires_grad=True) * 2\ny.backward()", "----> 2 y.backward()",
     "RuntimeError: grad can be implicitly created only for scalar outputs"),
    ("a, b = torch.ones(2, 3), torch.ones(2, 3)\na @ b", "----> 2 a @ b",
     "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    ("a = torch.ones(3, requires_grad=True)\nb = a * 1\nc = b ** 2\nb.add_(1)\n"
     "c.sum().backward()", "----> 5 c.sum().backward()",
     "RuntimeError: one of the variables needed for gradient computation has been modified "
     "by an inplace operation"),
])
def test_the_usual_core_errors_show_the_cell_line_and_the_message(shell, code, line, message):
    text = shown(shell, code)
    assert line in text
    assert message in text
    assert len(folds(text)) == 1
    assert_no_core_frames(text)


CUSTOM_FUNCTION = """class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x.reshape(5)

x = torch.ones(3, requires_grad=True)
Square.apply(x).sum().backward()"""


def test_a_custom_functions_backward_called_by_the_engine_stays_with_its_line(shell):
    text = shown(shell, CUSTOM_FUNCTION)
    assert "---> 13 Square.apply(x).sum().backward()" in text
    assert "in Square.backward(ctx, grad)" in text
    assert "---> 10     return grad * 2 * x.reshape(5)" in text
    # the engine's frames between the cell and backward, reshape's after it
    assert len(folds(text)) == 2
    assert text.index("Square.apply(x)") < text.index("[...") < text.index("in Square.backward")
    assert "RuntimeError: shape '[5]' is invalid for input of size 3" in text
    assert_no_core_frames(text)


@pytest.mark.parametrize("code, kept", [
    ("w = torch.ones(3, requires_grad=True)\n"
     "h = w.register_hook(lambda g: g / not_defined)\n"
     "(w * 2).sum().backward()",
     "----> 2 h = w.register_hook(lambda g: g / not_defined)"),
    ("class Net(nn.Module):\n"
     "    def forward(self, x):\n"
     "        return x + not_defined\n"
     "Net()(torch.ones(3))",
     "----> 3     return x + not_defined"),
    ("w = torch.ones(3, requires_grad=True)\n"
     "opt = torch.optim.SGD([w], lr=0.1)\n"
     "def closure():\n"
     "    return w.sum() + not_defined\n"
     "opt.step(closure)",
     "----> 4     return w.sum() + not_defined"),
])
def test_the_learners_code_called_back_by_teachgrad_stays(shell, code, kept):
    text = shown(shell, code)
    assert kept in text
    assert "NameError: name 'not_defined' is not defined" in text
    assert folds(text)
    assert text.index("[...") < text.index(kept)
    assert_no_core_frames(text)


def test_an_error_that_does_not_touch_teachgrad_is_shown_unchanged(shell):
    code = "def f(n):\n    return 1 / n\nf(0)"
    with_folding = shown(shell, code)
    shell.run_line_magic("unload_ext", "teachgrad")
    assert shown(shell, code) == with_folding
    assert "----> 2     return 1 / n" in with_folding and "[..." not in with_folding


def test_teachgrad_frames_shows_every_frame_and_off_folds_again(shell):
    shell.run_line_magic("teachgrad", "frames")
    text = shown(shell, BACKWARD_TWICE)
    assert not folds(text)
    assert "engine.py" in text and "_tensor.py" in text
    shell.run_line_magic("teachgrad", "frames off")
    assert folds(shown(shell, BACKWARD_TWICE))


def test_the_magic_reports_the_frames_setting_and_refuses_unknown_ones(shell, capsys):
    shell.run_line_magic("teachgrad", "")
    assert "teachgrad frames in errors: folded" in capsys.readouterr().out
    shell.run_line_magic("teachgrad", "frames")
    shell.run_line_magic("teachgrad", "")
    report = capsys.readouterr().out
    assert "teachgrad frames in errors: shown" in report
    assert "* %teachgrad frames " in report
    assert "teachgrad display mode: table" in report  # the display modes are still there
    with pytest.raises(UsageError, match="unknown frames setting 'sometimes'"):
        shell.run_line_magic("teachgrad", "frames sometimes")


def test_unload_restores_ipythons_own_traceback_printer(shell):
    shell.run_line_magic("unload_ext", "teachgrad")
    assert not {"get_records", "format_record", "_extract_tb", "_format_list"} \
        & set(vars(shell.InteractiveTB))
    text = shown(shell, BACKWARD_TWICE)
    assert not folds(text)
    assert "engine.py" in text


@pytest.mark.parametrize("mode", ["Plain", "Verbose"])
def test_xmode_formats_the_frames_that_are_kept(shell, mode):
    shell.run_line_magic("xmode", mode)
    text = shown(shell, CUSTOM_FUNCTION)
    assert len(folds(text)) == 2
    assert "Square.apply(x).sum().backward()" in text
    assert "return grad * 2 * x.reshape(5)" in text
    assert_no_core_frames(text)
    if mode == "Plain":
        assert "----> " not in text  # Plain: one line per frame, no context
    else:
        assert "grad = tensor([1., 1., 1.])" in text  # Verbose: the frame's variables


def test_xmode_minimal_prints_the_message_alone(shell):
    shell.run_line_magic("xmode", "Minimal")
    text = shown(shell, BACKWARD_TWICE)
    assert text.startswith("RuntimeError: Trying to backward through the graph a second time")
    assert not folds(text) and "out.backward()" not in text


@pytest.mark.parametrize("mode", ["Context", "Plain"])
def test_each_exception_of_a_chain_is_folded(shell, mode):
    shell.run_line_magic("xmode", mode)
    text = shown(shell, BACKWARD_TWICE.replace(
        "out.backward()\nout.backward()",
        "out.backward()\n"
        "try:\n"
        "    out.backward()\n"
        "except RuntimeError as error:\n"
        "    raise ValueError('a second backward') from error"))
    cause, effect = text.split("The above exception was the direct cause of the following "
                               "exception:")
    assert "out.backward()" in cause and len(folds(cause)) == 1
    assert "RuntimeError: Trying to backward through the graph a second time" in cause
    assert "raise ValueError('a second backward') from error" in effect
    assert not folds(effect)
    assert effect.rstrip().endswith("ValueError: a second backward")
    assert_no_core_frames(text)


def test_the_traceback_itself_stays_whole_for_the_debugger(shell):
    shown(shell, BACKWARD_TWICE)
    files = []
    tb = sys.last_traceback  # what %debug walks
    while tb is not None:
        files.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    assert any(f.endswith("engine.py") for f in files)


def test_a_syntax_error_is_shown_as_before(shell):
    with_folding = shown(shell, "x = 1 +")
    shell.run_line_magic("unload_ext", "teachgrad")
    assert shown(shell, "x = 1 +") == with_folding
    assert "SyntaxError" in with_folding


def test_a_keyboard_interrupt_inside_teachgrad_shows_the_learners_line(shell):
    text = shown(shell, "w = torch.ones(3, requires_grad=True)\n"
                        "def stop(grad):\n"
                        "    raise KeyboardInterrupt\n"
                        "h = w.register_hook(stop)\n"
                        "(w * 2).sum().backward()")
    assert "----> 5 (w * 2).sum().backward()" in text
    assert "----> 3     raise KeyboardInterrupt" in text
    assert text.rstrip().endswith("KeyboardInterrupt:")
    assert folds(text)


def test_errors_meant_for_the_learner_show_their_frames_when_asked(shell):
    check = "from teachgrad.notebook import check\ncheck(3, 4.0, 'x')"
    text = shown(shell, check)
    assert "----> 2 check(3, 4.0, 'x')" in text
    assert folds(text) and "exercises.py" not in text
    shell.run_line_magic("teachgrad", "frames")
    assert "exercises.py" in shown(shell, check)


def test_a_printer_without_the_four_methods_is_left_alone():
    from teachgrad.notebook.short_traceback import FrameFolding

    class OtherPrinter:  # an IPython whose traceback printer works differently
        def get_records(self, etb, context, tb_offset):
            return []

    printer = OtherPrinter()
    FrameFolding(printer).install()
    assert vars(printer) == {}
