"""The wheel ships the inbox page and enables it: the server extension's config file is installed
under ``etc/jupyter`` (Jupyter's place for it), the page's script and the widget's bundle beside
the code."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_wheel_ships_the_page_and_the_config_that_enables_it(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    [wheel] = tmp_path.glob("ipyask-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        [config] = [n for n in names if n.endswith("/jupyter_server_config.d/ipyask.json")]
        installed = config.split("/", 2)[1:]
        assert installed == ["data", "etc/jupyter/jupyter_server_config.d/ipyask.json"]
        enabled = json.loads(archive.read(config))
    assert enabled == {"ServerApp": {"jpserver_extensions": {"ipyask": True}}}
    assert {
        "ipyask/inbox_page/static/inbox-page.js",
        "ipyask/inbox_page/static/inbox-page.css",
        "ipyask/widget/static/widget.js",
        "ipyask/widget/static/widget.css",
    } <= names
    assert not [n for n in names if n.startswith("ipyask/widget/js/")]  # sources stay out
