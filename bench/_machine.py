"""The machine a run happened on: CPU, cores, memory, OS, versions, load, date, commit."""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from ._common import ROOT


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def _cpu_model() -> str:
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _memory_gib() -> float:
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) / 1024 / 1024
    return float("nan")


def _os_name() -> str:
    for line in _read("/etc/os-release").splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.split("=", 1)[1].strip('"')
    return platform.system()


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages."""
    return [float(x) for x in _read("/proc/loadavg").split()[:3]] or [float("nan")] * 3


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _git() -> str:
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = bool(git("status", "--porcelain", "--untracked-files=no", "--", "src"))
    return f"{commit} (with uncommitted changes in src/)" if dirty else commit


def machine() -> dict[str, Any]:
    """Facts about this machine and the software under test."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count() or 0
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "memory_gib": round(_memory_gib(), 1),
        "os": f"{_os_name()}, Linux {platform.release()}",
        "python": platform.python_version(),
        "ipyask": f"{_version('ipyask')} @ {_git()}",
        "ipykernel": _version("ipykernel"),
        "ipywidgets": _version("ipywidgets"),
        "anywidget": _version("anywidget"),
        "jupyter_client": _version("jupyter_client"),
        "playwright": _version("playwright"),
        "load_start": load_average(),
    }
