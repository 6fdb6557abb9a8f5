"""Fixtures of the blocking tests: matrix venvs, one kernel per ipykernel series, the recorder.

The venvs are made (or found in ``.cache/venvs``) once collection is done, outside any test's
timeout, and only for the series the selected tests need. Each matrix test records what it
observed; at the end of the session the records are merged into ``docs/support-matrix.json``,
from which ``scripts/support-table`` renders the kernel support table of ``docs/cells.md``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import venvs

from ._matrix import Cell, Kernel

MATRIX_JSON = venvs.ROOT / "docs" / "support-matrix.json"

_PYTHONS = pytest.StashKey[dict[str, Path | venvs.VenvError]]()
_RESULTS = pytest.StashKey[list[dict[str, Any]]]()
_ENTRY = pytest.StashKey[dict[str, Any]]()


def _series_of(item: pytest.Item) -> str | None:
    params = getattr(getattr(item, "callspec", None), "params", {})
    cell = params.get("cell")
    return cell.series if isinstance(cell, Cell) else params.get("series")


def pytest_collection_finish(session: pytest.Session) -> None:
    needed = sorted({s for s in map(_series_of, session.items) if s is not None})
    if needed and not session.config.option.collectonly:
        session.config.stash[_PYTHONS] = venvs.ensure_all(needed)


# -- kernels -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def kernels(request: pytest.FixtureRequest) -> Iterator[Callable[[str], Kernel]]:
    """``kernels(series)``: the session's kernel of that series, started on first use."""
    pythons = request.config.stash.get(_PYTHONS, {})
    started: dict[str, Kernel] = {}

    def get(series: str) -> Kernel:
        if series not in started:
            python = pythons.get(series) or venvs.ensure(series)
            if isinstance(python, venvs.VenvError):
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
    order = list(venvs.SERIES)
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
