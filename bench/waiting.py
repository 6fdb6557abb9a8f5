"""Waiting cost: the CPU a kernel spends while a question waits for its answer.

For each way of waiting, the kernel first shows that it waits (the card is in the panel, the
``input_request`` arrived, the polling cell printed its start), then its process's CPU time (user +
system, all threads, ``/proc/<pid>/stat``) and context switches (wake-ups) are read over a window of
10 s, and only then is the question answered — and the answer checked.

On ipykernel 7.4 (the project's kernel): an idle kernel, ipyask with the agent as an asyncio task,
``await ipyask.ask`` in a cell, ``ipyask.ask_blocking`` in a cell, and ``input()`` over stdin. On
ipykernel 6 (a venv under ``.cache/venvs/bench-ik6``), where jupyter-ui-poll works: the same ipyask
forms, and jupyter-ui-poll's ``run_ui_poll_loop`` (its default 20 ms sleep) and its README loop
(``poll(10)``, ``time.sleep(0.1)``).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient

from ipyask.testing import Execution, HeadlessFrontend

from ._common import (
    IK6_VENV,
    ROOT,
    KernelBench,
    Result,
    Settings,
    kernel_versions,
    log,
    proc_sample,
)

SETUP = r"""
import ipyask, ipywidgets
w_svc = ipyask.UserQuestions()
w_panel = ipyask.QuestionPanel(w_svc)
display(w_panel)

async def w_task(label):
    answer = await w_svc.ask({"questions": [{"id": "q", "question": label,
                                             "options": [{"label": "A"}, {"label": "B"}]}]})
    return answer.answers[0].selected
"""

UI_POLL_SETUP = r"""
from jupyter_ui_poll import run_ui_poll_loop, ui_events
w_text = ipywidgets.Text()
display(w_text)
"""

UI_POLL_DEFAULT = r"""
print("waiting", flush=True)
w_r = run_ui_poll_loop(lambda: w_text.value or None)
"""

UI_POLL_README = r"""
print("waiting", flush=True)
with ui_events() as poll:
    while not w_text.value:
        poll(10)
        time.sleep(0.1)
w_r = w_text.value
"""


class _Window:
    """Reads the kernel's CPU time and wake-ups over ``seconds`` while it waits."""

    def __init__(self, pid: int, seconds: float) -> None:
        self.pid = pid
        self.seconds = seconds

    def measure(self) -> dict[str, float]:
        before = proc_sample(self.pid)
        time.sleep(self.seconds)
        after = proc_sample(self.pid)
        wall = after.at - before.at
        cpu = after.cpu - before.cpu
        return {
            "wall_s": wall,
            "cpu_s": cpu,
            "cpu_percent": 100.0 * cpu / wall,
            "wakeups_per_s": (after.switches - before.switches) / wall,
        }


def _scenario(
    name: str, label: str, run: Callable[[], dict[str, float]], results: dict[str, Any]
) -> None:
    log(f"waiting: {label}")
    try:
        measured = run()
        results[name] = {"label": label, "ok": True, **measured}
    except Exception as exc:
        results[name] = {"label": label, "ok": False, "error": f"{type(exc).__name__}: {exc}"}
        log(f"waiting: {label} failed: {exc}")


def _wait_started(execution: Execution, person: HeadlessFrontend) -> None:
    person.kernel.wait_for(lambda: "waiting" in execution.stdout, timeout=30, what="the cell")
    time.sleep(0.3)  # let the waiting loop settle


def _measure_kernel(python: str | None, seconds: float, *, ui_poll: bool) -> dict[str, Any]:
    results: dict[str, Any] = {}
    options: dict[str, Any] = {"timeout": 60, "log_size": 200}
    if python is not None:
        options["python"] = python
    with HeadlessFrontend(**options) as person:
        fe = person.kernel
        bench = KernelBench(fe)
        window = _Window(bench.pid, seconds)
        results["versions"] = kernel_versions(fe)
        (w_panel,) = fe.execute(SETUP).displayed_models
        time.sleep(1.0)  # start-up work ends

        def answer(label: str, panel: str | None = None) -> dict[str, float]:
            card = person.wait_for_card(label, panel=panel, timeout=30)
            measured = window.measure()
            person.answer(card["key"], {card["questions"][0]["id"]: "A"})
            return measured

        def idle() -> dict[str, float]:
            return window.measure()

        def task() -> dict[str, float]:
            bench.start("wait", "w_task('Waiting as a task?')")
            measured = answer("Waiting as a task?", w_panel)
            if bench.wait("wait") != ["A"]:
                raise RuntimeError("wrong answer")
            return measured

        def in_cell(form: str) -> Callable[[], dict[str, float]]:
            def run() -> dict[str, float]:
                label = f"Waiting in a cell ({form})?"
                cell = fe.execute_nowait(f"w_r = {form}({label!r}, options=['A', 'B'])")
                measured = answer(label)
                cell.wait(timeout=30)
                if bench.value("w_r") != "A":
                    raise RuntimeError("wrong answer")
                return measured

            return run

        _scenario("idle", "idle kernel, nothing pending", idle, results)
        _scenario("ipyask_task", "ipyask: agent as an asyncio task", task, results)
        _scenario(
            "ipyask_await",
            "ipyask: `await ipyask.ask` in a cell",
            in_cell("await ipyask.ask"),
            results,
        )
        _scenario(
            "ipyask_blocking",
            "ipyask: `ipyask.ask_blocking` in a cell",
            in_cell("ipyask.ask_blocking"),
            results,
        )
        if not ui_poll:
            _scenario(
                "input", "`input()` over the stdin channel", lambda: _input(bench, window), results
            )
        else:
            (text,) = fe.execute(UI_POLL_SETUP).displayed_models

            def ui(code: str) -> Callable[[], dict[str, float]]:
                def run() -> dict[str, float]:
                    cell = fe.execute_nowait(code)
                    _wait_started(cell, person)
                    measured = window.measure()
                    fe.send_update(text, {"value": "A"})
                    cell.wait(timeout=30)
                    if bench.value("w_r") != "A":
                        raise RuntimeError("wrong answer")
                    fe.execute("w_text.value = ''")
                    return measured

                return run

            _scenario(
                "ui_poll_default",
                "jupyter-ui-poll `run_ui_poll_loop` (default 20 ms sleep)",
                ui(UI_POLL_DEFAULT),
                results,
            )
            _scenario(
                "ui_poll_readme",
                "jupyter-ui-poll README loop (`poll(10)`, `sleep(0.1)`)",
                ui(UI_POLL_README),
                results,
            )
    return results


def _input(bench: KernelBench, window: _Window) -> dict[str, float]:
    path = bench.value("__import__('ipykernel.connect').connect.get_connection_file()")
    client = BlockingKernelClient(connection_file=path)
    client.load_connection_file()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=30)
        msg_id = client.execute("w_r = input('Waiting?')", allow_stdin=True, store_history=False)
        request = client.get_stdin_msg(timeout=30)
        if request["msg_type"] != "input_request":
            raise RuntimeError(f"expected input_request, got {request['msg_type']}")
        time.sleep(0.3)
        measured = window.measure()
        client.input("A")
        while client.get_shell_msg(timeout=30)["parent_header"].get("msg_id") != msg_id:
            pass
    finally:
        client.stop_channels()
    if bench.value("w_r") != "A":
        raise RuntimeError("wrong answer")
    return measured


def ensure_ik6() -> tuple[str | None, str]:
    """The Python of the ipykernel 6 venv (made on first use), or ``None`` and why not."""
    python = IK6_VENV / "bin" / "python"
    check = (
        "import jupyter_ui_poll, ipykernel, ipyask; "
        "assert int(ipykernel.__version__.split('.')[0]) == 6"
    )
    if (
        python.exists()
        and subprocess.run([str(python), "-c", check], capture_output=True).returncode == 0
    ):
        return str(python), ""
    log(f"creating {IK6_VENV.relative_to(ROOT)} (ipykernel<7, jupyter-ui-poll, ipywidgets, ipyask)")
    try:
        subprocess.run([sys.executable, "-m", "venv", str(IK6_VENV)], check=True, timeout=120)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        packages = ["ipykernel<7", "jupyter-ui-poll", "ipywidgets>=8", "-e", str(ROOT)]
        done = subprocess.run([*pip, *packages], capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            return None, f"pip install failed: {done.stderr.strip()[-500:]}"
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"could not create the venv: {exc}"
    if subprocess.run([str(python), "-c", check], capture_output=True).returncode != 0:
        return None, "the venv does not import ipykernel 6 and jupyter-ui-poll"
    return str(python), ""


def run(settings: Settings) -> Result:
    seconds = settings.seconds(10.0, 1.0)
    result: dict[str, Any] = {"window_s": seconds, "kernels": {}}
    result["kernels"]["ik7"] = _measure_kernel(None, seconds, ui_poll=False)
    python, why = ensure_ik6()
    if python is None:
        result["ik6_error"] = why
        log(f"waiting: no ipykernel 6 venv: {why}")
    else:
        result["ik6_python"] = str(Path(python).relative_to(ROOT))
        result["kernels"]["ik6"] = _measure_kernel(python, seconds, ui_poll=True)
    return result
