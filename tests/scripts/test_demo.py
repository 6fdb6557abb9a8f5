"""``scripts/demo``: JupyterLab opens on the quickstart notebook and its URL is printed."""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def load_lab_url() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_lab_url", SCRIPTS / "_lab_url.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lab_url = load_lab_url()


class Status(BaseHTTPRequestHandler):
    """A Jupyter server's status API: 200 with the right token, 403 without."""

    def do_GET(self) -> None:
        ok = self.path == "/api/status" and self.headers["Authorization"] == "token t0k"
        self.send_response(200 if ok else 403)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture
def server() -> Iterator[int]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Status)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def test_once_the_server_answers_the_notebook_url_is_printed(server, capsys) -> None:
    assert lab_url.main([str(server), "t0k", "quickstart.ipynb", str(os.getpid())]) == 0
    out = capsys.readouterr().out
    assert out == f"http://127.0.0.1:{server}/lab/tree/quickstart.ipynb?token=t0k\n"


def test_a_server_with_another_token_is_not_taken_for_ours(server, capsys) -> None:
    assert lab_url.main([str(server), "other", "quickstart.ipynb", "--timeout", "0.3"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "did not answer within 0.3 s" in captured.err


def test_a_server_that_stopped_is_reported_at_once(capsys) -> None:
    import subprocess
    import sys

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert lab_url.main(["1", "t", "quickstart.ipynb", str(gone.pid), "--timeout", "60"]) == 1
    assert "stopped before it was up" in capsys.readouterr().err


def test_the_demo_opens_the_quickstart_notebook_as_its_start_page() -> None:
    demo = (SCRIPTS / "demo").read_text()
    assert "--ServerApp.root_dir=notebooks" in demo
    assert "--LabApp.default_url=/lab/tree/quickstart.ipynb" in demo
    assert "scripts/_lab_url.py" in demo and "quickstart.ipynb" in demo
    assert (SCRIPTS.parent / "notebooks" / "quickstart.ipynb").is_file()
