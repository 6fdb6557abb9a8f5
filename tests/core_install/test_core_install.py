"""A user's test suite in a venv with ipyask's core install only (no extras) plus pytest.

ipyask registers a pytest plugin; it must load there, the in-process tools must work, and only a
test that asks for a real kernel fails, with a message naming the extra to install.
"""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from helpers import venvs

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]  # the first run installs the venv

USER_TESTS = """
import asyncio

import pytest

import ipyask
import ipyask.testing
from ipyask.testing import ManualClock, ScriptedAnswerer


def test_scripted_answerer_answers_an_agent():
    async def agent():
        svc = ipyask.UserQuestions(clock=ManualClock())
        ScriptedAnswerer({"Which database?": "SQLite"}).register(svc)
        batch = await svc.ask({"questions": [{"id": "db", "question": "Which database?",
            "options": [{"label": "Postgres"}, {"label": "SQLite"}]}]})
        return batch.answers[0].selected

    assert asyncio.run(agent()) == ["SQLite"]


def test_kernel_tools_name_the_extra():
    with pytest.raises(ImportError, match=r"pip install 'ipyask\\[testing\\]'"):
        ipyask.testing.HeadlessFrontend


def test_wants_a_kernel(headless_frontend):
    pass
"""


@pytest.fixture(scope="module")
def core_python() -> Path:
    try:
        return venvs.ensure(venvs.CORE_ONLY)
    except venvs.VenvError as error:
        pytest.fail(str(error), pytrace=False)


def test_the_venv_has_no_kernel_client(core_python: Path) -> None:
    """The check below means something only if the kernel client's dependencies are absent."""
    for module in ("zmq", "jupyter_client", "ipykernel"):
        found = subprocess.run(
            [str(core_python), "-c", f"import {module}"], capture_output=True, check=False
        )
        assert found.returncode != 0, f"{module} is installed in the core-only venv"


def test_a_users_pytest_suite_runs_with_the_core_install(core_python: Path, tmp_path: Path) -> None:
    (tmp_path / "test_user.py").write_text(textwrap.dedent(USER_TESTS), encoding="utf-8")
    run = subprocess.run(
        [str(core_python), "-m", "pytest", "-p", "no:cacheprovider", "-rA", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    out = run.stdout + run.stderr
    assert "PASSED test_user.py::test_scripted_answerer_answers_an_agent" in out, out
    assert "PASSED test_user.py::test_kernel_tools_name_the_extra" in out, out
    assert "ERROR test_user.py::test_wants_a_kernel" in out, out
    assert "pip install 'ipyask[testing]'" in out, out
    assert "1 passed" not in out and "2 passed" in out, out
    assert "Traceback" not in out, out


FAST_LANE = "not browser and not kernel and not slow and not postgres"
"""The tests ``scripts/test --fast`` runs."""


def test_the_fast_lane_collects_in_a_core_install_with_the_test_tools() -> None:
    """No browser driver, kernel client or framework is needed to collect the fast lane: the
    folders that need one are left out, and say so."""
    try:
        python = venvs.ensure(venvs.FAST_LANE)
    except venvs.VenvError as error:
        pytest.fail(str(error), pytrace=False)
    collect = ["--collect-only", "-p", "no:cacheprovider", "-m", FAST_LANE]
    run = subprocess.run(
        [str(python), "-m", "pytest", *collect, str(venvs.ROOT / "tests")],
        capture_output=True,
        text=True,
        cwd=venvs.ROOT,
        check=False,
        timeout=500,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "error" not in out.splitlines()[-1], out  # "… 2 errors" ends a failed collection
    assert "left out: tests/widget_browser (not installed: playwright)" in out, out
