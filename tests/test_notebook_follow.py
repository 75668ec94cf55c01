"""The anchors that let a tall graph's box follow the running node (notebook/follow.py)."""

from __future__ import annotations

import re

import pytest

from teachgrad.notebook.follow import FOLLOW_VARS, anchors_html, node_centres

# A graphviz-shaped SVG, 200 x 400 points, origin moved to (0, 400) as dot writes it:
# box "a" spans x 20..60 and y -380..-340, so its centre is 40 points from the left and
# 400 - 360 = 40 from the top.
SVG = """<svg width="200pt" height="400pt" viewBox="0.00 0.00 200.00 400.00">
<g id="graph0" class="graph" transform="scale(1 1) rotate(0) translate(0 400)">
<g id="p_a" class="node tg-op"><title>a</title>
<path d="M20,-380C20,-380 60,-380 60,-380 60,-340 20,-340 20,-340"/><text y="-360">a</text></g>
<g id="p_b" class="node tg-leaf"><title>b</title>
<polygon points="100,-40 180,-40 180,-20 100,-20 100,-40"/></g>
<g id="p_e0_0" class="edge"><path d="M40,-340C40,-300 140,-80 140,-40"/></g>
</g></svg>"""


def test_each_box_centre_in_percent_of_the_picture():
    # a: x (20+60)/2 = 40 -> 20 %; y (-380-340)/2 + 400 = 40 -> 10 %.
    # b: x (100+180)/2 = 140 -> 70 %; y (-40-20)/2 + 400 = 370 -> 92.5 %.
    assert node_centres(SVG) == {"p_a": pytest.approx((20.0, 10.0)),
                                 "p_b": pytest.approx((70.0, 92.5))}


def test_one_anchor_per_box_and_none_for_arrows():
    anchors = anchors_html(SVG)
    assert re.findall(r'id="([^"]+)"', anchors) == ["p_a_at", "p_b_at"]
    assert 'style="left:70.00%;top:92.50%"' in anchors


def test_an_svg_that_cannot_be_read_gets_no_anchors():
    assert anchors_html("<svg></svg>") == ""


def test_the_running_nodes_anchor_is_the_one_to_follow_in_both_views():
    pytest.importorskip("graphviz")
    import teachgrad as torch
    from teachgrad.notebook import step_backward

    x = torch.tensor([0.5], requires_grad=True)
    h = (x * 1.1).tanh()
    out = h.sum()
    stepper = step_backward(out, names={"x": x, "out": out})
    try:
        stepper.svg()
    except Exception as error:  # no dot: nothing laid out to follow
        pytest.skip(f"graphviz cannot lay out: {error}")
    prefix, static = stepper.prefix, stepper.static_html()
    follow_static = re.search(r":is\(([^)]*)\)\{" + re.escape(FOLLOW_VARS), static).group(1)
    for frame in range(1, stepper.n_frames):
        box = stepper.model.box_of[stepper.steps[frame - 1].node]
        # live: the frame's CSS names the running node's anchor
        follow = re.search(r":is\(([^)]*)\)\{" + re.escape(FOLLOW_VARS), stepper.frame_css(frame))
        assert follow.group(1).split(",")[0] == f"#{prefix}_{box}_at"
        # static: the anchor exists, and a rule picks it while that frame's radio is checked
        assert f'id="{prefix}_{box}_at"' in static
        assert f"#{prefix}_f{frame}:checked~" in follow_static
        assert f".tg-stage #{prefix}_{box}_at" in follow_static
