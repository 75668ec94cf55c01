"""What a screen reader hears: Chromium's own accessibility tree, read over CDP.

Chromium computes each element's role and accessible name (aria-label, <label for>,
text content, CSS generated content and its alternative text, title...) exactly as it
hands them to a screen reader; asking it is truer than re-deriving them from attributes.
"""

from __future__ import annotations


def roles_and_names(locator, selector: str) -> list[dict]:
    """``{"role", "name", "html"}`` of every element matching ``selector`` under ``locator``
    that the accessibility tree keeps (hidden elements are left out, as a reader skips them)."""
    page = locator.page
    marker = "data-tg-ax"
    count = locator.evaluate(
        """(root, [selector, marker]) => {
             const found = root.querySelectorAll(selector);
             found.forEach((e, i) => e.setAttribute(marker, String(i)));
             return found.length;
           }""", [selector, marker])
    cdp = page.context.new_cdp_session(page)
    try:
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        controls = []
        for i in range(count):
            node = cdp.send("DOM.querySelector",
                            {"nodeId": root, "selector": f'[{marker}="{i}"]'})["nodeId"]
            ax = cdp.send("Accessibility.getPartialAXTree",
                          {"nodeId": node, "fetchRelatives": False})["nodes"][0]
            if ax.get("ignored"):
                continue
            html = cdp.send("DOM.getOuterHTML", {"nodeId": node})["outerHTML"]
            controls.append({"role": ax.get("role", {}).get("value", ""),
                             "name": str(ax.get("name", {}).get("value", "")).strip(),
                             "html": html[:200]})
        return controls
    finally:
        cdp.detach()
