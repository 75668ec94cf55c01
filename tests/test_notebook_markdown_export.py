"""The outputs survive an export to Markdown (``jupyter nbconvert --to markdown``).

Markdown exporters paste an output's HTML into the Markdown text. In Markdown an HTML
block ends at the first blank line, so any blank line inside our HTML (in the CSS, in
Graphviz's SVG, in a printed 3-d tensor) turned the rest of the output into visible
Markdown text: pages of CSS rules under every drawing and every stepper.
"""

import re

import nbformat
import pytest

import teachgrad as torch
from teachgrad.notebook import draw, inspect, step_backward

pytest.importorskip("graphviz")

BLANK_LINE = re.compile(r"\n[ \t]*\n")


def three_d_program():
    """A graph whose values print over several lines with blank lines (a 3-d tensor)."""
    x = torch.ones(2, 2, 2, requires_grad=True)
    y = x * 3
    out = y.sum()
    return {"x": x, "y": y, "out": out}


def html_outputs() -> dict[str, str]:
    names = three_d_program()
    drawing = draw(names["out"], names=names, show_data=True, show_saved=True)
    stepper = step_backward(names["out"], names=names)
    return {
        "inspector": inspect(names["x"], names["y"])._repr_html_(),
        "drawing": drawing._repr_html_(),
        "static stepper": stepper.static_html(),
        "live frame": stepper.widget() and stepper._widget.frame_html(stepper.n_frames - 1),
        "live graph": stepper._widget._graph_html(),
    }


@pytest.mark.parametrize("what", list(html_outputs()))
def test_html_outputs_have_no_blank_line(what):
    html = html_outputs()[what]
    blank = BLANK_LINE.search(html)
    assert blank is None, f"{what}: blank line at {html[max(0, blank.start() - 80):blank.end()]!r}"


def test_a_3d_tensor_still_shows_its_blank_line_in_the_browser():
    # The blank line between the two matrices is written as a character reference.
    html = inspect(torch.ones(2, 1, 1))._repr_html_()
    assert "[[[1.]],&#10;\n [[1.]]]" in html


def test_markdown_export_shows_no_css_as_text():
    mistune = pytest.importorskip("mistune")
    exporters = pytest.importorskip("nbconvert.exporters")
    names = three_d_program()
    outputs = [
        inspect(names["x"]),
        draw(names["out"], names=names),
        step_backward(names["out"], names=names).static_html(),
    ]
    nb = nbformat.v4.new_notebook()
    for value in outputs:
        html = value if isinstance(value, str) else value._repr_html_()
        cell = nbformat.v4.new_code_cell("...")
        cell.outputs = [nbformat.v4.new_output(
            "display_data", data={"text/html": html, "text/plain": "text"})]
        nb.cells.append(cell)
    markdown, _ = exporters.MarkdownExporter().from_notebook_node(nb)
    rendered = mistune.html(markdown)
    # Outside the HTML blocks, Markdown would wrap leaked text in <p> paragraphs.
    paragraphs = re.findall(r"<p>(.*?)</p>", rendered, flags=re.S)
    leaked = [p for p in paragraphs if "{" in p or "--tg-" in p or "&lt;" in p]
    assert not leaked, f"HTML shown as text in the Markdown export: {leaked[0][:200]!r}"
