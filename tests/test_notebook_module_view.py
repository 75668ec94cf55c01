"""The nn.Module and optimizer views (teachgrad.notebook.module_view) and their display.

Expected values are derived by hand (a gradient norm from the chain rule, parameter
counts from PyTorch's rules for parameters()), never read off the view itself.
"""

import html
import math
import re
import warnings

import pytest

import teachgrad as torch
from teachgrad import nn
from teachgrad.notebook.module_view import MAX_ROWS, module_html, optimizer_html


def rows(page: str) -> dict[str, list[str]]:
    """Each table row's header text -> its cells' texts (tags removed, entities decoded)."""
    found = {}
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", page, flags=re.S):
        header = re.search(r"<th[^>]*>(.*?)</th>", row, flags=re.S)
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)
        if header and cells:
            found[_text(header.group(1))] = [_text(c) for c in cells]
    return found


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def structure(page: str) -> str:
    """The text of the view's <pre> (what a viewer without CSS shows)."""
    return html.unescape(re.search(r"<pre[^>]*>(.*?)</pre>", page, flags=re.S).group(1))


def linear_2_to_1():
    """out = 3*w0 + 4*w1 + b for the input [3, 4]: dL/dw = [[3, 4]] (norm 5), dL/db = [1]."""
    layer = nn.Linear(2, 1)
    out = layer(torch.tensor([[3.0, 4.0]]))
    return layer, out.sum()


# ---------------------------------------------------------------------------------------
# Modules
# ---------------------------------------------------------------------------------------


def test_before_backward_every_grad_is_none_and_after_it_shows_its_norm():
    layer, loss = linear_2_to_1()
    before = rows(module_html(layer, "layer"))
    assert before["weight"] == ["[1, 2]", "float32", "True", "None"]
    assert before["bias"] == ["[1]", "float32", "True", "None"]
    assert "clip_grad_norm_" not in module_html(layer)  # no gradients: no total

    loss.backward()
    page = module_html(layer, "layer")
    after = rows(page)
    assert after["weight"][3] == "norm 5"  # ‖[3, 4]‖ = 5
    assert after["bias"][3] == "norm 1"
    total = re.search(r"together: <b>([^<]+)</b>", page).group(1)
    assert float(total) == pytest.approx(math.sqrt(26), rel=1e-3)


def test_total_norm_is_what_clip_grad_norm_returns():
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    model(torch.randn(5, 3)).pow(2).sum().backward()
    total = float(re.search(r"together: <b>([^<]+)</b>", module_html(model)).group(1))
    expected = float(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1e9))
    assert total == pytest.approx(expected, rel=1e-3)


def test_a_zero_gradient_is_not_none():
    layer = nn.Linear(2, 1)
    (layer(torch.ones(1, 2)) * 0).sum().backward()
    assert rows(module_html(layer))["weight"][3] == "norm 0"
    layer.zero_grad()  # set_to_none=True: gone, not zero
    assert rows(module_html(layer))["weight"][3] == "None"


def test_qualified_names_and_structure_are_pytorchs():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    page = module_html(model, "model")
    assert list(rows(page)) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert rows(page)["2.weight"][0] == "[1, 3]"
    # without the CSS, the view is exactly PyTorch's text
    assert structure(page) == repr(model)
    assert structure(page) == (
        "Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (1): ReLU()\n  (2): Linear(in_features=3, out_features=1, bias=True)\n)"
    )
    assert "<b>model</b>: 4 parameters</p>" in page


def test_the_table_is_hidden_where_the_css_is_stripped():
    page = module_html(nn.Linear(1, 1))
    assert '<div class="tg-params" style="display:none">' in page
    assert page.index("<style>") < page.index("tg-params")


def test_text_is_escaped():
    class Odd(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_parameter("w<b>", nn.Parameter(torch.ones(1)))

        def extra_repr(self):
            return "mode=<script>alert(1)</script> & more"

    page = module_html(Odd(), name="<i>m</i>")
    assert "<script>" not in page and "<b>" not in page.replace("<b>&lt;i&gt;", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in page
    assert "w&lt;b&gt;" in page
    assert "<b>&lt;i&gt;m&lt;/i&gt;</b>" in page
    assert structure(page) == repr(Odd())


def test_a_module_with_no_parameters():
    page = module_html(nn.ReLU(), "act")
    assert "<b>act</b>: 0 parameters</p>" in page
    assert "no parameters" in page
    assert structure(page) == "ReLU()"


def test_frozen_parameters():
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    model[0].weight.requires_grad_(False)
    model(torch.ones(1, 2)).sum().backward()
    table = rows(module_html(model))
    assert table["0.weight"][2:] == ["False", "None"]  # frozen: backward leaves it alone
    assert table["0.bias"][2] == "True" and table["0.bias"][3].startswith("norm ")
    assert "4 parameters (1 frozen)</p>" in module_html(model)


def test_shared_parameters_are_listed_once_as_parameters_lists_them():
    first, second = nn.Linear(2, 2), nn.Linear(2, 2)
    second.weight = first.weight  # tied
    model = nn.Sequential(first, nn.ReLU(), second)
    page = module_html(model)
    # parameters() yields 0.weight, 0.bias, 2.bias: the tied weight once
    assert list(rows(page)) == ["0.weight = 2.weight", "0.bias", "2.bias"]
    assert "3 parameters</p>" in page

    same = nn.Linear(1, 1)
    twice = nn.Sequential(same, same)  # the same layer twice
    assert list(rows(module_html(twice))) == ["0.weight = 1.weight", "0.bias = 1.bias"]


def test_buffers_have_their_own_part():
    norm = nn.BatchNorm1d(3)
    page = module_html(norm)
    table = rows(page)
    assert "buffers: saved in state_dict(), not trained" in page
    assert table["running_mean"] == ["[3]", "float32", "False", "None"]
    assert table["num_batches_tracked"][:2] == ["[]", "int64"]
    assert "2 parameters · 3 buffers</p>" in page
    assert page.index("weight") < page.index("buffers:") < page.index("running_mean")


def test_a_big_model_is_summarised_and_still_counted_whole():
    model = nn.Sequential(*[nn.Linear(2, 2) for _ in range(30)])  # 60 parameters
    page = module_html(model)
    names = list(rows(page))
    assert len(names) == 20 < MAX_ROWS < 60
    assert names[:2] == ["0.weight", "0.bias"] and names[-1] == "29.bias"
    assert "… 40 more parameters (model.named_parameters() lists them all)" in page
    assert "60 parameters</p>" in page
    assert len(page) < 20_000


def test_showing_a_module_changes_nothing_and_warns_nothing():
    layer, loss = linear_2_to_1()
    loss.backward()
    grad = layer.weight.grad.clone()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        module_html(layer)
    assert torch.equal(layer.weight.grad, grad)
    assert layer.weight.grad_fn is None


# ---------------------------------------------------------------------------------------
# Optimizers
# ---------------------------------------------------------------------------------------


def test_optimizer_groups_hyperparameters_and_state():
    model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    opt = torch.optim.Adam([{"params": model[0].parameters()},
                            {"params": model[1].parameters(), "lr": 0.5}], lr=0.01)
    page = optimizer_html(opt, "opt", {"model": model})
    table = rows(page)
    assert table["lr"] == ["0.01", "0.5"]
    assert table["betas"] == ["(0.9, 0.999)", "(0.9, 0.999)"]
    assert table["params"][0] == "2 tensors:\nmodel.0.weight\nmodel.0.bias"
    assert table["params"][1] == "2 tensors:\nmodel.1.weight\nmodel.1.bias"
    assert table["state"][0].startswith("empty")
    assert len(opt.state) == 0  # reading state (a defaultdict) must not add entries
    assert structure(page) == repr(opt)

    model(torch.ones(1, 2)).sum().backward()
    opt.step()
    state = rows(optimizer_html(opt))["state"]
    # Adam keeps exp_avg and exp_avg_sq (one number per parameter number) and step (one)
    assert state[0] == "exp_avg, exp_avg_sq, step\nfor 2 of 2 tensors, 20 numbers"  # 2*9 + 2
    assert state[1] == "exp_avg, exp_avg_sq, step\nfor 2 of 2 tensors, 10 numbers"  # 2*4 + 2


def test_optimizer_parameters_no_model_holds_are_described_by_shape():
    w = torch.zeros(2, 3, requires_grad=True)
    page = optimizer_html(torch.optim.SGD([w], lr=0.1), "sgd", {})
    assert rows(page)["params"] == ["1 tensor:\n[2×3] tensor"]


# ---------------------------------------------------------------------------------------
# In IPython: registered with the tensor table, switched off with it
# ---------------------------------------------------------------------------------------


@pytest.fixture
def ip():
    shell_module = pytest.importorskip("IPython.core.interactiveshell")
    shell = shell_module.InteractiveShell.instance()
    yield shell
    if "teachgrad" in shell.extension_manager.loaded:
        shell.run_line_magic("unload_ext", "teachgrad")


def formats(ip, obj) -> dict:
    return ip.display_formatter.format(obj)[0]


def test_extension_shows_modules_and_optimizers_and_plain_turns_them_off(ip):
    ip.run_cell("%load_ext teachgrad").raise_error()
    ip.run_cell("import teachgrad as torch\nmodel = torch.nn.Sequential(torch.nn.Linear(2, 1))\n"
                "opt = torch.optim.SGD(model.parameters(), lr=0.1)").raise_error()
    model, opt = ip.user_ns["model"], ip.user_ns["opt"]
    data = formats(ip, model)
    assert data["text/plain"] == repr(model)  # PyTorch's text stays as it is
    assert "<b>model</b>: 2 parameters" in data["text/html"]
    assert "model.0.weight" in formats(ip, opt)["text/html"]
    assert formats(ip, opt)["text/plain"] == repr(opt)

    ip.run_line_magic("teachgrad", "plain")
    assert set(formats(ip, model)) == {"text/plain"}
    assert set(formats(ip, opt)) == {"text/plain"}
    assert set(formats(ip, torch.ones(1))) == {"text/plain"}
    ip.run_line_magic("teachgrad", "table")
    assert "text/html" in formats(ip, model)

    ip.run_line_magic("unload_ext", "teachgrad")
    assert set(formats(ip, model)) == {"text/plain"}
    assert set(formats(ip, opt)) == {"text/plain"}


def test_torch_prints_the_same_structure():
    real = pytest.importorskip("torch")
    ours = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    theirs = real.nn.Sequential(real.nn.Linear(2, 3), real.nn.ReLU(), real.nn.Linear(3, 1))
    assert structure(module_html(ours)) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
