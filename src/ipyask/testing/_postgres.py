"""A throw-away PostgreSQL cluster for tests and benchmarks of the PostgreSQL store.

It runs Debian's server binaries (``/usr/lib/postgresql/<version>/bin``) in a temporary folder,
listening only on a Unix socket in that folder. PostgreSQL refuses to run as root, so as root the
binaries run as the ``postgres`` user (``runuser``).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

__all__ = [
    "find_postgres_bin",
    "new_database",
    "postgres_stopped",
    "restart_postgres",
    "throwaway_postgres",
]


def find_postgres_bin() -> Path | None:
    """The newest installed PostgreSQL server's ``bin`` folder (``initdb``, ``pg_ctl``)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda path: int(Path(path).parent.parent.name),
    )
    return Path(found[-1]).parent if found else None


def _as_server_user(command: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


def _options(folder: Path) -> str:
    """The server's options: a Unix socket in ``folder`` only, no fsync, room for many tests."""
    return f"-k {folder} -c listen_addresses='' -c fsync=off -c max_connections=200"


@contextmanager
def throwaway_postgres() -> Iterator[str]:
    """Start a fresh cluster; yields its ``postgresql://`` URL (superuser ``postgres``).

    The cluster and its folder are removed on exit. Raises ``RuntimeError`` when no PostgreSQL
    server is installed (Debian: ``apt-get install postgresql``).
    """
    bin_dir = find_postgres_bin()
    if bin_dir is None:
        raise RuntimeError("no PostgreSQL server found: apt-get install -y postgresql")
    folder = Path(tempfile.mkdtemp(prefix="ipyask-pg-"))
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")

    def run(command: list[str]) -> None:
        subprocess.run(_as_server_user(command), check=True, capture_output=True, cwd=folder)

    initdb = [str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"]
    run([*initdb, "--no-sync", "-E", "UTF8"])
    pg_ctl = str(bin_dir / "pg_ctl")
    run([pg_ctl, "-D", str(data), "-o", _options(folder), "-l", str(folder / "log"), "-w", "start"])
    try:
        yield f"postgresql://postgres@/postgres?host={folder}"
    finally:
        subprocess.run(
            _as_server_user([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]),
            capture_output=True,
            check=False,
        )
        shutil.rmtree(folder, ignore_errors=True)


def new_database(url: str) -> str:
    """Create an empty database in the cluster of :func:`throwaway_postgres`'s ``url``; the
    new database's URL."""
    from ..store._postgres import import_psycopg

    pg = import_psycopg()
    name = f"ipyask_{uuid.uuid4().hex[:12]}"
    with pg.connect(url, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    return url.replace("@/postgres?", f"@/{name}?", 1)


def _pg_ctl(url: str, *arguments: str) -> None:
    """Run ``pg_ctl`` on the cluster of :func:`throwaway_postgres`'s ``url`` (of any of its
    databases): its folder is the ``host`` of the URL, its data in ``data`` there."""
    bin_dir = find_postgres_bin()
    if bin_dir is None:
        raise RuntimeError("no PostgreSQL server found: apt-get install -y postgresql")
    hosts = parse_qs(urlsplit(url).query).get("host")
    if not hosts:
        raise ValueError(f"not a URL of throwaway_postgres: {url!r}")
    folder = Path(hosts[0])
    # -l: a server started without a log file would keep this call's output pipe open.
    data, log = str(folder / "data"), str(folder / "log")
    command = [str(bin_dir / "pg_ctl"), "-D", data, "-l", log, *arguments]
    subprocess.run(_as_server_user(command), check=True, capture_output=True, cwd=folder)


def restart_postgres(url: str, mode: str = "fast") -> None:
    """Restart the cluster of ``url`` (``pg_ctl restart -m fast``: every connection is ended)."""
    _pg_ctl(url, "-m", mode, "-w", "restart")


@contextmanager
def postgres_stopped(url: str) -> Iterator[None]:
    """Stop the cluster of ``url`` (``-m fast``) for the block, then start it again."""
    _pg_ctl(url, "-m", "fast", "-w", "stop")
    try:
        yield
    finally:
        folder = Path(parse_qs(urlsplit(url).query)["host"][0])
        _pg_ctl(url, "-o", _options(folder), "-w", "start")
