"""ipyask's benchmarks: ``.venv/bin/python -m bench`` (or ``bench/run``); see ``bench/__main__.py``.

Results go to ``docs/benchmarks.md`` and ``docs/benchmarks.png``. Not collected by pytest.
"""
