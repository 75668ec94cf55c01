"""The outputs read well in the other places notebooks are shown, light and dark.

JupyterLab is not the only host: VS Code shows notebook outputs in a page whose body has
the class ``vscode-dark`` or ``vscode-light`` and colours in ``--vscode-*`` variables (and
no ``--jp-*`` ones); documentation built with the PyData Sphinx theme (which
``nbsphinx``/``myst-nb`` pages use) marks its dark mode with ``data-theme="dark"`` on
``<html>``. Here the HTML teachgrad gives Jupyter (the inspector table, a drawn graph,
the static stepper) is put in such pages, as those hosts do, and every text must read at
WCAG's AA contrast against what is really behind it.
"""

from __future__ import annotations

import html

import pytest

from .contrast import below_aa

pytestmark = pytest.mark.browser

#: The host pages: (name, attributes of <html>, attributes of <body>, CSS of the page).
#: The colours are those hosts' defaults (VS Code's "Dark Modern"/"Light Modern" editor
#: colours, the PyData theme's dark background and text).
HOSTS = {
    "vscode-dark": ('', 'class="vscode-dark" data-vscode-theme-kind="vscode-dark"',
                    ":root { --vscode-editor-background: #1f1f1f; "
                    "--vscode-editor-foreground: #cccccc; }"
                    "body { background: var(--vscode-editor-background); "
                    "color: var(--vscode-editor-foreground); }"),
    "vscode-light": ('', 'class="vscode-light" data-vscode-theme-kind="vscode-light"',
                     ":root { --vscode-editor-background: #ffffff; "
                     "--vscode-editor-foreground: #3b3b3b; }"
                     "body { background: var(--vscode-editor-background); "
                     "color: var(--vscode-editor-foreground); }"),
    "pydata-dark": ('data-theme="dark"', '',
                    "html[data-theme='dark'] body { background: #14181e; color: #ced6dd; }"),
}


def _outputs() -> str:
    """What Jupyter would display for the three kinds of output, one after the other."""
    import teachgrad as torch
    from teachgrad.notebook import draw, inspect, step_backward

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0], requires_grad=True)
    y = (x * w).sum()
    names = {"x": x, "w": w, "y": y}
    table = inspect(x, w)._repr_html_()
    picture = draw(y, names=names)._repr_html_()
    stepper = step_backward(y, names=names)._repr_mimebundle_()["text/html"]
    return "\n".join(f'<div class="output">{part}</div>' for part in (table, picture, stepper))


@pytest.fixture(scope="module")
def outputs() -> str:
    return _outputs()


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_every_text_reads_at_aa_contrast_in_other_hosts(chromium, outputs, host, tmp_path):
    html_attributes, body_attributes, css = HOSTS[host]
    page_file = tmp_path / f"{host}.html"
    page_file.write_text(
        f"<!doctype html><html {html_attributes}><head><meta charset='utf-8'>"
        f"<title>{html.escape(host)}</title><style>{css}</style></head>"
        f"<body {body_attributes}>{outputs}</body></html>",
        encoding="utf-8",
    )
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(page_file.as_uri())
        page.locator("table.tg-table").first.wait_for(state="visible")
        low = below_aa(page.locator("body"))
        assert not low, f"text below 4.5:1 contrast in {host}:\n" + "\n".join(low)
    finally:
        context.close()
