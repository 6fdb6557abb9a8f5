"""The ImportError of a bridge whose framework is not installed: it names the extra to install."""

from __future__ import annotations

__all__ = ["missing_framework"]


def missing_framework(bridge: str, extra: str, error: ImportError) -> ImportError:
    """The error to raise from ``ipyask.integrations.<bridge>`` when importing its framework
    failed with ``error``."""
    missing = error.name.partition(".")[0] if error.name else "its framework"
    return ImportError(
        f"ipyask.integrations.{bridge} needs {missing}, which is not installed: "
        f"pip install 'ipyask[{extra}]'",
        name=error.name,
    )
