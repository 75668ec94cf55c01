"""The tensor inspector table (teachgrad.notebook.inspector).

Expected cells come from PyTorch's semantics, derived by hand for the seed lessons (and
checked against real PyTorch where it is installed), never from the inspector's output.
"""

import re
import warnings
from html.parser import HTMLParser

import numpy as np
import pytest

import teachgrad as torch
from teachgrad.notebook import Inspection, inspect
from teachgrad.notebook.inspector import BODY_ROWS, NO_EDGE, NOT_KEPT, tensor_html


def cells_of(view: Inspection, name: str) -> dict[str, str]:
    """The text of each row of the column called ``name``."""
    (column,) = [c for c in view.columns if c.name == name]
    return {row: cell.text for row, cell in column.cells.items()}


def html_cells(html: str) -> list[str]:
    """The texts of all <td> cells of a rendered table, in document order."""
    return re.findall(r"<td[^>]*>(.*?)</td>", html, flags=re.DOTALL)


@pytest.fixture
def seed000():
    """Seed lesson 000: x requires grad, y does not, z = x * y."""
    x = torch.tensor(1.0, requires_grad=True)
    y = torch.tensor(2.0)
    z = x * y
    return x, y, z


# ---------------------------------------------------------------------------------------
# What the table says
# ---------------------------------------------------------------------------------------


def test_seed000_one_column_per_tensor_named_by_the_callers_variables(seed000):
    x, y, z = seed000
    view = inspect(x, y, z)
    assert [c.name for c in view.columns] == ["x", "y", "z"]
    assert cells_of(view, "x") == {
        "shape": "[]",
        "dtype": "float32",
        "data": "1.",
        "requires_grad": "True",
        "grad": "None",
        "grad_fn": "None",
        "is_leaf": "True",
    }
    assert cells_of(view, "y")["requires_grad"] == "False"
    assert cells_of(view, "y")["data"] == "2."
    z_cells = cells_of(view, "z")
    assert z_cells["data"] == "2."
    assert z_cells["requires_grad"] == "True"
    assert z_cells["is_leaf"] == "False"
    # z = x * y: the gradient flows to x's AccumulateGrad; y needs none, so no edge.
    assert z_cells["grad_fn"] == f"MulBackward0 → AccumulateGrad, {NO_EDGE}"
    assert z_cells["grad"] == NOT_KEPT


def test_text_table_lists_every_row_in_order(seed000):
    x, y, z = seed000
    lines = repr(inspect(x, y, z)).splitlines()
    assert lines[0].split() == ["x", "y", "z"]
    labels = [line.split()[0] for line in lines[1:]]
    assert labels == ["shape", "dtype", *BODY_ROWS]
    assert lines[-1].split() == ["is_leaf", "True", "True", "False"]


def test_seed001_after_backward_grads_and_retain_grad():
    # x = ones(2, 2); y = x + 2; z = y * y * 3 (retained); out = z.mean(); out.backward()
    x = torch.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    z.retain_grad()
    out = z.mean()
    out.backward()
    view = inspect(x=x, y=y, z=z, out=out)
    # d out / d z = 1/4 ; d out / d x = 6 * y / 4 = 4.5 (the seed's printed values)
    assert cells_of(view, "x")["grad"] == "[[4.5000, 4.5000],\n [4.5000, 4.5000]]"
    assert cells_of(view, "z")["grad"] == "[[0.2500, 0.2500],\n [0.2500, 0.2500]]"
    assert cells_of(view, "y")["grad"] == NOT_KEPT  # non-leaf, not retained
    assert cells_of(view, "out")["grad"] == NOT_KEPT
    assert cells_of(view, "x")["data"] == "[[1., 1.],\n [1., 1.]]"
    assert cells_of(view, "x")["shape"] == "[2, 2]"
    assert cells_of(view, "y")["grad_fn"] == f"AddBackward0 → AccumulateGrad, {NO_EDGE}"
    assert cells_of(view, "z")["grad_fn"] == f"MulBackward0 → MulBackward0, {NO_EDGE}"
    assert cells_of(view, "out")["grad_fn"] == "MeanBackward0 → MulBackward0"


def test_retained_non_leaf_before_backward_has_grad_none():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    assert cells_of(inspect(y=y), "y")["grad"] == "None"


def test_zero_gradient_is_not_shown_as_none():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * 0).sum().backward()
    html = inspect(x=x)._repr_html_()
    assert cells_of(inspect(x=x), "x")["grad"] == "[0., 0.]"
    assert '<td class="tg-value">[0., 0.]</td>' in html
    # and None has its own look (its own CSS class)
    fresh = torch.tensor([1.0, 2.0], requires_grad=True)
    assert '<td class="tg-none">None</td>' in inspect(fresh=fresh)._repr_html_()


def test_grad_recorded_by_create_graph_says_so():
    x = torch.tensor(3.0, requires_grad=True)
    with warnings.catch_warnings():  # PyTorch's warning about the x <-> x.grad cycle
        warnings.simplefilter("ignore")
        (x**2).backward(create_graph=True)
    grad = cells_of(inspect(x=x), "x")["grad"]
    assert grad.splitlines()[0] == "6."
    assert "grad_fn=<" in grad


def test_dual_tensors_get_a_tangent_row_inside_a_dual_level():
    import teachgrad.autograd.forward_ad as fwAD

    x = torch.tensor([1.0, 2.0])
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, torch.tensor([1.0, 0.0]))
        square = dual * dual  # tangent 2·x·t = [2, 0]
        view = inspect(dual=dual, square=square, x=x)
    assert cells_of(view, "dual")["tangent"] == "[1., 0.]"
    assert cells_of(view, "square")["tangent"] == "[2., 0.]"
    assert "tangent" not in cells_of(view, "x")  # x itself is not dual
    lines = repr(view).splitlines()
    assert lines[-1].split() == ["tangent", "[1.,", "0.]", "[2.,", "0.]", "None"]
    assert '<tr class="tg-attr tg-tangent">' in view._repr_html_()
    # Outside the level there are no tangents, and the table has its five rows again.
    labels = [line.split()[0] for line in repr(inspect(square=square)).splitlines()[1:]]
    assert labels == ["shape", "dtype", *BODY_ROWS]


def test_dtype_and_integer_data():
    t = torch.tensor([[1, 2, 3]])
    cells = cells_of(inspect(t=t), "t")
    assert cells["dtype"] == "int64"
    assert cells["shape"] == "[1, 3]"
    assert cells["data"] == "[[1, 2, 3]]"


def test_a_node_with_many_inputs_is_cut_short():
    # Like torch.cat of 12 tensors: one node, 12 edges (built by hand here).
    from teachgrad._tensor import _make
    from teachgrad.autograd.graph import Node, accumulator_of

    class CatBackward0(Node):
        pass

    leaves = [torch.ones(1, requires_grad=True) for _ in range(12)]
    node = CatBackward0()
    node.next_functions = tuple((accumulator_of(leaf), 0) for leaf in leaves)
    cat = _make(np.ones(12, dtype=np.float32), requires_grad=True, grad_fn=node)
    shown = cells_of(inspect(cat=cat), "cat")["grad_fn"]
    assert shown == "CatBackward0 → " + ", ".join(["AccumulateGrad"] * 8) + ", … (4 more)"


@pytest.mark.torch
def test_grad_fn_cells_match_pytorch_next_functions():
    real = pytest.importorskip("torch")

    def expected(t) -> str:
        fn = t.grad_fn
        targets = [NO_EDGE if f is None else f.name().split("::")[-1] for f, _ in fn.next_functions]
        return f"{fn.name()} → {', '.join(targets)}"

    for lib in (real, torch):
        x = lib.ones(2, 2, requires_grad=True)
        w = lib.tensor(3.0)
        y = (x + 2) * w
        out = (y * y).mean()
        if lib is real:
            want = {"y": expected(y), "out": expected(out)}
        else:
            view = inspect(y=y, out=out)
            assert cells_of(view, "y")["grad_fn"] == want["y"]
            assert cells_of(view, "out")["grad_fn"] == want["out"]


# ---------------------------------------------------------------------------------------
# Naming columns
# ---------------------------------------------------------------------------------------


def test_inspect_a_dict_like_locals_keeps_tensors_only(seed000):
    x, y, z = seed000
    namespace = {"x": x, "n": 3, "_": z, "z": z, "label": "hi", "y": y}
    view = inspect(namespace)
    assert [c.name for c in view.columns] == ["x", "z", "y"]  # dict order, no _ names


def test_inspect_locals_inside_a_function():
    def lesson():
        a = torch.tensor(1.0, requires_grad=True)
        b = a * 3
        return inspect(locals())

    assert [c.name for c in lesson().columns] == ["a", "b"]


def test_expression_without_a_name_is_labelled_by_position(seed000):
    x, _, _ = seed000
    view = inspect(x, x * 2)
    assert [c.name for c in view.columns] == ["x", "Tensor #2"]


def test_aliases_are_all_named():
    a = b = torch.zeros(1)  # noqa: F841 - b is read through the frame
    assert inspect(a).columns[0].name == "a = b"


def test_non_tensor_arguments_are_refused():
    with pytest.raises(TypeError, match="inspect\\(\\) expected tensors"):
        inspect(np.ones(2))
    with pytest.raises(TypeError, match="expected a tensor for 'n'"):
        inspect(n=3)


def test_nothing_to_inspect_says_so():
    view = inspect({"n": 1})
    assert repr(view) == "(no tensors to inspect)"
    assert "no tensors to inspect" in view._repr_html_()
    assert "<table" not in view._repr_html_()


# ---------------------------------------------------------------------------------------
# Reading only
# ---------------------------------------------------------------------------------------


def test_inspecting_warns_nothing_and_changes_nothing(seed000):
    x, y, z = seed000
    before = [
        (t._grad, t._grad_fn, t._requires_grad, t._vc[0], t._extra, t._accumulator)
        for t in (x, y, z)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading z.grad would warn: the inspector must not
        inspect(x, y, z)._repr_html_()
        tensor_html(z)
    after = [
        (t._grad, t._grad_fn, t._requires_grad, t._vc[0], t._extra, t._accumulator)
        for t in (x, y, z)
    ]
    assert after == before
    assert y._accumulator is None  # no AccumulateGrad node created for display


def test_inspection_is_a_snapshot():
    x = torch.tensor(2.0, requires_grad=True)
    view = inspect(x=x)
    (x * x).backward()
    assert cells_of(view, "x")["grad"] == "None"
    assert cells_of(inspect(x=x), "x")["grad"] == "4."


# ---------------------------------------------------------------------------------------
# The HTML
# ---------------------------------------------------------------------------------------


def test_html_has_every_row_and_the_values(seed000):
    x, y, z = seed000
    html = inspect(x, y, z)._repr_html_()
    for row in ("shape", "dtype", *BODY_ROWS):
        assert f'<th scope="row">{row}</th>' in html
    for name in "xyz":
        assert f'<th scope="col" class="tg-name">{name}</th>' in html
    # header (3 shapes, 3 dtypes) then the five rows of three cells, row by row
    cells = html_cells(html)
    assert len(cells) == 7 * 3
    assert cells[6:9] == ["1.", "2.", "2."]  # data
    assert cells[9:12] == ["True", "False", "True"]  # requires_grad
    assert cells[-3:] == ["True", "True", "False"]  # is_leaf


class _Headers(HTMLParser):
    """The table's aria-label and the text of each header cell (<th>), as a browser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.label, self.headers, self._in_th = None, [], False

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.label = dict(attrs).get("aria-label")
        elif tag == "th":
            self.headers.append(("", dict(attrs).get("scope")))
            self._in_th = True

    def handle_endtag(self, tag):
        if tag == "th":
            self._in_th = False

    def handle_data(self, data):
        if self._in_th:
            text, scope = self.headers[-1]
            self.headers[-1] = (text + data, scope)


def headers_of(page: str) -> _Headers:
    parser = _Headers()
    parser.feed(page)
    return parser


def test_the_table_is_named_for_screen_readers_by_its_tensors(seed000):
    x, y, z = seed000
    assert headers_of(inspect(x, y, z)._repr_html_()).label == "autograd attributes of x, y and z"
    assert headers_of(inspect(x)._repr_html_()).label == "autograd attributes of x"
    assert headers_of(tensor_html(x * 2)).label == "autograd attributes of Tensor"


def test_the_tables_name_is_escaped_in_its_attribute():
    odd = 'a"b <c> & d'
    page = inspect(**{odd: torch.ones(1)})._repr_html_()
    assert headers_of(page).label == f"autograd attributes of {odd}"


def test_no_header_cell_is_empty_the_corner_heads_the_attribute_names(seed000):
    x, y, z = seed000
    headers = headers_of(inspect(x, y, z)._repr_html_()).headers
    assert all(text.strip() for text, _ in headers), headers
    # the corner is the header of the column of row labels, then one per tensor
    assert headers[:4] == [("attribute", "col"), ("x", "col"), ("y", "col"), ("z", "col")]
    assert [text for text, scope in headers if scope == "row"] == ["shape", "dtype", *BODY_ROWS]


def test_the_corner_label_is_out_of_sight_but_read_out():
    style = re.search(r"<style>(.*?)</style>", tensor_html(torch.ones(1)), re.S).group(1)
    rule = re.search(r"\.tg-inspect \.tg-sr\s*\{([^}]*)\}", style).group(1)
    assert "clip-path: inset(50%)" in rule and "position: absolute" in rule
    assert "display" not in rule  # display: none would take it from screen readers too


def test_everything_is_html_escaped():
    evil = "<script>alert(1)</script>"
    t = torch.tensor([1.0])
    html = inspect(**{evil: t})._repr_html_()
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    html = inspect({evil: t, "a&b": t})._repr_html_()
    assert "<script>" not in html
    assert "a&amp;b" in html
    # the arrow and dash of grad_fn survive escaping as text
    y = t.requires_grad_() * 2
    assert "MulBackward0 → AccumulateGrad, —" in inspect(y=y)._repr_html_()


def test_text_fallback_and_css_travel_with_the_table(seed000):
    x, y, z = seed000
    view = inspect(x, y, z)
    html = view._repr_html_()
    # the plain-text table, escaped, inside a <pre> the stylesheet hides...
    fallback = re.search(r'<pre class="tg-fallback">(.*?)</pre>', html, flags=re.DOTALL)
    assert fallback is not None
    assert fallback.group(1) == repr(view)  # no character needed escaping here
    assert ".tg-inspect .tg-fallback {\ndisplay: none;" in html
    # ...and the table is hidden unless the stylesheet is there to show it
    assert re.search(r'<table class="tg-table" style="display:none"[ >]', html)
    assert "display: table !important" in html


def test_css_follows_jupyterlab_light_and_dark_themes(seed000):
    html = inspect(*seed000)._repr_html_()
    style = re.search(r"<style>(.*?)</style>", html, flags=re.DOTALL).group(1)
    # colours come from the theme's variables (they differ between light and dark)...
    for variable in ("--jp-content-font-color1", "--jp-border-color2", "--jp-layout-color2"):
        assert f"var({variable}," in style
    # ...and no colour is hard-wired outside a var() fallback
    without_fallbacks = re.sub(r"var\([^()]*(\([^()]*\)[^()]*)*\)", "", style)
    assert not re.search(r"#[0-9a-fA-F]{3,6}\b|rgba?\(", without_fallbacks)
    assert "<script" not in html.lower() and "javascript" not in html.lower()


def test_html_is_deterministic():
    def build():
        x = torch.ones(2, 2, requires_grad=True)
        y = (x * 3).sum()
        return inspect(x=x, y=y)._repr_html_(), tensor_html(y)

    first, second = build(), build()
    assert first == second
    assert not re.search(r"0x[0-9a-f]{6,}", first[0] + first[1])  # no memory addresses
    assert " id=" not in first[0]


def test_a_million_elements_are_summarised():
    big = torch.ones(1000, 1000, requires_grad=True)
    (big * 2).sum().backward()
    html = tensor_html(big)
    data, grad = html_cells(html)[2], html_cells(html)[4]
    assert data.splitlines()[0] == "[[1., 1., 1.,  ..., 1., 1., 1.],"
    assert "..." in data and "..." in grad
    assert grad.splitlines()[0] == "[[2., 2., 2.,  ..., 2., 2., 2.],"
    assert len(html) < 10_000  # dozens of numbers, not a million


def test_tensor_html_titles_the_column_with_the_class_name():
    class Parameter(torch.Tensor):  # stands in for nn.Parameter
        pass

    p = Parameter([1.0])
    assert '<th scope="col" class="tg-name">Parameter</th>' in tensor_html(p)
    assert '<th scope="col" class="tg-name">Tensor</th>' in tensor_html(torch.ones(1))


def test_in_html_an_edge_to_nothing_stays_with_its_comma(seed000):
    # Squeezed to the output's width, "MulBackward0 → AccumulateGrad, —" wrapped before
    # the dash, which then stood alone on a line (lesson 9's inspect(x, c, h, L)).
    _, _, z = seed000
    html = inspect(z=z)._repr_html_()
    assert f"MulBackward0 → AccumulateGrad,\u00a0{NO_EDGE}" in html_cells(html)
    assert f"AccumulateGrad, {NO_EDGE}" in inspect(z=z).to_text()  # the text is unchanged


# --- edge cases, against PyTorch's own printing ------------------------------------------
def _torch_data_text(t) -> str:
    """The data part of PyTorch's ``repr(t)`` (``tensor(DATA, ...)``), its continuation
    lines indented by one space as the table writes them (PyTorch indents them under
    ``tensor(``, seven)."""
    body = repr(t)[len("tensor("):]
    if body.startswith("["):  # up to the bracket that closes the first one
        depth, end = 0, 0
        while end == 0 or depth:
            depth += {"[": 1, "]": -1}.get(body[end], 0)
            end += 1
    else:  # a 0-d tensor: the number, up to the options or the closing parenthesis
        end = min(i for i in (body.find(","), body.find(")")) if i >= 0)
    lines = body[:end].split("\n")
    return "\n".join([lines[0]] + [line[len("tensor("):] for line in lines[1:]])


EDGE_CASES = {
    "empty": lambda L: L.tensor([]),
    "empty 2x0": lambda L: L.zeros(2, 0),
    "empty int64 0x3": lambda L: L.zeros(0, 3, dtype=L.int64),
    "summarised 40x50": lambda L: L.arange(2000.0).reshape(40, 50),
    "a million": lambda L: L.arange(1_000_000, dtype=L.float32),
    "int64": lambda L: L.tensor([1, -2, 3]),
    "int8": lambda L: L.tensor([1, -2, 3], dtype=L.int8),
    "bool": lambda L: L.tensor([True, False]),
    "0-d bool": lambda L: L.tensor(True),
    "nan and inf": lambda L: L.tensor([float("nan"), float("inf"), -float("inf"), 1.5]),
    "nan beside integers": lambda L: L.tensor([float("nan"), 1.0, 2.0]),
    "scientific": lambda L: L.tensor([1e-8, 1e8, 3.0]),
    "float16": lambda L: L.tensor([1.0, 2.5], dtype=L.float16),
}


@pytest.mark.parametrize("case", list(EDGE_CASES))
def test_data_cell_is_pytorchs_text(case):
    real = pytest.importorskip("torch")
    make = EDGE_CASES[case]
    t = make(torch)
    assert cells_of(inspect(t=t), "t")["data"] == _torch_data_text(make(real))
    assert cells_of(inspect(t=t), "t")["shape"] == str(list(make(real).shape))


def _grads(L):
    """Leaf gradients of unusual layouts: through a transpose (PyTorch's grad is a
    contiguous copy), and NaN."""
    a = L.ones(3, 2, requires_grad=True)
    (a.t() * L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    b = L.ones(3, requires_grad=True)
    (b * float("nan")).sum().backward()
    c = L.zeros(0, requires_grad=True)
    c.sum().backward()
    return {"transposed": a, "nan": b, "empty": c}


@pytest.mark.parametrize("case", ["transposed", "nan", "empty"])
def test_grad_cell_is_pytorchs_text(case):
    real = pytest.importorskip("torch")
    ours, theirs = _grads(torch)[case], _grads(real)[case]
    assert cells_of(inspect(t=ours), "t")["grad"] == _torch_data_text(theirs.grad)


def test_a_long_grad_fn_name_is_kept_whole():
    class AVeryLongNameForAFunctionThatKeepsGoingAndGoing(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    y = AVeryLongNameForAFunctionThatKeepsGoingAndGoing.apply(torch.ones(2, requires_grad=True))
    name = "AVeryLongNameForAFunctionThatKeepsGoingAndGoingBackward"  # PyTorch's: + Backward
    assert cells_of(inspect(y=y), "y")["grad_fn"] == f"{name} → AccumulateGrad"
    assert f"{name} → AccumulateGrad</td>" in tensor_html(y)
