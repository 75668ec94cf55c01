"""teachgrad.notebook.plot: deterministic, escaped, theme-aware SVG line and scatter plots."""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import teachgrad as torch
from teachgrad.notebook import plot
from teachgrad.notebook.plot import Figure, line_plot, nice_ticks, scatter_plot

SVG = "{http://www.w3.org/2000/svg}"


def parse(fig: Figure) -> ET.Element:
    """The figure's SVG as XML (fails if it is not well-formed)."""
    return ET.fromstring(fig.svg)


def texts(fig: Figure) -> list[str]:
    return [t.text for t in parse(fig).iter(f"{SVG}text")]


def polyline_points(fig: Figure) -> list[list[tuple[float, float]]]:
    return [
        [tuple(map(float, p.split(","))) for p in line.get("points").split()]
        for line in parse(fig).iter(f"{SVG}polyline")
    ]


# --- ticks -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("lo", "hi", "expected"),
    [
        (0, 1, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        (0, 10, [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]),
        (-1.3, 2.1, [-1.0, 0.0, 1.0, 2.0]),
        (0.1, 0.35, [0.1, 0.15, 0.2, 0.25, 0.3, 0.35]),
        (0, 199, [0.0, 50.0, 100.0, 150.0]),
    ],
)
def test_nice_ticks_are_round_and_inside(lo, hi, expected):
    assert nice_ticks(lo, hi) == expected


def test_nice_ticks_of_an_empty_range_is_one_value():
    assert nice_ticks(3.0, 3.0) == [3.0]


# --- line plot ---------------------------------------------------------------------------
def test_line_plot_is_valid_svg_with_title_labels_and_one_polyline():
    fig = line_plot([3.0, 2.0, 1.5, 1.0], title="loss", xlabel="step", ylabel="MSE")
    root = parse(fig)
    assert root.tag == f"{SVG}svg"
    assert {"loss", "step", "MSE"} <= set(texts(fig))
    lines = polyline_points(fig)
    assert len(lines) == 1 and len(lines[0]) == 4


def test_line_plot_maps_values_monotonically_to_pixels():
    # Higher values are drawn higher up (smaller y pixel); x increases to the right.
    (points,) = polyline_points(line_plot([1.0, 2.0, 4.0, 3.0]))
    xs, ys = zip(*points)
    assert list(xs) == sorted(xs)
    assert ys[0] > ys[1] > ys[2] and ys[3] > ys[2]
    # Linear: equal steps in value are equal steps in pixels (1→2 and 3→4).
    assert abs((ys[0] - ys[1]) - (ys[3] - ys[2])) < 0.2
    # Inside the plotting area, with a margin: no line runs along the frame.
    bottom, top = plot.HEIGHT - plot.MARGIN_BOTTOM, plot.MARGIN_TOP
    assert bottom - 20 < max(ys) < bottom and top < min(ys) < top + 20


def test_line_plot_is_deterministic():
    values = np.linspace(2.0, 0.1, 50) ** 2
    assert line_plot(values, title="t").svg == line_plot(values, title="t").svg


def test_line_plot_accepts_tensors_and_named_series_with_a_legend():
    fig = line_plot({"train": torch.tensor([1.0, 0.5]), "test": [1.2, 0.9]})
    assert len(polyline_points(fig)) == 2
    assert {"train", "test"} <= set(texts(fig))


def test_the_legend_sits_above_the_data():
    fig = line_plot({"a": [0.0, 1.0], "b": [1.0, 0.0]})
    legend_y = [float(t.get("y")) for t in parse(fig).iter(f"{SVG}text") if t.text in "ab"]
    data_top = min(y for line in polyline_points(fig) for _, y in line)
    assert legend_y and max(legend_y) < data_top


def test_a_legend_too_wide_for_one_row_wraps_and_stays_in_the_picture():
    # Five long names in one row flush right started left of the picture's edge: the
    # first name was cut off. They wrap into rows, each inside the picture, above the data.
    names = ["sigmoid, default init", "tanh, std 0.5", "tanh, Xavier", "ReLU, Kaiming",
             "ReLU, default init"]
    fig = line_plot({name: [1.0 + k, 2.0 + k] for k, name in enumerate(names)})
    legend = [t for t in parse(fig).iter(f"{SVG}text") if t.text in names]
    assert [t.text for t in legend] == names
    for t in legend:  # each text starts inside and ends (at ~7 px a character) inside
        x = float(t.get("x"))
        assert x >= 0 and x + 7 * len(t.text) <= plot.WIDTH, (t.text, x)
    rows = sorted({float(t.get("y")) for t in legend})
    assert len(rows) == 2
    title_y = 18
    data_top = min(y for line in polyline_points(fig) for _, y in line)
    assert title_y < rows[0] < rows[1] < data_top


def test_a_log_axis_over_twenty_decades_labels_at_most_eight_powers_of_ten():
    fig = line_plot([1e-15, 1e-10, 1e-5, 1.0, 1e4], log_y=True)
    # the y axis's labels: the texts right-aligned against the axis
    values = sorted(float(t.text) for t in parse(fig).iter(f"{SVG}text")
                    if t.get("text-anchor") == "end")
    exponents = [round(np.log10(v)) for v in values]
    assert all(np.isclose(v, 10.0 ** k) for v, k in zip(values, exponents))
    assert 4 <= len(exponents) <= 8, exponents
    assert len(set(np.diff(exponents))) == 1, exponents   # evenly spaced
    assert exponents[0] <= -14 and exponents[-1] >= 3     # spanning the data


def y_labels(fig: Figure) -> list[float]:
    """The y axis's tick labels, bottom to top: the texts right-aligned against the axis."""
    labels = [t for t in parse(fig).iter(f"{SVG}text") if t.get("text-anchor") == "end"]
    return [float(t.text) for t in sorted(labels, key=lambda t: -float(t.get("y")))]


def test_a_loss_over_two_decades_gets_log_ticks_at_1_2_5_steps():
    # lesson 11: losses from about 0.7 down to 0.005, as Adam's curve falls
    assert plot._log_ticks(0.005, 0.7) == [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5]
    assert plot._log_ticks(0.15, 3.0) == [0.2, 0.5, 1.0, 2.0]
    assert plot._log_ticks(3e-5, 2e-3) == [5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3]


def test_a_log_axis_with_more_1_2_5_steps_than_fit_labels_powers_of_ten():
    # four decades: 1-2-5 would be 13 labels; the powers of ten are 5
    assert plot._log_ticks(1e-4, 1.0) == [1e-4, 1e-3, 1e-2, 0.1, 1.0]


def test_a_log_axis_too_narrow_for_two_1_2_5_steps_still_has_labels():
    ticks = plot._log_ticks(0.3, 0.45)
    assert len(ticks) >= 2 and ticks == sorted(ticks)
    assert all(0.3 <= t <= 0.45 for t in ticks)


@pytest.mark.parametrize("lo, hi", [(1e-3, 0.9), (0.004, 0.04), (2.0, 7000.0), (1e-9, 1e-7),
                                    (0.9, 1.1), (1e-300, 1e300)])
def test_log_ticks_are_in_range_increasing_and_few(lo, hi):
    ticks = plot._log_ticks(lo, hi)
    assert 2 <= len(ticks) <= plot.MAX_LOG_TICKS
    assert all(lo <= t <= hi for t in ticks)
    assert all(a < b for a, b in zip(ticks, ticks[1:]))


def test_a_log_plot_labels_its_axis_at_1_2_5_steps():
    losses = [0.7 * 0.96**k for k in range(120)]  # 0.7 down to 0.0053
    fig = line_plot(losses, log_y=True)
    labels = y_labels(fig)
    assert [v for v in labels if 0.01 <= v <= 0.5] == [0.01, 0.02, 0.05, 0.1, 0.2, 0.5]
    assert labels == sorted(labels)  # drawn bottom to top in increasing order


def test_line_plot_breaks_the_line_at_nan():
    fig = line_plot([1.0, 2.0, float("nan"), 3.0, 4.0])
    assert [len(run) for run in polyline_points(fig)] == [2, 2]


def test_log_scale_puts_powers_of_ten_evenly():
    fig = line_plot([1.0, 0.1, 0.01, 0.001], log_y=True)
    (points,) = polyline_points(fig)
    gaps = np.diff([y for _, y in points])
    assert np.allclose(gaps, gaps[0], atol=0.11)  # equal steps for equal ratios
    assert {"1", "0.1", "0.01", "0.001"} <= set(texts(fig))


def test_log_scale_refuses_non_positive_values():
    with pytest.raises(ValueError, match="positive"):
        line_plot([1.0, 0.0], log_y=True)


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="at least one value"):
        line_plot([])
    with pytest.raises(ValueError, match="x has 3 values"):
        line_plot([1.0, 2.0], x=[0, 1, 2])
    with pytest.raises(ValueError, match="single number"):
        line_plot(3.0)


def test_text_is_escaped():
    evil = '<script>alert("x")</script> & co'
    fig = line_plot([1.0, 2.0], title=evil, xlabel=evil, ylabel=evil)
    assert "<script>" not in fig.svg
    assert texts(fig).count(evil) == 3  # the XML parser unescapes it back: drawn as text


def test_colours_for_light_and_dark_viewers():
    fig = line_plot([1.0, 2.0], title="t")
    assert "@media (prefers-color-scheme:dark)" in fig.svg  # lighter text on dark pages
    # Without the stylesheet, attributes still give every text a colour.
    for text in parse(fig).iter(f"{SVG}text"):
        assert text.get("fill") == plot.TEXT


def test_no_random_ids_or_addresses():
    svg = scatter_plot([[0, 0], [1, 1]], [0, 1], regions=lambda p: p[:, 0] > 0.5).svg
    assert " id=" not in svg
    assert not re.search(r"0x[0-9a-f]{6,}", svg)


def test_figure_displays_in_jupyter_as_an_img_that_survives_sanitising():
    # JupyterLab sanitises the HTML of untrusted outputs: <svg> and <style> are removed,
    # <img> with a data: URI is kept. So the HTML is one <img>, holding the very SVG.
    fig = line_plot([1.0, 2.0], title='loss <"x">')
    page = fig._repr_html_()
    match = re.fullmatch(r'<div class="tg-plotbox" style="overflow-x:auto">'
                         r'<img class="tg-plot" src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)" '
                         r'alt="([^"]*)" style="([^"<>]*)"/></div>', page)
    assert match, page[:200]
    assert base64.b64decode(match.group(1)).decode("utf-8") == fig.svg
    assert match.group(2) == "loss &lt;&quot;x&quot;&gt;"
    # shrinks with a narrow cell, but not below 80 % (448 of 560 px): then its box scrolls
    assert match.group(3) == "max-width:100%;min-width:448px;height:auto"
    assert "<svg" not in page and "<style" not in page
    assert repr(fig) == "<teachgrad plot: loss <\"x\">>"


def test_save_writes_the_svg(tmp_path):
    fig = line_plot([1.0, 2.0])
    fig.save(tmp_path / "p.svg")
    assert (tmp_path / "p.svg").read_text(encoding="utf-8") == fig.svg


# --- scatter plot ------------------------------------------------------------------------
def dots(fig: Figure):
    return [c for c in parse(fig).iter(f"{SVG}circle") if c.get("r") == "3.2"]


def test_scatter_draws_one_dot_per_point_coloured_by_class():
    X = torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    y = torch.tensor([0, 1, 1])
    fig = scatter_plot(X, y, class_names=["red", "blue"])
    colours = [d.get("fill") for d in dots(fig)]
    assert colours == [plot.PALETTE[0], plot.PALETTE[1], plot.PALETTE[1]]
    assert {"red", "blue"} <= set(texts(fig))


def test_regions_shade_the_side_each_class_is_predicted_on():
    # A vertical boundary at x = 0.5: left cells are class 0, right cells class 1.
    fig = scatter_plot([[0, 0], [1, 1]], [0, 1], regions=lambda p: (p[:, 0] > 0.5).astype(int),
                       resolution=20)
    rects = [r for r in parse(fig).iter(f"{SVG}rect") if r.get("fill-opacity")]
    assert rects
    boundary_px = float(plot._Frame(plot.WIDTH, plot.HEIGHT, plot._padded(0, 1),
                                    plot._padded(0, 1)).px(0.5))
    for r in rects:
        left = float(r.get("x"))
        right = left + float(r.get("width"))
        if r.get("fill") == plot.PALETTE[0]:
            assert right <= boundary_px + 25  # within one grid cell of the true boundary
        else:
            assert left >= boundary_px - 25
    # Each row of the grid is one run per class: 2 rectangles per row, 20 rows.
    assert len(rects) == 40


def test_regions_get_float32_points_and_may_return_a_tensor():
    seen = {}

    def predict(points):
        seen["dtype"] = points.dtype
        return torch.tensor(points).sum(1).gt(1.0).long()

    scatter_plot([[0, 0], [1, 1]], [0, 1], regions=predict, resolution=4)
    assert seen["dtype"] == np.float32


def test_scatter_needs_matching_labels():
    with pytest.raises(ValueError, match="as many class labels as points"):
        scatter_plot([[0, 0], [1, 1]], [0])


def test_scatter_is_deterministic():
    X, y = torch.datasets.make_moons(50, seed=1)
    one = scatter_plot(X, y, regions=lambda p: p[:, 1] > 0.25)
    two = scatter_plot(X, y, regions=lambda p: p[:, 1] > 0.25)
    assert one.svg == two.svg
