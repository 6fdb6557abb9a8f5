"""Fixtures for the end-to-end tests: Debian's Chromium, one JupyterLab server for the whole
package (its start is the slowest step of a test module), one Notebook 7 server per module.

Every server is a real subprocess on a free localhost port with private Jupyter directories; it
is stopped at the end of its module even when a test failed.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ipyask.testing import launch_chromium

from ._pages import LabNotebook, Notebook7Page
from ._servers import Server, lab_server, notebook_server, serving

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser

LAB_START_TIMEOUT = 60.0


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="package")
def lab_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory JupyterLab serves; tests write their notebooks here, each under a name of
    its own (the folder is shared by every module)."""
    return tmp_path_factory.mktemp("lab-root")


@pytest.fixture(scope="package")
def lab(lab_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A JupyterLab server (started once more if the first start fails), always stopped."""
    if importlib.util.find_spec("jupyterlab") is None:
        pytest.fail("JupyterLab is not installed: pip install -e '.[test,lab]'")
    base = tmp_path_factory.mktemp("lab-home")
    with serving(lambda: lab_server(lab_root, base), LAB_START_TIMEOUT) as server:
        yield server


@pytest.fixture
def lab_notebook(
    browser: Browser, lab: Server, request: pytest.FixtureRequest
) -> Iterator[LabNotebook]:
    """A fresh browser page on the Lab server; its kernels are shut down after the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    notebook = LabNotebook(page, lab, shots="lab-" + request.node.name.removeprefix("test_"))
    try:
        yield notebook
    finally:
        context.close()
        notebook.shut_down_kernels()


@pytest.fixture(scope="module")
def notebook7(lab_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A Jupyter Notebook 7 server serving ``lab_root`` (started once more if it fails)."""
    if importlib.util.find_spec("notebook") is None:
        pytest.fail("Jupyter Notebook 7 is not installed: pip install -e '.[test]'")
    base = tmp_path_factory.mktemp("notebook-home")
    with serving(lambda: notebook_server(lab_root, base), LAB_START_TIMEOUT) as server:
        yield server


@pytest.fixture
def notebook7_page(
    browser: Browser, notebook7: Server, request: pytest.FixtureRequest
) -> Iterator[Notebook7Page]:
    """A fresh browser page on the Notebook 7 server; its kernels are shut down after the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    shots = "notebook7-" + request.node.name.removeprefix("test_")
    notebook = Notebook7Page(page, notebook7, shots=shots)
    try:
        yield notebook
    finally:
        context.close()
        notebook.shut_down_kernels()


# -- recording which host passed what (docs/host-support.json) ----------------------------

HOST_JSON = Path(__file__).resolve().parents[2] / "docs" / "host-support.json"
_HOST_RESULTS = pytest.StashKey[list[tuple[str, str, str]]]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    marker = item.get_closest_marker("host")
    if marker is None or (report.when != "call" and not report.failed):
        return
    name, *checks = marker.args
    result = "works" if report.passed else "failed"
    for check in checks:
        item.config.stash.setdefault(_HOST_RESULTS, []).append((name, check, result))


def pytest_sessionfinish(session: pytest.Session) -> None:
    results = session.config.stash.get(_HOST_RESULTS, [])
    if results:
        merge_host_results(HOST_JSON, results)


def merge_host_results(path: Path, results: list[tuple[str, str, str]]) -> None:
    """Fold this run's results into the host file; a check failed in any test stays failed."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    this_run: dict[tuple[str, str], str] = {}
    for name, check, result in results:
        if this_run.get((name, check)) != "failed":
            this_run[(name, check)] = result
    for (name, check), result in this_run.items():
        data["hosts"][name].setdefault("tested", {})[check] = result
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
