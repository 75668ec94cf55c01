"""The CSS files in ``teachgrad/notebook/static/``, read once and embedded in outputs.

Outputs carry their CSS inline (a ``<style>`` next to the SVG) rather than linking to a
file: exported notebooks and books must work offline, with nothing fetched at run time.
"""

from __future__ import annotations

import functools
from importlib import resources


@functools.cache
def css(name: str) -> str:
    """The text of ``static/<name>`` (e.g. ``css("graph.css")``)."""
    return resources.files(__package__).joinpath("static", name).read_text("utf-8")


__all__ = ["css"]
