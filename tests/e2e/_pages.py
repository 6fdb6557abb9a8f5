"""Page helpers for the end-to-end tests: notebooks on disk and a JupyterLab / Notebook 7 page
driver (both expose the application as ``window.jupyterapp``)."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Error, Locator, Page

    from ._servers import Server

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "e2e"

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}

_KERNEL_IDLE = """() => {
  const panel = window.jupyterapp?.shell?.currentWidget;
  const kernel = panel?.sessionContext?.session?.kernel;
  return Boolean(panel?.context?.isReady && kernel && kernel.status === "idle");
}"""

_RUN_CELL = """async ([index, timeoutMs]) => {
  const app = window.jupyterapp;
  const notebook = app.shell.currentWidget.content;
  notebook.activeCellIndex = index;
  notebook.deselectAll();
  const ran = app.commands.execute("notebook:run-cell");
  const late = new Promise((_, reject) => setTimeout(
    () => reject(new Error(`cell ${index} still running after ${timeoutMs} ms`)), timeoutMs));
  return await Promise.race([ran, late]);
}"""


# The one-liners in Chinese, as a notebook or a Voila app runs them: the agent is a task (Voila
# shows a cell's output only when the cell ends) and writes what it got into a results widget.
PANEL_CELL = """\
import asyncio, json
import ipyask

svc = ipyask.UserQuestions()
panel = ipyask.QuestionPanel(svc)
panel"""
"""A notebook cell that shows a panel on a fresh service (``svc``, ``panel``)."""

ONE_LINERS_ZH = [
    """\
import asyncio

import ipywidgets as widgets

import ipyask

ipyask.default_panel().language = "zh"  # the cards speak Chinese
results = widgets.HTML("…")
results.add_class("one-liner-results")


async def one_liners():
    db = await ipyask.ask("用哪个数据库？", options=["Postgres", "SQLite"])
    results.value = f"<div>ask: {db}</div>"
    decision = await ipyask.approve(
        "删除 build/ 里的 3 个文件？", detail="`rm build/*.o`", subject="shell",
        approve="Apply", reject="Cancel", always="Always allow rm",
    )
    results.value += f"<div>approve: {decision}</div>"


ipyask.show_panel()
display(results)
task = asyncio.ensure_future(one_liners())""",
]


def write_notebook(path: Path, cells: list[str]) -> Path:
    """Write a notebook of code cells (no outputs) with the python3 kernelspec."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    notebook = new_notebook(
        cells=[new_code_cell(source) for source in cells], metadata={"kernelspec": KERNELSPEC}
    )
    nbformat.write(notebook, str(path))
    return path


_WATCH_TEXT = """(root, selector) => {
  const seen = [];
  const note = () => {
    const text = root.querySelector(selector)?.textContent ?? null;
    if (text !== null && text !== seen[seen.length - 1]) seen.push(text);
  };
  note();
  new MutationObserver(note).observe(root, { subtree: true, childList: true, characterData: true });
  root.__seenTexts = seen;
}"""


def watch_text(root: Locator, selector: str) -> None:
    """Record every text the element ``selector`` inside ``root`` shows from now on."""
    root.evaluate(_WATCH_TEXT, selector)


def watched_texts(root: Locator) -> list[str]:
    """The texts recorded by :func:`watch_text`, in order, without repeats."""
    texts: list[str] = root.evaluate("(root) => root.__seenTexts")
    return texts


def save_screenshot(page: Page, name: str) -> Path:
    """Save what ``page`` shows as ``artifacts/e2e/<name>.png``."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


class PageLog:
    """Console errors and uncaught page errors of one page."""

    def __init__(self, page: Page) -> None:
        self.errors: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", self._pageerror)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(f"console: {message.text}")

    def _pageerror(self, error: Error) -> None:
        self.errors.append(f"pageerror: {error}")

    def unexpected(self, *allowed: str) -> list[str]:
        """The errors matching none of the ``allowed`` regular expressions."""
        return [e for e in self.errors if not any(re.search(a, e) for a in allowed)]


class LabNotebook:
    """One notebook open in a JupyterLab page; cells run through Lab's own commands."""

    def __init__(self, page: Page, server: Server, shots: str) -> None:
        self.page = page
        self.server = server
        self.shots = shots
        self.log = PageLog(page)
        self._shot = 0

    def open(self, name: str, workspace: str) -> None:
        """Open ``name`` in a fresh workspace and wait for its kernel to be idle."""
        url = f"{self.server.url}/lab/workspaces/{workspace}/tree/{name}?token={self.server.token}"
        self.page.goto(url)
        expect(self.cells().first).to_be_visible(timeout=30_000)
        self.page.wait_for_function(_KERNEL_IDLE, timeout=30_000)

    def cells(self) -> Locator:
        return self.page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")

    def run(self, index: int, timeout_ms: int = 20_000) -> None:
        """Run cell ``index`` (as Ctrl+Enter does) and wait until its execution finished."""
        self.page.evaluate(_RUN_CELL, [index, timeout_ms])

    def output(self, index: int) -> Locator:
        return self.cells().nth(index).locator(".jp-OutputArea")

    def screenshot(self, step: str) -> Path:
        """Save the page as ``artifacts/e2e/<shots>-<n>-<step>.png``."""
        self._shot += 1
        return save_screenshot(self.page, f"{self.shots}-{self._shot}-{step}")

    def shut_down_kernels(self) -> None:
        """Delete every session of the server, so no kernel outlives its test."""
        headers = {"Authorization": f"token {self.server.token}"}
        request = urllib.request.Request(f"{self.server.url}/api/sessions", headers=headers)
        with urllib.request.urlopen(request, timeout=10) as response:
            sessions: list[dict[str, Any]] = json.load(response)
        for session in sessions:
            delete = urllib.request.Request(
                f"{self.server.url}/api/sessions/{session['id']}", headers=headers, method="DELETE"
            )
            with urllib.request.urlopen(delete, timeout=10):
                pass


class Notebook7Page(LabNotebook):
    """One notebook open in Jupyter Notebook 7 (the same application shell as JupyterLab)."""

    def open(self, name: str, workspace: str = "") -> None:
        """Open ``name`` in its own Notebook tab and wait for its kernel to be idle."""
        del workspace  # Notebook 7 has no workspaces
        self.page.goto(f"{self.server.url}/notebooks/{name}?token={self.server.token}")
        expect(self.cells().first).to_be_visible(timeout=30_000)
        self.page.wait_for_function(_KERNEL_IDLE, timeout=30_000)
