"""Run notebooks/quickstart.ipynb end to end in a real kernel with scripted answers, and print
the transcript: the questions, the answers, what went pending and the late replies."""

from __future__ import annotations

import sys
from pathlib import Path

from notebook_scripts import SCRIPTS, THEN_AWAIT

from ipyask.testing import HeadlessFrontend, NotebookRunner

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def main(name: str = "quickstart.ipynb") -> None:
    print(f"ipyask · running {name} headless; a scripted person answers the cards\n")
    with HeadlessFrontend(cwd=str(NOTEBOOKS)) as frontend:
        runner = NotebookRunner(
            NOTEBOOKS / name,
            SCRIPTS[name],
            frontend=frontend,
            on_event=print,
            then_await=THEN_AWAIT.get(name),
        )
        runner.run()
    print("\ndone: every cell ran and every question was answered")


if __name__ == "__main__":
    main(*sys.argv[1:])
