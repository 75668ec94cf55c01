"""The CSS files in ``teachgrad/notebook/static/``, read once and embedded in outputs.

Outputs carry their CSS inline (a ``<style>`` next to the SVG) rather than linking to a
file: exported notebooks and books must work offline, with nothing fetched at run time.

Every HTML output is also written **without blank lines**. Exporters that write
Markdown (``jupyter nbconvert --to markdown``, Jupyter Book, MyST) paste an output's HTML
into the Markdown text, and in Markdown an HTML block ends at the first blank line:
whatever follows (the rest of the CSS, the rest of a table) would then be read as
Markdown and shown as text. So the CSS loses its comments and blank lines here, and
:func:`escape_text` keeps the blank lines of printed tensors (a 3-d tensor prints with
one between its matrices) as a character reference instead.
"""

from __future__ import annotations

import functools
import html
import re
from importlib import resources

_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_BLANK_AFTER = re.compile(r"\n(?=[ \t]*\n)")  # a newline that a blank line follows


@functools.cache
def css(name: str) -> str:
    """The rules of ``static/<name>`` (e.g. ``css("graph.css")``), without comments or
    blank lines (the comments are for readers of the file; every output carries a copy)."""
    source = resources.files(__package__).joinpath("static", name).read_text("utf-8")
    lines = (line.strip() for line in _CSS_COMMENT.sub("", source).splitlines())
    return "\n".join(line for line in lines if line)


@functools.cache
def script(name: str) -> str:
    """The JavaScript of ``static/<name>`` without its comment lines and blank lines, ready
    to be an attribute's value (an inline event handler: see ``live.py``)."""
    source = resources.files(__package__).joinpath("static", name).read_text("utf-8")
    lines = (line.strip() for line in source.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//"))


def escape_text(text: str) -> str:
    """``text`` escaped for HTML, its blank lines kept without a blank line in the HTML.

    ``"a\\n\\nb"`` becomes ``"a&#10;\\nb"``: a browser shows the same two line breaks,
    and the HTML has no empty line to end a Markdown HTML block early.

    >>> escape_text("[[1.]],\\n\\n [[2.]] <b>")
    '[[1.]],&#10;\\n [[2.]] &lt;b&gt;'
    """
    return _BLANK_AFTER.sub("&#10;", html.escape(text, quote=True))


__all__ = ["css", "script", "escape_text"]
