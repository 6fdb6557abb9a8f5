"""Fixtures of the blocking tests: matrix venvs, one kernel per ipykernel series, the recorder.

The venvs are made (or found in ``.cache/venvs``) once collection is done, outside any test's
timeout, and only for the series the selected tests need. Each matrix test records what it
observed; at the end of the session the records are merged into ``docs/support-matrix.json``,
from which ``scripts/support-table`` renders the README's support table.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import zmq

from ipyask.testing import Execution, FrontendTimeout, HeadlessFrontend, KernelFrontend

from . import _venvs

MATRIX_JSON = _venvs.ROOT / "docs" / "support-matrix.json"

SETUP = """
import asyncio, sys, ipykernel, ipyask
import ipyask.bridge.cell_wait._interruptible as interruptible
from ipyask.bridge import cell_wait
interruptible.PROBE_SECONDS = 2.0
order = []
"""
RESET = "ipyask.default_panel().close()\norder = []"


@dataclass(frozen=True)
class Cell:
    """One cell of the support matrix: a kernel series, a front-end mode and a form."""

    series: str
    frontend: str  # "main": comms on the main shell; "subshell": comms over a subshell
    form: str  # "await" or "blocking"

    def __str__(self) -> str:
        return f"{self.series}-{self.frontend}-{self.form}"


CELLS = [
    Cell(series, frontend, form)
    for series in _venvs.SERIES
    for frontend in ("main", "subshell")
    for form in ("await", "blocking")
    if not (series == "6.x" and frontend == "subshell")  # ipykernel 6 has no subshells
]

_PYTHONS = pytest.StashKey[dict[str, Path | _venvs.VenvError]]()
_RESULTS = pytest.StashKey[list[dict[str, Any]]]()
_ENTRY = pytest.StashKey[dict[str, Any]]()


def _series_of(item: pytest.Item) -> str | None:
    params = getattr(getattr(item, "callspec", None), "params", {})
    cell = params.get("cell")
    return cell.series if isinstance(cell, Cell) else params.get("series")


def pytest_collection_finish(session: pytest.Session) -> None:
    needed = sorted({s for s in map(_series_of, session.items) if s is not None})
    if needed and not session.config.option.collectonly:
        session.config.stash[_PYTHONS] = _venvs.ensure_all(needed)


# -- kernels -------------------------------------------------------------------------------


@dataclass
class Kernel:
    """A kernel of one series, with the helpers the matrix tests share."""

    series: str
    python: Path
    fe: KernelFrontend = field(init=False)
    version: str = ""
    subshell_id: str | None = None

    def start(self) -> None:
        self.fe = KernelFrontend(python=self.python, timeout=20).start()
        self.subshell_id = None
        self.run(SETUP)
        self.version = self.text("print(ipykernel.__version__)")

    def reset(self) -> None:
        """A new default panel (so nothing is known about its views) and an empty ``order``."""
        try:
            self.run(RESET)
        except FrontendTimeout:  # should the poke not help: a fresh kernel for the next tests
            self.fe.close(now=True)
            self.start()
            self.run(RESET)

    def run(self, code: str, *, raise_on_error: bool = True) -> Execution:
        """Run a cell and wait for it (see :meth:`settle`)."""
        return self.settle(self.fe.execute_nowait(code), raise_on_error=raise_on_error)

    def settle(
        self, execution: Execution, timeout: float = 20.0, *, raise_on_error: bool = True
    ) -> Execution:
        """Wait for a cell; while it stalls, poke the kernel now and then (see :meth:`poke`)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                return execution.wait(max(0.1, min(3.0, remaining)), raise_on_error=raise_on_error)
            except FrontendTimeout:
                if remaining <= 3.0:
                    raise
                self.poke()

    def poke(self) -> None:
        """Send a ``kernel_info_request`` over a new connection.

        ipykernel 7.0–7.3 can leave requests unread on the shell socket for good when one arrives
        while it sends a reply (7.4 fixed this "wedge" in ``_send_on_shell_channel``); a message
        on a new pipe makes its shell channel thread read again. ipyask does the same from inside
        while a question waits; this covers the moments between questions.
        """
        info = self.fe._process.manager.get_connection_info()
        context: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
        try:
            sock = context.socket(zmq.DEALER)
            sock.connect(f"{info['transport']}://{info['ip']}:{info['shell_port']}")
            self.fe._session.send(sock, "kernel_info_request", {})
            sock.close(linger=1000)
        finally:
            context.term()

    def view(self, frontend: str) -> HeadlessFrontend:
        """A view of the panels that sends over a subshell when ``frontend == "subshell"``."""
        view = HeadlessFrontend(self.fe, timeout=15)
        if frontend == "subshell":
            if self.subshell_id is None:
                self.subshell_id = self.fe.create_subshell()
            view.subshell_id = self.subshell_id
        return view

    def strategy(self, form: str) -> str:
        """How ipyask helps that form in this kernel (recorded in the matrix)."""
        code = (
            "print(cell_wait.blocking_strategy(cell_wait.current_kernel(), ipyask.default_panel()))"
            if form == "blocking"
            else "print(cell_wait.await_strategy(cell_wait.current_kernel()))"
        )
        return self.text(code)

    def text(self, code: str) -> str:
        return self.run(code).stdout.strip()


@pytest.fixture(scope="session")
def kernels(request: pytest.FixtureRequest) -> Iterator[Callable[[str], Kernel]]:
    """``kernels(series)``: the session's kernel of that series, started on first use."""
    pythons = request.config.stash.get(_PYTHONS, {})
    started: dict[str, Kernel] = {}

    def get(series: str) -> Kernel:
        if series not in started:
            python = pythons.get(series) or _venvs.ensure(series)
            if isinstance(python, _venvs.VenvError):
                pytest.fail(f"no venv for ipykernel {series}: {python}", pytrace=False)
            kernel = Kernel(series, python)
            kernel.start()
            started[series] = kernel
        return started[series]

    try:
        yield get
    finally:
        for kernel in started.values():
            kernel.fe.close()


# -- recording the matrix ------------------------------------------------------------------


@pytest.fixture
def record(request: pytest.FixtureRequest) -> Callable[..., None]:
    """``record(outcome, strategy=None, version=...)`` for this test's matrix cell and check."""
    cell = request.node.callspec.params["cell"]
    entry: dict[str, Any] = {
        "series": cell.series,
        "frontend": cell.frontend,
        "form": cell.form,
        "check": request.node.originalname.removeprefix("test_"),
        "outcome": None,
    }
    request.node.stash[_ENTRY] = entry

    def record(outcome: str, *, version: str, strategy: str | None = None) -> None:
        entry.update(outcome=outcome, ipykernel=version)
        if strategy is not None:
            entry["strategy"] = strategy

    return record


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    entry = item.stash.get(_ENTRY, None)
    if entry is None or report.when == "teardown" or (report.when == "setup" and report.passed):
        return
    if report.failed:
        entry["outcome"] = "failed"
    if entry["outcome"] is not None:
        item.config.stash.setdefault(_RESULTS, []).append(dict(entry))


def pytest_sessionfinish(session: pytest.Session) -> None:
    results = session.config.stash.get(_RESULTS, [])
    if results:
        merge(MATRIX_JSON, results)


def merge(path: Path, results: list[dict[str, Any]]) -> None:
    """Fold this session's records into the matrix file (cells not run this time are kept)."""
    data: dict[str, Any] = {"cells": []}
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))
    cells = {(c["series"], c["frontend"], c["form"]): c for c in data.get("cells", [])}
    for entry in results:
        key = (entry["series"], entry["frontend"], entry["form"])
        cell = cells.setdefault(key, {"series": key[0], "frontend": key[1], "form": key[2]})
        cell.setdefault("checks", {})[entry["check"]] = entry["outcome"]
        if "ipykernel" in entry:
            cell["ipykernel"] = entry["ipykernel"]
        if "strategy" in entry:
            cell["strategy"] = entry["strategy"]
    order = list(_venvs.SERIES)
    ranked = sorted(
        cells.values(),
        key=lambda c: (order.index(c["series"]) if c["series"] in order else 99, *key_of(c)),
    )
    fields = ("series", "ipykernel", "frontend", "form", "strategy")
    data = {
        "about": "Written by tests/blocking (pytest -m kernel); render with scripts/support-table.",
        "cells": [
            {
                **{name: cell[name] for name in fields if name in cell},
                "checks": dict(sorted(cell.get("checks", {}).items())),
            }
            for cell in ranked
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def key_of(cell: dict[str, Any]) -> tuple[str, str]:
    return (cell["frontend"], cell["form"])
