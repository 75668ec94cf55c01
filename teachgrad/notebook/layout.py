"""Graph layout: DOT text in, SVG text out.

Graphviz does the layout. We try, in order:

1. **pygraphviz**, in-process: its wheels bundle Graphviz itself, so ``pip install
   teachgrad[notebook]`` is all a student needs (no system package, no PATH set-up);
2. the **``dot`` executable**, if one is on ``PATH`` (a system Graphviz);
3. neither: :class:`LayoutUnavailable`, whose message says what to install. Callers then
   show that message and the DOT text instead of a picture (never a traceback).

The SVG is then tidied for inline use in a notebook (:func:`tidy_svg`).
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

INSTALL_HINT = (
    "Graph layout needs Graphviz, and none was found. Install the pygraphviz wheel, which "
    "brings its own Graphviz:  pip install pygraphviz  (or install Graphviz so that the "
    "`dot` program is on PATH, e.g. apt install graphviz / brew install graphviz / "
    "conda install graphviz). Meanwhile, here is the graph in DOT text; paste it into any "
    "Graphviz viewer."
)


class LayoutUnavailable(RuntimeError):
    """Neither pygraphviz nor the ``dot`` executable can lay out graphs here."""


def layout_svg(dot_source: str) -> str:
    """Lay out ``dot_source`` with Graphviz's ``dot`` and return the SVG text.

    Raises :class:`LayoutUnavailable` (with installation advice) when no Graphviz is found.
    """
    return _layout(dot_source, "svg")


def node_positions(dot_source: str) -> dict[str, tuple[float, float]]:
    """Where ``dot`` puts the centre of each node: ``{name: (x, y)}``, in inches, y up.

    Read from Graphviz's ``plain`` output, whose node lines are
    ``node <name> <x> <y> <width> <height> ...`` (names with spaces come quoted; ours
    never have any). Raises :class:`LayoutUnavailable` like :func:`layout_svg`.

    >>> node_positions("digraph { a -> b }")  # a above b
    {'a': (0.375, 1.25), 'b': (0.375, 0.25)}
    """
    positions = {}
    for line in _layout(dot_source, "plain").splitlines():
        fields = line.split()
        if fields and fields[0] == "node":
            positions[fields[1].strip('"')] = (float(fields[2]), float(fields[3]))
    return positions


def _layout(dot_source: str, format: str) -> str:
    problems = []
    try:
        return _with_pygraphviz(dot_source, format)
    except ImportError:
        problems.append("pygraphviz is not installed")
    except Exception as error:  # a broken install: try the next way rather than fail
        problems.append(f"pygraphviz failed ({type(error).__name__}: {error})")
    executable = shutil.which("dot")
    if executable is None:
        problems.append("no `dot` program on PATH")
    else:
        try:
            return _with_executable(executable, dot_source, format)
        except (OSError, subprocess.SubprocessError) as error:
            problems.append(f"`dot` failed ({error})")
    raise LayoutUnavailable(INSTALL_HINT + " [" + "; ".join(problems) + "]")


def _with_pygraphviz(dot_source: str, format: str) -> str:
    import pygraphviz

    graph = pygraphviz.AGraph(string=dot_source)
    with _without_fontconfig_chatter():
        return graph.draw(format=format, prog="dot").decode("utf-8")


@contextmanager
def _without_fontconfig_chatter() -> Iterator[None]:
    """Drop "Fontconfig warning: ..." lines that Graphviz's C code writes to stderr.

    The fontconfig bundled in the pygraphviz wheel can be older than the system's font
    configuration and complains about it on first use. The complaint is harmless but it
    lands in the notebook as a red stderr box (ipykernel captures C-level output), so we
    catch C-level stderr during layout and pass on every other line unchanged.
    """
    try:
        saved = os.dup(2)
    except OSError:  # no usable file descriptor 2 (some embedded interpreters)
        yield
        return
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            text = caught.read().decode("utf-8", errors="replace")
            rest = [line for line in text.splitlines(keepends=True)
                    if not line.startswith("Fontconfig warning")]
            if rest:
                sys.stderr.write("".join(rest))


def _with_executable(executable: str, dot_source: str, format: str) -> str:
    done = subprocess.run(
        [executable, f"-T{format}"],
        input=dot_source.encode("utf-8"),
        capture_output=True,
        check=True,
        timeout=120,
    )
    return done.stdout.decode("utf-8")


_PROLOGUE = re.compile(r"^.*?(?=<svg\b)", re.S)          # <?xml ...?>, <!DOCTYPE ...>
_COMMENT = re.compile(r"<!--.*?-->\s*", re.S)
_TITLE = re.compile(
    r'(<g id="([^"]*)" class="(?:node|edge|graph)[^"]*"[^>]*>\s*)<title>.*?</title>', re.S
)
#: A wide graph shrinks to the cell's width, but never below this fraction of its natural
#: size: smaller, its 11-point labels could not be read. Beyond that it scrolls sideways
#: (its container has ``overflow-x: auto``).
MIN_SCALE = 0.7

_BLANK_LINES = re.compile(r"\n(?:[ \t]*\n)+")
_SIZE = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"')


#: An id that Graphviz made up: graph0, node3, edge7, clust2, and a_node3 for the link
#: around a node with a URL or tooltip.
_GRAPHVIZ_ID = re.compile(r'\bid="((?:a_)?(?:graph|node|edge|clust)\d+)"')
_TIDY_WIDTH = re.compile(r'<svg\b[^>]*?\swidth="([\d.]+)pt"')
PX_PER_PT = 96 / 72


def width_px(svg: str) -> float | None:
    """The natural width of a laid-out picture (from :func:`tidy_svg`) in CSS pixels."""
    found = _TIDY_WIDTH.search(svg)
    return float(found.group(1)) * PX_PER_PT if found else None


def own_ids(svg: str, prefix: str) -> str:
    """Put ``prefix`` before the ids Graphviz makes up itself (``graph0``, ``node1``,
    ``edge1``, ``clust1``, ``a_node1``...).

    Every picture Graphviz draws starts again at ``graph0``, ``node1``: two pictures in one
    page (two cells of a notebook) had the same ids. Ours (``tgs0k3fa9c1_n2``, given in the
    DOT text) already start with the picture's prefix and are left alone.

    >>> own_ids('<g id="graph0" class="graph"><g id="node1" class="node">', "tgg4")
    '<g id="tgg4_graph0" class="graph"><g id="tgg4_node1" class="node">'
    """
    return _GRAPHVIZ_ID.sub(lambda m: f'id="{prefix}_{m.group(1)}"', svg)


def tidy_svg(svg: str, titles: dict | None = None, css_class: str = "tg-svg",
             prefix: str | None = None) -> str:
    """Make Graphviz's SVG fit in a notebook page.

    * drops the XML prologue and comments (they are not allowed inside HTML), and blank
      lines (a Markdown export would end the HTML there);
    * with a ``prefix`` (the picture's, see :func:`.graph.new_prefix`), gives Graphviz's
      own ids that prefix (:func:`own_ids`), so they are unique in a page;
    * replaces Graphviz's tooltips (which are just DOT ids) with ``titles[id]`` (plain text,
      escaped here) or nothing, and names the picture ``titles["svg"]`` (``aria-label``);
    * keeps the ``viewBox`` and natural size but lets the picture shrink to the cell's width
      (``max-width: 100%; height: auto``), down to ``MIN_SCALE`` of its size: a slightly
      wide graph fits, a very wide one stays readable and scrolls.
    """
    svg = _PROLOGUE.sub("", svg, count=1)
    svg = _COMMENT.sub("", svg)
    svg = svg.replace("&#45;", "-")  # Graphviz escapes every hyphen, even in ids and classes
    titles = titles or {}
    name = titles.get("svg")  # the picture's name (graph.Labels.graph_name)

    def retitle(match: re.Match) -> str:
        text = titles.get(match.group(2))
        return match.group(1) + (f"<title>{html.escape(text)}</title>" if text else "")

    svg = _TITLE.sub(retitle, svg)
    if prefix is not None:
        svg = own_ids(svg, prefix)
    svg = _BLANK_LINES.sub("\n", svg)  # see assets.py: no blank line may end Markdown's HTML
    svg = _SIZE.sub(
        lambda m: (
            f'<svg class="{css_class}" width="{m.group(1)}pt" height="{m.group(2)}pt" '
            f'style="max-width:100%;min-width:{float(m.group(1)) * MIN_SCALE:.0f}pt;'
            'height:auto" role="img"' + (f' aria-label="{html.escape(name)}"' if name else "")
        ),
        svg,
        count=1,
    )
    return svg.strip()


__all__ = ["layout_svg", "node_positions", "own_ids", "tidy_svg", "width_px", "LayoutUnavailable",
           "INSTALL_HINT"]
