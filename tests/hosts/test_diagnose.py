"""``ipyask.diagnose()`` in process: what it reports for each host's signals; it only reads.

The host is told by signals in the process (see ``ipyask._notebook.cell_wait._front_ends``);
these tests set each signal and check the host, the strategies and the report. A real kernel is
in ``test_diagnose_in_kernel``.
"""

from __future__ import annotations

import asyncio
import io
import sys
import types

import pytest

import ipyask
from ipyask._notebook.cell_wait import detect_host

HOST_VARIABLES = ("COLAB_RELEASE_TAG", "SERVER_SOFTWARE", "JPY_SESSION_NAME", "VSCODE_PID")


@pytest.fixture(autouse=True)
def no_host_signals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever started pytest, no host's variable leaks into these tests."""
    for name in [
        *HOST_VARIABLES,
        *(n for n in list(__import__("os").environ) if n.startswith("VOILA_")),
    ]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.delitem(sys.modules, "google.colab.output", raising=False)


def test_plain_python_reports_no_kernel_and_the_versions() -> None:
    out = io.StringIO()
    found = ipyask.diagnose(file=out)
    assert isinstance(found, ipyask.Diagnosis)
    assert (found.host, found.kernel, found.subshells) == ("python", None, False)
    assert (found.await_strategy, found.blocking_strategy, found.front_end) == (None, None, None)
    assert found.ipyask == ipyask.__version__
    assert found.ipywidgets is not None and found.anywidget is not None
    report = out.getvalue()
    assert report.startswith(f"ipyask {ipyask.__version__} diagnosis\n")
    assert "plain Python (no IPython shell)" in report
    assert "no kernel: waits for the answerers of ipyask.default_service()" in report
    assert "not made yet" in report


def test_diagnose_makes_no_panel() -> None:
    from ipyask._notebook._one_liners import panel_if_made

    before = panel_if_made()
    ipyask.diagnose(file=io.StringIO())
    assert panel_if_made() == before


def test_the_echoed_value_is_one_line() -> None:
    from IPython.lib.pretty import pretty

    text = pretty(ipyask.diagnose(file=io.StringIO()))
    assert "\n" not in text
    assert text.startswith("Diagnosis(host='python'")


@pytest.mark.parametrize(
    ("variable", "value", "host", "signal"),
    [
        ("COLAB_RELEASE_TAG", "release-colab_20260101", "colab", "COLAB_RELEASE_TAG is set"),
        ("SERVER_SOFTWARE", "voila/0.5.13", "voila", "SERVER_SOFTWARE=voila/0.5.13"),
        ("VOILA_BASE_URL", "/", "voila", "VOILA_BASE_URL is set"),
    ],
)
def test_environment_signals(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, host: str, signal: str
) -> None:
    monkeypatch.setenv(variable, value)
    assert (detect_host().name, detect_host().signal) == (host, signal)


def test_kernel_only_signals_need_a_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """JPY_SESSION_NAME and VSCODE_PID tell a host only in a kernel: a terminal started from
    VS Code, or a script run from a notebook's shell, is still plain Python."""
    monkeypatch.setenv("JPY_SESSION_NAME", "/tmp/x.ipynb")
    monkeypatch.setenv("VSCODE_PID", "123")
    assert detect_host().name == "python"


class FakeKernel:
    """A kernel as the host detection sees it: a shell with a user namespace, no subshells."""

    def __init__(self) -> None:
        self.shell = types.SimpleNamespace(user_ns={})


@pytest.fixture
def fake_kernel(monkeypatch: pytest.MonkeyPatch) -> FakeKernel:
    kernel = FakeKernel()
    monkeypatch.setattr("ipyask._notebook.cell_wait._front_ends.current_kernel", lambda: kernel)
    return kernel


def test_kernel_hosts_by_their_signals(
    monkeypatch: pytest.MonkeyPatch, fake_kernel: FakeKernel
) -> None:
    assert detect_host().name == "kernel"
    monkeypatch.setenv("VSCODE_PID", "123")
    assert detect_host().name == "vscode"
    monkeypatch.setenv("JPY_SESSION_NAME", "/tmp/x.ipynb")
    assert (
        detect_host().name == "jupyter"
    )  # a Jupyter server's kernel, opened from VS Code's terminal
    fake_kernel.shell.user_ns["__vsc_ipynb_file__"] = "/tmp/x.ipynb"
    found = detect_host()
    assert (found.name, found.signal) == ("vscode", "__vsc_ipynb_file__ is in the user namespace")


class FakeColabOutput(types.ModuleType):
    """``google.colab.output`` as anywidget and ipyask read it: ``_widgets._installed_url``."""

    def __init__(self) -> None:
        super().__init__("google.colab.output")
        self._widgets = types.SimpleNamespace(_installed_url=None)
        self.enabled = 0

    def enable_custom_widget_manager(self) -> None:
        self.enabled += 1
        self._widgets._installed_url = "https://example.invalid/manager.min.js"


def test_colab_is_told_and_its_widget_manager_enabled(monkeypatch: pytest.MonkeyPatch) -> None:
    from ipyask._notebook.cell_wait import colab_widget_manager, enable_colab_widget_manager

    output = FakeColabOutput()
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    monkeypatch.setitem(sys.modules, "google.colab.output", output)
    assert detect_host().name == "colab"
    out = io.StringIO()
    assert ipyask.diagnose(file=out).colab_widget_manager is False
    assert "custom widget manager DISABLED: no panel can show" in out.getvalue()
    assert enable_colab_widget_manager() is True
    assert enable_colab_widget_manager() is True
    assert output.enabled == 1  # enabled once, not again while it stays enabled
    assert colab_widget_manager() is True


def test_a_blocking_call_in_a_marimo_cell_fails_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a running marimo cell (faked: marimo's context says a cell runs, and the cell runs in
    the loop of its thread) ``ask_blocking`` raises at once instead of blocking marimo's loop."""
    monkeypatch.setattr("ipyask._notebook.cell_wait._marimo.marimo_cell", lambda: object())

    async def cell() -> None:
        ipyask.ask_blocking("Proceed?", ["Yes", "No"])

    with pytest.raises(ipyask.errors.BlockingUnsupportedError, match="start the agent as a task"):
        asyncio.run(asyncio.wait_for(cell(), 5))
