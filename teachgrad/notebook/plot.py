"""Tiny SVG plots for the lessons: a loss curve and a 2-D scatter with decision regions.

No plotting library needed (NumPy only), and the same numbers always give the same SVG
(no random ids, every coordinate rounded), so notebooks that store these plots compare
cleanly under ``pytest --nbval``::

    from teachgrad.notebook.plot import line_plot, scatter_plot

    line_plot(losses, title="training loss", xlabel="step", ylabel="loss")
    scatter_plot(X, y, regions=predict, title="decision boundary")

Both return a :class:`Figure`, which Jupyter shows as a picture. All text is escaped.

Why the picture is an ``<img>`` and not SVG inlined in the page: a notebook opened fresh
(not yet run, so "untrusted") has its HTML outputs sanitised by JupyterLab, which removes
``<svg>`` and ``<style>`` elements and would leave the labels as a jumble of text; an
``<img>`` with a ``data:`` URI survives. The price is that the page's theme variables cannot
reach inside the picture, so the colours are mid tones that read on light and dark
backgrounds alike, and the SVG's own stylesheet switches to lighter text when the viewer
prefers a dark colour scheme.
"""

from __future__ import annotations

import base64
import html
import math
import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np

__all__ = ["Figure", "line_plot", "scatter_plot", "nice_ticks"]

WIDTH, HEIGHT = 560, 320
# In a narrow cell the picture shrinks to the cell's width, its text with it, but never
# below this fraction of its size (its 12 px text stays above 9.5 px); narrower than
# that, it scrolls sideways in its box. (At 800 pixels it shrank to 66 %: 8 px labels.)
MIN_SCALE = 0.8
# Room around the plotting area for the title, tick labels and axis labels (pixels).
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 62, 18, 30, 46
LEGEND_ROW, LEGEND_GAP, CHAR_WIDTH = 20, 14, 7

# One colour per series / class, distinguishable for most colour-blind readers and on
# light and dark backgrounds (blue, orange, green, purple, red, teal).
PALETTE = ("#3b82d6", "#e8710a", "#2e9e44", "#9b59b6", "#d93025", "#12a4af")
TEXT = "#707070"  # mid grey: readable on white and on a dark page
GRID = "#8c8c8c"

# The SVG's own stylesheet (it travels with the picture). Every element also carries
# plain colour attributes, so the picture still reads where this is ignored.
STYLE = (
    "<style>"
    "text{font-family:Helvetica,Arial,sans-serif;font-size:12px}"
    ".tg-title{font-size:13px;font-weight:bold}"
    "@media (prefers-color-scheme:dark){text{fill:#b4b4b4}.tg-axis{stroke:#9a9a9a}}"
    "</style>"
)


class Figure:
    """An SVG picture. Jupyter displays it; ``.svg`` is the text, ``.save(path)`` writes it."""

    def __init__(self, svg: str, title: str = "") -> None:
        self.svg = svg
        self.title = title

    def _repr_html_(self) -> str:
        """The picture as an ``<img>`` with the SVG in a ``data:`` URI (see the module
        docstring for why), scaled down to the cell's width when the cell is narrower, but
        not below ``MIN_SCALE`` of its size: below that its box scrolls sideways.
        (Inline styles only: JupyterLab's sanitiser keeps these properties.)"""
        data = base64.b64encode(self.svg.encode("utf-8")).decode("ascii")
        alt = html.escape(self.title or "plot", quote=True)
        smallest = round(self.width() * MIN_SCALE) if self.width() else 0
        return (
            '<div class="tg-plotbox" style="overflow-x:auto">'
            f'<img class="tg-plot" src="data:image/svg+xml;base64,{data}" alt="{alt}" '
            f'style="max-width:100%;min-width:{smallest}px;height:auto"/></div>'
        )

    def width(self) -> int:
        """The picture's width in pixels (its ``<svg width=...>``), 0 if it has none."""
        found = re.search(r'<svg\b[^>]*\bwidth="(\d+)"', self.svg)
        return int(found.group(1)) if found else 0

    def save(self, path) -> None:
        """Write the SVG to a file (open it in any browser)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.svg)

    def __repr__(self) -> str:
        return f"<teachgrad plot{': ' + self.title if self.title else ''}>"


# ---------------------------------------------------------------------------------------
# Public plots
# ---------------------------------------------------------------------------------------
def line_plot(
    y: Sequence[float] | Mapping[str, Sequence[float]],
    x: Sequence[float] | None = None,
    *,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    log_y: bool = False,
    width: int = WIDTH,
    height: int = HEIGHT,
) -> Figure:
    """A line plot of one series, or of several given as ``{"name": values}``.

    ``x`` defaults to 0, 1, 2, ... (e.g. the training step). ``log_y=True`` puts the y axis
    on a log scale (good for losses that fall by orders of magnitude).

    >>> fig = line_plot([1.0, 0.5, 0.25], title="loss", xlabel="step")
    >>> fig.svg.startswith("<svg")
    True
    """
    series = dict(y) if isinstance(y, Mapping) else {"": y}
    values = {name: _floats(v, f"y[{name!r}]" if name else "y") for name, v in series.items()}
    lengths = {len(v) for v in values.values()}
    if not values or 0 in lengths:
        raise ValueError("line_plot needs at least one value to draw")
    n = max(lengths)
    xs = np.arange(n, dtype=float) if x is None else _floats(x, "x")
    if x is not None and any(len(v) != len(xs) for v in values.values()):
        raise ValueError(f"x has {len(xs)} values but a series has {sorted(lengths)}")
    all_y = np.concatenate(list(values.values()))
    if log_y and not np.all(all_y[np.isfinite(all_y)] > 0):
        raise ValueError("log_y=True needs every y value to be positive")
    y_range = _finite_range(all_y)
    if not log_y:  # a little room above and below, so lines do not run along the frame
        y_range = _padded(*y_range, fraction=0.05)
    names = [name for name in values if name]
    frame = _Frame(width, height, (xs.min(), xs.max()), y_range, log_y, legend=names)
    parts = frame.axes(title, xlabel, ylabel)
    for k, ys in enumerate(values.values()):
        colour = PALETTE[k % len(PALETTE)]
        for run in _finite_runs(xs[: len(ys)], ys):
            points = " ".join(f"{frame.px(a)},{frame.py(b)}" for a, b in run)
            parts.append(
                f'<polyline points="{points}" fill="none" stroke="{colour}" '
                'stroke-width="2" stroke-linejoin="round"/>'
            )
    parts += frame.legend([(name, PALETTE[k % len(PALETTE)], "line") for k, name in
                           enumerate(names)])
    return Figure(frame.svg(parts, title), title)


def scatter_plot(
    points,
    classes,
    *,
    regions: Callable[[np.ndarray], object] | None = None,
    resolution: int = 60,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    class_names: Sequence[str] | None = None,
    width: int = WIDTH,
    height: int = HEIGHT,
) -> Figure:
    """Points in 2-D coloured by class, optionally over the regions a classifier predicts.

    Args:
        points: ``(N, 2)`` coordinates (a tensor or an array).
        classes: ``N`` integer class labels.
        regions: a function from an ``(M, 2)`` float32 NumPy array of grid points to their
            predicted classes (``M`` integers, a tensor or an array). Each cell of a
            ``resolution x resolution`` grid is shaded with its predicted class: the edge
            between the shades is the decision boundary.
        class_names: legend names for the classes (default ``class 0``, ``class 1``...).

    >>> fig = scatter_plot([[0, 0], [1, 1]], [0, 1], regions=lambda p: p[:, 0] > 0.5)
    >>> fig.svg.count('r="3.2"')   # one dot per point (the legend's dots are bigger)
    2
    """
    xy = _floats(points, "points").reshape(-1, 2)
    labels = np.asarray(_numpy(classes)).astype(int).reshape(-1)
    if len(xy) == 0 or len(xy) != len(labels):
        raise ValueError(
            f"scatter_plot needs as many class labels as points: got "
            f"{len(xy)} points and {len(labels)} labels"
        )
    x_range = _padded(xy[:, 0].min(), xy[:, 0].max())
    y_range = _padded(xy[:, 1].min(), xy[:, 1].max())
    present = sorted(set(labels.tolist()))
    names = list(class_names) if class_names is not None else [f"class {c}" for c in present]
    names = [names[i] if i < len(names) else f"class {c}" for i, c in enumerate(present)]
    frame = _Frame(width, height, x_range, y_range, legend=names)
    parts = []
    if regions is not None:
        parts += _region_rects(frame, regions, resolution)
    parts += frame.axes(title, xlabel, ylabel, grid=regions is None)
    for (a, b), label in zip(xy, labels):
        colour = PALETTE[label % len(PALETTE)]
        parts.append(
            f'<circle cx="{frame.px(a)}" cy="{frame.py(b)}" r="3.2" fill="{colour}" '
            'stroke="#ffffff" stroke-width="0.6"/>'
        )
    entries = [(name, PALETTE[c % len(PALETTE)], "dot") for name, c in zip(names, present)]
    parts += frame.legend(entries)
    return Figure(frame.svg(parts, title), title)


# ---------------------------------------------------------------------------------------
# Axes and coordinates
# ---------------------------------------------------------------------------------------
def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values (steps of 1, 2 or 5 times a power of ten) in [lo, hi].

    >>> nice_ticks(0, 1)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    """
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / max(count, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    # Rounding to the step's decimals avoids 0.30000000000000004 in the labels.
    decimals = max(0, -math.floor(math.log10(step)))
    return [round(k * step, decimals) + 0.0 for k in range(first, last + 1)]


# More tick labels than this on a log axis crowd into each other (20 decades: 20 labels
# 11 pixels apart); above it, every second, third ... power of ten is labelled.
MAX_LOG_TICKS = 8


def _log_ticks(lo: float, hi: float) -> list[float]:
    """Tick values for a log axis from ``lo`` to ``hi`` (both positive), in order.

    * 1-2-5 steps (0.01, 0.02, 0.05, 0.1 ...) when at most ``MAX_LOG_TICKS`` fit: a loss
      falling from 0.7 to 0.005 over two decades gets seven labels, not just 0.01 and 0.1;
    * over more decades, powers of ten: every k-th one, k the smallest that keeps them to
      ``MAX_LOG_TICKS``, at the exponents that are multiples of k;
    * a range too narrow for two 1-2-5 values (0.3 to 0.45): the round values of a
      linear axis (:func:`nice_ticks`), so the axis still has numbers on it.

    >>> _log_ticks(0.005, 0.7)
    [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5]
    >>> _log_ticks(1e-6, 1.0)
    [1e-06, 1e-05, 0.0001, 0.001, 0.01, 0.1, 1.0]
    """
    steps = _one_two_five(lo, hi)
    if 2 <= len(steps) <= MAX_LOG_TICKS:
        return steps
    if len(steps) < 2:
        return [t for t in nice_ticks(lo, hi) if t > 0]
    exponents = [k for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
                 if lo <= 10.0**k <= hi]
    every = 1
    while len([k for k in exponents if k % every == 0]) > MAX_LOG_TICKS:
        every += 1
    return [10.0**k for k in exponents if k % every == 0]


def _one_two_five(lo: float, hi: float) -> list[float]:
    """Every 1, 2 and 5 times a power of ten in [lo, hi], rounded (0.02, not
    0.020000000000000004, which would print as such in a label)."""
    values = []
    for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            value = round(m * 10.0**k, max(0, -k))
            if lo <= value <= hi:
                values.append(value)
    return values


def _label(value: float) -> str:
    """A short tick label: ``0.5``, ``20``, ``1e-05``."""
    return f"{value:.6g}"


class _Frame:
    """Maps data coordinates to pixels and draws the axes around the plotting area."""

    def __init__(self, width, height, x_range, y_range, log_y=False, legend=()):
        self.width, self.height, self.log_y = width, height, log_y
        self.left, self.right = MARGIN_LEFT, width - MARGIN_RIGHT
        # The legend (the names in ``legend``) gets its own rows above the plotting area, so
        # it never hides data: as many as it needs to fit the plot's width.
        self.legend_rows = _legend_rows(list(legend), self.right - self.left)
        self.top = MARGIN_TOP + LEGEND_ROW * len(self.legend_rows)
        self.bottom = height - MARGIN_BOTTOM
        self.x0, self.x1 = _widen(*x_range)
        if log_y:
            y0, y1 = y_range
            if y1 <= y0:
                y0, y1 = y0 / 2, y1 * 2
            self.y0, self.y1 = math.log10(y0), math.log10(y1)
        else:
            self.y0, self.y1 = _widen(*y_range)

    def px(self, x: float) -> str:
        t = (x - self.x0) / (self.x1 - self.x0)
        return _num(self.left + t * (self.right - self.left))

    def py(self, y: float) -> str:
        v = math.log10(y) if self.log_y else y
        t = (v - self.y0) / (self.y1 - self.y0)
        return _num(self.bottom - t * (self.bottom - self.top))

    def axes(self, title, xlabel, ylabel, grid=True) -> list[str]:
        parts = []
        x_ticks = nice_ticks(self.x0, self.x1)
        if self.log_y:
            y_ticks = _log_ticks(10.0**self.y0, 10.0**self.y1)
        else:
            y_ticks = nice_ticks(self.y0, self.y1)
        for t in x_ticks:
            x = self.px(t)
            if grid:
                parts.append(f'<line class="tg-grid" x1="{x}" y1="{self.top}" x2="{x}" '
                             f'y2="{self.bottom}" stroke="{GRID}" stroke-opacity="0.35"/>')
            parts.append(_text(x, self.bottom + 16, _label(t), "middle"))
        for t in y_ticks:
            y = self.py(t)
            if grid:
                parts.append(f'<line class="tg-grid" x1="{self.left}" y1="{y}" '
                             f'x2="{self.right}" y2="{y}" stroke="{GRID}" '
                             'stroke-opacity="0.35"/>')
            parts.append(_text(self.left - 6, _num(float(y) + 4), _label(t), "end"))
        parts.append(
            f'<rect class="tg-axis" x="{self.left}" y="{self.top}" '
            f'width="{self.right - self.left}" height="{self.bottom - self.top}" '
            f'fill="none" stroke="{GRID}"/>'
        )
        if title:
            parts.append(_text((self.left + self.right) / 2, 18, title, "middle", "tg-title"))
        if xlabel:
            parts.append(_text((self.left + self.right) / 2, self.height - 8, xlabel, "middle"))
        if ylabel:
            y = (self.top + self.bottom) / 2
            parts.append(
                f'<text x="14" y="{_num(y)}" text-anchor="middle" fill="{TEXT}" '
                f'transform="rotate(-90 14 {_num(y)})">{html.escape(ylabel)}</text>'
            )
        return parts

    def legend(self, entries: list[tuple[str, str, str]]) -> list[str]:
        """Legend entries ``(name, colour, "line"|"dot")`` in the rows above the plot that
        ``__init__`` laid out, each row flush right."""
        parts = []
        for r, row in enumerate(self.legend_rows):
            widths = [_legend_width(entries[i][0]) for i in row]
            x = self.right - sum(widths) - LEGEND_GAP * (len(row) - 1)
            y = MARGIN_TOP + LEGEND_ROW * (r + 1) - 10
            for i, width in zip(row, widths):
                name, colour, mark = entries[i]
                if mark == "line":
                    parts.append(f'<line x1="{x}" y1="{y}" x2="{x + 16}" y2="{y}" '
                                 f'stroke="{colour}" stroke-width="2"/>')
                else:
                    parts.append(f'<circle cx="{x + 8}" cy="{y}" r="3.5" fill="{colour}"/>')
                parts.append(_text(x + 21, y + 4, name))
                x += width + LEGEND_GAP
        return parts

    def svg(self, parts: list[str], title: str) -> str:
        label = f' aria-label="{html.escape(title)}"' if title else ""
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="tg-plot" width="{self.width}" '
            f'height="{self.height}" viewBox="0 0 {self.width} {self.height}" '
            f'role="img"{label}>{STYLE}' + "".join(parts) + "</svg>"
        )


def _legend_width(name: str) -> int:
    """An entry's width: its mark (16 px), a space, and the text, estimated at about 7 px
    per character at 12 px."""
    return 16 + 5 + CHAR_WIDTH * len(name)


def _legend_rows(names: list[str], room: float) -> list[list[int]]:
    """The legend entries' indices, in order, in rows no wider than ``room`` pixels.
    (All in one row, five long names started left of the picture: the first was cut off.)

    >>> _legend_rows(["a", "b"], 500)
    [[0, 1]]
    >>> _legend_rows(["x" * 30, "y" * 30, "z"], 500)
    [[0, 1], [2]]
    """
    rows: list[list[int]] = []
    used = 0.0
    for i, name in enumerate(names):
        width = _legend_width(name)
        if rows and used + LEGEND_GAP + width <= room:
            rows[-1].append(i)
            used += LEGEND_GAP + width
        else:
            rows.append([i])
            used = width
    return rows


def _region_rects(frame: _Frame, predict, resolution: int) -> list[str]:
    """Shade a grid of cells by predicted class; equal neighbours in a row share one rect."""
    n = max(2, int(resolution))
    xs = np.linspace(frame.x0, frame.x1, n + 1)
    ys = np.linspace(frame.y0, frame.y1, n + 1)
    centres_x = (xs[:-1] + xs[1:]) / 2
    centres_y = (ys[:-1] + ys[1:]) / 2
    grid = np.stack(np.meshgrid(centres_x, centres_y), axis=-1).reshape(-1, 2)
    predicted = np.asarray(_numpy(predict(grid.astype(np.float32)))).astype(int).reshape(n, n)
    parts = []
    for row in range(n):
        start = 0
        for col in range(1, n + 1):
            if col < n and predicted[row, col] == predicted[row, start]:
                continue
            colour = PALETTE[predicted[row, start] % len(PALETTE)]
            x_left, x_right = float(frame.px(xs[start])), float(frame.px(xs[col]))
            y_top, y_bottom = float(frame.py(ys[row + 1])), float(frame.py(ys[row]))
            parts.append(
                f'<rect x="{_num(x_left)}" y="{_num(y_top)}" width="{_num(x_right - x_left)}" '
                f'height="{_num(y_bottom - y_top)}" fill="{colour}" fill-opacity="0.16"/>'
            )
            start = col
    return parts


# ---------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------
def _numpy(values):
    """A tensor (detached) or anything array-like, as a NumPy array."""
    if hasattr(values, "detach") and hasattr(values, "numpy"):
        return values.detach().numpy()
    return np.asarray(values)


def _floats(values, what: str) -> np.ndarray:
    array = np.asarray(_numpy(values), dtype=float)
    if array.ndim == 0:
        raise ValueError(f"{what} must be a sequence of numbers, got a single number")
    return array


def _finite_range(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        raise ValueError("there is no finite value to plot (all are nan or inf)")
    return float(finite.min()), float(finite.max())


def _finite_runs(xs, ys):
    """Consecutive stretches of finite points (a nan or inf breaks the line)."""
    run = []
    for a, b in zip(xs, ys):
        if math.isfinite(a) and math.isfinite(b):
            run.append((a, b))
        elif run:
            yield run
            run = []
    if run:
        yield run


def _widen(lo: float, hi: float) -> tuple[float, float]:
    """A non-empty range: a single value v becomes [v - 1, v + 1]."""
    lo, hi = float(lo), float(hi)
    return (lo - 1.0, hi + 1.0) if hi <= lo else (lo, hi)


def _padded(lo: float, hi: float, fraction: float = 0.08) -> tuple[float, float]:
    """``[lo, hi]`` widened by ``fraction`` of its width on each side."""
    lo, hi = _widen(lo, hi)
    pad = (hi - lo) * fraction
    return lo - pad, hi + pad


def _num(value: float) -> str:
    """A coordinate with one decimal, without ``-0.0`` (same text on every machine)."""
    text = f"{float(value):.1f}"
    return "0.0" if text == "-0.0" else text


def _text(x, y, text: str, anchor: str = "start", css_class: str = "") -> str:
    klass = f' class="{css_class}"' if css_class else ""
    return (
        f'<text x="{_num(float(x))}" y="{_num(float(y))}" text-anchor="{anchor}" '
        f'fill="{TEXT}"{klass}>{html.escape(str(text))}</text>'
    )
