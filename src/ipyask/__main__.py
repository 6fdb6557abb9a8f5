"""``python -m ipyask``: command-line tools.

``python -m ipyask audit [--store LOCATION] [--output FILE]`` writes every settled question of a
store (who decided what, when, through which door, with the digest of the card they saw) as
JSON Lines.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .errors import StoreOpenError, StoreUnavailableError

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ipyask", description="ipyask's tools.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    audit = commands.add_parser(
        "audit",
        help="write who answered each settled question, as JSON Lines",
        description=(
            "Write one JSON object a line per settled question of a store: id, sessionId, "
            "callId, question, outcome, decision, answer, who, host, when, door, digest, "
            "assignee."
        ),
    )
    audit.add_argument(
        "--store",
        metavar="LOCATION",
        default=None,
        help="a store file or a postgresql:// URL (default: $IPYASK_STORE, else "
        ".ipyask/questions.sqlite3 here)",
    )
    audit.add_argument(
        "--output", metavar="FILE", default=None, help="write to FILE (default: standard output)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command; returns the exit status."""
    arguments = _parser().parse_args(argv)
    from ._audit import write_audit
    from .store import open_store

    try:
        store = open_store(arguments.store)
    except (StoreOpenError, StoreUnavailableError, ImportError) as error:
        print(f"ipyask audit: {error}", file=sys.stderr)
        return 2
    try:
        if arguments.output is None:
            write_audit(store, sys.stdout)
        else:
            with open(arguments.output, "w", encoding="utf-8") as out:
                write_audit(store, out)
    except StoreUnavailableError as error:
        print(f"ipyask audit: {error}", file=sys.stderr)
        return 1
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
