"""Ids stay unique when outputs of several kernels, or several pictures, share one page.

A book or an exported page can hold the outputs of many notebooks, each run by a kernel of
its own. The id prefixes were a counter that starts at 0 in every kernel, so two lessons'
first steppers were both ``tgs0``, and clicking ▶ in one checked the other's radio
button. Each prefix now ends with a mark drawn once per kernel (``tgs0k3fa9c1``), which
tests/nbval_sanitize.cfg removes when stored outputs are compared.

Graphviz, too, names the groups it makes up (``graph0``, ``node1``, ``edge1``) the same
in every picture: those get the picture's prefix (``layout.own_ids``).

The browser side: tests/browser/test_static_export_two_kernels.py.
"""

from __future__ import annotations

import configparser
import pathlib
import re
import subprocess
import sys

import pytest

import teachgrad as torch
from teachgrad.notebook import draw, step_backward
from teachgrad.notebook.follow import node_centres
from teachgrad.notebook.graph import KERNEL_MARK, new_prefix
from teachgrad.notebook.layout import LayoutUnavailable, layout_svg, own_ids, tidy_svg

ROOT = pathlib.Path(__file__).resolve().parent.parent
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
PREFIX = re.compile(r"tg[a-z]+\d+k[0-9a-f]{6}")

# What one kernel shows for a lesson's first stepper (run in a fresh interpreter each time).
KERNEL_CELL = """
import teachgrad as torch
from teachgrad.notebook import step_backward
x = torch.tensor([1.0, 2.0], requires_grad=True)
out = (x * 3).sum()
print(step_backward(out, names={"x": x, "out": out}).static_html())
"""


def _has_layout() -> bool:
    try:
        layout_svg("digraph { a -> b }")
    except LayoutUnavailable:
        return False
    return True


needs_graphviz = pytest.mark.skipif(not _has_layout(), reason="needs Graphviz")


def ids(page: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', page))


def kernel_output() -> str:
    """The stepper's HTML as a new kernel (a new process) draws it."""
    done = subprocess.run([sys.executable, "-c", KERNEL_CELL], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, check=True)
    return done.stdout


def sanitized(text: str) -> str:
    """``text`` after every rule of tests/nbval_sanitize.cfg, as nbval applies them."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(SANITIZE, encoding="utf-8")
    for section in config.sections():
        text = re.sub(config[section]["regex"], config[section]["replace"], text)
    return text


@pytest.fixture(scope="module")
def two_kernels() -> tuple[str, str]:
    return kernel_output(), kernel_output()


def test_a_prefix_is_a_counter_then_this_kernels_mark():
    first, second = new_prefix("s"), new_prefix("s")
    assert re.fullmatch(r"k[0-9a-f]{6}", KERNEL_MARK)
    assert first != second
    for prefix in (first, second):
        assert PREFIX.fullmatch(prefix) and prefix.endswith(KERNEL_MARK)


@needs_graphviz
def test_two_kernels_first_steppers_share_no_id(two_kernels):
    one, other = two_kernels
    assert ids(one) and ids(other)
    assert ids(one) & ids(other) == set()
    # and every id of the stepper is its own: its prefix, then what it names
    stepper_id = re.search(r'class="tg-stepper tg-static" id="([^"]+)"', one).group(1)
    assert PREFIX.fullmatch(stepper_id)
    assert all(i == stepper_id or i.startswith(stepper_id + "_") for i in ids(one))


@needs_graphviz
def test_the_sanitize_rule_makes_two_kernels_outputs_compare_equal(two_kernels):
    one, other = two_kernels
    assert one != other
    assert sanitized(one) == sanitized(other)


def test_the_sanitize_rule_keeps_the_counter_and_what_follows():
    page = '<div id="tgs12k0a1b2c"><label for="tgs12k0a1b2c-2_f3"></label> #tgg3kffffff_n1'
    assert sanitized(page) == '<div id="tgs12"><label for="tgs12-2_f3"></label> #tgg3_n1'
    # ...and leaves alone what only looks a little like an id
    assert sanitized("tgs1k12345 tgs1kabcdefg") == "tgs1k12345 tgs1kabcdefg"


@needs_graphviz
def test_two_pictures_in_one_kernel_share_no_id():
    x = torch.tensor(2.0, requires_grad=True)
    first, second = draw(x * x, names={"x": x}).svg(), draw(x + 1, names={"x": x}).svg()
    assert ids(first) & ids(second) == set()
    # Graphviz's top group has the picture's prefix too, not a bare graph0
    assert not any(re.fullmatch(r"(?:graph|node|edge|clust)\d+", i) for i in ids(first))


@needs_graphviz
def test_graphviz_made_up_ids_get_the_pictures_prefix():
    # nodes and arrows without an id of ours: Graphviz names them node1, edge1
    svg = tidy_svg(layout_svg("digraph { a -> b }"), prefix="tgg7kabcdef")
    found = ids(svg)
    assert {"tgg7kabcdef_graph0", "tgg7kabcdef_node1", "tgg7kabcdef_node2",
            "tgg7kabcdef_edge1"} <= found
    assert all(i.startswith("tgg7kabcdef_") for i in found)


def test_own_ids_leaves_our_ids_and_other_text_alone():
    svg = ('<g id="graph0" class="graph"><g id="tgs1kabcdef_n0" class="node">'
           '<text>node1 edge2</text></g><g id="a_node4"></g></g>')
    assert own_ids(svg, "P") == (
        '<g id="P_graph0" class="graph"><g id="tgs1kabcdef_n0" class="node">'
        '<text>node1 edge2</text></g><g id="P_a_node4"></g></g>')


@needs_graphviz
def test_the_stepper_finds_its_boxes_by_class_once_graphviz_ids_are_prefixed():
    x = torch.tensor([0.5], requires_grad=True)
    out = (x * 1.1).tanh().sum()
    stepper = step_backward(out, names={"x": x, "out": out})
    svg = stepper.svg()
    assert f'id="{stepper.prefix}_graph0"' in svg and 'id="graph0"' not in svg
    centres = node_centres(svg)
    assert set(centres) == {f"{stepper.prefix}_{box.id}" for box in stepper.model.boxes}
    for x_percent, y_percent in centres.values():
        assert 0 < x_percent < 100 and 0 < y_percent < 100
