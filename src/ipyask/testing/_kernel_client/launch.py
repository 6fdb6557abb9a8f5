"""Starting and stopping a kernel process with ``jupyter_client``, from synchronous code.

``jupyter_client``'s synchronous ``KernelManager`` runs its coroutines on a per-thread event
loop that it never closes. ``KernelProcess`` instead drives an ``AsyncKernelManager`` on a
private loop that it closes on shutdown, so nothing is left behind for ``-W error`` to catch.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar

import zmq
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager

_T = TypeVar("_T")
_SPEC_NAME = "ipyask-headless"
_CHANNELS = {"iopub": zmq.SUB, "shell": zmq.DEALER, "control": zmq.DEALER}


class _LoopRunner:
    """Runs coroutines to completion on one private event loop."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None

    def run(self, coro: Awaitable[_T]) -> _T:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        loop = self._loop
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return loop.run_until_complete(coro)
        # Called from a coroutine (an async test): this thread's loop is busy, use a helper.
        box: list[tuple[bool, Any]] = []

        def target() -> None:
            try:
                box.append((True, loop.run_until_complete(coro)))
            except BaseException as exc:
                box.append((False, exc))

        thread = threading.Thread(target=target, name="ipyask-kernel-manager")
        thread.start()
        thread.join()
        ok, value = box[0]
        if not ok:
            raise value
        result: _T = value
        return result

    def close(self) -> None:
        if self._loop is not None:
            self._loop.close()


class KernelProcess:
    """A kernel subprocess with a private scratch directory.

    The scratch directory holds the connection file, a kernel spec (when started from a Python
    path), an ``IPYTHONDIR`` and ``kernel.log`` with the kernel's stdout and stderr.
    """

    def __init__(
        self,
        *,
        python: str | os.PathLike[str] | None = None,
        kernel_name: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        extra_arguments: Sequence[str] = (),
    ) -> None:
        if python is not None and kernel_name is not None:
            raise ValueError("give either python or kernel_name, not both")
        self.scratch: Path | None = None
        """The scratch directory, while the kernel runs."""
        self._python = None if kernel_name is not None else str(python or sys.executable)
        self.manager = AsyncKernelManager(kernel_name=kernel_name or _SPEC_NAME)
        self._runner = _LoopRunner()
        self._log: IO[bytes] | None = None
        self._cwd = str(cwd) if cwd is not None else os.getcwd()
        self._env = dict(env or {})
        self._extra_arguments = list(extra_arguments)

    def start(self) -> None:
        """Make the scratch directory and launch the kernel."""
        self.scratch = scratch = Path(tempfile.mkdtemp(prefix="ipyask-kernel-"))
        if self._python is not None:
            _write_spec(scratch / "kernels" / _SPEC_NAME, self._python)
            kernel_dirs = [str(scratch / "kernels")]
            self.manager.kernel_spec_manager = KernelSpecManager(kernel_dirs=kernel_dirs)
        self.manager.connection_file = str(scratch / "connection.json")
        env = {
            **os.environ,
            "IPYTHONDIR": str(scratch / "ipython"),
            "PYDEVD_DISABLE_FILE_VALIDATION": "1",
            **self._env,
        }
        self._log = (scratch / "kernel.log").open("wb")
        self._runner.run(
            self.manager.start_kernel(
                cwd=self._cwd,
                env=env,
                extra_arguments=self._extra_arguments,
                stdout=self._log,
                stderr=self._log,
            )
        )

    def connect(self, context: zmq.Context[zmq.Socket[bytes]]) -> dict[str, zmq.Socket[bytes]]:
        """Open and connect a socket for each of the iopub, shell and control channels."""
        info = self.manager.get_connection_info()
        sockets: dict[str, zmq.Socket[bytes]] = {}
        for channel, kind in _CHANNELS.items():
            sock = context.socket(kind)
            sock.linger = 0
            if kind == zmq.SUB:
                sock.rcvhwm = 0  # keep every message while the caller is not pumping
                sock.setsockopt(zmq.SUBSCRIBE, b"")
            port = info[f"{channel}_port"]  # type: ignore[literal-required]
            if info.get("transport", "tcp") == "ipc":
                sock.connect(f"ipc://{info['ip']}-{port}")
            else:
                sock.connect(f"tcp://{info['ip']}:{port}")
            sockets[channel] = sock
        return sockets

    @property
    def pid(self) -> int | None:
        """Process id of the kernel, once started."""
        pid = getattr(self.manager.provisioner, "pid", None)
        return pid if isinstance(pid, int) else None

    def is_alive(self) -> bool:
        alive: bool = self._runner.run(self.manager.is_alive())
        return alive

    def interrupt(self) -> None:
        self._runner.run(self.manager.interrupt_kernel())

    def restart(self, *, now: bool = False) -> None:
        """Stop the kernel (politely unless ``now``) and start a new one on the same ports, as
        a front end's *Restart kernel* does through its kernel manager."""
        self._runner.run(self.manager.restart_kernel(now=now))

    def log_tail(self, limit: int = 4000) -> str:
        """The end of the kernel's stdout and stderr."""
        if self.scratch is None:
            return ""
        try:
            data = (self.scratch / "kernel.log").read_bytes()
        except OSError:
            return ""
        return data[-limit:].decode("utf-8", "replace")

    def shutdown(self, *, now: bool = False) -> None:
        """Stop the kernel (politely unless ``now``), then remove every local resource."""
        try:
            if self.manager.has_kernel:
                self._runner.run(self.manager.shutdown_kernel(now=now))
        finally:
            self._runner.close()
            if self._log is not None:
                self._log.close()
            if self.scratch is not None:
                shutil.rmtree(self.scratch, ignore_errors=True)


def _write_spec(spec_dir: Path, python: str) -> None:
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": f"Python ({python})",
        "language": "python",
        "interrupt_mode": "signal",
        "metadata": {"debugger": False},
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
