"""What JupyterLab shows of an HTML output in a notebook it does not trust.

A notebook opened fresh (every stored lesson, before it runs) is untrusted: JupyterLab
passes each HTML output through its sanitiser (``sanitize-html``, configured in
``@jupyterlab/apputils``' ``Sanitizer``). The parts of that configuration our outputs
meet, modelled here:

* elements outside its list of HTML tags (``svg`` and everything inside it, ``style``)
  are removed; their text stays, except a ``<style>``'s, which goes with it;
* an attribute whose value is empty is removed (``hidden`` alone; ``hidden="hidden"``
  stays), and so are event handlers and other unlisted attributes;
* ``style`` attributes and ``<img>`` (with a ``data:`` URI) stay.

:func:`visible_text` is then what a student reads on the page: the text outside any
element hidden by an inline ``display:none`` or a ``hidden`` attribute. The browser test
``tests/browser/test_lab_untrusted.py`` checks the same outputs in the real JupyterLab.
"""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser

#: the tags of our outputs that JupyterLab's sanitiser keeps (a subset of its list)
KEPT_TAGS = {
    "a", "b", "br", "code", "div", "figcaption", "figure", "h4", "i", "img", "input",
    "label", "li", "nav", "ol", "p", "pre", "section", "span", "table", "tbody", "td",
    "th", "thead", "tr", "ul",
}
VOID_TAGS = {"br", "img", "input"}


class UntrustedView(HTMLParser):
    """Parses an HTML output as JupyterLab's sanitiser leaves it."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []   # visible text, in order
        self.images: list[dict] = []  # kept <img> elements that are visible
        self._stack: list[tuple[str, bool]] = []  # (tag, hidden) of open kept elements
        self._in_style = 0
        self.feed(page)
        self.close()

    def _hidden(self) -> bool:
        return any(hidden for _, hidden in self._stack)

    def handle_starttag(self, tag, attrs):
        if tag == "style":
            self._in_style += 1
            return
        if tag not in KEPT_TAGS:
            return  # removed, its text kept
        kept = {name: value for name, value in attrs if value}  # empty values are dropped
        hidden = "hidden" in kept or bool(
            re.search(r"display\s*:\s*none", kept.get("style", "")))
        if tag == "img" and not (hidden or self._hidden()):
            self.images.append(kept)
        if tag not in VOID_TAGS:
            self._stack.append((tag, hidden))

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style -= 1
            return
        if tag not in KEPT_TAGS or tag in VOID_TAGS:
            return
        while self._stack:
            if self._stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        if not self._in_style and not self._hidden() and data.strip():
            self.texts.append(data.strip())


def visible_text(page: str) -> str:
    """The text a student sees of ``page`` in an untrusted notebook, one space apart."""
    return " ".join(UntrustedView(page).texts)


def visible_images(page: str) -> list[str]:
    """The ``data:`` images shown, decoded (an SVG picture is its SVG text)."""
    shown = []
    for image in UntrustedView(page).images:
        head, _, data = image["src"].partition(",")
        shown.append(base64.b64decode(data).decode() if head.endswith(";base64") else data)
    return shown
