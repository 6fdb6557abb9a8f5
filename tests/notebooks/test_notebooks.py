"""Every demo notebook runs in a real kernel, its cards answered through the widget comm."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

from ipyask.testing import TIME_OUT, HeadlessFrontend, NotebookRunner

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

from notebook_scripts import SCRIPTS, THEN_AWAIT  # noqa: E402

pytestmark = pytest.mark.kernel
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_every_notebook_has_a_script() -> None:
    assert sorted(p.name for p in NOTEBOOKS) == sorted(SCRIPTS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebooks_are_committed_without_outputs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:40]


@pytest.mark.timeout(240)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_end_to_end(path: Path) -> None:
    with HeadlessFrontend(cwd=str(path.parent), timeout=30) as frontend:
        runner = NotebookRunner(
            path,
            SCRIPTS[path.name],
            frontend=frontend,
            cell_timeout=90,
            then_await=THEN_AWAIT.get(path.name),
        )
        events = runner.run()
        if path.stem == "quickstart":  # the agent task told the results widget everything
            shown = frontend.execute("print(results.value)").stdout
            assert "database: SQLite (Recommended)" in shown
            assert "deploy (late reply): ['Yes']" in shown
            assert "tool: edit {'path': 'report-draft.md', 'overwrite': False}" in shown
            assert "form: accept {'name': 'Ada', 'email': 'ada@example.org', 'seats': 4}" in shown
            assert "plan: Approve" in shown and "plan changes" not in shown
            assert "<div>done</div>" in shown
        if path.stem == "mcp":
            # Each card shows first under the cell that asks (later panels fold it as history).
            for question, (cell, _) in runner.asked_in.items():
                assert runner.cells_showing(question)[0] == cell, question
            # No red stderr box: the MCP SDK's log lines stay out of the cells.
            assert {i: e.stderr for i, e in runner.executions.items() if e.stderr} == {}
    kinds = [event.kind for event in events]
    expected_cards = len(SCRIPTS[path.name])
    assert kinds.count("asked") == expected_cards
    for steps in SCRIPTS[path.name].values():
        if isinstance(steps, list) and steps[0] is TIME_OUT:  # pending, then a late reply
            assert "timed out" in kinds and "late reply" in kinds
    if path.stem == "agent-loop":
        outputs = [e.text for e in events if e.kind == "output"]
        assert any("Using HTML for the report" in text for text in outputs), outputs
    if path.stem == "restart":  # the agent asked, the kernel restarted, the re-run went on
        assert kinds.index("left pending") < kinds.index("restart") < kinds.index("answered")
        outputs = [e.text for e in events if e.kind == "output"]
        assert "deployed to staging; team told: Yes" in outputs, outputs
    if path.stem == "testing-agents":
        assert any("['SQLite']" in e.text for e in events if e.kind == "output")
    framework_outputs = {  # what each framework's agent printed once its cards were answered
        "langgraph": [
            "ran delete_files('build/*.tmp')",  # the edited call
            "title: Q3 report",
            "status: rejected",  # No resumed with False
            "decision: Decision(approved=True, note='ship it')",
        ],
        "openai-agents": ["The team knows about the release."],  # the email was approved
        "pydantic-ai": ["Result: The tool call was denied. The user's reason: still in use"],
    }
    if path.stem in framework_outputs:
        outputs = [e.text for e in events if e.kind == "output"]
        for expected in framework_outputs[path.stem]:
            assert expected in outputs, outputs
