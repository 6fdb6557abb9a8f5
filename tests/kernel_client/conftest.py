"""Fixtures of the headless client's tests: the shared kernel, a fresh echo widget each."""

from __future__ import annotations

import itertools
from typing import NamedTuple

import pytest

from ipyask.testing import KernelFrontend

ECHO_WIDGET = """
import threading

import anywidget
import traitlets


class Echo(anywidget.AnyWidget):
    _esm = "export default { render({ model, el }) { el.textContent = model.get('value'); } };"
    value = traitlets.Unicode("").tag(sync=True)
    count = traitlets.Int(0).tag(sync=True)
    blob = traitlets.Bytes(b"").tag(sync=True, from_json=lambda value, widget: bytes(value))

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.threads = []
        self.on_msg(self._echo)

    def _echo(self, widget, content, buffers):
        self.threads.append(threading.current_thread().name)
        self.count += 1
        self.send({"echo": content, "count": self.count}, buffers=[bytes(b) for b in buffers])
"""


class EchoWidget(NamedTuple):
    """An ``Echo`` displayed in the kernel: its variable name there and its model id."""

    name: str
    model_id: str


_names = itertools.count()


@pytest.fixture(scope="module")
def frontend(kernel: KernelFrontend) -> KernelFrontend:
    """The shared kernel, with the ``Echo`` widget class defined in it."""
    kernel.execute(ECHO_WIDGET)
    return kernel


@pytest.fixture
def echo(frontend: KernelFrontend) -> EchoWidget:
    name = f"echo_{next(_names)}"
    cell = frontend.execute(f"{name} = Echo()\ndisplay({name})")
    (model_id,) = cell.displayed_models
    return EchoWidget(name, model_id)
