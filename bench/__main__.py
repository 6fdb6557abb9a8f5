"""Run every benchmark and write ``docs/benchmarks.md`` and ``docs/benchmarks.png``.

    .venv/bin/python -m bench            # the full run (under 10 minutes on 2 cores)
    .venv/bin/python -m bench --quick    # a ~1 minute smoke run, written to artifacts/bench/
    .venv/bin/python -m bench --only roundtrip,timers
    .venv/bin/python -m bench --report artifacts/bench/results.json   # redraw from saved results

The raw results of every run are saved as JSON under ``artifacts/bench/``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import mcp_roundtrip, render_panel, report, roundtrip, scale, store, timers, waiting
from ._common import ARTIFACTS, DOCS, Result, Settings, log
from ._machine import load_average, machine

SECTIONS: dict[str, Callable[[Settings], Result]] = {
    "roundtrip": roundtrip.run,
    "waiting": waiting.run,
    "scale": scale.run,
    "render": render_panel.run,
    "timers": timers.run,
    "store": store.run,
    "long_wait": store.run_long_waits,
    "mcp": mcp_roundtrip.run,
}


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a ~1 minute smoke run")
    parser.add_argument(
        "--only", default="", help=f"comma-separated subset of: {', '.join(SECTIONS)}"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="where benchmarks.md and benchmarks.png go (default: docs/, or artifacts/bench/ "
        "with --quick or --only)",
    )
    parser.add_argument(
        "--report", type=Path, default=None, help="only redraw the report from a results JSON"
    )
    return parser.parse_args(argv)


def _write(results: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    svg = report.draw(results, out / "benchmarks.png")
    (ARTIFACTS / "benchmarks.svg").write_text(svg, encoding="utf-8")
    (out / "benchmarks.md").write_text(report.markdown(results, "benchmarks.png"), "utf-8")
    log(f"wrote {out / 'benchmarks.md'} and {out / 'benchmarks.png'}")


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    if args.report is not None:
        _write(json.loads(args.report.read_text("utf-8")), args.out or DOCS)
        return 0
    chosen = [name.strip() for name in args.only.split(",") if name.strip()] or list(SECTIONS)
    unknown = [name for name in chosen if name not in SECTIONS]
    if unknown:
        print(f"unknown section(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    settings = Settings(quick=args.quick)
    partial = args.quick or bool(args.only)
    out = args.out or (ARTIFACTS if partial else DOCS)
    started = time.monotonic()
    results: dict[str, Any] = {"settings": {"quick": args.quick}, "machine": machine()}
    results["sections"] = {}
    failed = False
    for name in chosen:
        log(f"== {name} ==")
        begun = time.monotonic()
        try:
            section = SECTIONS[name](settings)
        except Exception as exc:
            failed = True
            traceback.print_exc()
            section = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"}
        section["elapsed_s"] = time.monotonic() - begun
        results["sections"][name] = section
        log(f"{name} took {section['elapsed_s']:.0f} s")
    results["elapsed_s"] = time.monotonic() - started
    results["load_end"] = load_average()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    stem = "results-quick" if args.quick else "results"
    (ARTIFACTS / f"{stem}.json").write_text(json.dumps(results, indent=1), "utf-8")
    _write(results, out)
    log(f"done in {results['elapsed_s']:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
