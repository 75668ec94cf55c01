"""Find and start a headless Chromium for Playwright, or say clearly why there is none.

Playwright normally downloads its own browser build; where it cannot (offline machines,
this project's CI), the system Chromium is driven through ``executable_path``. Order: a
system Chromium (``chromium``, ``chromium-browser``, ``google-chrome``), then Playwright's
own download when it is present.
"""

from __future__ import annotations

import shutil
from pathlib import Path

SYSTEM_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# Headless in a container: no sandbox (running as root), no GPU; and no background
# traffic (updates, sync, safe-browsing...), which on a closed network only floods the
# log with refused connections.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


def chromium_executable(playwright) -> str | None:
    """The Chromium to launch: a system one, else Playwright's own if it was downloaded.

    ``None`` means neither exists (the caller skips).
    """
    for name in SYSTEM_BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    bundled = playwright.chromium.executable_path
    return bundled if bundled and Path(bundled).exists() else None


def launch(playwright):
    """Launch headless Chromium; raises ``LookupError`` with a reason when there is none."""
    executable = chromium_executable(playwright)
    if executable is None:
        raise LookupError(
            "no Chromium found (looked for " + ", ".join(SYSTEM_BROWSERS)
            + " and Playwright's download): install one, e.g. `apt-get install chromium`")
    try:
        return playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
    except Exception as error:  # a browser that cannot start here: say which and why
        raise LookupError(f"Chromium at {executable} did not start: {error}") from error
