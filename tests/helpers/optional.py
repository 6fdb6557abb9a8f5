"""The test suite's optional dependencies, and the test folders that may import them.

The fast lane (``scripts/test --fast``) collects and runs in a core install of ipyask plus the
test tools (pytest and its plugins, hypothesis, mypy, ruff). Everything else the ``test`` extra
brings is optional here: a browser driver, the kernel client, Jupyter servers, the agent
frameworks, PostgreSQL's driver. A test module imports one of them at module level only inside
the folder that owns it (``tests/test_architecture.py`` checks); the root ``conftest.py`` leaves
a folder out when one of its dependencies is not installed, and says so in the report header.
"""

from __future__ import annotations

import importlib.util

TEST_TOOLS = frozenset({"pytest", "pytest-asyncio", "pytest-timeout", "hypothesis", "mypy", "ruff"})
"""The ``test`` extra's distributions the fast lane needs: not optional."""

OPTIONAL = {
    # distribution (as pyproject.toml names it) → the module it is imported as
    "ipykernel": "ipykernel",
    "jupyter_client": "jupyter_client",
    "pyzmq": "zmq",
    "nbformat": "nbformat",
    "nbclient": "nbclient",
    "psycopg": "psycopg",
    "playwright": "playwright",
    "jupyterlab": "jupyterlab",
    "jupyter_server": "jupyter_server",
    "notebook": "notebook",
    "voila": "voila",
    "marimo": "marimo",
    "langgraph": "langgraph",
    "langchain": "langchain",
    "openai-agents": "agents",
    "pydantic-ai-slim": "pydantic_ai",
    "claude-agent-sdk": "claude_agent_sdk",
    "mcp": "mcp",
    "uvicorn": "uvicorn",
    "starlette": "starlette",
    # the docs site (the docs extra): mkdocs brings PyYAML, mkdocstrings brings Griffe
    "mkdocs": "mkdocs",
    "mkdocs-material": "material",
    "mkdocstrings": "mkdocstrings",
    "mkdocs-jupyter": "mkdocs_jupyter",
}

KERNEL = ("zmq", "jupyter_client", "ipykernel")
"""What ``ipyask.testing``'s kernel tools (``KernelFrontend``, ``HeadlessFrontend``, …) import."""

FRAMEWORKS = (
    "agents",
    "claude_agent_sdk",
    "langchain",
    "langgraph",
    "mcp",
    "pydantic_ai",
    "starlette",
    "uvicorn",
)

FOLDERS: dict[str, tuple[str, ...]] = {
    # test folder → the optional modules its test modules may import at module level
    "blocking": KERNEL,  # the kernel matrix, in venvs of each ipykernel series
    "e2e": ("playwright", "jupyterlab", "jupyter_server", "notebook", "voila", "marimo", *KERNEL),
    "integrations": (*FRAMEWORKS, *KERNEL),
    "kernel_client": KERNEL,
    "notebook_kernel": KERNEL,
    "notebooks": (*KERNEL, "nbformat", "nbclient"),
    "widget_browser": ("playwright",),
    "docs": ("mkdocs", "mkdocstrings"),  # mkdocs.yml read with PyYAML; the Griffe extension
}


def missing(folder: str) -> list[str]:
    """The optional modules ``folder`` needs that are not installed."""
    return [name for name in FOLDERS[folder] if importlib.util.find_spec(name) is None]
