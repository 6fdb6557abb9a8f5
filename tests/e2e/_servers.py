"""Jupyter servers for the end-to-end tests: JupyterLab, Notebook 7, Voila and marimo as real
subprocesses.

Each server runs in its own process group with private ``JUPYTER_*`` directories under a temp
dir, logs to a file (never a pipe), is ready once an HTTP probe answers 200, and is always
stopped: SIGTERM to the group, then SIGKILL if it lingers.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

LAB_SETTINGS = {
    # No news / update toast over the notebook.
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


class ServerError(RuntimeError):
    """A server did not come up; the message ends with the tail of its log."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def jupyter_env(base: Path) -> dict[str, str]:
    """The environment of a server: private Jupyter dirs, this venv's ``python`` first on PATH."""
    dirs = {
        "JUPYTER_CONFIG_DIR": "config",
        "JUPYTER_DATA_DIR": "data",
        "JUPYTER_RUNTIME_DIR": "runtime",
        "JUPYTERLAB_SETTINGS_DIR": "settings",
        "JUPYTERLAB_WORKSPACES_DIR": "workspaces",
        "IPYTHONDIR": "ipython",
    }
    env = dict(os.environ)
    for name, sub in dirs.items():
        path = base / sub
        path.mkdir(parents=True, exist_ok=True)
        env[name] = str(path)
    # The python3 kernelspec runs plain "python": make that this venv's interpreter.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env.pop("PYTHONWARNINGS", None)
    for name, settings in LAB_SETTINGS.items():
        target = base / "settings" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(settings))
    return env


class Server:
    """One server process; ``url`` is its base URL, ``token`` its token (may be empty)."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        *,
        cwd: Path,
        env: dict[str, str],
        port: int,
        token: str,
        probe: str,
        log: Path,
    ) -> None:
        self.name = name
        self.argv = argv
        self.cwd = cwd
        self.env = env
        self.port = port
        self.token = token
        self.url = f"http://127.0.0.1:{port}"
        self.probe = probe
        self.log_path = log
        self._log: IO[bytes] | None = None
        self._process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float) -> None:
        """Start the process and wait until the probe answers 200; stop it again on failure."""
        self._log = self.log_path.open("ab")
        self._process = subprocess.Popen(
            self.argv,
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            self._wait_ready(timeout)
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self._process is not None
            if self._process.poll() is not None:
                code = self._process.returncode
                raise ServerError(f"{self.name} exited with {code}\n{self.tail()}")
            try:
                with urllib.request.urlopen(self.url + self.probe, timeout=2) as response:
                    if response.status == 200:
                        return
            except urllib.error.HTTPError as error:
                error.close()
            except OSError:  # refused or reset while starting; URLError is an OSError
                pass
            time.sleep(0.1)  # polling an HTTP endpoint: nothing to wait on
        raise ServerError(f"{self.name} not ready after {timeout:.0f} s\n{self.tail()}")

    def tail(self, lines: int = 30) -> str:
        """The last lines of the server log."""
        if not self.log_path.exists():
            return ""
        text = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])

    def stop(self) -> None:
        """Stop the server and every process it started (its kernels); idempotent."""
        process, self._process = self._process, None
        if process is not None:
            spawned = _descendants(process.pid)
            if process.poll() is None:
                _signal_group(process.pid, signal.SIGTERM)  # the server shuts its kernels down
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    _signal_group(process.pid, signal.SIGKILL)
                    process.wait(timeout=10)
            # Kernels run in sessions of their own: kill any the server left behind.
            for pid in spawned:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        if self._log is not None:
            self._log.close()
            self._log = None


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)


def _descendants(pid: int) -> list[int]:
    """The living descendants of ``pid`` (from /proc), children first."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents[int(stat.parent.name)] = int(fields[1])
    found: list[int] = []
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        found.extend(children)
        frontier.extend(children)
    return found


@contextlib.contextmanager
def serving(make: Callable[[], Server], timeout: float) -> Iterator[Server]:
    """Start ``make()``'s server; if it fails, a fresh one (new port) once, no more. Every server
    made is stopped on leaving."""
    made: list[Server] = []

    def started() -> Server:
        server = make()
        made.append(server)
        server.start(timeout)
        return server

    try:
        try:
            first = started()
        except ServerError as error:
            try:
                first = started()
            except ServerError as again:
                raise again from error
        yield first
    finally:
        for server in made:
            server.stop()


def lab_server(root: Path, base: Path) -> Server:
    """A JupyterLab server on a free port, serving ``root``, with a random token."""
    port, token = free_port(), secrets.token_hex(16)
    argv = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.token={token}", "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.expose_app_in_browser=True",
    ]  # fmt: skip
    return Server(
        "jupyter lab",
        argv,
        cwd=root,
        env=jupyter_env(base),
        port=port,
        token=token,
        probe=f"/api/status?token={token}",
        log=base / "lab.log",
    )


def notebook_server(root: Path, base: Path) -> Server:
    """A Jupyter Notebook 7 server on a free port, serving ``root``, with a random token."""
    port, token = free_port(), secrets.token_hex(16)
    argv = [
        sys.executable, "-m", "notebook",
        "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.token={token}", "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        "--JupyterNotebookApp.expose_app_in_browser=True",
    ]  # fmt: skip
    return Server(
        "jupyter notebook",
        argv,
        cwd=root,
        env=jupyter_env(base),
        port=port,
        token=token,
        probe=f"/api/status?token={token}",
        log=base / "notebook.log",
    )


def voila_server(notebook: Path, base: Path) -> Server:
    """Voila serving ``notebook`` on a free port (a folder: each of its notebooks at
    ``/voila/render/<name>``)."""
    port = free_port()
    argv = [
        sys.executable, "-m", "voila", str(notebook),
        "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1",
        "--ServerApp.port_retries=0", "--show_tracebacks=True",
        # Notebook 7's JupyterLab extension (its "open in Notebook" menu) fails to load in
        # Voila's page and logs an error there; Voila has no use for it.
        "--VoilaConfiguration.extension_denylist=['@jupyter-notebook/lab-extension']",
    ]  # fmt: skip
    return Server(
        "voila",
        argv,
        cwd=notebook if notebook.is_dir() else notebook.parent,
        env=jupyter_env(base),
        port=port,
        token="",
        probe="/voila/static/voila.js",
        log=base / "voila.log",
    )


def marimo_server(notebook: Path, base: Path) -> Server:
    """``marimo run`` serving ``notebook`` as an app on a free port, without a token."""
    port = free_port()
    argv = [
        sys.executable, "-m", "marimo", "run", str(notebook),
        "--headless", "--host=127.0.0.1", f"--port={port}", "--no-token",
    ]  # fmt: skip
    env = jupyter_env(base)
    env["MARIMO_SKIP_UPDATE_CHECK"] = "1"
    return Server(
        "marimo run",
        argv,
        cwd=notebook.parent,
        env=env,
        port=port,
        token="",
        probe="/health",
        log=base / "marimo.log",
    )


def jupyter_server(root: Path, base: Path, *options: str, base_url: str = "/") -> Server:
    """A plain Jupyter Server (the extensions this venv enables, ipyask's inbox page among them)
    on a free port, serving ``root``, with a random token; ``options`` are more arguments. Its
    ``url`` ends with ``base_url`` (without its last slash), as JupyterHub's ``/user/<name>/``."""
    port, token = free_port(), secrets.token_hex(16)
    argv = [
        sys.executable, "-m", "jupyter_server",
        "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", "--ServerApp.password=",
        f"--ServerApp.root_dir={root}", f"--ServerApp.base_url={base_url}",
        *options,
    ]  # fmt: skip
    env = jupyter_env(base)
    env.pop("IPYASK_STORE", None)  # the store is the root's default, or the one ``options`` name
    prefix = base_url.rstrip("/")
    server = Server(
        "jupyter server",
        argv,
        cwd=root,
        env=env,
        port=port,
        token=token,
        probe=f"/api/status?token={token}",
        log=base / "server.log",
    )
    server.url += prefix  # the probe and the tests' paths go under it
    return server
