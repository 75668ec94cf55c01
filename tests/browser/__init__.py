"""End-to-end tests in a real browser: what a student sees in JupyterLab, and in an export.

``test_lab_lesson.py`` starts JupyterLab (:mod:`.lab_server`), opens a lesson in headless
Chromium, runs it with the teachgrad kernel and clicks through the stepper;
``test_static_export.py`` opens an ``nbconvert`` HTML export as a file with the network
blocked (and JavaScript off once) and steps the CSS-only stepper. Everything is marked
``browser`` and skips with a reason when Playwright or Chromium is missing.
"""
