"""Waits for the local JupyterLab that ``scripts/demo`` started, then prints the URL that opens
a notebook in it (with the server's token).

Usage: ``_lab_url.py PORT TOKEN NOTEBOOK [SERVER_PID]``. Exits 1, with a message, when the
server process ends or the server does not answer within ``--timeout`` seconds (default 120).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


def lab_url(port: int, token: str, notebook: str) -> str:
    """The URL that opens ``notebook`` (relative to the server's root) in JupyterLab."""
    path = urllib.parse.quote(notebook)
    return f"http://127.0.0.1:{port}/lab/tree/{path}?token={urllib.parse.quote(token)}"


def server_up(port: int, token: str) -> bool:
    """Whether the server answers its status API (with the token: it must be ours)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/status", headers={"Authorization": f"token {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def alive(pid: int | None) -> bool:
    if pid is None:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("port", type=int)
    parser.add_argument("token")
    parser.add_argument("notebook")
    parser.add_argument("pid", type=int, nargs="?")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.timeout
    while not server_up(args.port, args.token):
        if not alive(args.pid):
            print("JupyterLab stopped before it was up (see its log above)", file=sys.stderr)
            return 1
        if time.monotonic() > deadline:
            print(f"JupyterLab did not answer within {args.timeout:g} s", file=sys.stderr)
            return 1
        time.sleep(0.25)
    print(lab_url(args.port, args.token, args.notebook), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
