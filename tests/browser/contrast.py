"""Text contrast as the page draws it: WCAG's ratio for every text of an output.

For each text (HTML text and SVG ``<text>``) the browser reports the colours it really
uses, after the theme's variables, ``color-mix`` and transparency: the text's colour over
what lies behind it (an SVG box's fill, else the first opaque background up the page).
The ratio is WCAG 2's ``(L1 + 0.05) / (L2 + 0.05)``; body text needs 4.5 (AA).

Text inside something drawn faded on purpose (``opacity`` below 1: a stepper box no
gradient has reached yet, a ``None`` box, a disabled button) is reported with its
opacity, so a test can leave it out.
"""

from __future__ import annotations

AA = 4.5

_TEXTS = """(root) => {
  const probe = document.createElement('canvas').getContext('2d');
  const rgba = (css) => {  // any CSS colour -> [r, g, b, a], as the browser resolves it
    if (!css || css === 'none') return null;
    probe.clearRect(0, 0, 1, 1); probe.fillStyle = '#000'; probe.fillStyle = css;
    probe.fillRect(0, 0, 1, 1);
    const d = probe.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  };
  const over = (top, under) =>
    top.slice(0, 3).map((c, i) => c * top[3] + under[i] * (1 - top[3])).concat(1);
  const luminance = (c) => {
    const f = (v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => {
    const x = luminance(a), y = luminance(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  };
  const background = (element) => {
    const layers = [];
    for (let e = element; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255, 1]);
  };
  const opacity = (element) => {
    let o = 1;
    for (let e = element; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
    return o;
  };
  const found = [];
  for (const text of root.querySelectorAll('svg text')) {
    const style = getComputedStyle(text);
    if (style.visibility === 'hidden' || !text.getBBox().width) continue;
    let behind = background(text.closest('svg'));
    const shape = text.closest('g.node')?.querySelector(':scope > path, :scope > polygon');
    const fill = shape && rgba(getComputedStyle(shape).fill);
    if (fill) behind = over(fill, behind);
    found.push({text: text.textContent, ratio: ratio(over(rgba(style.fill), behind), behind),
                opacity: opacity(text)});
  }
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const element = walker.currentNode.parentElement;
    if (!walker.currentNode.textContent.trim() || element.closest('svg')) continue;
    if (!element.getClientRects().length) continue;
    if (getComputedStyle(element).visibility === 'hidden') continue;
    const behind = background(element);
    found.push({text: walker.currentNode.textContent.trim(), opacity: opacity(element),
                ratio: ratio(over(rgba(getComputedStyle(element).color), behind), behind)});
  }
  return found;
}"""


def texts(root) -> list[dict]:
    """Every visible text under ``root`` (a locator): ``{"text", "ratio", "opacity"}``."""
    return root.evaluate(_TEXTS)


def below_aa(root) -> list[str]:
    """The fully opaque texts under ``root`` whose contrast is below AA, as ``text (ratio)``."""
    return [f"{t['text'][:40]!r} ({t['ratio']:.2f}:1)" for t in texts(root)
            if t["opacity"] >= 1 and t["ratio"] < AA]
