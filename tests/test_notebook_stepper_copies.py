"""A stepper displayed twice gets ids of its own each time (FramesView.copy_html).

The CSS-only stepper finds its radio buttons by id: with one stepper shown in two cells
of an exported page, both copies carried the same ids, and the second copy's ◀ ▶ stepped
the first. The browser side of this is tests/browser/test_static_export_twice.py.
"""

import re

import teachgrad as torch
from teachgrad.notebook import step_backward, step_forward


def ids(page: str) -> set[str]:
    # every id, Graphviz's own (graph0) too: those carry the stepper's prefix now
    return set(re.findall(r'\bid="([^"]+)"', page))


def references(page: str) -> set[str]:
    """Every teachgrad id the page points to: label for=, and #tg... in its CSS."""
    found = set(re.findall(r'\bfor="([^"]+)"', page))
    for style in re.findall(r"<style>(.*?)</style>", page, flags=re.S):
        found |= set(re.findall(r"#(tg[a-z]\d+k[0-9a-f]{6}[\w-]*)", style))
    return found


def owner(identifier: str) -> str:
    """The stepper copy an id belongs to: ``tgs0-2_f1`` -> ``tgs0-2``."""
    return identifier.split("_", 1)[0]


def make_stepper():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    out = (x * x).sum()
    return step_backward(out, names={"x": x, "out": out})


def test_each_display_has_its_own_ids_and_points_only_at_them():
    stepper = make_stepper()
    pages = [stepper._repr_mimebundle_()["text/html"] for _ in range(3)]
    own = [ids(p) for p in pages]
    assert own[0] & own[1] == set() and own[1] & own[2] == set() and own[0] & own[2] == set()
    copies = [stepper.prefix, f"{stepper.prefix}-2", f"{stepper.prefix}-3"]
    for page, copy in zip(pages, copies):
        pointed = references(page)
        assert {f"{copy}_f0", f"{copy}_f1"} <= pointed  # its labels check its radios
        assert {owner(i) for i in pointed} == {copy}  # and nothing of another copy
        assert {f"{copy}_f0", f"{copy}_f1"} <= ids(page)
    # the first display is as before (saved notebooks keep comparing equal)
    assert pages[0] == stepper.static_html()
    assert f'id="{stepper.prefix}-2"' in pages[1] and f'id="{stepper.prefix}-3"' in pages[2]


def test_copies_differ_only_in_their_ids():
    stepper = make_stepper()
    first, second = (stepper._repr_mimebundle_()["text/html"] for _ in range(2))
    assert second.replace(f"{stepper.prefix}-2", stepper.prefix) == first


def test_the_live_view_hides_every_static_copy():
    stepper = make_stepper()
    try:
        from teachgrad.notebook.live import LiveView
    except ImportError:  # no ipywidgets
        return
    graph = LiveView(stepper)._graph_html()
    # "tgs1-" so that the copies of tgs12 (tgs12-2) are not taken for tgs1's
    assert f':is(#{stepper.prefix},[id^="{stepper.prefix}-"]).tg-static{{display:none}}' in graph


def test_forward_replay_copies_too():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * 3
    replay = step_forward(y, names={"x": x, "y": y})
    first, second = (replay._repr_mimebundle_()["text/html"] for _ in range(2))
    assert ids(first) & ids(second) == set()
