"""``%load_ext teachgrad`` and ``%teachgrad`` inside a real IPython InteractiveShell."""

import subprocess
import sys

import pytest

pytest.importorskip("IPython")

from IPython.core.error import UsageError  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

import teachgrad as torch  # noqa: E402


@pytest.fixture
def ip():
    """The (singleton) IPython shell, with teachgrad unloaded again afterwards."""
    shell = InteractiveShell.instance()
    yield shell
    if "teachgrad" in shell.extension_manager.loaded:
        shell.run_line_magic("unload_ext", "teachgrad")


def formats(ip, obj) -> dict:
    data, _metadata = ip.display_formatter.format(obj)
    return data


def run(ip, code: str):
    """Run a cell; fail the test if it raised."""
    result = ip.run_cell(code)
    result.raise_error()
    return result


def test_before_loading_tensors_have_only_text(ip):
    assert set(formats(ip, torch.ones(2))) == {"text/plain"}


def test_load_ext_adds_the_table_and_keeps_pytorch_text(ip):
    run(ip, "%load_ext teachgrad")
    run(ip, "import teachgrad as torch\nx = torch.tensor([1., 2.], requires_grad=True)\ny = x * 2")
    data = formats(ip, ip.user_ns["y"])
    assert data["text/plain"] == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    html = data["text/html"]
    assert html.startswith('<div class="tg-inspect">')
    grad_fn_row = '<th scope="row">grad_fn</th><td class="tg-value">MulBackward0 → AccumulateGrad'
    assert grad_fn_row in html
    assert '<td class="tg-value">[2., 4.]</td>' in html


def test_the_cell_result_is_shown_as_a_table(ip):
    run(ip, "%load_ext teachgrad")
    shown = []
    original = ip.displayhook.write_format_data
    ip.displayhook.write_format_data = lambda data, md=None: shown.append(data)
    try:
        run(ip, "import teachgrad as torch\ntorch.zeros(3)")
    finally:
        ip.displayhook.write_format_data = original
    (data,) = shown
    assert data["text/plain"] == "tensor([0., 0., 0.])"
    assert '<td class="tg-value">[0., 0., 0.]</td>' in data["text/html"]


def test_a_cell_ending_with_a_variable_titles_the_table_with_its_name(ip):
    # A cell ending with ``z`` showed a column titled "Tensor", while inspect(z) says "z".
    run(ip, "%load_ext teachgrad")
    run(ip, "import teachgrad as torch\nx = torch.ones(2)\nz = x * 2\nalias = z")
    assert 'class="tg-name">z = alias</th>' in formats(ip, ip.user_ns["z"])["text/html"]
    assert 'class="tg-name">x</th>' in formats(ip, ip.user_ns["x"])["text/html"]
    # A value no variable holds keeps its class name; IPython's _, _7 ... do not count.
    ip.user_ns["_7"] = unnamed = ip.user_ns["x"] + 1
    assert 'class="tg-name">Tensor</th>' in formats(ip, unnamed)["text/html"]


def test_a_cell_ending_with_a_gradient_titles_the_table_with_whose_gradient_it_is(ip):
    # Lesson 3 ends a cell with ``a.grad``: its table was titled "Tensor".
    run(ip, "%load_ext teachgrad")
    run(ip, "import teachgrad as torch\na = torch.ones(2, requires_grad=True)\n"
            "h = a * 3\nh.retain_grad()\n(h * h).sum().backward()")
    assert 'class="tg-name">a.grad</th>' in formats(ip, ip.user_ns["a"].grad)["text/html"]
    assert 'class="tg-name">h.grad</th>' in formats(ip, ip.user_ns["h"].grad)["text/html"]
    # A variable holding the gradient is that variable's name.
    run(ip, "g = a.grad")
    assert 'class="tg-name">g</th>' in formats(ip, ip.user_ns["g"])["text/html"]


def test_subclasses_such_as_parameter_get_the_table_too(ip):
    class Parameter(torch.Tensor):  # stands in for nn.Parameter
        pass

    run(ip, "%load_ext teachgrad")
    assert 'class="tg-name">Parameter</th>' in formats(ip, Parameter([1.0]))["text/html"]


def test_nn_parameter_keeps_its_text_and_gets_the_table(ip):
    nn = pytest.importorskip("teachgrad.nn")
    run(ip, "%load_ext teachgrad")
    data = formats(ip, nn.Parameter(torch.ones(2)))
    assert data["text/plain"] == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    assert 'class="tg-name">Parameter</th>' in data["text/html"]


def test_magic_switches_modes_and_reports_them(ip, capsys):
    run(ip, "%load_ext teachgrad")
    t = torch.ones(1)

    run(ip, "%teachgrad")
    assert "teachgrad display mode: table" in capsys.readouterr().out

    run(ip, "%teachgrad plain")
    assert set(formats(ip, t)) == {"text/plain"}
    run(ip, "%teachgrad")
    report = capsys.readouterr().out
    assert "teachgrad display mode: plain" in report
    assert "* %teachgrad plain" in report

    run(ip, "%teachgrad table")
    assert "text/html" in formats(ip, t)


def test_magic_reads_a_trailing_comment_as_a_comment(ip):
    """IPython passes "plain   # PyTorch's text" whole; the comment must not become the mode."""
    run(ip, "%load_ext teachgrad")
    run(ip, "%teachgrad plain   # PyTorch's text")
    assert set(formats(ip, torch.ones(1))) == {"text/plain"}
    run(ip, "%teachgrad frames off   # fold teachgrad's frames")
    run(ip, "%teachgrad TABLE # back to tables")
    assert "text/html" in formats(ip, torch.ones(1))


def test_magic_refuses_unknown_modes(ip):
    run(ip, "%load_ext teachgrad")
    with pytest.raises(UsageError, match="unknown display mode 'fancy'"):
        ip.run_line_magic("teachgrad", "fancy")
    assert "text/html" in formats(ip, torch.ones(1))  # mode unchanged


def test_unload_ext_restores_plain_display_and_removes_the_magic(ip):
    run(ip, "%load_ext teachgrad")
    run(ip, "%unload_ext teachgrad")
    assert set(formats(ip, torch.ones(1))) == {"text/plain"}
    assert ip.find_line_magic("teachgrad") is None


def test_loading_twice_is_harmless_and_one_unload_undoes_it(ip):
    torch.load_ipython_extension(ip)
    run(ip, "%teachgrad plain")
    torch.load_ipython_extension(ip)  # a second load keeps the formatter and its mode
    assert set(formats(ip, torch.ones(1))) == {"text/plain"}
    run(ip, "%teachgrad table")
    assert "text/html" in formats(ip, torch.ones(1))
    torch.unload_ipython_extension(ip)
    assert set(formats(ip, torch.ones(1))) == {"text/plain"}
    torch.unload_ipython_extension(ip)  # unloading twice too


def test_reload_ext_keeps_the_table():
    # %reload_ext re-imports the teachgrad package; do that in a fresh interpreter so the
    # re-import cannot disturb the other tests of this session.
    code = (
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "import teachgrad\n"
        "ip = InteractiveShell.instance()\n"
        "ip.run_line_magic('load_ext', 'teachgrad')\n"
        "ip.run_line_magic('reload_ext', 'teachgrad')\n"
        "data, _ = ip.display_formatter.format(teachgrad.ones(1))\n"
        "assert 'text/html' in data, data\n"
        "ip.run_line_magic('teachgrad', 'plain')\n"
        "data, _ = ip.display_formatter.format(teachgrad.ones(1))\n"
        "assert 'text/html' not in data, data\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=_repo_root())


def test_importing_teachgrad_notebook_stays_light():
    # A fresh interpreter: nothing from Jupyter may be imported by the package itself.
    code = (
        "import sys, teachgrad, teachgrad.notebook\n"
        "heavy = [m for m in ('IPython', 'ipywidgets', 'graphviz', 'jupyter_client') "
        "if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "teachgrad.notebook.inspect(teachgrad.ones(1))\n"
        "assert 'IPython' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=_repo_root())


def _repo_root() -> str:
    import pathlib

    return str(pathlib.Path(torch.__file__).resolve().parent.parent)


def test_extension_adds_draw_and_step_backward_to_tensors_while_loaded():
    """``out.draw()`` / ``out.step_backward()`` exist with the extension, and go with it."""
    from IPython.core.interactiveshell import InteractiveShell

    import teachgrad as torch
    from teachgrad.notebook import Drawing, Stepper

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "teachgrad")
    try:
        x = torch.tensor(2.0, requires_grad=True)
        out = x * x
        assert isinstance(out.draw(), Drawing)
        stepper = (x * 3).step_backward()
        assert isinstance(stepper, Stepper)
        assert x.grad.item() == 3.0  # the real backward ran
    finally:
        shell.run_line_magic("unload_ext", "teachgrad")
    assert not hasattr(torch.Tensor, "draw")
    assert not hasattr(torch.Tensor, "step_backward")


def test_tensor_conveniences_name_boxes_after_the_cells_variables(ip):
    # draw(out, names=locals()) needs the names spelled out; out.draw() in a cell is
    # called from the notebook's namespace, so it can and does use those names.
    run(ip, "%load_ext teachgrad")
    run(ip, "import teachgrad as torch\n"
            "weight = torch.tensor(2.0, requires_grad=True)\n"
            "loss = weight * weight\n"
            "drawing = loss.draw()\n"
            "stepper = loss.step_backward()")
    assert "<B>weight</B>" in ip.user_ns["drawing"].source
    assert "<B>loss</B>" in ip.user_ns["drawing"].source
    log = ip.user_ns["stepper"].log()
    assert "weight.grad: None → 4." in log and "∂loss/∂weight" in log
    # names= given explicitly still wins.
    run(ip, "other = (weight * 3).step_backward(names={'w': weight})")
    assert "w.grad: 4. + 3. = 7." in ip.user_ns["other"].log()


def test_magic_modes_ignore_case(ip):
    run(ip, "%load_ext teachgrad")
    run(ip, "%teachgrad Plain")
    assert set(formats(ip, torch.ones(1))) == {"text/plain"}


def test_reprs_count_in_words(ip):
    from teachgrad.notebook import draw, step_backward

    x = torch.tensor(2.0, requires_grad=True)
    # (a drawing of a leaf adds a line saying what its one box does: no_graph_notes)
    assert repr(draw(x)).splitlines()[0] == (
        "<teachgrad graph of 1 autograd node; .source has the DOT text>")
    assert repr(draw(x * 2)) == "<teachgrad graph of 2 autograd nodes; .source has the DOT text>"
    assert repr(step_backward(x)) == "<teachgrad backward stepper: 1 step, 1 autograd node>"
