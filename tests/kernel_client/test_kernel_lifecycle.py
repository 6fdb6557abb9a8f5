"""Starting, interrupting and stopping kernels; each test owns its kernel."""

from __future__ import annotations

import os
import sys
import time

import pytest

from ipyask.testing import FrontendError, KernelDied, KernelError, KernelFrontend

pytestmark = pytest.mark.kernel


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_close_stops_the_kernel_and_cleans_up():
    with KernelFrontend(python=sys.executable, timeout=10) as frontend:
        pid = frontend.kernel_pid
        assert pid is not None
        assert frontend.execute("import os\nos.getpid()").text == str(pid)
        scratch = frontend._process.scratch
        assert scratch is not None
        assert scratch.is_dir()
    assert _gone(pid)
    assert not scratch.exists()
    frontend.close()  # idempotent
    with pytest.raises(FrontendError, match="not connected"):
        frontend.execute("1")


def test_a_kernel_that_cannot_start_is_reported(tmp_path):
    fake_python = tmp_path / "python"
    fake_python.write_text("#!/bin/sh\necho 'no ipykernel here' >&2\nexit 3\n")
    fake_python.chmod(0o755)
    frontend = KernelFrontend(python=fake_python, startup_timeout=10)
    with pytest.raises(KernelDied, match="no ipykernel here"):
        frontend.start()


def test_an_installed_kernel_spec_can_be_used():
    with KernelFrontend(kernel_name="python3", timeout=10) as frontend:
        assert frontend.execute("1 + 1").text == "2"


def test_interrupt_stops_a_sleeping_cell():
    with KernelFrontend(timeout=10) as frontend:
        cell = frontend.execute_nowait("import time\nprint('sleeping', flush=True)\ntime.sleep(60)")
        frontend.wait_for(lambda: "sleeping" in cell.stdout)
        started = time.monotonic()
        frontend.interrupt()
        with pytest.raises(KernelError) as info:
            cell.wait(timeout=5)
        assert info.value.ename == "KeyboardInterrupt"
        assert time.monotonic() - started < 5
        assert frontend.execute("'still usable'").text == "'still usable'"


def test_a_dying_kernel_is_reported():
    frontend = KernelFrontend(timeout=10).start()
    try:
        pid = frontend.kernel_pid
        cell = frontend.execute_nowait("import os\nos._exit(3)")
        with pytest.raises(KernelDied, match="the kernel died while waiting for cell"):
            cell.wait()
    finally:
        frontend.close()
    assert pid is not None
    assert _gone(pid)


async def test_usable_from_an_async_test():
    # A running event loop in this thread: kernel management runs on a helper thread.
    with KernelFrontend(timeout=10) as frontend:
        assert frontend.execute("1 + 1").text == "2"
