"""Virtual environments with ipyask installed editable: one per ipykernel series of the kernel
matrix, and one with the core install only.

Each lives in ``.cache/venvs/<name>`` with ipyask installed editable, and is reused while its
stamp (the pip requirement plus a hash of ``pyproject.toml``) still matches. Set
``IPYASK_REFRESH_VENVS=1`` to rebuild them (e.g. to pick up a newer ipykernel 7.x).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "venvs"

SERIES = {
    "6.x": ("ipykernel-6", "ipykernel==6.*"),
    "7.3": ("ipykernel-7.3", "ipykernel==7.3.*"),
    "7.x": ("ipykernel-7", "ipykernel==7.*"),
}
"""Kernel series of the matrix: venv directory name and pip requirement."""

CORE_ONLY = "core"
"""The venv of ipyask's core install (no extras) plus pytest: what a user's test suite has."""

FAST_LANE = "fast-lane"
"""The venv of ipyask's core install plus the test tools the fast lane needs (no extras)."""

VENVS = {
    **SERIES,
    CORE_ONLY: ("core-only", "pytest"),
    FAST_LANE: ("fast-lane", "pytest pytest-asyncio pytest-timeout hypothesis"),
}
"""Each venv's directory name and pip requirements (separated by spaces)."""


class VenvError(RuntimeError):
    """A matrix venv could not be made; the message ends with pip's output."""


def _stamp(requirement: str) -> str:
    """The requirement plus a hash of ipyask's own dependencies (what the venv must hold)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib

        needs = json.dumps(tomllib.loads(text)["project"]["dependencies"])
    except ImportError:  # Python 3.10: any change of pyproject.toml counts
        needs = text
    digest = hashlib.sha256(needs.encode()).hexdigest()[:16]
    return f"{requirement} {digest}\n"


def python_of(series: str) -> Path:
    """The interpreter of a series' venv (which may not exist yet)."""
    return CACHE / VENVS[series][0] / "bin" / "python"


def ensure(series: str) -> Path:
    """Make (or reuse) the venv of ``series``; returns its python."""
    name, requirement = VENVS[series]
    venv = CACHE / name
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another test run may be making it
        stamp = venv / ".ipyask-ready"
        python = python_of(series)
        if os.environ.get("IPYASK_REFRESH_VENVS") == "1" and stamp.exists():
            shutil.rmtree(venv)
        if stamp.exists() and stamp.read_text() == _stamp(requirement) and python.exists():
            return python
        log = CACHE / f"{name}.log"
        with log.open("w") as out:
            if not python.exists():
                _run([sys.executable, "-m", "venv", "--clear", str(venv)], out, log)
            pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
            _run([*pip, "-e", str(ROOT), *requirement.split()], out, log)
        stamp.write_text(_stamp(requirement))
        return python


def _run(command: list[str], out: IO[str], log: Path) -> None:
    env = {**os.environ, "PIP_NO_INPUT": "1"}
    result = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=env, check=False)
    if result.returncode:
        lines = [
            line
            for line in log.read_text(errors="replace").splitlines()
            if not line.startswith("WARNING: Location")
        ]
        tail = "\n".join(lines[-30:])
        raise VenvError(f"{' '.join(command)} failed ({result.returncode}):\n{tail}")


def ensure_all(series: list[str]) -> dict[str, Path | VenvError]:
    """Make the venvs of ``series`` in parallel; each entry is a python or the error."""

    def one(name: str) -> Path | VenvError:
        try:
            return ensure(name)
        except VenvError as error:
            return error

    with ThreadPoolExecutor(max_workers=max(1, len(series))) as pool:
        return dict(zip(series, pool.map(one, series), strict=True))
