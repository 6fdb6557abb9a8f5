"""Importing a bridge without its framework raises an ImportError naming the extra to install.

The framework is made missing in this process: its modules are set to ``None`` in
``sys.modules``, which makes Python's import fail as for an absent package.
"""

from __future__ import annotations

import importlib
import sys

import pytest

BRIDGES = [
    ("langgraph", "langgraph", "langgraph"),
    ("openai_agents", "agents", "openai-agents"),
    ("pydantic_ai", "pydantic_ai", "pydantic-ai"),
]


@pytest.mark.parametrize(("bridge", "framework", "extra"), BRIDGES)
def test_a_bridge_without_its_framework_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, bridge: str, framework: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, framework, None)
    for name in list(sys.modules):
        if name.startswith(f"{framework}."):
            monkeypatch.setitem(sys.modules, name, None)
        if name.startswith("ipyask.integrations."):
            monkeypatch.delitem(sys.modules, name)
    with pytest.raises(ImportError) as caught:
        importlib.import_module(f"ipyask.integrations.{bridge}")
    message = str(caught.value)
    assert f"pip install 'ipyask[{extra}]'" in message
    assert message.startswith(f"ipyask.integrations.{bridge} needs {framework}, which is not")


def test_the_integrations_package_imports_no_framework(monkeypatch: pytest.MonkeyPatch) -> None:
    frameworks = {"langgraph", "langchain", "langchain_core", "agents", "pydantic_ai"}
    for name in frameworks:
        monkeypatch.setitem(sys.modules, name, None)
    for name in list(sys.modules):
        if name.split(".")[0] in frameworks:
            monkeypatch.setitem(sys.modules, name, None)
        if name.startswith("ipyask.integrations"):
            monkeypatch.delitem(sys.modules, name)
    importlib.import_module("ipyask.integrations")  # no ImportError: it imports none of them
