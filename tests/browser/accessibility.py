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
             // (an earlier call's marks would be found first: take them off)
             document.querySelectorAll(`[${marker}]`).forEach(e => e.removeAttribute(marker));
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


def live_regions(page) -> list[dict]:
    """``{"role", "live", "text"}`` of every live region in Chromium's full accessibility
    tree, ``text`` being what a screen reader announces from it (the text of its
    descendants that the tree keeps: hidden ones are not in it)."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    by_id = {node["nodeId"]: node for node in nodes}

    def prop(node, name):
        return next((p["value"].get("value") for p in node.get("properties", [])
                     if p["name"] == name), None)

    def text(node) -> str:
        if node.get("ignored"):
            return ""
        if node.get("role", {}).get("value") in ("StaticText", "text"):
            return str(node.get("name", {}).get("value", ""))
        return "".join(text(by_id[c]) for c in node.get("childIds", []) if c in by_id)

    return [{"role": node.get("role", {}).get("value", ""), "live": prop(node, "live"),
             "text": text(node)}
            for node in nodes
            if not node.get("ignored") and prop(node, "live") and
            prop(node, "root") in (None, node.get("backendDOMNodeId"))
            and node.get("role", {}).get("value") in ("status", "log", "alert", "region",
                                                      "generic", "paragraph")]
