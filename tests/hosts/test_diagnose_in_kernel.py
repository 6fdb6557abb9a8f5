"""``ipyask.diagnose()`` in a real ipykernel: the kernel, its strategies, and the front end as the
default panel's first view message showed it (over a subshell, then on the main shell)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from ipyask import testing

if TYPE_CHECKING:  # the kernel client loads when a test runs: a core install collects this
    from ipyask.testing import KernelFrontend

pytestmark = pytest.mark.kernel

AS_JSON = "import dataclasses, json\nprint(json.dumps(dataclasses.asdict(found)))"


@pytest.fixture(scope="module")
def fresh_kernel() -> Iterator[KernelFrontend]:
    """A kernel of its own: the default panel's history is part of what diagnose reports."""
    with testing.KernelFrontend(
        timeout=20, env={"JPY_SESSION_NAME": "/notebooks/agent.ipynb"}
    ) as fe:
        fe.execute("import ipyask")
        yield fe


def diagnosis(kernel: KernelFrontend) -> tuple[dict[str, object], str]:
    report = kernel.execute("found = ipyask.diagnose()").stdout
    return json.loads(kernel.execute(AS_JSON).stdout), report


def seen(kernel: KernelFrontend) -> tuple[dict[str, object], str]:
    """The diagnosis once the view's hello was handled (over a subshell it may come later)."""
    deadline = time.monotonic() + 10
    found, report = diagnosis(kernel)
    while found["front_end"] is None and time.monotonic() < deadline:
        time.sleep(0.05)  # the hello runs on the subshell's thread: nothing to wait on
        found, report = diagnosis(kernel)
    return found, report


def test_before_any_panel(fresh_kernel: KernelFrontend) -> None:
    found, report = diagnosis(fresh_kernel)
    assert found["host"] == "jupyter"
    assert found["host_signal"] == "JPY_SESSION_NAME is set (a Jupyter server started the kernel)"
    assert found["kernel"] == "IPythonKernel"
    assert found["subshells"] is True
    assert (found["await_strategy"], found["blocking_strategy"]) == ("native", "owned-subshell")
    assert (found["front_end"], found["panel"]) == (None, "not made")
    assert "host             JupyterLab or Notebook 7 (JPY_SESSION_NAME is set" in report
    assert "front end        not seen yet" in report
    assert "blocking call    owned-subshell: works" in report


def test_the_front_end_seen_in_the_panels_first_message(fresh_kernel: KernelFrontend) -> None:
    fresh_kernel.execute("ipyask.show_panel()")
    with testing.HeadlessFrontend(fresh_kernel, subshell=True, timeout=10) as view:
        view.send("hello")
    found, report = seen(fresh_kernel)
    assert found["front_end"] == "subshells"
    assert (found["panel"], found["panel_shown_in"], found["panel_cards"]) == ("open", 1, 0)
    assert "front end        sends widget messages on the subshells" in report

    # A new default panel, first seen by a view on the main shell (as VS Code sends).
    fresh_kernel.execute("ipyask.default_panel().close()\nipyask.show_panel()")
    main = testing.HeadlessFrontend(fresh_kernel, timeout=10)
    main.send("hello", panel=main.panels()[-1])
    found, report = seen(fresh_kernel)
    assert (found["front_end"], found["panel"]) == ("main shell", "open")
    assert "sends widget messages on the main shell" in report
