"""The wheel ships the inbox page and enables it: the server extension's config file is installed
under ``etc/jupyter`` (Jupyter's place for it), the page's script and the widget's bundle beside
the code; and the prebuilt JupyterLab extension that opens the page, under
``share/jupyter/labextensions``."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout (built once for the module)."""
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    [built] = out.glob("ipyask-*.whl")
    return built


def test_the_wheel_ships_the_page_and_the_config_that_enables_it(wheel: Path) -> None:
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


def test_the_wheel_ships_the_prebuilt_jupyterlab_extension_where_jupyterlab_finds_it(
    wheel: Path,
) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        prefix = next(n for n in names if ".data/" in n).split(".data/")[0] + ".data/data/"
        lab = prefix + "share/jupyter/labextensions/ipyask/"
        metadata = json.loads(archive.read(lab + "package.json"))
        install = json.loads(archive.read(lab + "install.json"))
    entry = metadata["jupyterlab"]["_build"]["load"]  # the federated extension's entry point
    assert lab + entry in names
    assert (metadata["name"], install["packageName"]) == ("ipyask", "ipyask")
    assert not [n for n in names if n.startswith("ipyask/labextension/")]  # not in the package
